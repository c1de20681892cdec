import assert from "node:assert/strict";
import { runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { CNI_CHECKS } from "./mod.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase(CNI_CHECKS, id, cluster, mutate);

Deno.test("CNI: healthy base passes on both clusters", async () => {
  for (const c of ["rome", "milan"] as const) {
    for (const d of CNI_CHECKS) assert.equal((await run(d.id, c)).status, "pass", `${d.id} on ${c}`);
  }
});
