/**
 * `deno task bench:diff`: the object half of `flyingfish diff` (diff/objects.ts: match, normalise,
 * compare) on the generated scale cluster of issue 12 (10 peers, 500 nodes, 20 000 pods in 200
 * namespaces; bench/scale/generate.ts), every kind as a capture holds it (at most 5 000 objects per
 * kind), against a copy in which a resync bumped every resourceVersion and one GatewayClient dials a new
 * address. Pure: no server, no network.
 */
import { FULL_SCALE, loadScaleCluster } from "./scale/generate.ts";
import { compareCluster } from "../diff/objects.ts";
import { type ClusterCapture, MAX_OBJECTS_PER_KIND } from "../diff/capture.ts";
import { KIND_IDS, KINDS } from "../kube/kinds.ts";
import type { K8sObject } from "../kube/source.ts";

function captureOf(objects: readonly K8sObject[]): ClusterCapture {
  const lists: ClusterCapture["lists"] = {};
  for (const id of KIND_IDS) {
    lists[id] = objects.filter((o) => o.kind === KINDS[id].kind).slice(0, MAX_OBJECTS_PER_KIND);
  }
  return { role: "local", name: "rome-4b2a9e", lists, unreadable: {}, wg: {}, truncated: [] };
}

const cluster = await loadScaleCluster({ ...FULL_SCALE });
const before = captureOf(cluster.objects);
let broken = false;
const after = captureOf(cluster.objects.map((o) => {
  const c = structuredClone(o);
  c.metadata.resourceVersion = String(Number(c.metadata.resourceVersion ?? 0) + 1000);
  if (!broken && c.kind === "GatewayClient") {
    (c.spec as { endpoint: { addresses: string[] } }).endpoint.addresses = ["198.51.100.99"];
    broken = true;
  }
  return c;
}));
const total = Object.values(before.lists).reduce((n, l) => n + (l?.length ?? 0), 0);

const fresh = (c: ClusterCapture): ClusterCapture => ({ ...c, lists: structuredClone(c.lists) });

// `flyingfish diff` of two bundles: both sides read afresh.
Deno.bench(`compareCluster: ${total} objects a side, both sides new (the CLI)`, (b) => {
  const [x, y] = [fresh(before), fresh(after)];
  b.start();
  const r = compareCluster(x, y);
  b.end();
  if (r.changes.length !== 1) throw new Error(`expected 1 change, got ${r.changes.length}`);
});

// watch and serve: each failing round against the same healthy round (normalised once, then kept).
const healthy = fresh(before);
compareCluster(healthy, fresh(after));
Deno.bench(`compareCluster: ${total} objects a side, a new round against the kept healthy one`, (b) => {
  const y = fresh(after);
  b.start();
  const r = compareCluster(healthy, y);
  b.end();
  if (r.changes.length !== 1) throw new Error(`expected 1 change, got ${r.changes.length}`);
});
