import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { IPAM_02 } from "./ipam02.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([IPAM_02], id, cluster, mutate);

Deno.test("IPAM-02: remap onto the node network fails with the ranges and the fix", async () => {
  const o = await run("IPAM-02", "rome", (objs) => {
    find(objs, "Configuration", "milan-8d1f03").status.remote.cidr.pod = ["192.168.0.0/16"];
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /192\.168\.0\.0\/16 contains node rome-cp-1 InternalIP 192\.168\.10\.11/);
  assert.match(fixText(o.remediation), /--reserved-subnets 192\.168\.10\.0\/24/);
});

Deno.test("IPAM-02: collision with local service CIDR and reserved subnet", async () => {
  let o = await run("IPAM-02", "rome", (objs) => {
    find(objs, "Configuration", "milan-8d1f03").status.remote.cidr.external = ["10.96.0.0/16"];
  });
  assert.equal(o.status, "fail");
  assert.ok(o.evidence!.some((e) => e.includes("service-cidr")));
  o = await run("IPAM-02", "milan", (objs) => {
    find(objs, "Configuration", "rome-4b2a9e").status.remote.cidr.pod = ["10.10.0.0/16"];
  });
  assert.equal(o.status, "fail");
  assert.ok(o.evidence!.some((e) => e.includes("reserved") && e.includes("10.10.20.0/24")));
});
