import assert from "node:assert/strict";
import {
  baseObjects,
  contextOf,
  find,
  inventoryOf,
  peersOf,
  runOnBase,
  viewOf,
} from "../tests/support/fixtures.ts";
import type { K8sObject } from "../kube/source.ts";
import type { CheckDef, Outcome } from "./types.ts";
import { IPAM_CHECKS } from "./ipam.ts";
import { configurationConfigured } from "../liqo/ipam.ts";

const def = (id: string): CheckDef => IPAM_CHECKS.find((c) => c.id === id)!;

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase(IPAM_CHECKS, id, cluster, mutate);

async function dual(mutateMilan?: (o: K8sObject[]) => void): Promise<Outcome> {
  const rome = viewOf(inventoryOf(await baseObjects("rome")));
  const milanObjs = await baseObjects("milan");
  mutateMilan?.(milanObjs);
  const milan = viewOf(inventoryOf(milanObjs));
  return await def("IPAM-01").run(
    contextOf(rome, { peer: peersOf(rome)[0], remote: milan, remotePeer: peersOf(milan)[0] }),
  );
}

Deno.test("IPAM: healthy base passes on both clusters", async () => {
  for (const c of ["rome", "milan"] as const) {
    for (const d of IPAM_CHECKS.filter((x) => x.scope === "single")) {
      assert.equal((await run(d.id, c)).status, "pass", `${d.id} on ${c}`);
    }
  }
});

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

Deno.test("IPAM-02: remap onto the node network fails with the ranges and the fix", async () => {
  const o = await run("IPAM-02", "rome", (objs) => {
    find(objs, "Configuration", "milan-8d1f03").status.remote.cidr.pod = ["192.168.0.0/16"];
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /192\.168\.0\.0\/16 contains node rome-cp-1 InternalIP 192\.168\.10\.11/);
  assert.match(o.remediation!, /--reserved-subnets 192\.168\.10\.0\/24/);
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

Deno.test("configurationConfigured accepts the v1.0/1.1 label", () => {
  const cfg = {
    metadata: { name: "x", labels: { "configuration.liqo.io/configured": "true" } },
  } as K8sObject;
  assert.ok(configurationConfigured(cfg));
  assert.ok(!configurationConfigured({ metadata: { name: "x" } }));
});

Deno.test("IPAM-03: Configuration without status does not throw", async () => {
  const o = await run("IPAM-03", "rome", (objs) => {
    delete find(objs, "Configuration", "milan-8d1f03").status;
  });
  assert.equal(o.status, "fail");
});

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
