import assert from "node:assert/strict";
import { createAddressing } from "./addressing.ts";
import type { ClusterView } from "../checks/types.ts";
import type { K8sObject } from "../kube/source.ts";
import type { ProbePod, Side } from "./model.ts";
import { baseObjects, inventoryOf, type Loose, viewOf } from "../tests/support/fixtures.ts";

const MILAN_ID = "milan-8d1f03";

// Base fixtures: both clusters use pod CIDR 10.244.0.0/16; rome reaches milan's pods at 10.71.0.0/16,
// milan reaches rome's at 10.68.0.0/16 (each cluster's Configuration for the other).
async function view(name: "rome" | "milan", mutate?: (objs: Loose[]) => void): Promise<ClusterView> {
  const objs = await baseObjects(name);
  mutate?.(objs);
  return viewOf(inventoryOf(objs as K8sObject[]));
}

function pod(side: Side, ip: string, name: string, execSide: Side = side): ProbePod {
  return { side, execSide, namespace: "flyingfish-probe-t", name, node: `${name}-node`, podIP: ip };
}

const romePod = pod("local", "10.244.1.5", "rome-a");
const romePod2 = pod("local", "10.244.2.9", "rome-b");
const milanPod = pod("remote", "10.244.2.7", "milan-a");

function ip(a: ReturnType<ReturnType<typeof createAddressing>["dial"]>): string | null {
  return a.ip;
}

Deno.test("addressing: local → remote dials the remote pod remapped with the local Configuration", async () => {
  const a = createAddressing({ local: await view("rome"), remote: await view("milan"), peer: MILAN_ID });
  const d = a.dial(romePod, milanPod);
  assert.deepEqual(ip(d), "10.71.2.7");
  assert(
    d.ip !== null && d.how.includes("Configuration liqo-tenant-milan-8d1f03/milan-8d1f03 on rome-4b2a9e"),
  );
  // The far side (milan) sees rome's pod through milan's Configuration for rome.
  assert.deepEqual(ip(a.expectedSource(romePod, milanPod)), "10.68.1.5");
});

Deno.test("addressing: remote → local uses the remote Configuration both ways", async () => {
  const a = createAddressing({ local: await view("rome"), remote: await view("milan"), peer: MILAN_ID });
  assert.deepEqual(ip(a.dial(milanPod, romePod)), "10.68.1.5");
  assert.deepEqual(ip(a.expectedSource(milanPod, romePod)), "10.71.2.7");
});

Deno.test("addressing: same cluster is the plain pod IP (control grid)", async () => {
  const a = createAddressing({ local: await view("rome"), remote: null, peer: MILAN_ID });
  assert.deepEqual(a.dial(romePod, romePod2), { ip: "10.244.2.9", how: "pod IP" });
  assert.deepEqual(ip(a.expectedSource(romePod, romePod2)), "10.244.1.5");
});

Deno.test("addressing: offloaded pods are already remapped on the consumer; their own IP is the reverse", async () => {
  const a = createAddressing({ local: await view("rome"), remote: null, peer: MILAN_ID });
  const off = pod("remote", "10.71.3.9", "off-0", "local");
  const off2 = pod("remote", "10.71.4.2", "off-1", "local");
  assert.deepEqual(a.dial(romePod, off), { ip: "10.71.3.9", how: "pod IP" });
  // Between two offloaded pods (provider control grid): the provider's own addresses.
  assert.deepEqual(ip(a.dial(off, off2)), "10.244.4.2");
  // The source milan sees needs milan's Configuration: unknown without the remote kubeconfig.
  const src = a.expectedSource(romePod, off);
  assert.deepEqual(src.ip, null);
  assert(src.ip === null);
  assert.match(src.reason, /not readable without --remote-kubeconfig/);
  // Reverse direction (offloaded → rome) needs it too.
  assert.deepEqual(a.dial(off, romePod).ip, null);
});

Deno.test("addressing: offload mode with the remote kubeconfig computes the expected source", async () => {
  const a = createAddressing({ local: await view("rome"), remote: await view("milan"), peer: MILAN_ID });
  const off = pod("remote", "10.71.3.9", "off-0", "local");
  assert.deepEqual(ip(a.expectedSource(romePod, off)), "10.68.1.5");
});

Deno.test("addressing: no Configuration for the peer → null with the reason", async () => {
  const local = await view("rome", (objs) => {
    const i = objs.findIndex((o) => o.kind === "Configuration");
    objs.splice(i, 1);
  });
  const a = createAddressing({ local, remote: null, peer: MILAN_ID });
  const d = a.dial(romePod, milanPod);
  assert(d.ip === null);
  assert.match(
    d.reason,
    /rome-4b2a9e has no Configuration labelled liqo\.io\/remote-cluster-id=milan-8d1f03/,
  );
});

Deno.test("addressing: a Configuration not remapped yet → null naming status.remote.cidr.pod", async () => {
  const local = await view("rome", (objs) => {
    const cfg = objs.find((o) => o.kind === "Configuration")!;
    delete cfg.status.remote;
  });
  const d = createAddressing({ local, remote: null, peer: MILAN_ID }).dial(romePod, milanPod);
  assert(d.ip === null);
  assert.match(d.reason, /no status\.remote\.cidr\.pod \(not remapped yet/);
});

Deno.test("addressing: an IP outside the peer's pod CIDR is not guessed", async () => {
  const a = createAddressing({ local: await view("rome"), remote: null, peer: MILAN_ID });
  const d = a.dial(romePod, pod("remote", "192.168.7.7", "odd"));
  assert(d.ip === null);
  assert.match(
    d.reason,
    /192\.168\.7\.7 \(pod odd\) is not inside spec\.remote\.cidr\.pod 10\.244\.0\.0\/16/,
  );
});

Deno.test("addressing: several CIDRs map pairwise; the local cluster ID is needed for the reverse", async () => {
  const local = await view("rome", (objs) => {
    const cfg = objs.find((o) => o.kind === "Configuration")!;
    cfg.spec.remote.cidr.pod = ["10.244.0.0/16", "10.50.0.0/24"];
    cfg.status.remote.cidr.pod = ["10.71.0.0/16", "10.90.0.0/24"];
  });
  const a = createAddressing({ local, remote: await view("milan"), peer: MILAN_ID });
  assert.deepEqual(ip(a.dial(romePod, pod("remote", "10.50.0.33", "x"))), "10.90.0.33");

  const anonymous = await view("rome", (objs) => {
    const i = objs.findIndex((o) => o.kind === "ConfigMap" && o.metadata.name === "liqo-clusterid-configmap");
    objs.splice(i, 1);
  });
  const b = createAddressing({ local: anonymous, remote: await view("milan"), peer: MILAN_ID });
  const src = b.expectedSource(romePod, milanPod);
  assert(src.ip === null);
  assert.match(src.reason, /local cluster ID is unknown/);
});
