import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { IPAM_03 } from "./ipam03.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([IPAM_03], id, cluster, mutate);

Deno.test("IPAM-03: no Configuration, not configured, pending Network, overlap not remapped", async () => {
  let o = await run("IPAM-03", "rome", (objs) => objs.filter((x) => x.kind !== "Configuration"));
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no Configuration for peer milan-8d1f03/);
  o = await run("IPAM-03", "rome", (objs) => {
    const c = find(objs, "Configuration", "milan-8d1f03");
    c.status.conditions[0] = { ...c.status.conditions[0], status: "False", reason: "WaitingForNetworks" };
    delete find(objs, "Network", "milan-8d1f03-external-10-70-0-0-16").status;
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /WaitingForNetworks/);
  assert.ok(
    o.evidence!.some((e) => e.includes("milan-8d1f03-external-10-70-0-0-16") && e.includes("no status.cidr")),
  );
  o = await run("IPAM-03", "rome", (objs) => {
    find(objs, "Configuration", "milan-8d1f03").status.remote.cidr.pod = ["10.244.0.0/16"];
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /not remapped/);
  o = await run("IPAM-03", "rome", (objs) => {
    find(objs, "Configuration", "milan-8d1f03").metadata.generation = 5;
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /observedGeneration 2 ≠ generation 5/);
});

Deno.test("IPAM-03: Configuration without status does not throw", async () => {
  const o = await run("IPAM-03", "rome", (objs) => {
    delete find(objs, "Configuration", "milan-8d1f03").status;
  });
  assert.equal(o.status, "fail");
});
