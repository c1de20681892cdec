/**
 * What the fake data plane reads from a cluster's live objects: its Liqo cluster ID, pods by IP,
 * Configurations (address remapping), the gateway pod and its tunnel address and MTU, the Geneve
 * interface names (InternalNode), virtual nodes, Services and the names they resolve under.
 * Pure functions over K8sObject lists; nothing here knows about faults.
 */
import type { K8sObject } from "./object.ts";
import { remapAddress } from "./ipv4.ts";

/** Default gateway MTU (GatewayServer/Client `spec.mtu`) when none is set. */
export const DEFAULT_GATEWAY_MTU = 1340;

/** WireGuard tunnel addresses of the gateway server and client (FACTS §2.6). */
export const TUNNEL_ADDRESS = { server: "169.254.18.1", client: "169.254.18.2" } as const;

/** The WireGuard interface of a gateway pod. */
export const TUNNEL_IFACE = "liqo-tunnel";

// deno-lint-ignore no-explicit-any
type Any = any;

const get = (o: unknown, ...path: string[]): Any => {
  let v: Any = o;
  for (const p of path) v = v === null || v === undefined ? undefined : v[p];
  return v;
};

const strings = (v: unknown): string[] => Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];

/** The Liqo cluster ID (ConfigMap liqo-clusterid-configmap `data.CLUSTER_ID`), null if unknown. */
export function clusterIdOf(objects: readonly K8sObject[]): string | null {
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "liqo-clusterid-configmap");
  const id = get(cm, "data", "CLUSTER_ID");
  return typeof id === "string" && id !== "" ? id : null;
}

const remoteIdLabel = (o: K8sObject): string | undefined => o.metadata.labels?.["liqo.io/remote-cluster-id"];

/** The Configuration for peer `peerId` (label liqo.io/remote-cluster-id), else the only one. */
export function configurationFor(objects: readonly K8sObject[], peerId: string | null): K8sObject | null {
  const all = objects.filter((o) =>
    o.kind === "Configuration" && o.apiVersion?.startsWith("networking.liqo.io/")
  );
  return all.find((o) => peerId !== null && remoteIdLabel(o) === peerId) ??
    (peerId === null && all.length === 1 ? all[0] : null);
}

/** The peer IDs this cluster has a Configuration for. */
export function peersOf(objects: readonly K8sObject[]): string[] {
  return objects.filter((o) => o.kind === "Configuration").map(remoteIdLabel).filter((x): x is string => !!x);
}

function remapPod(cfg: K8sObject | null, ip: string, toView: boolean): string | null {
  if (!cfg) return null;
  const spec = strings(get(cfg, "spec", "remote", "cidr", "pod"));
  const status = strings(get(cfg, "status", "remote", "cidr", "pod"));
  for (let i = 0; i < Math.min(spec.length, status.length); i++) {
    const r = toView ? remapAddress(ip, spec[i], status[i]) : remapAddress(ip, status[i], spec[i]);
    if (r !== null) return r;
  }
  return null;
}

/** How this cluster addresses a peer pod whose own IP is `ip` (spec → status CIDR), or null. */
export function toPeerView(cfg: K8sObject | null, ip: string): string | null {
  return remapPod(cfg, ip, true);
}

/** The peer's own IP of an address this cluster uses for a peer pod (status → spec), or null. */
export function fromPeerView(cfg: K8sObject | null, ip: string): string | null {
  return remapPod(cfg, ip, false);
}

/** True for pods that hold an IP and are not finished. */
export function isLivePod(o: K8sObject): boolean {
  if (o.kind !== "Pod") return false;
  const phase = get(o, "status", "phase");
  return typeof get(o, "status", "podIP") === "string" && phase !== "Succeeded" && phase !== "Failed";
}

/** The pod holding `ip` (hostNetwork pods excluded: they share their node's address). */
export function podByIp(objects: readonly K8sObject[], ip: string): K8sObject | null {
  return objects.find((o) =>
    isLivePod(o) && get(o, "status", "podIP") === ip && !get(o, "spec", "hostNetwork")
  ) ??
    null;
}

/** The virtual node's peer cluster ID, or null when `node` is not a Liqo virtual node. */
export function virtualNodePeer(objects: readonly K8sObject[], node: string): string | null {
  const n = objects.find((o) => o.kind === "Node" && o.metadata.name === node);
  if (!n || n.metadata.labels?.["liqo.io/type"] !== "virtual-node") return null;
  return remoteIdLabel(n) ?? node;
}

/** The gateway pod towards `peerId` (prefers `networking.liqo.io/active=true`), or null. */
export function gatewayPod(objects: readonly K8sObject[], peerId: string | null): K8sObject | null {
  const gws = objects.filter((o) =>
    o.kind === "Pod" && o.metadata.labels?.["networking.liqo.io/component"] === "gateway" && isLivePod(o)
  );
  const forPeer = gws.filter((o) =>
    peerId === null || o.metadata.labels?.["networking.liqo.io/gateway-name"] === peerId ||
    podArgs(o).includes(`--remote-cluster-id=${peerId}`)
  );
  const pool = forPeer.length > 0 ? forPeer : peerId === null ? gws : [];
  return pool.find((o) => o.metadata.labels?.["networking.liqo.io/active"] === "true") ?? pool[0] ?? null;
}

/** Every arg and command word of a pod's containers. */
export function podArgs(pod: K8sObject): string[] {
  const cs: Any[] = get(pod, "spec", "containers") ?? [];
  return cs.flatMap((c) => [...strings(c?.command), ...strings(c?.args)]);
}

/** "server" or "client" from the gateway container's `--mode=`; server when unknown. */
export function gatewayMode(pod: K8sObject): "server" | "client" {
  return podArgs(pod).includes("--mode=client") ? "client" : "server";
}

/** The cluster that peer `peerId` is: the gateway's own tunnel address and the peer's. */
export function tunnelAddresses(pod: K8sObject): { own: string; peer: string } {
  return gatewayMode(pod) === "client"
    ? { own: TUNNEL_ADDRESS.client, peer: TUNNEL_ADDRESS.server }
    : { own: TUNNEL_ADDRESS.server, peer: TUNNEL_ADDRESS.client };
}

/** The gateway MTU (GatewayServer/GatewayClient `spec.mtu` for the peer), 1340 by default. */
export function gatewayMtu(objects: readonly K8sObject[], peerId: string | null): number {
  const gws = objects.filter((o) =>
    (o.kind === "GatewayServer" || o.kind === "GatewayClient") &&
    o.apiVersion?.startsWith("networking.liqo.io/")
  );
  const gw =
    gws.find((o) => peerId !== null && (remoteIdLabel(o) === peerId || o.metadata.name === peerId)) ?? gws[0];
  const mtu = get(gw, "spec", "mtu");
  return typeof mtu === "number" && mtu > 0 ? mtu : DEFAULT_GATEWAY_MTU;
}

/** The public endpoint addresses of the peer's gateway this cluster knows (GatewayClient). */
export function peerEndpoints(objects: readonly K8sObject[]): string[] {
  return objects.filter((o) => o.kind === "GatewayClient").flatMap((o) =>
    strings(get(o, "spec", "endpoint", "addresses"))
  );
}

/** Name of the Geneve interface a gateway pod has towards `node` (InternalNode), or a stand-in. */
export function geneveIface(objects: readonly K8sObject[], node: string): string | null {
  const n = objects.find((o) => o.kind === "InternalNode" && o.metadata.name === node);
  const name = get(n, "spec", "interface", "gateway", "name");
  return typeof name === "string" ? name : null;
}

/** The gateway's own address on the Geneve overlay (InternalFabric `spec.interface.gateway.ip`). */
export function gatewayFabricIp(objects: readonly K8sObject[], peerId: string | null): string | null {
  const fabrics = objects.filter((o) => o.kind === "InternalFabric");
  const f = fabrics.find((o) => o.metadata.name === peerId) ?? fabrics[0];
  const ip = get(f, "spec", "interface", "gateway", "ip");
  return typeof ip === "string" ? ip : null;
}

/** netexec's listening ports of a pod (`--http-port`, `--udp-port`), or null when it runs no netexec. */
export function netexecPorts(pod: K8sObject): { http: number; udp: number } | null {
  const args = podArgs(pod);
  if (!args.some((a) => a === "netexec" || a.endsWith("/netexec"))) return null;
  const num = (flag: string, dflt: number): number => {
    const a = args.find((x) => x.startsWith(`${flag}=`));
    const n = a ? Number(a.slice(flag.length + 1)) : dflt;
    return Number.isInteger(n) ? n : dflt;
  };
  return { http: num("--http-port", 8080), udp: num("--udp-port", 8081) };
}

/** The namespace name Liqo gives `ns` on the provider (NamespaceOffloading status), else `ns`. */
export function remoteNamespaceOf(objects: readonly K8sObject[], ns: string): string {
  const off = objects.find((o) => o.kind === "NamespaceOffloading" && o.metadata.namespace === ns);
  const name = get(off, "status", "remoteNamespaceName");
  return typeof name === "string" && name !== "" ? name : ns;
}

/** The consumer namespace whose offloaded twin is `remoteNs`, else null. */
export function consumerNamespaceOf(objects: readonly K8sObject[], remoteNs: string): string | null {
  const off = objects.find((o) =>
    o.kind === "NamespaceOffloading" && (get(o, "status", "remoteNamespaceName") === remoteNs)
  );
  return off?.metadata.namespace ?? null;
}

/** True when `pod` matches the Service's selector (an empty/absent selector selects nothing). */
export function selects(svc: K8sObject, pod: K8sObject): boolean {
  const sel: Record<string, string> | undefined = get(svc, "spec", "selector");
  if (!sel || Object.keys(sel).length === 0) return false;
  if (pod.metadata.namespace !== svc.metadata.namespace) return false;
  return Object.entries(sel).every(([k, v]) => pod.metadata.labels?.[k] === v);
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h >>> 0;
}

/**
 * A Service's ClusterIP: `spec.clusterIP` when set, else a stable address derived from its name
 * (`salt` tells the consumer's Service from the provider's reflected copy).
 */
export function clusterIpOf(svc: K8sObject, salt = ""): string | null {
  const ip = get(svc, "spec", "clusterIP");
  if (salt === "" && typeof ip === "string" && ip !== "" && ip !== "None") return ip;
  if (ip === "None") return null;
  const h = hash(`${salt}/${svc.metadata.namespace}/${svc.metadata.name}`);
  const base = salt === "" ? 96 : 112;
  return `10.${base + ((h >>> 16) & 15)}.${(h >>> 8) & 255}.${Math.max(2, h & 255)}`;
}

/** The Service a DNS name means from namespace `podNs` ("svc", "svc.ns", "svc.ns.svc[.cluster.local]"). */
export function serviceNameParts(name: string, podNs: string): { svc: string; ns: string } | null {
  const n = name.replace(/\.$/, "").toLowerCase();
  const parts = n.split(".");
  if (parts.length === 1) return { svc: parts[0], ns: podNs };
  if (parts.length === 2) return { svc: parts[0], ns: parts[1] };
  if (parts.length === 3 && parts[2] === "svc") return { svc: parts[0], ns: parts[1] };
  if (parts.length === 5 && parts.slice(2).join(".") === "svc.cluster.local") {
    return { svc: parts[0], ns: parts[1] };
  }
  return null;
}

/** Labels Liqo puts on what it reflects into a provider (`pkg/virtualKubelet/forge/meta.go`, `pkg/consts`). */
export const REFLECTION_LABELS = {
  origin: "offloading.liqo.io/origin",
  destination: "offloading.liqo.io/destination",
  managedBy: "liqo.io/managed-by",
} as const;

/**
 * The provider pod Liqo runs for an offloaded consumer pod (reflection.ts): same name, in the
 * namespace the consumer's NamespaceOffloading maps to, labelled with the consumer as origin.
 * Its node and IP are where the offloaded pod really runs. Null when not (yet) reflected.
 */
export function twinPodOf(
  providerObjects: readonly K8sObject[],
  consumerObjects: readonly K8sObject[],
  pod: K8sObject,
  consumerId: string | null,
): K8sObject | null {
  const ns = remoteNamespaceOf(consumerObjects, pod.metadata.namespace ?? "");
  return providerObjects.find((o) =>
    o.kind === "Pod" && o.metadata.namespace === ns && o.metadata.name === pod.metadata.name &&
    consumerId !== null && o.metadata.labels?.[REFLECTION_LABELS.origin] === consumerId
  ) ?? null;
}

/** A node's `status.addresses` of one type. */
export function nodeAddressesOf(node: K8sObject, type: string): string[] {
  const addrs: Any[] = get(node, "status", "addresses") ?? [];
  return addrs.filter((a) => a?.type === type && typeof a?.address === "string").map((a) => a.address);
}

/** The UDP ports of a Service: its port, target port and NodePort. */
export function udpPortsOf(svc: K8sObject): { port: number; targetPort: number; nodePort: number | null }[] {
  const ports: Any[] = get(svc, "spec", "ports") ?? [];
  return ports.filter((p) => (p?.protocol ?? "TCP") === "UDP").map((p) => ({
    port: Number(p.port),
    targetPort: typeof p.targetPort === "number" ? p.targetPort : Number(p.port),
    nodePort: typeof p.nodePort === "number" ? p.nodePort : null,
  }));
}

/** The ingress addresses of a LoadBalancer Service (`status.loadBalancer.ingress[].ip`). */
export function loadBalancerIps(svc: K8sObject): string[] {
  if (get(svc, "spec", "type") !== "LoadBalancer") return [];
  const ingress: Any[] = get(svc, "status", "loadBalancer", "ingress") ?? [];
  return ingress.map((i) => i?.ip).filter((x): x is string => typeof x === "string");
}
