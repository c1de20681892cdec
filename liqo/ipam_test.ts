import assert from "node:assert/strict";
import type { Configuration } from "./views/networking.ts";
import { configurationConfigured } from "./ipam.ts";

Deno.test("configurationConfigured accepts the v1.0/1.1 label", () => {
  const cfg = {
    metadata: { name: "x", labels: { "configuration.liqo.io/configured": "true" } },
  } as Configuration;
  assert.ok(configurationConfigured(cfg));
  assert.ok(!configurationConfigured({ metadata: { name: "x" } }));
});
