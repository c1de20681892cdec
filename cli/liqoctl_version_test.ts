import assert from "node:assert/strict";
import { liqoctlVersion, parseLiqoctlVersion } from "./liqoctl_version.ts";

Deno.test("liqoctl version: parsed from `liqoctl version --client`; absent or not allowed is a fact, not an error", async () => {
  assert.equal(parseLiqoctlVersion("Client version: v1.2.0\n"), "v1.2.0");
  assert.equal(parseLiqoctlVersion("nothing here"), null);
  const v = await liqoctlVersion(2_000);
  // This machine has no liqoctl (or may not run it): either way a detail, never a throw.
  if (v.version === null) assert.match(v.detail, /liqoctl (is not on PATH|not checked)/);
});
