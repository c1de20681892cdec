import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { REF_01 } from "./ref01.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([REF_01], id, cluster, mutate);

Deno.test("REF-01: provider endpoints forced ready:false with stale FC condition", async () => {
  const o = await run("REF-01", "milan", (objs) => {
    // deno-lint-ignore no-explicit-any
    const eps = objs.find((x) => x.kind === "EndpointSlice" && x.metadata.name === "web-8k2lq") as any;
    eps.endpoints[0].conditions.ready = false;
    const fc = find(objs, "ForeignCluster", "rome-4b2a9e");
    // deno-lint-ignore no-explicit-any
    fc.status.modules.networking.conditions.find((c: any) => c.type === "NetworkConnectionStatus").status =
      "Error";
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /FC networking or API-server condition not Established/);
  assert.ok(o.evidence!.some((e) => e.includes("the ForeignCluster condition is stale")));
});

Deno.test("REF-01: consumer endpoint outside the remapped CIDRs fails", async () => {
  const o = await run("REF-01", "rome", (objs) => {
    // deno-lint-ignore no-explicit-any
    const eps = objs.find((x) => x.kind === "EndpointSlice" && x.metadata.name === "web-8k2lq") as any;
    eps.endpoints[1].addresses = ["10.244.1.45"];
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /10\.244\.1\.45.*outside/);
});
