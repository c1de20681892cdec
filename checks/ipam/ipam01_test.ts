import assert from "node:assert/strict";
import { baseObjects, contextOf, find, inventoryOf, peersOf, viewOf } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { Outcome } from "../types.ts";
import { IPAM_01 } from "./ipam01.ts";

async function dual(mutateMilan?: (o: K8sObject[]) => void): Promise<Outcome> {
  const rome = viewOf(inventoryOf(await baseObjects("rome")));
  const milanObjs = await baseObjects("milan");
  mutateMilan?.(milanObjs);
  const milan = viewOf(inventoryOf(milanObjs));
  return await IPAM_01.run(
    contextOf(rome, { peer: peersOf(rome)[0], remote: milan, remotePeer: peersOf(milan)[0] }),
  );
}

Deno.test("IPAM-01: healthy pair passes, stale Configuration after reinstall fails", async () => {
  assert.equal((await dual()).status, "pass");
  const o = await dual((objs) => {
    const n = find(objs, "Network", "pod-cidr-10-244-0-0-16");
    n.spec.cidr = n.status.cidr = "10.245.0.0/16";
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /stale Configuration after a reinstall/);
  assert.ok(o.evidence!.some((e) => e.includes("10.244.0.0/16") && e.includes("10.245.0.0/16")));
});
