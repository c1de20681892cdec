/**
 * ProbeHub: the only way checks touch the network or pods. Each probe is memoised per run, so
 * several checks share one `wg show` exec or one UDP probe. Implementations live beside this file.
 */
import type { AccessAttributes, AccessVerdict } from "../kube/live/access.ts";
import type { K8sObject } from "../kube/source.ts";

/** One WireGuard peer from `wg show all dump`. */
export interface WgPeer {
  publicKey: string;
  /** "ip:port", or null for "(none)". */
  endpoint: string | null;
  allowedIps: string[];
  /** Unix seconds of the latest handshake; 0 = never; null = unreadable (see `unreadable`). */
  latestHandshake: number | null;
  /**
   * Transfer counters (u64 in WireGuard): a number while exact (up to 2^53 − 1), a bigint above it (up
   * to 2^64 − 1, a valid reading); null = unreadable (see `unreadable`).
   */
  rxBytes: number | bigint | null;
  txBytes: number | bigint | null;
  /** Seconds, or null for "off" (or unreadable, see `unreadable`). */
  persistentKeepalive: number | null;
  /** Fields of the dump line that could not be read, with the raw text: `latest-handshake: "abc"`. */
  unreadable?: string[];
}

/** One WireGuard interface (private key never kept). */
export interface WgInterface {
  name: string;
  publicKey: string;
  listenPort: number | null;
  peers: WgPeer[];
  /** Lines of this interface that could not be read as a peer at all (no usable public key). */
  unreadableLines?: string[];
}

/** One parsed `wg show all dump`, with when it was taken. */
export interface WgSample {
  /** Milliseconds since the epoch at which the sample was taken. */
  takenAt: number;
  interfaces: WgInterface[];
  /** Lines that could not be attributed to any interface (they may hide a peer). */
  unreadableLines?: string[];
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
    /**
     * The pod's own underlay interface (`eth0`, /sys/class/net/eth0/mtu, read in the same container:
     * every container of the pod shares its network namespace): `mtu` null when unreadable, `note` says
     * why. Absent from evidence built before it was read (tests, older bundles).
     */
    underlay?: { iface: string; mtu: number | null; note?: string };
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

/**
 * Result of resolving a hostname (A/AAAA) from the tool's host: `resolved` with the addresses,
 * `not-found` when the name has no address, `unavailable` when the question could not be asked
 * (network probes off, snapshot, no `--allow-net` permission, timeout).
 */
export type ResolveResult =
  | { outcome: "resolved"; addresses: string[]; detail: string }
  | { outcome: "not-found"; detail: string }
  | { outcome: "unavailable"; detail: string };

/** The recent log of one container, reduced to the lines worth citing (probes/logs.ts). */
export type LogEvidence =
  | {
    ok: true;
    namespace: string;
    pod: string;
    container: string;
    /** True when the lines come from the previous (last terminated) instance. */
    previous: boolean;
    via: "api" | "snapshot";
    /** Error-like lines (at most 5), or the last 3 lines when none is; long lines cut. */
    lines: string[];
    /** True when `lines` are error-like lines rather than the plain tail. */
    matched: boolean;
    /** Non-empty lines read (bounded by tailLines/limitBytes). */
    totalLines: number;
    /** E.g. a snapshot holds only the current log. */
    note?: string;
  }
  | {
    ok: false;
    namespace: string;
    pod: string;
    container: string;
    /** forbidden: the message names the missing permission; missing: not found / not captured. */
    reason: "forbidden" | "missing" | "error";
    message: string;
  };

/** What preflight's RBAC check asks one cluster: access reviews, then objects to create with `dryRun=All`. */
export interface AccessQuestions {
  reviews: readonly AccessAttributes[];
  dryRuns: readonly K8sObject[];
}

/** How one dry-run create was answered: admitted, or refused with the Status' reason and message. */
export type DryRunAnswer =
  | { object: K8sObject; admitted: true }
  | { object: K8sObject; admitted: false; status: number; reason: string; message: string };

/** The answers to {@link AccessQuestions}, in the same order; `unavailable` when they could not be asked. */
export type AccessAnswers =
  | { ok: true; verdicts: AccessVerdict[]; dryRuns: DryRunAnswer[] }
  | { ok: false; unavailable: string };

/** What checks can ask of the outside world. */
export interface ProbeHub {
  /** `wg show all dump` twice (+ MTU) in container `wireguard` of a pod on the given cluster. */
  wireguard(clusterName: string, namespace: string, pod: string): Promise<WgEvidence>;
  /**
   * A bounded read of a container's recent log on the given cluster (`previous`: the last terminated
   * instance, for a container that restarted), reduced to its relevant lines. Memoised per run.
   * Optional so that hubs written before it keep compiling: checks go through checks/common/logs.ts,
   * which reads a missing reader as "logs not available".
   */
  logs?(
    clusterName: string,
    namespace: string,
    pod: string,
    container: string,
    opts?: { previous?: boolean },
  ): Promise<LogEvidence>;
  /** UDP datagram toward host:port from the tool's host. */
  udp(host: string, port: number): Promise<UdpProbeResult>;
  /** TCP+TLS handshake toward an https URL from the tool's host. */
  tls(url: string): Promise<TlsDialResult>;
  /**
   * A/AAAA resolution of a hostname from the tool's host (memoised per host). Optional so that
   * hubs written before it keep compiling: checks go through checks/common/endpoint_names.ts, which
   * reads a missing resolver as `unavailable`.
   */
  resolve?(host: string): Promise<ResolveResult>;
  /**
   * SelfSubjectAccessReviews and `dryRun=All` creates on the given cluster (kube/live/access.ts):
   * nothing is stored, so passive runs may ask. Optional: a hub without it (a snapshot) answers
   * `unavailable` through checks/preflight, never a pass.
   */
  access?(clusterName: string, questions: AccessQuestions): Promise<AccessAnswers>;
}
