/**
 * The shapes preflight's active checks share (PF-API, PF-EXP, PF-UDP, PF-DIR, PF-MTU): which cluster
 * plays which part, the addresses a would-be gateway client may dial, the typed outcome of an
 * echo, and what each measurement hands its judge. Pure data: judges import it.
 */

/** The check IDs of preflight's active half. */
import type { GatewayPlacement } from "../fleet/templates.ts";
export const PF_IDS = {
  api: "PF-API",
  exposure: "PF-EXP",
  udp: "PF-UDP",
  direction: "PF-DIR",
  mtu: "PF-MTU",
} as const;

/** A cluster of the would-be peering: the consumer is `--kubeconfig`, the provider `--remote-kubeconfig`. */
export type PfSide = "consumer" | "provider";

/** The other side. */
export function otherSide(s: PfSide): PfSide {
  return s === "consumer" ? "provider" : "consumer";
}

/** How a gateway client would reach the server. */
export type CandidateVia = "LoadBalancer" | "NodePort" | "PortMapping";

/** One address:port a gateway client could dial (UDP). */
export interface Candidate {
  via: CandidateVia;
  address: string;
  port: number;
  /** NodePort: the node owning the address, and the address's type (ExternalIP, InternalIP, …). */
  node?: string;
  addressType?: string;
  /** PortMapping: the NodePort the mapping forwards to. */
  forwardsTo?: number;
}

/**
 * The typed outcome of an echo (after troubleshoot's states): the nonce came back; nothing came back
 * in time; an ICMP port-unreachable came back (something answered: the port is closed there); there
 * was no address to send to; admission refused a probe pod; or the probe could not run (pods not
 * Ready, exec failed) — the last two are inconclusive, never "blocked".
 */
export type EchoOutcome =
  | "reply"
  | "timeout"
  | "icmp-refused"
  | "no-address"
  | "rejected-by-admission"
  | "not-run";

/** True for outcomes that say nothing about the path. */
export function inconclusive(o: EchoOutcome): boolean {
  return o === "rejected-by-admission" || o === "not-run";
}

/** The echo of one candidate. */
export interface CandidateEcho {
  candidate: Candidate;
  outcome: EchoOutcome;
  sent: number;
  replies: number;
  /** The first error or odd answer seen (netexec's, curl's). */
  detail: string | null;
  /** The source the echo server saw (netexec `clientip`), when asked and answered. */
  seenSource?: string;
}

/** One direction of the UDP echo: a client in one cluster, the echo server behind the Service in the other. */
export interface Direction {
  server: PfSide;
  client: PfSide;
  serverCluster: string;
  clientCluster: string;
  /** The node the client pod ran on; null when it never ran. */
  clientNode: string | null;
  /** The direction's outcome: `reply` if any candidate replied, else the most telling one. */
  outcome: EchoOutcome;
  candidates: CandidateEcho[];
  /** Why the direction could not run, when it did not (admission message, pod failure). */
  reason?: string;
}

/** A node's addresses, as the would-be gateway server sees them. */
export interface NodeAddresses {
  name: string;
  /** `status.addresses`, in the API's order. */
  addresses: { type: string; address: string }[];
  ready: boolean;
  /** Can host a gateway pod (schedulable, not a virtual node, matches the placement). */
  hostsGateway: boolean;
}

/** What the throwaway Service of one would-be server side got. */
export interface Exposure {
  side: PfSide;
  cluster: string;
  serviceType: "LoadBalancer" | "NodePort";
  /** `namespace/name` of the Service. */
  service: string;
  port: number;
  /** LoadBalancer only: what `status.loadBalancer.ingress` held when the wait ended. */
  loadBalancer?: { addresses: string[]; waitedMs: number; boundMs: number };
  /** The NodePort allocated for the UDP port (LoadBalancer Services have one too), null if none. */
  nodePort: number | null;
  nodes: NodeAddresses[];
  /** Why nothing could be measured (the Service was refused, nodes unreadable). */
  error?: string;
}

/** IPv4 + UDP headers; IPv6 + UDP. */
export const UDP_HEADERS = { v4: 28, v6: 48 } as const;

/** WireGuard's overhead on the underlay: IPv4 20 + UDP 8 + WireGuard 32; IPv6 40 + 8 + 32. */
export const WG_OVERHEAD = { v4: 60, v6: 80 } as const;

/** Liqo's default tunnel MTU (`forge/common.go` DefaultMTU). */
export const LIQO_DEFAULT_MTU = 1340;

/** Liqo's default gateway port (GatewayServer `spec.endpoint.port`). */
export const LIQO_DEFAULT_PORT = 51840;

/** The smallest and largest IP packet the MTU search tries (netexec reads 2048-byte datagrams). */
export const MTU_SEARCH = { min: 576, max: 1500 } as const;

/** The path-MTU search over one working candidate. */
export interface MtuSearch {
  candidate: Candidate;
  direction: { server: PfSide; client: PfSide };
  family: "v4" | "v6";
  /** Each size tried (IP packet bytes) and whether its echo came back. */
  tries: { size: number; ok: boolean }[];
  /** The search stopped at --probe-timeout before it converged (the largest echoed is a lower bound). */
  cut?: boolean;
}

/** The address family of a literal address. */
export function familyOf(address: string): "v4" | "v6" {
  return address.includes(":") ? "v6" : "v4";
}

/** Datagrams PF-UDP sends to each candidate address. */
export const ECHO_COUNT = 3;

/** `UDP 203.0.113.10:51840 (LoadBalancer)`, `UDP 172.18.0.3:31234 (NodePort on node n1, InternalIP)`. */
export function candidateText(c: Candidate): string {
  const addr = c.address.includes(":") ? `[${c.address}]:${c.port}` : `${c.address}:${c.port}`;
  const where = c.via === "NodePort"
    ? `NodePort on node ${c.node ?? "?"}${c.addressType ? `, ${c.addressType}` : ""}`
    : c.via === "PortMapping"
    ? "port mapping (--gw-client-address/--gw-client-port)"
    : "LoadBalancer";
  return `UDP ${addr} (${where})`;
}

/** What the preflight probes may be told by the command line. */
export interface PreflightProbeOptions {
  /** `--service-type`: the UDP Service type to try; null: LoadBalancer, then NodePort. */
  serviceType: "LoadBalancer" | "NodePort" | null;
  /** `--server-side`: where the gateway server would live; null: try both directions. */
  serverSide: "consumer" | "provider" | null;
  /** `--port`: the gateway port to expose (Liqo's default 51840). */
  port: number;
  /** The tunnel MTU Liqo will use (`--mtu`, default 1340). */
  mtu: number;
  /** Images by role, resolved (overrides, registry mirror). */
  images: Record<string, string>;
  /** Bound on each probe (and on a LoadBalancer address). */
  probeTimeoutMs: number;
  /** Cleanup's own budget. */
  cleanupTimeoutMs: number;
  /** `--keep`: leave everything in place and print the cleanup command. */
  keep: boolean;
  /** A fixed run id (tests); default: a fresh one. */
  runId?: string;
  /** `--gw-server-service-nodeport`: the NodePort to ask for (a port mapping forwards to it). */
  nodePort?: number;
  /**
   * `--gw-client-address/--gw-client-port`: a port mapping in front of the would-be server's nodes
   * (Liqo docs/advanced/nat.md option B), tried beside the Service's own addresses.
   */
  natEndpoint?: { address: string; port: number } | null;
  /** Dial the provider API URL from this host too (false: `--no-network-probes`); default true. */
  hostProbe?: boolean;
  /** Each side's gateway placement (its WgGateway*Template's nodeSelector, tolerations, affinity). */
  placement?: Partial<Record<"consumer" | "provider", GatewayPlacement>>;
}
