import assert from "node:assert/strict";
import { runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { REFLECTION_CHECKS } from "./mod.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase(REFLECTION_CHECKS, id, cluster, mutate);

Deno.test("REF: healthy base passes (REF-02 skips on the provider)", async () => {
  for (const d of REFLECTION_CHECKS) {
    assert.equal((await run(d.id, "rome")).status, "pass", `${d.id} on rome`);
  }
  assert.equal((await run("REF-01", "milan")).status, "pass");
  assert.equal((await run("REF-02", "milan")).status, "skip");
  assert.equal((await run("REF-03", "milan")).status, "pass");
});
