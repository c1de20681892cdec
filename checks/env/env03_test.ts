import assert from "node:assert/strict";
import type { DiscoveryOutcome } from "../../kube/source.ts";
import { baseObjects } from "../../tests/support/fixtures.ts";
import { ENV_03, expectedLiqoResources } from "./env03.ts";
import { runner, text } from "../../tests/support/env_checks.ts";

const run = runner([ENV_03]);

function fullDiscovery(drop: string[] = []): DiscoveryOutcome {
  const groups = [...expectedLiqoResources()].map(([gv, plurals]) => {
    const [group, version] = gv.split("/");
    return { group, version, resources: drop.includes(gv) ? [] : plurals.filter((p) => !drop.includes(p)) };
  });
  return { ok: true, groups };
}

Deno.test("ENV-03 passes when every group and resource is served", async () => {
  const o = await run("ENV-03", await baseObjects("rome"), { discovery: fullDiscovery() });
  assert.equal(o.status, "pass", text(o));
});

Deno.test("ENV-03 fails listing a missing group and missing resources", async () => {
  const o = await run("ENV-03", await baseObjects("rome"), {
    discovery: fullDiscovery(["ipam.liqo.io/v1alpha1", "publickeies"]),
  });
  assert.equal(o.status, "fail");
  assert.match(text(o), /ipam\.liqo\.io\/v1alpha1: group\/version not served/);
  assert.match(text(o), /networking\.liqo\.io\/v1beta1: missing publickeies/);
});

Deno.test("ENV-03 is unknown without discovery and skips when Liqo is absent", async () => {
  const base = await baseObjects("rome");
  assert.equal((await run("ENV-03", base)).status, "unknown");
  const denied = await run("ENV-03", base, { discovery: { ok: false, reason: "forbidden", message: "403" } });
  assert.equal(denied.status, "unknown");
  assert.match(denied.summary, /forbidden/);
  const bare = base.filter((o) => o.kind === "Node");
  const o = await run("ENV-03", bare, { discovery: { ok: true, groups: [] } });
  assert.equal(o.status, "skip");
});
