/**
 * ClusterSource: everything FlyingFish needs from one cluster. A live implementation talks to an
 * API server (live.ts); a snapshot implementation replays a collected bundle. Checks never see a
 * source directly: they read the Inventory built from it and the probes.
 */
import type { KindSpec, ListScope } from "./kinds.ts";

/** A Kubernetes object as read from the API (kind/apiVersion filled in by the source). */
export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    generation?: number;
    ownerReferences?: {
      apiVersion: string;
      kind: string;
      name: string;
      uid?: string;
      controller?: boolean;
    }[];
    [key: string]: unknown;
  };
  /** Untyped on the wire: read it through a typed view (liqo/views). */
  spec?: unknown;
  status?: unknown;
  data?: unknown;
  [key: string]: unknown;
}

/** How a list is sent. */
export interface ListOptions {
  /** What the run's critical path waits on (the first WireGuard sample): sent first. */
  readonly urgent?: boolean;
}

/** Why a list or exec could not be done. */
export type Unavailable = "forbidden" | "missing" | "error";

/** Result of listing one kind. */
export type ListOutcome =
  | {
    ok: true;
    items: K8sObject[];
    /** How many GETs of the list were retried (transient faults, see kube/http.ts); absent or 0: none. */
    retries?: number;
  }
  | { ok: false; reason: Unavailable; message: string };

/** Result of running a command in a container. */
export type ExecOutcome =
  | {
    ok: true;
    stdout: string;
    stderr: string;
    exitCode: number;
    via: "api" | "kubectl" | "snapshot";
    /** When the output was captured (ms since the epoch); set by snapshots to replay the original spacing. */
    takenAt?: number;
  }
  | { ok: false; reason: Unavailable; message: string };

/** Bounds of one container-log read, and which instance of the container. */
export interface LogRequest {
  /** Last N lines. */
  tailLines?: number;
  /** At most this many bytes. */
  limitBytes?: number;
  /** The last terminated instance (`previous=true`), e.g. after a restart: its log says why it stopped. */
  previous?: boolean;
}

/** Result of reading a container's recent log. */
export type LogOutcome =
  | {
    ok: true;
    text: string;
    /** True when the text is the previous (last terminated) instance's log. */
    previous: boolean;
    via: "api" | "snapshot";
    /** What the reader should know about the text (e.g. a snapshot holds only the current log). */
    note?: string;
  }
  | { ok: false; reason: Unavailable; message: string };

/** What discovery says one group/version serves. */
export interface GroupVersionResources {
  group: string;
  version: string;
  /** Resource plural names; empty when the group/version is not served. */
  resources: string[];
}

/** Discovery outcome for the groups FlyingFish cares about. */
export type DiscoveryOutcome =
  | { ok: true; groups: GroupVersionResources[] }
  | { ok: false; reason: Unavailable; message: string };

/** Identity of a cluster connection, for reports. */
export interface ClusterEndpoint {
  /** kubeconfig context name (or snapshot label). */
  context: string;
  /** API server URL (credentials never included). */
  server: string;
  /**
   * SHA-256 (hex, first 16 digits) of the kubeconfig's certificate-authority-data, or
   * `file:<path>` for a certificate-authority file; absent without one (system roots).
   */
  caFingerprint?: string;
}

/** What the API server says of itself (GET /version). */
export interface ServerVersion {
  /** e.g. "v1.31.4"; null when the answer did not say. */
  gitVersion: string | null;
}

/** One cluster, live or captured. */
export interface ClusterSource {
  readonly endpoint: ClusterEndpoint;
  /** Time against which ages are judged: now for live sources, capture time for snapshots. */
  readonly now: () => Date;
  /** True when this source replays a snapshot (host-side probes are skipped). */
  readonly isSnapshot: boolean;
  /**
   * Lists a kind, everywhere or within a scope (a namespace, selectors); an `urgent` list goes
   * before the others waiting for a connection slot. Never throws.
   */
  list(spec: KindSpec, scope?: ListScope, opts?: ListOptions): Promise<ListOutcome>;
  discovery(groups: readonly { group: string; version: string }[]): Promise<DiscoveryOutcome>;
  exec(namespace: string, pod: string, container: string, command: readonly string[]): Promise<ExecOutcome>;
  /**
   * A bounded read of a container's recent log (GET pods/{name}/log; a snapshot replays the log
   * `collect` stored). Optional: a source without it cannot read logs. Never throws.
   */
  logs?(namespace: string, pod: string, container: string, req?: LogRequest): Promise<LogOutcome>;
  /**
   * Live sources: GETs /version — the first request of a run, sent with the first lists — and
   * throws a ToolError when the server is unreachable or rejects the credentials.
   */
  probeReachable?(): Promise<ServerVersion>;
  /**
   * Live sources: access reviews and `dryRun=All` creates (kube/live/access.ts), which persist
   * nothing — preflight's passive checks ask them through the probe hub. Absent: a snapshot.
   */
  readonly access?: AccessClient;
  /** Releases connections. */
  close(): Promise<void>;
}

// The access questions a live source can answer (kube/live/access.ts implements them): spelled here,
// beside the source contract that carries them, so the contract imports nothing of kube/live/.

/** One question of a SelfSubjectAccessReview (`spec.resourceAttributes`). */
export interface AccessAttributes {
  verb: string;
  resource: string;
  /** API group ("" or absent: core). */
  group?: string;
  subresource?: string;
  /** Absent: cluster-wide (or cluster-scoped resources). */
  namespace?: string;
  name?: string;
}

/** The server's answer to one {@link AccessAttributes}. */
export interface AccessVerdict extends AccessAttributes {
  allowed: boolean;
  /** The authorizer's reason (often empty), or why the review itself failed. */
  reason: string;
  /**
   * The review itself was refused or unreadable (a 403 on selfsubjectaccessreviews, a 5xx): `allowed`
   * is then false without the authorizer having said no.
   */
  reviewFailed?: boolean;
}

/** What a create, delete or get came back with. */
export type WriteOutcome =
  | { ok: true; status: number; object: K8sObject }
  | { ok: false; status: number; reason: string; message: string };

/** Asks and answers access questions and dry runs on one cluster; nothing it sends is stored. */
export interface AccessClient {
  /** One SelfSubjectAccessReview per attribute set, all in parallel, answers in the same order. */
  review(attrs: readonly AccessAttributes[], opts?: { signal?: AbortSignal }): Promise<AccessVerdict[]>;
  /** POSTs `obj` to its collection with `?dryRun=All`: the server admits or refuses it, stores nothing. */
  dryRunCreate(obj: K8sObject, opts?: { signal?: AbortSignal }): Promise<WriteOutcome>;
}
