/**
 * The fake data plane of an active scenario: scenario.yaml's top-level `network:` block
 * ({@link NetworkModelSchema}) and the {@link NetworkHost} both fake clusters of a scenario share.
 *
 * The model is physics, not canned answers: each probe command (probe_exec.ts) sends packets that
 * are resolved to a destination pod from the live objects of the clusters (pod IPs, Liqo
 * Configurations, gateways, InternalNodes) and walked over the hops of the Liqo data path
 * (netpath.ts); the faults below drop, rewrite or size-limit them at a hop. An empty model is a
 * healthy peering.
 */
import { z } from "zod";
import type { K8sObject } from "./object.ts";
import type { ExecResult } from "./exec.ts";
import { parseIPv4 } from "./ipv4.ts";

const IPv4 = z.string().refine((s) => parseIPv4(s) !== null, "an IPv4 address");

/** "cluster/node": a node of one cluster (cluster = scenario cluster name or Liqo cluster ID). */
const NodeRef = z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'a node as "cluster/node"');

/** "cluster" or "cluster/node". */
const EndRef = z.string().regex(/^[^/\s]+(\/[^/\s]+)?$/, 'a cluster or "cluster/node"');

/** Protocols a fault can be limited to. */
const Protocol = z.enum(["tcp", "udp", "icmp"]);

/**
 * The hops of a packet's walk, in order. Cross-cluster: `node-geneve` (source node → its gateway,
 * Geneve over the CNI), `local-gateway` (routing/NAT into the tunnel), `underlay` (WireGuard over
 * UDP between the gateways' endpoints), `remote-gateway` (routing/NAT out of the tunnel),
 * `remote-node` (gateway → destination node over Geneve, then the node's CNI/policy to the pod).
 * Same cluster: `cni` only. A packet dropped at a hop is not seen at that hop's capture point
 * (the local gateway's Geneve interface of the source node, the local `liqo-tunnel`, the remote
 * `liqo-tunnel`, the remote gateway's Geneve interface of the destination node; `remote-node` and
 * `cni` have none).
 */
export const HOPS = [
  "node-geneve",
  "local-gateway",
  "underlay",
  "remote-gateway",
  "remote-node",
  "cni",
] as const;

/** One hop of {@link HOPS}. */
export type Hop = typeof HOPS[number];

/** One directional drop rule (see {@link NetworkModel.drops}). */
const DropSchema = z.strictObject({
  from: EndRef.optional(),
  to: EndRef.optional(),
  protocol: Protocol.optional(),
  at: z.enum(HOPS).optional(),
});

/** A flaky pair (see {@link NetworkModel.flaky}). */
const FlakySchema = z.strictObject({
  from: EndRef.optional(),
  to: EndRef.optional(),
  protocol: Protocol.optional(),
  failures: z.number().int().positive().default(1),
});

/** A NAT mis-translation (see {@link NetworkModel.nat}). */
const NatSchema = z.strictObject({
  into: z.string(),
  source: z.union([z.enum(["gateway", "unmapped"]), IPv4]),
});

/**
 * scenario.yaml `network:` — the data plane of both clusters. Every field is optional; the
 * defaults are a healthy peering.
 *
 * - `timeScale` (default 0.1): simulated waits (a connect or read timeout, ping's `-W`) last their
 *   nominal time × this factor; printed durations stay nominal. The tcpdump capture window is
 *   always real time, so packets sent by other execs meanwhile land in it.
 * - `blackholedNodes: [cluster/node]`: nothing from the other cluster reaches pods on that node
 *   (dropped at `remote-node`, after the remote gateway sent it out on the node's Geneve
 *   interface); replies to them die the same way. Same-cluster traffic is fine.
 * - `geneveBroken: [cluster/node]`: the Geneve path between that node and its cluster's gateway is
 *   broken both ways: its pods reach nothing cross-cluster (dropped at `node-geneve`, never seen on
 *   the gateway's Geneve interface for that node) and replies toward them die after the gateway
 *   sent them. Same-cluster traffic is fine.
 * - `udpBlockedUnderlay`: UDP between the gateways' endpoints is dropped: the tunnel carries
 *   nothing (dropped at `underlay`), tunnel pings are lost; ICMP on the underlay still passes.
 *   (The WireGuard counters come from the scenario's `wireguard:` state: set the peers' rx rates
 *   to 0 and an old handshake to match.)
 * - `nat: [{into: cluster, source}]`: the gateway of `into` rewrites the source of traffic coming
 *   out of the tunnel wrongly: `gateway` (masqueraded to its own Geneve address,
 *   InternalFabric `spec.interface.gateway.ip`; stateful, replies still work), `unmapped` (the
 *   source pod's own IP, not remapped: the reply goes to a local address and is lost) or a fixed
 *   IPv4 (stateful SNAT, replies work). netexec `clientip` shows what the far side saw.
 * - `mtu`: `tunnel` = the path MTU inside the tunnel (default: unlimited below the `liqo-tunnel`
 *   interface MTU, which is the gateway's GatewayServer/Client `spec.mtu`, 1340 by default);
 *   `underlay` (default 1500) = path MTU between the gateways' endpoints; a tunnel packet also
 *   needs underlay ≥ size + 60 (WireGuard over IPv4). `icmp` (default true): a too-big packet gets
 *   "Frag needed and DF set (mtu = X)" from `icmpFrom` (default: the sending gateway's tunnel
 *   address for tunnel pings, the destination for underlay pings); false = silent black hole.
 *   `underlayEcho` (default true): false = the peer's public endpoint never answers ICMP echo
 *   (a cloud load balancer or a firewall that passes only WireGuard's UDP): underlay pings are lost
 *   at every size, without an error. A gateway pod's kernel caches each "frag needed" it gets for 10 minutes (Linux
 *   `net.ipv4.route.mtu_expires`): later larger pings to that address fail locally with
 *   `local error: message too long, mtu=<cached>`, while `cat /sys/class/net/<iface>/mtu` in the
 *   `gateway` container still prints the interface's own MTU.
 * - `dns: {cluster: {name: ip | null}}`: extra names (or overrides) per cluster; `null` = the
 *   name does not resolve. Service names resolve by themselves (`svc`, `svc.ns`, `svc.ns.svc`,
 *   `svc.ns.svc.cluster.local`) to the Service's ClusterIP in the asking pod's cluster.
 * - `deadBackends: [cluster/node]`: Service traffic to backends on that node is never answered
 *   (curl times out); direct pod-to-pod traffic is fine.
 * - `drops: [{from?, to?, protocol?, at?}]`: directional drops: packets whose original source
 *   matches `from` and final destination matches `to` ("cluster" or "cluster/node"; omitted =
 *   any) are dropped at hop `at` (default: the last hop of the path). Only that direction: a
 *   reply matches only if its own source/destination match.
 * - `flaky: [{from?, to?, protocol?, failures}]`: the first `failures` attempts (a TCP connect, a
 *   UDP request) of each matching source pod → destination pod pair are lost, later ones pass.
 * - `udp`: the PROBE-UDP series' path quality: `rttMs` (default 0.8), `lossEvery: n` (every n-th
 *   datagram of a series is lost), `duplicateEvery: n` (every n-th is delivered twice: the far
 *   side answers twice, tcpdump shows both; netexec `/dial` reads one), `lateEvery: n` with
 *   `lateMs` (default 1500): that answer comes back late.
 * - `wan`: the network BETWEEN the clusters outside any tunnel, as `preflight --probe` meets it
 *   (UDP from a pod of one cluster to a LoadBalancer address, a node's NodePort or a port mapping
 *   of the other): `internalRoutable` (default true: both clusters share one network, like kind's;
 *   false: a peer's node InternalIPs are private, only ExternalIPs and LoadBalancers route);
 *   `egress: {cluster: ip}` the address a cluster's pods leave with (default: the client node's
 *   InternalIP); `portMappings: [{address, port, cluster, nodePort}]` a NAT forwarding
 *   address:port to that cluster's nodes at `nodePort`; `firewall: [{from?, to?, protocol?,
 *   ports?}]` drops new flows from cluster `from` to cluster `to` (omitted = any), of `protocol`
 *   (default udp), to a destination port in `ports` ("30000-32767" or one port; omitted = all) —
 *   one direction only, replies of allowed flows pass (stateful); `mtu` (default 1500) the path MTU:
 *   a larger datagram is lost (don't-fragment); `api: {cluster: ok|timeout|refused|dns|tls}` what
 *   that cluster's pods get dialling the peer's API server URL (default ok). A LoadBalancer
 *   controller in mode `dropsUdp` (lifecycle.loadBalancer) makes its addresses drop UDP.
 * - `offload.remoteNodes`: in offload scenarios without the provider's objects, the provider nodes
 *   the offloaded pods run on: offloaded pods sorted by name are placed round-robin; fault refs
 *   name them as `<provider cluster ID>/<node>`. Without it they sit on the virtual node.
 */
export const NetworkModelSchema: z.ZodType<NetworkModel, unknown> = z.strictObject({
  timeScale: z.number().min(0).max(10).default(0.1),
  blackholedNodes: z.array(NodeRef).default([]),
  geneveBroken: z.array(NodeRef).default([]),
  udpBlockedUnderlay: z.boolean().default(false),
  nat: z.array(NatSchema).default([]),
  mtu: z.strictObject({
    tunnel: z.number().int().min(68).optional(),
    underlay: z.number().int().min(68).default(1500),
    icmp: z.boolean().default(true),
    icmpFrom: IPv4.optional(),
    underlayEcho: z.boolean().default(true),
  }).default({ underlay: 1500, icmp: true, underlayEcho: true }),
  dns: z.record(z.string(), z.record(z.string(), IPv4.nullable())).default({}),
  deadBackends: z.array(NodeRef).default([]),
  drops: z.array(DropSchema).default([]),
  flaky: z.array(FlakySchema).default([]),
  udp: z.strictObject({
    rttMs: z.number().nonnegative().default(0.8),
    lossEvery: z.number().int().positive().optional(),
    duplicateEvery: z.number().int().positive().optional(),
    lateEvery: z.number().int().positive().optional(),
    lateMs: z.number().nonnegative().default(1500),
  }).default({ rttMs: 0.8, lateMs: 1500 }),
  offload: z.strictObject({ remoteNodes: z.array(z.string()).default([]) }).default({ remoteNodes: [] }),
  wan: z.strictObject({
    internalRoutable: z.boolean().default(true),
    egress: z.record(z.string(), IPv4).default({}),
    portMappings: z.array(z.strictObject({
      address: IPv4,
      port: z.number().int().min(1).max(65535),
      cluster: z.string(),
      nodePort: z.number().int().min(1).max(65535),
    })).default([]),
    firewall: z.array(z.strictObject({
      from: z.string().optional(),
      to: z.string().optional(),
      protocol: z.enum(["tcp", "udp"]).default("udp"),
      ports: z.union([z.number().int(), z.string().regex(/^\d+-\d+$/)]).optional(),
    })).default([]),
    mtu: z.number().int().min(68).default(1500),
    api: z.record(z.string(), z.enum(["ok", "timeout", "refused", "dns", "tls"])).default({}),
  }).default({ internalRoutable: true, egress: {}, portMappings: [], firewall: [], mtu: 1500, api: {} }),
});

/** A protocol a fault can be limited to. */
export type FaultProtocol = "tcp" | "udp" | "icmp";

/** One directional drop rule (`network.drops[]`). */
export interface DropRule {
  from?: string;
  to?: string;
  protocol?: FaultProtocol;
  at?: Hop;
}

/** One flaky pair (`network.flaky[]`): its first `failures` attempts are lost. */
export interface FlakyRule {
  from?: string;
  to?: string;
  protocol?: FaultProtocol;
  failures: number;
}

/** One NAT mis-translation (`network.nat[]`): `source` is "gateway", "unmapped" or an IPv4. */
export interface NatRule {
  into: string;
  source: string;
}

/** A validated `network:` block (defaults applied; the fields as {@link NetworkModelSchema} documents). */
export interface NetworkModel {
  timeScale: number;
  blackholedNodes: string[];
  geneveBroken: string[];
  udpBlockedUnderlay: boolean;
  nat: NatRule[];
  mtu: { tunnel?: number; underlay: number; icmp: boolean; icmpFrom?: string; underlayEcho: boolean };
  dns: Record<string, Record<string, string | null>>;
  deadBackends: string[];
  drops: DropRule[];
  flaky: FlakyRule[];
  udp: { rttMs: number; lossEvery?: number; duplicateEvery?: number; lateEvery?: number; lateMs: number };
  offload: { remoteNodes: string[] };
  wan: WanModel;
}

/** The network between the clusters outside any tunnel (`network.wan`, documented on the schema). */
export interface WanModel {
  internalRoutable: boolean;
  egress: Record<string, string>;
  portMappings: { address: string; port: number; cluster: string; nodePort: number }[];
  firewall: { from?: string; to?: string; protocol: "tcp" | "udp"; ports?: number | string }[];
  mtu: number;
  api: Record<string, "ok" | "timeout" | "refused" | "dns" | "tls">;
}

/** The healthy model. */
export function healthyModel(): NetworkModel {
  return NetworkModelSchema.parse({});
}

/**
 * The data plane both fake clusters of a scenario share (FakeClusterConfig.network). The server's
 * exec handler asks it first; `null` = not a network command, answer as before.
 */
export interface NetworkHost {
  /** Gives the host a cluster's live objects (incl. pods created at runtime). */
  attach(cluster: string, state: () => readonly K8sObject[]): void;
  /** What the host must know of a cluster's controllers: its LoadBalancer drops UDP. */
  configure?(cluster: string, opts: { loadBalancerDropsUdp: boolean }): void;
  /** Runs a probe command in `pod`, or returns null when the command is not one it answers. */
  exec(
    cluster: string,
    pod: K8sObject,
    container: string,
    command: readonly string[],
    signal: AbortSignal,
  ): Promise<ExecResult> | null;
}
