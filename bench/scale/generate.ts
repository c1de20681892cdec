/**
 * The scale cluster of issue 12: the healthy consumer `rome` (testdata/base/rome.yaml and
 * rome.wireguard.yaml) grown to `peers` providers, `nodes` real nodes and `pods` workload pods in
 * `namespaces` workload namespaces, wired the way a healthy Liqo install wires them — every node has
 * an InternalNode, a liqo-fabric pod, a `<node>-gw-node` RouteConfiguration and one GeneveTunnel per
 * peer; every Route/FirewallConfiguration carries an Applied=True entry for each pod that must apply
 * it (FAB-02, FAB-04) — so a healthy run is all-pass and its report stays short.
 *
 * The one peer of the base (milan-8d1f03) is cloned: each clone gets its own cluster ID, tenant
 * namespace, uids, WireGuard keys, gateway endpoint, API server address, gateway and virtual-kubelet
 * pods (on different nodes) and its own remapped CIDRs (milan's 10.71.0.0/16 and 10.72.0.0/16 move to
 * a free pair of /16s), so the IPAM checks see no collision. Nodes get /25 pod CIDRs out of
 * 10.244.0.0/16 (flannel SubnetLen 25: 512 nodes fit), the three base nodes keep their addresses.
 *
 * `broken: true` adds one realistic fault: a firewall drops UDP to the last peer's gateway, so its
 * Connection is stuck Connecting, WireGuard never handshaked (rx 0, tx growing) and its virtual node
 * is NotReady — TUN-01 names it.
 *
 * {@link generateScaleCluster} is pure (same base and params → same objects, at the base's reference
 * time); {@link loadScaleCluster} reads the base and shifts every timestamp and certificate to `now`
 * like a scenario.
 */
import type { K8sObject } from "../../kube/source.ts";
import {
  DEFAULT_REFERENCE_TIME,
  loadBase,
  shiftCertificates,
  shiftTimestamps,
  type WireguardState,
} from "../../fakekube/mod.ts";

/** What to generate. */
export interface ScaleParams {
  /** Provider peers (ForeignClusters, gateways, virtual nodes). */
  peers: number;
  /** Real (non-virtual) nodes, the control-plane node included. */
  nodes: number;
  /** Workload pods on the worker nodes (system, Liqo and offloaded pods come on top). */
  pods: number;
  /** Workload namespaces the pods are spread over. */
  namespaces: number;
  /** Add the fault described in the module doc. */
  broken: boolean;
}

/** The scale of issue 12: 10 peers, 500 nodes, 20 000 pods in 200 namespaces. */
export const FULL_SCALE: Readonly<ScaleParams> = {
  peers: 10,
  nodes: 500,
  pods: 20_000,
  namespaces: 200,
  broken: false,
};

/** A small instance (the first thing to get healthy; also the tests' size). */
export const SMALL_SCALE: Readonly<ScaleParams> = {
  peers: 2,
  nodes: 5,
  pods: 200,
  namespaces: 10,
  broken: false,
};

/** A generated cluster. */
export interface ScaleCluster {
  /** Every object served, with apiVersion/kind. */
  objects: K8sObject[];
  /** "namespace/pod" → WireGuard state of each gateway pod. */
  wireguard: WireguardState;
  /** Peer cluster IDs, in order (the first is the base's milan-8d1f03). */
  peers: string[];
  /**
   * What each peer's clone changed of the base peer's values that its other end holds too — WireGuard
   * keys (exact strings) and the gateway endpoint and API server addresses (IPv4) — so that end can be
   * made to match (bench/fleet/healthy.ts). Empty for the first peer, the base's own.
   */
  peerSwaps: { id: string; keys: [string, string][]; ips: [string, string][] }[];
  /** The peer whose UDP is blocked in the broken variant; null when healthy. */
  brokenPeer: string | null;
  /** Objects per kind. */
  counts: Record<string, number>;
}

/** The base's peer, cloned for every peer. */
const BASE_PEER = "milan-8d1f03";
const BASE_TENANT = `liqo-tenant-${BASE_PEER}`;
const LIQO_NS = "liqo";
/** Where the base places milan's gateway and virtual-kubelet pods. */
const BASE_GW = { node: "rome-worker-1", hostIP: "192.168.10.12", podIP: "10.244.1.17" };
const BASE_VK = { node: "rome-worker-2", hostIP: "192.168.10.13", podIP: "10.244.2.14" };
const BASE_FABRIC_IFACE = "liqo.vx5pkt7m2c";
const BASE_FABRIC_GW_IP = "10.80.0.4";
const BASE_ENDPOINT = "203.0.113.50";
const BASE_API_SERVER = "203.0.113.20";
const CITIES = [
  "paris",
  "berlin",
  "madrid",
  "vienna",
  "lisbon",
  "oslo",
  "prague",
  "dublin",
  "warsaw",
  "athens",
  "zurich",
  "brussels",
  "helsinki",
  "riga",
  "sofia",
  "turin",
  "lyon",
  "porto",
  "krakow",
  "geneva",
];
const WORDS = [
  "shop",
  "payments",
  "search",
  "orders",
  "billing",
  "auth",
  "catalog",
  "checkout",
  "media",
  "analytics",
  "ledger",
  "inventory",
  "reviews",
  "notify",
  "profile",
  "pricing",
  "shipping",
  "reports",
  "chat",
  "feeds",
];
/** Deployments of a workload namespace and their share of its pods. */
const APPS: readonly [name: string, weight: number, image: string][] = [
  ["api", 8, "registry.example.com/team/api:2.14.1"],
  ["worker", 6, "registry.example.com/team/worker:2.14.1"],
  ["web", 3, "docker.io/library/nginx:1.27"],
  ["cache", 2, "docker.io/library/redis:7.4"],
  ["cron", 1, "registry.example.com/team/cron:1.3.0"],
];

// ---------------------------------------------------------------------------------------------
// Deterministic randomness (a generator is pure: same params, same cluster)

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rand {
  #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }
  chars(alphabet: string, n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  hex(n: number): string {
    return this.chars("0123456789abcdef", n);
  }
  /** Suffix alphabet of generated Kubernetes names (no vowels, no 0/1/3). */
  suffix(n: number): string {
    return this.chars("bcdfghjklmnpqrstvwxz2456789", n);
  }
  uuid(): string {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${"89ab"[this.int(4)]}${this.hex(3)}-${
      this.hex(12)
    }`;
  }
  /** A WireGuard key: 32 random bytes, base64. */
  wgKey(): string {
    const b = new Uint8Array(32);
    for (let i = 0; i < 32; i++) b[i] = this.int(256);
    return btoa(String.fromCharCode(...b));
  }
}

// ---------------------------------------------------------------------------------------------
// Addresses

const ipv4 = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
const ipNum = (ip: string): number => ip.split(".").reduce((a, o) => a * 256 + Number(o), 0);

/** /25 pod CIDRs of 10.244.0.0/16 by node index: the base nodes keep 10.244.{0,1,2}.0, the rest follow. */
function podCidrs(count: number): string[] {
  const base = [0, 2, 4];
  const free = Array.from({ length: 512 }, (_, j) => j).filter((j) => !base.includes(j));
  return Array.from({ length: count }, (_, k) => {
    const j = k < 3 ? base[k] : free[k - 3];
    return `10.244.${j >> 1}.${(j & 1) * 128}/25`;
  });
}

/** Node InternalIPs: the base's 192.168.10.11-13, then on in 192.168.10-12.x. */
const nodeIp = (k: number): string => `192.168.${10 + Math.floor(k / 200)}.${11 + (k % 200)}`;

/** Second octets of the peers' remapped (pod, external) /16s: milan's 71/72, then free pairs. */
function remapOctets(peers: number): [number, number][] {
  const used = new Set<number>([70, 80, 244]); // external, internal, pod CIDRs
  for (let o = 96; o <= 111; o++) used.add(o); // service CIDR 10.96.0.0/12
  const out: [number, number][] = [];
  let o = 71;
  while (out.length < peers) {
    while (used.has(o) || used.has(o + 1)) o++;
    out.push([o, o + 1]);
    o += 2;
  }
  return out;
}

/** Hands out pod IPs of one node's /25 (skipping the network, cni0 gateway and reserved ones). */
class PodIpPool {
  #next: number;
  #last: number;
  #taken = new Set<string>();
  constructor(cidr: string) {
    const [ip] = cidr.split("/");
    this.#next = ipNum(ip) + 2;
    this.#last = ipNum(ip) + 126;
  }
  reserve(ip: string): void {
    this.#taken.add(ip);
  }
  take(node: string): string {
    while (this.#next <= this.#last) {
      const ip = ipv4(this.#next++);
      if (!this.#taken.has(ip)) {
        this.#taken.add(ip);
        return ip;
      }
    }
    throw new Error(`node ${node}: its /25 pod CIDR is full (too many pods per node)`);
  }
}

// ---------------------------------------------------------------------------------------------
// Small object helpers

type Obj = K8sObject & Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

const clone = <T>(o: T): T => structuredClone(o);

function find(objects: Obj[], kind: string, name: string, namespace?: string): Obj {
  const o = objects.find((x) =>
    x.kind === kind && x.metadata.name === name &&
    (namespace === undefined || x.metadata.namespace === namespace)
  );
  if (!o) throw new Error(`base: no ${kind} ${namespace ? `${namespace}/` : ""}${name}`);
  return o;
}

/** Replaces an IPv4 address (or prefix such as "10.71.") only where it is not part of a longer one. */
export function replaceIp(text: string, from: string, to: string): string {
  const esc = from.replace(/\./g, "\\.");
  const tail = from.endsWith(".") ? "(?=\\d)" : "(?![\\d])";
  return text.replace(new RegExp(`(?<![\\d.])${esc}${tail}`, "g"), to);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function appliedBy(hosts: string[], at: string): unknown[] {
  return hosts.map((host) => ({ host, type: "Applied", status: "True", lastTransitionTime: at }));
}

function count(objects: K8sObject[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of objects) out[o.kind ?? "?"] = (out[o.kind ?? "?"] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

function validate(p: ScaleParams): void {
  const bad = (what: string): never => {
    throw new Error(`scale cluster: ${what}`);
  };
  if (!Number.isInteger(p.peers) || p.peers < 1 || p.peers > 40) bad("peers must be 1..40");
  if (!Number.isInteger(p.nodes) || p.nodes < 3 || p.nodes > 512) bad("nodes must be 3..512 (/25 per node)");
  if (!Number.isInteger(p.pods) || p.pods < 0) bad("pods must be ≥ 0");
  if (!Number.isInteger(p.namespaces) || p.namespaces < 1) bad("namespaces must be ≥ 1");
  // ~100 addresses of each /25 are left for workloads (Liqo, gateway and system pods take the rest).
  if (p.pods / (p.nodes - 1) > 100) bad("more than 100 workload pods per worker node");
}

// ---------------------------------------------------------------------------------------------
// The generator

interface Peer {
  id: string;
  tenant: string;
  octets: [number, number];
  gwNode: number;
  vkNode: number;
  gwPod: string;
  gwPodIP: string;
  vkPodIP: string;
  fabricIface: string;
  fabricGwIP: string;
}

/**
 * Generates the scale cluster from the base example `rome` (its objects and WireGuard state, as
 * {@link loadBase} returns them; not modified). Pure: timestamps stay at the base's reference time.
 */
export function generateScaleCluster(
  base: { objects: K8sObject[]; wireguard: WireguardState },
  params: ScaleParams,
): ScaleCluster {
  validate(params);
  const rnd = new Rand(0x5ca1e + params.peers * 7919 + params.nodes * 104729 + params.pods);
  const src = base.objects as Obj[];
  const out: Obj[] = [];
  const wireguard: WireguardState = {};

  // -- nodes -------------------------------------------------------------------------------
  const cidrs = podCidrs(params.nodes);
  const nodeNames = Array.from(
    { length: params.nodes },
    (_, k) => (k === 0 ? "rome-cp-1" : `rome-worker-${k}`),
  );
  const pools = cidrs.map((c) => new PodIpPool(c));
  for (const o of src) {
    if (o.kind !== "Pod" || !o.status) continue;
    const k = nodeNames.indexOf((o as Any).spec?.nodeName);
    if (k >= 0 && (o as Any).status.podIP) pools[k].reserve((o as Any).status.podIP);
  }
  const nodeTemplate = find(src, "Node", "rome-worker-1");
  for (let k = 0; k < params.nodes; k++) {
    const n: Any = k < 3 ? clone(find(src, "Node", nodeNames[k])) : clone(nodeTemplate);
    const cidr = cidrs[k];
    if (k >= 3) {
      n.metadata.name = nodeNames[k];
      n.metadata.uid = rnd.uuid();
      n.metadata.resourceVersion = String(51000 + k);
      n.metadata.labels["kubernetes.io/hostname"] = nodeNames[k];
      n.metadata.annotations["flannel.alpha.coreos.com/public-ip"] = nodeIp(k);
      n.status.addresses = [{ type: "InternalIP", address: nodeIp(k) }, {
        type: "Hostname",
        address: nodeNames[k],
      }];
      n.status.nodeInfo.bootID = rnd.uuid();
      n.status.nodeInfo.systemUUID = rnd.uuid();
      n.status.nodeInfo.machineID = rnd.hex(32);
    }
    n.spec.podCIDR = cidr;
    n.spec.podCIDRs = [cidr];
    out.push(n);
  }
  const workers = params.nodes - 1;
  /** Worker k (1-based) by a running index. */
  const worker = (i: number): number => 1 + (i % workers);

  // -- peers -------------------------------------------------------------------------------
  const octets = remapOctets(params.peers);
  const peers: Peer[] = [];
  for (let i = 0; i < params.peers; i++) {
    const id = i === 0
      ? BASE_PEER
      : `${CITIES[(i - 1) % CITIES.length]}${i > CITIES.length ? Math.ceil(i / CITIES.length) : ""}-${
        rnd.hex(6)
      }`;
    const gwNode = worker(2 * i), vkNode = worker(2 * i + 1);
    const gwHash = i === 0 ? "7c9d5b6f8d" : rnd.hex(10), gwSuffix = i === 0 ? "q4xzt" : rnd.suffix(5);
    peers.push({
      id,
      tenant: `liqo-tenant-${id}`,
      octets: octets[i],
      gwNode,
      vkNode,
      gwPod: `gw-${id}-${gwHash}-${gwSuffix}`,
      gwPodIP: i === 0 ? BASE_GW.podIP : pools[gwNode].take(nodeNames[gwNode]),
      vkPodIP: i === 0 ? BASE_VK.podIP : pools[vkNode].take(nodeNames[vkNode]),
      fabricIface: i === 0
        ? BASE_FABRIC_IFACE
        : `liqo.${rnd.chars("abcdefghijklmnopqrstuvwxyz0123456789", 10)}`,
      // internal CIDR 10.80.0.0/16: nodes take .1.. (the base's 1-3, then 5..), the base fabric .4
      fabricGwIP: i === 0 ? BASE_FABRIC_GW_IP : ipv4(ipNum("10.80.0.0") + params.nodes + 1 + i),
    });
  }
  const brokenPeer = params.broken ? peers[peers.length - 1] : null;
  const overlayIp = (k: number): string => ipv4(ipNum("10.80.0.0") + (k < 3 ? k + 1 : k + 2));

  // The per-peer template: the tenant namespace's objects (GeneveTunnels are made per node below),
  // the tenant Namespace, the ForeignCluster and the virtual Node.
  const template = src.filter((o) =>
    (o.metadata.namespace === BASE_TENANT && o.kind !== "GeneveTunnel") ||
    (o.kind === "Namespace" && o.metadata.name === BASE_TENANT) ||
    (o.kind === "ForeignCluster" && o.metadata.name === BASE_PEER) ||
    (o.kind === "Node" && o.metadata.name === BASE_PEER)
  );
  const templateJson = JSON.stringify(template);
  const baseSecret: Any = find(src, "Secret", `gw-${BASE_PEER}`, BASE_TENANT);
  const basePublicKey: Any = find(src, "PublicKey", BASE_PEER, BASE_TENANT);
  const baseWgKey = Object.keys(base.wireguard).find((k) => k.startsWith(`${BASE_TENANT}/`));
  if (!baseWgKey) throw new Error(`base: no WireGuard state for the gateway of ${BASE_PEER}`);
  const baseWgJson = JSON.stringify(base.wireguard[baseWgKey]);

  const peerSwaps: ScaleCluster["peerSwaps"] = [];
  for (const [i, p] of peers.entries()) {
    let text = templateJson;
    let wg = baseWgJson;
    peerSwaps.push({ id: p.id, keys: [], ips: [] });
    if (i > 0) {
      const uids = new Map<string, string>();
      text = text.replace(UUID, (u) => {
        let v = uids.get(u);
        if (!v) uids.set(u, v = rnd.uuid());
        return v;
      });
      const keys: [string, string][] = [
        [baseSecret.data.privateKey, rnd.wgKey()],
        [baseSecret.data.publicKey, rnd.wgKey()],
        [basePublicKey.spec.publicKey, rnd.wgKey()],
      ];
      peerSwaps[i] = {
        id: p.id,
        keys,
        ips: [[BASE_ENDPOINT, `203.0.113.${50 + i}`], [BASE_API_SERVER, `198.51.100.${20 + i}`]],
      };
      const [, gwHash, gwSuffix] = p.gwPod.match(/-([0-9a-f]{10})-(\w{5})$/)!;
      const vkHash = rnd.hex(9), vkSuffix = rnd.suffix(5);
      const swap = (t: string): string => {
        for (const [a, b] of keys) t = t.replaceAll(a, b);
        t = t.replaceAll(BASE_PEER, p.id)
          .replaceAll("-7c9d5b6f8d", `-${gwHash}`).replaceAll('-q4xzt"', `-${gwSuffix}"`)
          .replaceAll("-6f8d7c9b5", `-${vkHash}`).replaceAll('-r5jvn"', `-${vkSuffix}"`)
          .replaceAll(BASE_FABRIC_IFACE, p.fabricIface)
          .replaceAll(`"${BASE_GW.node}"`, `"${nodeNames[p.gwNode]}"`)
          .replaceAll(`"${BASE_VK.node}"`, `"${nodeNames[p.vkNode]}"`)
          .replaceAll("-10-71-0-0-16", `-10-${p.octets[0]}-0-0-16`);
        t = replaceIp(t, BASE_GW.podIP, p.gwPodIP);
        t = replaceIp(t, BASE_VK.podIP, p.vkPodIP);
        t = replaceIp(t, BASE_GW.hostIP, nodeIp(p.gwNode));
        t = replaceIp(t, BASE_VK.hostIP, nodeIp(p.vkNode));
        t = replaceIp(t, BASE_FABRIC_GW_IP, p.fabricGwIP);
        t = replaceIp(t, BASE_ENDPOINT, `203.0.113.${50 + i}`);
        t = replaceIp(t, BASE_API_SERVER, `198.51.100.${20 + i}`);
        t = replaceIp(t, "10.71.", `10.${p.octets[0]}.`);
        t = replaceIp(t, "10.72.", `10.${p.octets[1]}.`);
        // the peer's "unknown source" IP, allocated from the external CIDR 10.70.0.0/16
        t = replaceIp(t, "10.70.0.3", `10.70.0.${3 + i}`);
        return t;
      };
      text = swap(text);
      wg = swap(wg);
      // the listen port is chosen at random by each gateway
      wg = wg.replace(/"listenPort":\d+/, `"listenPort":${32768 + rnd.int(28000)}`);
    }
    const objs = JSON.parse(text) as Obj[];
    const state = JSON.parse(wg);
    if (p === brokenPeer) breakPeer(objs, state, p);
    out.push(...objs);
    wireguard[`${p.tenant}/${p.gwPod}`] = state;
  }

  // -- shared objects of the base (Liqo, CNI, demo), patched for the new scale ----------------
  const skip = new Set(template);
  const fabricTemplate = find(src, "Pod", "liqo-fabric-x7k2p", LIQO_NS);
  const demoOffloaded = find(src, "Pod", "web-7d9f6c8b5-8hq7n", "demo");
  const demoIp = find(src, "IP", "web-7d9f6c8b5-8hq7n", "demo");
  const baseNodeNames = new Set(["rome-cp-1", "rome-worker-1", "rome-worker-2"]);
  const appliedAt = "2026-11-30T02:07:00Z";
  const fabricPodNames: string[] = [];
  for (const o of src) {
    if (skip.has(o)) continue;
    if (o.kind === "Node" || o.kind === "InternalNode" || o.kind === "GeneveTunnel") continue; // made below
    if (o.kind === "RouteConfiguration" && o.metadata.name.endsWith("-gw-node")) continue; // made below
    if (o.kind === "Pod" && o.metadata.namespace === LIQO_NS && o.metadata.name.startsWith("liqo-fabric-")) {
      continue;
    }
    const c: Any = clone(o);
    if (c.kind === "DaemonSet") {
      for (
        const f of [
          "currentNumberScheduled",
          "desiredNumberScheduled",
          "numberAvailable",
          "numberReady",
          "updatedNumberScheduled",
        ]
      ) {
        c.status[f] = params.nodes;
      }
    }
    if (c.kind === "ConfigMap" && c.metadata.name === "kube-flannel-cfg") {
      c.data["net-conf.json"] = c.data["net-conf.json"].replace(
        '"Network": "10.244.0.0/16",',
        '"Network": "10.244.0.0/16",\n  "SubnetLen": 25,',
      );
    }
    if (c.kind === "FirewallConfiguration" && c.metadata.namespace === LIQO_NS) {
      c.status.conditions = appliedBy(peers.map((p) => p.gwPod), appliedAt); // every gateway applies it
    }
    if (c.kind === "NamespaceOffloading") {
      const conds = c.status.remoteNamespacesConditions[BASE_PEER];
      c.status.remoteNamespacesConditions = Object.fromEntries(peers.map((p) => [p.id, clone(conds)]));
    }
    if (c.kind === "EndpointSlice" && c.metadata.namespace === "demo") {
      const remote = c.endpoints.find((e: Any) => e.nodeName === BASE_PEER);
      c.endpoints = c.endpoints.filter((e: Any) => e !== remote);
      for (const [i, p] of peers.entries()) {
        const e = clone(remote);
        const name = i === 0 ? demoOffloaded.metadata.name : `web-7d9f6c8b5-${offloadedSuffix(i)}`;
        e.addresses = [offloadedIp(p)];
        e.nodeName = p.id;
        e.targetRef = { ...e.targetRef, name, uid: i === 0 ? e.targetRef.uid : uidFor("web", i) };
        c.endpoints.push(e);
      }
    }
    if (c.kind === "Pod" && c.metadata.name === demoOffloaded.metadata.name) continue; // made below
    if (c.kind === "IP" && c.metadata.name === demoIp.metadata.name) continue; // made below
    out.push(c);
  }
  // Offloaded pods of the demo namespace: one web replica on every peer's virtual node, with its IP.
  for (const [i, p] of peers.entries()) {
    const pod: Any = clone(demoOffloaded);
    const ip: Any = clone(demoIp);
    if (i > 0) {
      pod.metadata.name = `web-7d9f6c8b5-${offloadedSuffix(i)}`;
      pod.metadata.uid = uidFor("web", i);
      ip.metadata.name = pod.metadata.name;
      ip.metadata.uid = uidFor("ip", i);
      ip.metadata.labels["offloading.liqo.io/pod-name"] = pod.metadata.name;
      ip.metadata.ownerReferences[0] = {
        ...ip.metadata.ownerReferences[0],
        name: pod.metadata.name,
        uid: pod.metadata.uid,
      };
    }
    pod.spec.nodeName = p.id;
    pod.status.hostIP = p.vkPodIP;
    pod.status.hostIPs = [{ ip: p.vkPodIP }];
    pod.status.podIP = offloadedIp(p);
    pod.status.podIPs = [{ ip: offloadedIp(p) }];
    ip.spec.ip = offloadedIp(p);
    // external CIDR allocations: api-server .1, api-server-proxy .2, the peers' unknown-source IPs, then these
    ip.status.ip = `10.70.0.${3 + params.peers + i}`;
    out.push(pod, ip);
  }

  // -- per node: InternalNode, fabric pod, system pods, GeneveTunnel per peer ------------------
  const inodeTemplate = find(src, "InternalNode", "rome-worker-1");
  const tunnelTemplate = find(src, "GeneveTunnel", `${BASE_PEER}-rome-worker-1`, BASE_TENANT);
  const gwNodes = new Set(peers.map((p) => p.gwNode));
  const fabricUid = new Map(
    out.filter((o) => o.kind === "InternalFabric").map((o) => [o.metadata.namespace, o.metadata.uid]),
  );
  const inodes: Any[] = [];
  for (let k = 0; k < params.nodes; k++) {
    const name = nodeNames[k];
    const net = ipNum(cidrs[k].split("/")[0]);
    const inode: Any = baseNodeNames.has(name)
      ? clone(find(src, "InternalNode", name))
      : clone(inodeTemplate);
    if (!baseNodeNames.has(name)) {
      inode.metadata.name = name;
      inode.metadata.uid = rnd.uuid();
      inode.metadata.resourceVersion = String(48600 + k);
      inode.spec.interface.gateway.name = `liqo.${rnd.chars("abcdefghijklmnopqrstuvwxyz0123456789", 10)}`;
      inode.spec.interface.node.ip = overlayIp(k);
    }
    // nodeIP.local is read by a gateway on the same node (cni0, .1), .remote by the others (flannel.1, .0)
    const nodeIP: Record<string, string> = {};
    if (gwNodes.has(k)) nodeIP.local = ipv4(net + 1);
    if (peers.some((p) => p.gwNode !== k)) nodeIP.remote = ipv4(net);
    inode.status = { nodeIP };
    inodes.push(inode);
    out.push(inode);

    const fabric: Any = clone(fabricTemplate);
    if (k >= 3) {
      fabric.metadata.name = `liqo-fabric-${rnd.suffix(5)}`;
      fabric.metadata.uid = rnd.uuid();
    } else {
      fabric.metadata = clone(
        find(src, "Pod", ["liqo-fabric-x7k2p", "liqo-fabric-m4q9d", "liqo-fabric-t8w3z"][k], LIQO_NS)
          .metadata,
      );
    }
    setNode(fabric, name, nodeIp(k), nodeIp(k));
    fabric.status.containerStatuses[0].containerID = `containerd://${rnd.hex(64)}`;
    fabricPodNames.push(fabric.metadata.name);
    out.push(fabric);
    out.push(
      systemPod(
        "kube-system",
        `kube-proxy-${rnd.suffix(5)}`,
        "kube-proxy",
        "registry.k8s.io/kube-proxy:v1.31.4",
        name,
        nodeIp(k),
        rnd,
      ),
    );
    out.push(
      systemPod(
        "kube-flannel",
        `kube-flannel-ds-${rnd.suffix(5)}`,
        "kube-flannel-ds",
        "ghcr.io/flannel-io/flannel:v0.26.1",
        name,
        nodeIp(k),
        rnd,
      ),
    );

    for (const p of peers) {
      const t: Any = clone(tunnelTemplate);
      const tjson = JSON.stringify(t).replaceAll(BASE_PEER, p.id).replaceAll(`"rome-worker-1"`, `"${name}"`);
      const tt: Any = JSON.parse(tjson);
      tt.metadata.name = `${p.id}-${name}`;
      tt.metadata.uid = rnd.uuid();
      tt.spec.id = k;
      tt.metadata.ownerReferences[0].uid = fabricUid.get(p.tenant);
      out.push(tt);
    }
  }

  // -- workload namespaces, deployments, pods, services, endpointslices, configmaps ------------
  const caPem = atob(
    (find(src, "Identity", `controlplane-${BASE_PEER}`, BASE_TENANT) as Any).spec.authParams.ca,
  );
  let placed = 0;
  let serviceIp = ipNum("10.110.0.10");
  for (let j = 0; j < params.namespaces; j++) {
    const ns = `${WORDS[j % WORDS.length]}-${String(j).padStart(3, "0")}`;
    const nsPods = Math.floor(params.pods / params.namespaces) +
      (j < params.pods % params.namespaces ? 1 : 0);
    out.push(namespace(ns, rnd));
    out.push(configMap(ns, "kube-root-ca.crt", { "ca.crt": caPem }, rnd));
    const total = APPS.reduce((a, [, w]) => a + w, 0);
    let left = nsPods;
    for (const [ai, [app, weight, image]] of APPS.entries()) {
      const replicas = ai === APPS.length - 1 ? left : Math.min(left, Math.round((nsPods * weight) / total));
      left -= replicas;
      const hash = rnd.hex(9).replace(/^\d/, "7");
      const deployUid = rnd.uuid(), rsUid = rnd.uuid(), svcUid = rnd.uuid();
      out.push(deployment(ns, app, image, replicas, hash, deployUid));
      out.push(configMap(ns, `${app}-config`, { "LOG_LEVEL": "info", "APP_NAME": app, "PORT": "8080" }, rnd));
      const clusterIP = ipv4(serviceIp++);
      out.push(service(ns, app, clusterIP, svcUid));
      const endpoints: unknown[] = [];
      for (let r = 0; r < replicas; r++) {
        const k = worker(placed++);
        const podIP = pools[k].take(nodeNames[k]);
        const pod = workloadPod(ns, app, image, hash, rsUid, nodeNames[k], nodeIp(k), podIP, rnd);
        out.push(pod);
        endpoints.push({
          addresses: [podIP],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: nodeNames[k],
          targetRef: { kind: "Pod", name: pod.metadata.name, namespace: ns, uid: pod.metadata.uid },
        });
      }
      out.push(endpointSlice(ns, app, svcUid, endpoints, rnd));
    }
  }

  // -- per node: the <node>-gw-node RouteConfiguration (a route per pod on the node) -----------
  const nodeRcTemplate = find(src, "RouteConfiguration", "rome-worker-1-gw-node", LIQO_NS);
  const nodeIndex = new Map(nodeNames.map((n, k) => [n, k]));
  const podsOnNode: Any[][] = Array.from({ length: params.nodes }, () => []);
  for (const o of out) {
    if (o.kind !== "Pod") continue;
    const po: Any = o;
    const k = nodeIndex.get(po.spec?.nodeName);
    if (k === undefined || po.spec?.hostNetwork || !po.status?.podIP) continue;
    podsOnNode[k].push(po);
  }
  for (let k = 0; k < params.nodes; k++) {
    const name = nodeNames[k];
    const rc: Any = baseNodeNames.has(name)
      ? clone(find(src, "RouteConfiguration", `${name}-gw-node`, LIQO_NS))
      : clone(nodeRcTemplate);
    const inode = inodes[k];
    rc.metadata.name = `${name}-gw-node`;
    if (!baseNodeNames.has(name)) rc.metadata.uid = rnd.uuid();
    rc.metadata.ownerReferences = [{
      apiVersion: "networking.liqo.io/v1beta1",
      kind: "InternalNode",
      name,
      uid: inode.metadata.uid,
    }];
    const overlay = `${inode.spec.interface.node.ip}/32`;
    const rules: unknown[] = [{
      dst: overlay,
      routes: [{ dst: overlay, dev: inode.spec.interface.gateway.name, scope: "link" }],
    }];
    if (podsOnNode[k].length) {
      rules.push({
        iif: "liqo-tunnel",
        routes: podsOnNode[k].map((po) => ({
          dst: `${po.status.podIP}/32`,
          gw: inode.spec.interface.node.ip,
          targetRef: {
            kind: "Pod",
            name: po.metadata.name,
            namespace: po.metadata.namespace,
            uid: po.metadata.uid,
          },
        })),
      });
    }
    rc.spec.table = { name, rules };
    rc.status = { conditions: appliedBy(peers.map((p) => p.gwPod), appliedAt) };
    out.push(rc);
  }

  // -- per peer: fabric-wide objects applied by every fabric pod, the gateway's ext routes -----
  for (const o of out) {
    const c: Any = o;
    const peer = peers.find((p) => p.tenant === c.metadata.namespace);
    if (!peer) continue;
    if (c.kind === "RouteConfiguration" && c.metadata.name === `${peer.id}-node-gw`) {
      c.status.conditions = appliedBy(fabricPodNames, appliedAt);
    }
    if (c.kind === "FirewallConfiguration" && c.metadata.name === `${peer.id}-masquerade-bypass`) {
      c.status.conditions = appliedBy(fabricPodNames, appliedAt);
    }
    if (c.kind === "RouteConfiguration" && c.metadata.name === `${peer.id}-gw-ext`) {
      c.spec.table.rules = inodes.flatMap((n) =>
        ["10.244.0.0/16", "10.70.0.0/16"].map((dst) => ({
          iif: n.spec.interface.gateway.name,
          dst,
          routes: [{ dst, gw: "169.254.18.1" }],
        }))
      );
    }
  }

  return {
    objects: out,
    wireguard,
    peers: peers.map((p) => p.id),
    peerSwaps,
    brokenPeer: brokenPeer?.id ?? null,
    counts: count(out),
  };

  function offloadedSuffix(i: number): string {
    return new Rand(7 * i + 1).suffix(5);
  }
  function uidFor(what: string, i: number): string {
    return new Rand([...what].reduce((a, ch) => a * 31 + ch.charCodeAt(0), i) >>> 0).uuid();
  }
  function offloadedIp(p: Peer): string {
    return `10.${p.octets[0]}.1.45`;
  }
}

/** The fault of the broken variant on peer `p`: UDP to its gateway dropped by a firewall. */
function breakPeer(objs: Obj[], wg: Any, p: Peer): void {
  const at = "2026-11-30T02:07:05Z";
  for (const o of objs) {
    const c: Any = o;
    if (c.kind === "Connection") c.status = { value: "Connecting", latency: { value: "N/A" } };
    if (c.kind === "ForeignCluster") {
      for (const cond of c.status.modules.networking.conditions) {
        if (cond.type === "NetworkConnectionStatus") {
          Object.assign(cond, {
            status: "Pending",
            reason: "ConnectionPending",
            message: "The network connection with the foreign cluster is pending",
            lastTransitionTime: "2026-11-30T02:07:00Z",
          });
        }
      }
      for (const cond of c.status.modules.offloading.conditions) {
        if (cond.type === "OffloadingNodeStatus") {
          Object.assign(cond, {
            status: "NotReady",
            reason: "NodesNotReady",
            message: "No nodes are ready",
            lastTransitionTime: at,
          });
        }
      }
    }
    if (c.kind === "Node" && c.metadata.name === p.id) {
      for (const cond of c.status.conditions) {
        if (cond.type === "Ready") {
          Object.assign(cond, {
            status: "False",
            reason: "KubeletNotReady",
            message: "The Liqo network connection is not established",
            lastTransitionTime: at,
          });
        }
        if (cond.type === "NetworkUnavailable") {
          Object.assign(cond, {
            status: "True",
            reason: "LiqoNetworkingDown",
            message: "The Liqo cluster interconnection is down",
            lastTransitionTime: at,
          });
        }
      }
    }
  }
  for (const itf of wg.interfaces) {
    for (const peer of itf.peers) {
      Object.assign(peer, {
        handshakeAgoSeconds: null,
        rxBytes: 0,
        txBytes: 41440,
        rxBytesPerSecond: 0,
        txBytesPerSecond: 30,
      });
    }
  }
}

function setNode(pod: Any, node: string, hostIP: string, podIP: string): void {
  pod.spec.nodeName = node;
  pod.status.hostIP = hostIP;
  pod.status.hostIPs = [{ ip: hostIP }];
  pod.status.podIP = podIP;
  pod.status.podIPs = [{ ip: podIP }];
}

const CREATED = "2026-11-22T10:00:00Z";

function meta(
  name: string,
  namespace: string | undefined,
  rnd: Rand,
  extra: Record<string, unknown> = {},
): Any {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    uid: rnd.uuid(),
    resourceVersion: String(70000 + rnd.int(900000)),
    creationTimestamp: CREATED,
    ...extra,
  };
}

function namespace(name: string, rnd: Rand): Obj {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: meta(name, undefined, rnd, { labels: { "kubernetes.io/metadata.name": name } }),
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  };
}

function configMap(ns: string, name: string, data: Record<string, string>, rnd: Rand): Obj {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: meta(name, ns, rnd), data };
}

const appLabels = (app: string): Record<string, string> => ({
  "app.kubernetes.io/name": app,
  "app.kubernetes.io/part-of": "team",
});

function container(app: string, image: string): unknown {
  return {
    name: app,
    image,
    imagePullPolicy: "IfNotPresent",
    ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
    envFrom: [{ configMapRef: { name: `${app}-config` } }],
    resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } },
    readinessProbe: {
      httpGet: { path: "/healthz", port: "http", scheme: "HTTP" },
      periodSeconds: 10,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    },
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
  };
}

function deployment(
  ns: string,
  app: string,
  image: string,
  replicas: number,
  hash: string,
  uid: string,
): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: app,
      namespace: ns,
      uid,
      resourceVersion: "71234",
      generation: 1,
      creationTimestamp: CREATED,
      labels: appLabels(app),
      annotations: { "deployment.kubernetes.io/revision": "1" },
    },
    spec: {
      replicas,
      selector: { matchLabels: appLabels(app) },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: {
        metadata: { labels: appLabels(app) },
        spec: {
          containers: [container(app, image)],
          restartPolicy: "Always",
          dnsPolicy: "ClusterFirst",
          schedulerName: "default-scheduler",
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [
        {
          type: "Available",
          status: "True",
          reason: "MinimumReplicasAvailable",
          message: "Deployment has minimum availability.",
          lastTransitionTime: CREATED,
          lastUpdateTime: CREATED,
        },
        {
          type: "Progressing",
          status: "True",
          reason: "NewReplicaSetAvailable",
          message: `ReplicaSet "${app}-${hash}" has successfully progressed.`,
          lastTransitionTime: CREATED,
          lastUpdateTime: CREATED,
        },
      ],
    },
  };
}

function workloadPod(
  ns: string,
  app: string,
  image: string,
  hash: string,
  rsUid: string,
  node: string,
  hostIP: string,
  podIP: string,
  rnd: Rand,
): Obj {
  const name = `${app}-${hash}-${rnd.suffix(5)}`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...meta(name, ns, rnd, { generateName: `${app}-${hash}-` }),
      labels: { ...appLabels(app), "pod-template-hash": hash },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: `${app}-${hash}`,
        uid: rsUid,
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: {
      containers: [container(app, image)],
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      schedulerName: "default-scheduler",
      terminationGracePeriodSeconds: 30,
      serviceAccountName: "default",
      serviceAccount: "default",
      nodeName: node,
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
    },
    status: {
      phase: "Running",
      qosClass: "Burstable",
      hostIP,
      hostIPs: [{ ip: hostIP }],
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: CREATED,
      conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
        .map((type) => ({
          type,
          status: "True",
          lastTransitionTime: CREATED,
          lastProbeTime: null,
        })),
      containerStatuses: [{
        name: app,
        image,
        imageID: `${image.split(":")[0]}@sha256:${rnd.hex(64)}`,
        ready: true,
        started: true,
        restartCount: 0,
        containerID: `containerd://${rnd.hex(64)}`,
        state: { running: { startedAt: CREATED } },
      }],
    },
  };
}

function systemPod(
  ns: string,
  name: string,
  ds: string,
  image: string,
  node: string,
  ip: string,
  rnd: Rand,
): Obj {
  const app = ds === "kube-proxy"
    ? { "k8s-app": "kube-proxy" }
    : { app: "flannel", "k8s-app": "flannel", tier: "node" };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...meta(name, ns, rnd, { generateName: `${ds}-` }),
      creationTimestamp: "2026-11-20T09:00:40Z",
      labels: { ...app, "controller-revision-hash": "5c8f7d6b9", "pod-template-generation": "1" },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        name: ds,
        uid: rnd.uuid(),
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: {
      hostNetwork: true,
      priorityClassName: "system-node-critical",
      nodeName: node,
      containers: [{ name: ds === "kube-proxy" ? "kube-proxy" : "kube-flannel", image, resources: {} }],
      tolerations: [{ operator: "Exists", effect: "NoSchedule" }],
    },
    status: {
      phase: "Running",
      qosClass: "BestEffort",
      hostIP: ip,
      hostIPs: [{ ip }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: "2026-11-20T09:00:40Z",
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({
        type,
        status: "True",
        lastTransitionTime: "2026-11-20T09:01:00Z",
        lastProbeTime: null,
      })),
      containerStatuses: [{
        name: ds === "kube-proxy" ? "kube-proxy" : "kube-flannel",
        image,
        imageID: `${image.split(":")[0]}@sha256:${rnd.hex(64)}`,
        ready: true,
        started: true,
        restartCount: 0,
        containerID: `containerd://${rnd.hex(64)}`,
        state: { running: { startedAt: "2026-11-20T09:00:50Z" } },
      }],
    },
  };
}

function service(ns: string, app: string, clusterIP: string, uid: string): Obj {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: app,
      namespace: ns,
      uid,
      resourceVersion: "71300",
      creationTimestamp: CREATED,
      labels: appLabels(app),
    },
    spec: {
      type: "ClusterIP",
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
      sessionAffinity: "None",
      selector: appLabels(app),
      ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: "http" }],
    },
    status: { loadBalancer: {} },
  };
}

function endpointSlice(ns: string, app: string, svcUid: string, endpoints: unknown[], rnd: Rand): Obj {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    addressType: "IPv4",
    metadata: {
      ...meta(`${app}-${rnd.suffix(5)}`, ns, rnd, { generateName: `${app}-` }),
      labels: {
        ...appLabels(app),
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
        "kubernetes.io/service-name": app,
      },
      ownerReferences: [{
        apiVersion: "v1",
        kind: "Service",
        name: app,
        uid: svcUid,
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    endpoints,
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
  } as Obj;
}

/**
 * The scale cluster served "now": the base example read from testdata, generated, and every
 * timestamp and certificate shifted by (now − the base's reference time), as scenarios are.
 */
export async function loadScaleCluster(params: ScaleParams, now: Date = new Date()): Promise<ScaleCluster> {
  const base = await loadBase("rome");
  const c = generateScaleCluster(base, params);
  const delta = now.getTime() - Date.parse(DEFAULT_REFERENCE_TIME);
  return { ...c, objects: await shiftCertificates(shiftTimestamps(c.objects, delta), delta) };
}

/**
 * The many-peers case (issue 21: 5 000 ForeignClusters): `cluster` plus `extra` ForeignClusters cloned
 * from its first one, each with its own name, cluster ID, uid and tenant namespace, and nothing else
 * (no gateway, tenant or network objects): peers that were announced and never set up, the shape in
 * which a big fleet costs the most report per peer. Returns a new cluster; `cluster` is unchanged.
 */
export function withForeignClusters(cluster: ScaleCluster, extra: number): ScaleCluster {
  if (extra <= 0) return cluster;
  const base = cluster.objects.find((o) => o.kind === "ForeignCluster");
  if (!base) throw new Error("scale cluster: no ForeignCluster to clone");
  const id = base.metadata.name;
  const text = JSON.stringify(base);
  const rnd = new Rand(extra);
  const clones: K8sObject[] = [];
  for (let i = 0; i < extra; i++) {
    const peer = `peer${String(i).padStart(5, "0")}-${rnd.hex(6)}`;
    const o = JSON.parse(text.replaceAll(id, peer)) as K8sObject;
    o.metadata.uid = rnd.uuid();
    clones.push(o);
  }
  const objects = [...cluster.objects, ...clones];
  return {
    ...cluster,
    objects,
    peers: [...cluster.peers, ...clones.map((o) => o.metadata.name)],
    counts: count(objects),
  };
}
