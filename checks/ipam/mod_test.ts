import assert from "node:assert/strict";
import {
  baseObjects,
  contextOf,
  inventoryOf,
  peersOf,
  runOnBase,
  viewOf,
} from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { CheckDef } from "../types.ts";
import { IPAM_CHECKS } from "./mod.ts";

const def = (id: string): CheckDef => IPAM_CHECKS.find((c) => c.id === id)!;

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase(IPAM_CHECKS, id, cluster, mutate);

Deno.test("IPAM: healthy base passes on both clusters", async () => {
  for (const c of ["rome", "milan"] as const) {
    for (const d of IPAM_CHECKS.filter((x) => x.scope === "single")) {
      assert.equal((await run(d.id, c)).status, "pass", `${d.id} on ${c}`);
    }
  }
});

Deno.test("IPAM: kinds of a missing ipam.liqo.io group skip instead of passing on empty lists", async () => {
  const missing = { reason: "missing" as const, message: "the server could not find the requested resource" };
  const objs = (await baseObjects("rome")).filter((o) => !o.apiVersion?.startsWith("ipam.liqo.io/"));
  const view = viewOf(inventoryOf(objs, { networks: missing, ips: missing }));
  const ctx = contextOf(view, { peer: peersOf(view)[0] });
  for (const id of ["IPAM-02", "IPAM-03", "IPAM-04"]) {
    const o = await def(id).run(ctx);
    assert.equal(o.status, "skip", id);
    assert.match(o.summary, /ipam\.liqo\.io not served on .*ENV-03/, id);
  }
  const milan = viewOf(inventoryOf(await baseObjects("milan")));
  const o = await def("IPAM-01").run(
    contextOf(view, { peer: peersOf(view)[0], remote: milan, remotePeer: peersOf(milan)[0] }),
  );
  assert.equal(o.status, "skip");
});
