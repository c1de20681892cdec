import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { IPAM_04 } from "./ipam04.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([IPAM_04], id, cluster, mutate);

Deno.test("IPAM-04: pending IP lists its Network", async () => {
  const o = await run("IPAM-04", "rome", (objs) => {
    delete find(objs, "IP", "api-server-proxy").status;
  });
  assert.equal(o.status, "fail");
  assert.ok(
    o.evidence!.some((e) =>
      e.includes("liqo/api-server-proxy") && e.includes("has status.cidr 10.70.0.0/16")
    ),
  );
  const young = await run("IPAM-04", "rome", (objs) => {
    const ip = find(objs, "IP", "api-server-proxy");
    delete ip.status;
    ip.metadata.creationTimestamp = "2026-11-30T02:29:55Z";
  });
  assert.equal(young.status, "warn");
  const netless = await run("IPAM-04", "rome", (objs) => {
    delete find(objs, "IP", "milan-8d1f03-unknown-source").status;
    delete find(objs, "Network", "external-cidr").status;
  });
  assert.ok(netless.evidence!.some((e) => e.includes("has NO status.cidr")));
});
