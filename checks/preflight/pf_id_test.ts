import assert from "node:assert/strict";
import { PF_ID } from "./pf_id.ts";
import { pairContext, solo } from "../../tests/support/preflight_checks.ts";
import { baseObjects } from "../../tests/support/fixtures.ts";

Deno.test("PF-ID: two clusters, not peered: pass; one cluster ID twice: fail", async () => {
  const ok = await PF_ID.run(pairContext(await solo("rome-solo"), await solo("milan-solo")));
  assert.equal(ok.status, "pass", ok.summary);
  const milan = await solo("milan-solo");
  const cm = milan.find((o) => o.metadata.name === "liqo-clusterid-configmap")!;
  (cm as { data: Record<string, string> }).data.CLUSTER_ID = "rome-4b2a9e";
  const twin = await PF_ID.run(pairContext(await solo("rome-solo"), milan));
  assert.equal(twin.status, "fail");
  assert.match(twin.summary, /share the Liqo cluster ID rome-4b2a9e/);
});

Deno.test("PF-ID: already peered is a skip pointing to check, with the fact for the verdict", async () => {
  const o = await PF_ID.run(pairContext(await baseObjects("rome"), await baseObjects("milan")));
  assert.equal(o.status, "skip");
  assert.equal(o.facts?.preflightPeered, true);
  assert.match(o.summary, /already peered: diagnose the peering with flyingfish check/);
});

Deno.test("PF-ID: no Liqo on the provider: told apart by API server and CA", async () => {
  const o = await PF_ID.run(pairContext(await solo("rome-solo"), await solo("milan-bare")));
  assert.equal(o.status, "pass", o.summary);
  assert.match(o.summary, /kube-system UIDs differ/);
});
