import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { ENV_02, parseSemver } from "./env02.ts";
import { runner, text } from "../../tests/support/env_checks.ts";

const run = runner([ENV_02]);

function retag(objects: K8sObject[], version: string): K8sObject[] {
  return JSON.parse(JSON.stringify(objects).replaceAll("v1.2.0", version));
}

Deno.test("ENV-02 passes with equal versions on both sides", async () => {
  const o = await run("ENV-02", await baseObjects("rome"), { remote: await baseObjects("milan") });
  assert.equal(o.status, "pass", text(o));
  assert.match(o.summary, /both clusters run Liqo v1\.2\.0/);
});

Deno.test("ENV-02 fails beyond patch and warns on patch differences", async () => {
  const rome = await baseObjects("rome"), milan = await baseObjects("milan");
  let o = await run("ENV-02", rome, { remote: retag(milan, "v1.1.2") });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /beyond patch level: rome-4b2a9e v1\.2\.0, milan-8d1f03 v1\.1\.2/);
  assert.match(fixText(o.remediation), /on milan-8d1f03 \(v1\.1\.2\)/);
  o = await run("ENV-02", rome, { remote: retag(milan, "v1.2.1") });
  assert.equal(o.status, "warn");
  assert.match(fixText(o.remediation), /Align rome-4b2a9e on v1\.2\.1/);
});

Deno.test("ENV-02 warns when gateway images lag behind the controller-manager", async () => {
  const rome = await baseObjects("rome");
  const gw = find(rome, "Pod", "gw-milan-8d1f03-7c9d5b6f8d-q4xzt");
  for (const c of gw.spec.containers) c.image = c.image.replace("v1.2.0", "v1.1.2");
  const o = await run("ENV-02", rome, { remote: await baseObjects("milan") });
  assert.equal(o.status, "warn");
  assert.match(text(o), /gateway .* runs v1\.1\.2, controller-manager v1\.2\.0/);
});

Deno.test("ENV-02 is unknown for differing non-release tags and skips without a remote", async () => {
  const rome = await baseObjects("rome");
  let o = await run("ENV-02", rome, { remote: retag(await baseObjects("milan"), "3f9c2d1") });
  assert.equal(o.status, "unknown");
  o = await run("ENV-02", rome);
  assert.equal(o.status, "skip");
});

Deno.test("parseSemver", () => {
  assert.deepEqual(parseSemver("v1.2.0"), [1, 2, 0]);
  assert.deepEqual(parseSemver("1.10.3-rc.1"), [1, 10, 3]);
  assert.equal(parseSemver("3f9c2d1e"), null);
  assert.equal(parseSemver(null), null);
});
