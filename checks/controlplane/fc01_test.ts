import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { FC_01 } from "./fc01.ts";
import { fcCondition, runner, text } from "../../tests/support/controlplane_checks.ts";

const run = runner([FC_01]);

Deno.test("FC-01 passes on both bases with module evidence", async () => {
  const rome = await run("FC-01", await baseObjects("rome"));
  assert.equal(rome.status, "pass");
  assert.match(text(rome), /peering age 23m54s, role Provider/);
  assert.match(
    text(rome),
    /networking: NetworkConnectionStatus=Established \(ConnectionEstablished\) for 23m16s/,
  );
  const milan = await run("FC-01", await baseObjects("milan"));
  assert.equal(milan.status, "pass");
  assert.match(text(milan), /offloading: disabled/);
});

Deno.test("FC-01 fails on an unhealthy authentication condition", async () => {
  const objs = await baseObjects("rome");
  Object.assign(fcCondition(objs, "milan-8d1f03", "authentication", "AuthIdentityControlPlaneStatus"), {
    status: "NotReady",
    reason: "IdentityNotReady",
    message: "The identity is not ready",
    lastTransitionTime: "2026-11-30T02:24:00Z",
  });
  const o = await run("FC-01", objs);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /AuthIdentityControlPlaneStatus=NotReady \(IdentityNotReady\) for 6m0s: The identity is not ready/,
  );
  assert.match(fixText(o.remediation), /get identities -l liqo\.io\/remote-cluster-id=milan-8d1f03/);

  const milan = await baseObjects("milan");
  fcCondition(milan, "rome-4b2a9e", "authentication", "AuthTenantStatus").status = "NotReady";
  const p = await run("FC-01", milan);
  assert.equal(p.status, "fail");
  assert.match(fixText(p.remediation), /get tenant/);
});

Deno.test("FC-01 warns on networking/offloading conditions, pointing at the judging check", async () => {
  const objs = await baseObjects("rome");
  Object.assign(fcCondition(objs, "milan-8d1f03", "networking", "NetworkConnectionStatus"), {
    status: "Error",
    reason: "ConnectionError",
    lastTransitionTime: "2026-11-30T02:18:00Z",
  });
  fcCondition(objs, "milan-8d1f03", "offloading", "OffloadingNodeStatus").status = "NotReady";
  const o = await run("FC-01", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /NetworkConnectionStatus=Error \(ConnectionError\) for 12m0s → see TUN-01/);
  assert.match(o.summary, /OffloadingNodeStatus=NotReady .* → see REF-02/);
});

Deno.test("FC-01 is unknown without module status", async () => {
  const objs = await baseObjects("rome");
  delete find(objs, "ForeignCluster", "milan-8d1f03").status;
  assert.equal((await run("FC-01", objs)).status, "unknown");
});
