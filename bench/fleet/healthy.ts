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
  type WireguardState,
} from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { generateScaleCluster, replaceIp } from "../scale/generate.ts";

const BASE_PEER = "milan-8d1f03";
const BASE_CONSUMER = "rome-4b2a9e";
/** The second consumer of the shared provider. */
export const SECOND_CONSUMER = "capri-4e5f6a";
/** milan's gateway pod for rome: the cluster-wide objects that list it list the other tenants' too. */
const BASE_SERVER_POD = "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm";

type Obj = K8sObject & Record<string, unknown>;

const isTenantObject = (o: Obj) =>
  o.metadata.namespace === `liqo-tenant-${BASE_CONSUMER}` ||
  (o.kind === "Namespace" && o.metadata.name === `liqo-tenant-${BASE_CONSUMER}`) ||
  (o.kind === "ForeignCluster" && o.metadata.name === BASE_CONSUMER);

const renamed = <T>(v: T, from: string, to: string): T => JSON.parse(JSON.stringify(v).replaceAll(from, to));

/** What one consumer's generated peer changed of the base peer (bench/scale/generate.ts peerSwaps). */
export type PeerSwap = { keys: [string, string][]; ips: [string, string][] };

/** `text` with a peer's swapped keys and addresses. */
function swapped(text: string, swap: PeerSwap): string {
  for (const [a, b] of swap.keys) text = text.replaceAll(a, b);
  for (const [a, b] of swap.ips) text = replaceIp(text, a, b);
  return text;
}

/** Every list entry naming `pod`, followed by a copy for each other tenant (`from` renamed to it). */
function withTenants(v: unknown, pod: string, from: string, to: readonly string[]): unknown {
  if (Array.isArray(v)) {
    const out = v.map((x) => withTenants(x, pod, from, to));
    for (const e of v) {
      if (JSON.stringify(e).includes(pod)) { for (const t of to) out.push(renamed(e, from, t)); }
    }
    return out;
  }
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withTenants(x, pod, from, to)]));
  }
  return v;
}

/**
 * The base milan as provider `id` of several consumers, each tenant matching its consumer's view of
 * the peering (`swap`: the keys and addresses that consumer's generator gave this peer). The first
 * tenant is the base's own, converted; each further one a copy of it with its remapped CIDRs moved
 * down two /16s (10.68/10.69 → 10.66/10.67 → …), and every cluster-wide list that names the first
 * tenant's gateway pod names the others' too.
 */
export function providerOf(
  milan: { objects: K8sObject[]; wireguard: WireguardState },
  id: string,
  tenants: readonly { consumer: string; swap: PeerSwap }[],
): { objects: K8sObject[]; wireguard: WireguardState } {
  const convert = (text: string, t: { consumer: string; swap: PeerSwap }, m: number) => {
    let out = swapped(text, t.swap).replaceAll(BASE_PEER, id).replaceAll(BASE_CONSUMER, t.consumer);
    if (m > 0) out = replaceIp(replaceIp(out, "10.68.", `10.${68 - 2 * m}.`), "10.69.", `10.${69 - 2 * m}.`);
    return out;
  };
  const objects = milan.objects as Obj[];
  const [first, ...rest] = tenants;
  const firstPod = BASE_SERVER_POD.replace(BASE_CONSUMER, first.consumer);
  const out: Obj[] = objects.map((o) => {
    const c = JSON.parse(convert(JSON.stringify(o), first, 0)) as Obj;
    return isTenantObject(o) || !JSON.stringify(c).includes(firstPod)
      ? c
      : withTenants(c, firstPod, first.consumer, rest.map((t) => t.consumer)) as Obj;
  });
  const tenantObjects = JSON.stringify(objects.filter(isTenantObject));
  rest.forEach((t, i) => out.push(...JSON.parse(convert(tenantObjects, t, i + 1)) as Obj[]));
  const gw = Object.keys(milan.wireguard).find((k) => k.startsWith(`liqo-tenant-${BASE_CONSUMER}/`))!;
  const wireguard: WireguardState = JSON.parse(convert(JSON.stringify(milan.wireguard), first, 0));
  rest.forEach((t, i) =>
    Object.assign(wireguard, JSON.parse(convert(JSON.stringify({ [gw]: milan.wireguard[gw] }), t, i + 1)))
  );
  return { objects: out, wireguard };
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
  const out: FakeClusterConfig[] = [{
    name: "rome-4b2a9e",
    objects: await shift(hub.objects),
    wireguard: hub.wireguard,
  }];
  for (const swap of hub.peerSwaps) {
    // The base's own peer, milan, is shared with the second consumer (which sees it as the base does).
    const tenants: { consumer: string; swap: PeerSwap }[] = [{ consumer: BASE_CONSUMER, swap }];
    if (swap.id === BASE_PEER) tenants.push({ consumer: SECOND_CONSUMER, swap: { keys: [], ips: [] } });
    const p = providerOf(base, swap.id, tenants);
    out.push({ name: swap.id, objects: await shift(p.objects), wireguard: p.wireguard });
  }
  out.push({
    name: SECOND_CONSUMER,
    objects: await shift(renamed(rome.objects, BASE_CONSUMER, SECOND_CONSUMER)),
    wireguard: renamed(rome.wireguard, BASE_CONSUMER, SECOND_CONSUMER),
  });
  return out;
}
