/**
 * A healthy fleet of five: the hub `rome` — the scale generator's consumer with three providers
 * (bench/scale/generate.ts) — each provider the base `milan` made to match its peering (the
 * WireGuard keys, gateway endpoint and API server address the generator gave that peer's clone),
 * and a second consumer `capri-4e5f6a` (the base rome renamed) of the first provider, `milan`,
 * which so serves two tenants: the second is a copy of its first, renamed, its remapped CIDRs moved
 * (10.68/10.69 → 10.66/10.67), and every cluster-wide list that names the first tenant's gateway pod
 * (route and firewall status entries, per-pod routes) names the second's too. Every edge is a
 * paired, healthy peering judged from both ends. The objects are the base's CRD-valid ones with
 * string values swapped (keys, addresses, names) and list entries copied: no field is invented.
 */
import {
  DEFAULT_REFERENCE_TIME,
  type FakeClusterConfig,
  loadBase,
  shiftCertificates,
  shiftTimestamps,
} from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { generateScaleCluster, replaceIp } from "../scale/generate.ts";

const BASE_PEER = "milan-8d1f03";
const BASE_CONSUMER = "rome-4b2a9e";
/** The second consumer of the shared provider. */
export const SECOND_CONSUMER = "capri-4e5f6a";
/** milan's gateway pod for rome: the cluster-wide objects that list it list the second tenant's too. */
const BASE_SERVER_POD = "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm";

type Obj = K8sObject & Record<string, unknown>;

const isTenantObject = (o: Obj) =>
  o.metadata.namespace === `liqo-tenant-${BASE_CONSUMER}` ||
  (o.kind === "Namespace" && o.metadata.name === `liqo-tenant-${BASE_CONSUMER}`) ||
  (o.kind === "ForeignCluster" && o.metadata.name === BASE_CONSUMER);

const renamed = <T>(v: T, from: string, to: string): T => JSON.parse(JSON.stringify(v).replaceAll(from, to));

/** Every list entry naming the base tenant's gateway pod, followed by its copy for the second tenant. */
function withSecondTenant(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out = v.map(withSecondTenant);
    for (const e of v) {
      if (JSON.stringify(e).includes(BASE_SERVER_POD)) out.push(renamed(e, BASE_CONSUMER, SECOND_CONSUMER));
    }
    return out;
  }
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withSecondTenant(x)]));
  }
  return v;
}

/** The base milan serving a second consumer besides rome. */
function sharedProvider(milan: { objects: K8sObject[]; wireguard: Record<string, unknown> }) {
  const objects = milan.objects as Obj[];
  const second = objects.filter(isTenantObject).map((o) => {
    let t = JSON.stringify(o).replaceAll(BASE_CONSUMER, SECOND_CONSUMER);
    t = replaceIp(replaceIp(t, "10.68.", "10.66."), "10.69.", "10.67.");
    return JSON.parse(t) as Obj;
  });
  const widened = objects.map((o) =>
    isTenantObject(o) || !JSON.stringify(o).includes(BASE_SERVER_POD) ? o : withSecondTenant(o) as Obj
  );
  const gw = Object.keys(milan.wireguard).find((k) => k.startsWith(`liqo-tenant-${BASE_CONSUMER}/`))!;
  return {
    objects: [...widened, ...second] as K8sObject[],
    wireguard: {
      ...milan.wireguard,
      ...renamed({ [gw]: milan.wireguard[gw] }, BASE_CONSUMER, SECOND_CONSUMER),
    },
  };
}

/** The five clusters, as fake-cluster configurations named by cluster ID (the hub first). */
export async function healthyFleet(
  now: Date = new Date(),
  peers = 3,
): Promise<FakeClusterConfig[]> {
  const delta = now.getTime() - Date.parse(DEFAULT_REFERENCE_TIME);
  const shift = async (objects: K8sObject[]) =>
    await shiftCertificates(shiftTimestamps(objects, delta), delta);
  const rome = await loadBase("rome");
  const hub = generateScaleCluster(structuredClone(rome), {
    peers,
    nodes: 5,
    pods: 40,
    namespaces: 4,
    broken: false,
  });
  const base = await loadBase("milan");
  const shared = sharedProvider(base);
  const out: FakeClusterConfig[] = [{
    name: "rome-4b2a9e",
    objects: await shift(hub.objects),
    wireguard: hub.wireguard,
  }];
  for (const swap of hub.peerSwaps) {
    const convert = (text: string) => {
      for (const [a, b] of swap.keys) text = text.replaceAll(a, b);
      for (const [a, b] of swap.ips) text = replaceIp(text, a, b);
      return text.replaceAll(BASE_PEER, swap.id);
    };
    out.push({
      name: swap.id,
      // The base's own peer is the shared provider; the generated ones serve the hub alone.
      objects: await shift(
        JSON.parse(convert(JSON.stringify((swap.id === BASE_PEER ? shared : base).objects))),
      ),
      wireguard: JSON.parse(convert(JSON.stringify((swap.id === BASE_PEER ? shared : base).wireguard))),
    });
  }
  out.push({
    name: SECOND_CONSUMER,
    objects: await shift(renamed(rome.objects, BASE_CONSUMER, SECOND_CONSUMER)),
    wireguard: renamed(rome.wireguard, BASE_CONSUMER, SECOND_CONSUMER),
  });
  return out;
}
