import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { API_03 } from "./api03.ts";
import { overlay, runner, text } from "../../tests/support/controlplane_checks.ts";

const run = runner([API_03]);

Deno.test("API-03 passes on both bases", async () => {
  const rome = await run("API-03", await baseObjects("rome"));
  assert.equal(rome.status, "pass");
  assert.match(text(rome), /controlplane-milan-8d1f03 \(ControlPlane\): subject CN=rome-4b2a9e,O=liqo\.io/);
  const milan = await run("API-03", await baseObjects("milan"));
  assert.equal(milan.status, "pass");
  assert.match(text(milan), /Tenant liqo-tenant-rome-4b2a9e\/rome-4b2a9e issued/);
});

Deno.test("API-03 warns under 30 days and fails when expired", async () => {
  const expiring = await run("API-03", await overlay("rome", "cp-identity-expiring"));
  assert.equal(expiring.status, "warn");
  assert.match(expiring.summary, /notAfter 2026-12-10T02:08:54\.000Z, 9 days left/);
  const expired = await run("API-03", await overlay("rome", "cp-identity-expired"));
  assert.equal(expired.status, "fail");
  assert.match(expired.summary, /expired 3d0h ago/);
  assert.match(fixText(expired.remediation), /renews/);
});

Deno.test("API-03 fails on a cordoned/drained Tenant and on a Denied ResourceSlice", async () => {
  const milan = await baseObjects("milan");
  find(milan, "Tenant", "rome-4b2a9e").spec.tenantCondition = "Drained";
  let o = await run("API-03", milan);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /tenantCondition Drained/);
  assert.match(fixText(o.remediation), /liqoctl uncordon tenant rome-4b2a9e/);

  const rome = await baseObjects("rome");
  Object.assign(find(rome, "ResourceSlice", "milan-8d1f03").status.conditions[1], {
    status: "Denied",
    reason: "ResourceSliceResourcesDenied",
  });
  o = await run("API-03", rome);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /Resources=Denied \(ResourceSliceResourcesDenied\)/);
});

Deno.test("API-03 skips without Identity or Tenant and is unknown on garbage certificates", async () => {
  const none = (await baseObjects("milan")).filter((o) => o.kind !== "Tenant");
  assert.equal((await run("API-03", none)).status, "skip");
  const rome = await baseObjects("rome");
  find(rome, "Identity", "controlplane-milan-8d1f03").spec.authParams.signedCRT = "bm90IGEgY2VydA==";
  const o = await run("API-03", rome);
  assert.equal(o.status, "unknown");
  assert.match(o.summary, /certificate unreadable/);
});
