/**
 * ProbeHub: the only way checks touch the network or pods. Each probe is memoised per run, so
 * several checks share one `wg show` exec or one UDP probe. Implementations live beside this file.
 */

/** One WireGuard peer from `wg show all dump`. */
export interface WgPeer {
  publicKey: string;
  /** "ip:port", or null for "(none)". */
  endpoint: string | null;
  allowedIps: string[];
  /** Unix seconds of the latest handshake; 0 = never. */
  latestHandshake: number;
  rxBytes: number;
  txBytes: number;
  /** Seconds, or null for "off". */
  persistentKeepalive: number | null;
}

/** One WireGuard interface (private key never kept). */
export interface WgInterface {
  name: string;
  publicKey: string;
  listenPort: number | null;
  peers: WgPeer[];
}

/** One parsed `wg show all dump`, with when it was taken. */
export interface WgSample {
  /** Milliseconds since the epoch at which the sample was taken. */
  takenAt: number;
  interfaces: WgInterface[];
}

/** Live WireGuard state of one gateway pod. */
export type WgEvidence =
  | {
    ok: true;
    namespace: string;
    pod: string;
    via: "api" | "kubectl" | "snapshot";
    /** First sample, and the second one taken `sampleIntervalMs` later (absent if it failed). */
    first: WgSample;
    second: WgSample | null;
    /** Live MTU per WireGuard interface name (from /sys/class/net/<if>/mtu). */
    mtu: Record<string, number>;
    /** Parse or exec problems worth showing as evidence. */
    notes: string[];
  }
  | { ok: false; namespace: string; pod: string; reason: "forbidden" | "missing" | "error"; message: string };

/** Result of a UDP probe toward a gateway endpoint. */
export type UdpProbeResult =
  | { outcome: "reply"; detail: string }
  | { outcome: "silence"; detail: string }
  | { outcome: "refused"; detail: string }
  | { outcome: "unavailable"; detail: string };

/** Result of a TCP+TLS dial to an API server URL. */
export type TlsDialResult =
  | { outcome: "ok"; detail: string; ms: number }
  | { outcome: "failed"; detail: string }
  | { outcome: "unavailable"; detail: string };

/** What checks can ask of the outside world. */
export interface ProbeHub {
  /** `wg show all dump` twice (+ MTU) in container `wireguard` of a pod on the given cluster. */
  wireguard(clusterName: string, namespace: string, pod: string): Promise<WgEvidence>;
  /** UDP datagram toward host:port from the tool's host. */
  udp(host: string, port: number): Promise<UdpProbeResult>;
  /** TCP+TLS handshake toward an https URL from the tool's host. */
  tls(url: string): Promise<TlsDialResult>;
}
