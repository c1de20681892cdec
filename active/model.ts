/**
 * The shapes shared by the active probes: the probe names, the fleet of probe pods a run created,
 * what it created and removed, and the reachability matrix as reported. Lifecycle
 * (active/fleet/), probe runners (active/), the report model and the renderers all speak these.
 */
import type { ExecOutcome } from "../kube/source.ts";

/** The probes `flyingfish probe` runs (`all` = every one that applies to the mode). */
export const PROBE_NAMES = ["matrix", "udp", "mtu", "service", "trace"] as const;

/** One active probe. */
export type ProbeName = typeof PROBE_NAMES[number];

/** Check ID of each probe's result. */
export const PROBE_CHECK_IDS: Readonly<Record<ProbeName, string>> = {
  matrix: "PROBE-MATRIX",
  udp: "PROBE-UDP",
  mtu: "PROBE-MTU",
  service: "PROBE-SVC",
  trace: "PROBE-TRACE",
};

/**
 * How the peer is reached: `direct` creates probe pods in both clusters with their own kubeconfigs;
 * `offload` (consumer kubeconfig only) offloads the run namespace to the peer and lets Liqo run the
 * remote pods.
 */
export type ProbeMode = "direct" | "offload";

/** Which end of the peering: `local` is the `--kubeconfig` cluster. */
export type Side = "local" | "remote";

/** Labels and annotations on everything a run creates. */
export const PROBE_LABELS = {
  managedBy: "app.kubernetes.io/managed-by",
  managedByValue: "flyingfish",
  runId: "flyingfish.io/run-id",
  /** On probe pods: the node the pod was placed on. */
  node: "flyingfish.io/node",
  /** On probe pods: "probe". */
  component: "app.kubernetes.io/component",
  /** Namespace annotation: RFC 3339 time after which a leftover may be removed by anyone. */
  expiresAt: "flyingfish.io/expires-at",
} as const;

/** The run namespace: `flyingfish-probe-<run id>`. */
export function probeNamespace(runId: string): string {
  return `flyingfish-probe-${runId}`;
}

/**
 * What a run is for, which names its namespace: `probe` (`flyingfish probe`, `check --active`) or
 * `preflight` (`flyingfish preflight --probe`). One fleet, one cleanup, one label set for both.
 */
export type RunKind = "probe" | "preflight";

/** The namespace prefix of each kind of run. */
export const RUN_NAMESPACE_PREFIX: Readonly<Record<RunKind, string>> = {
  probe: "flyingfish-probe-",
  preflight: "flyingfish-preflight-",
};

/** The run namespace of a kind of run: `flyingfish-probe-<id>` or `flyingfish-preflight-<id>`. */
export function runNamespace(runId: string, kind: RunKind = "probe"): string {
  return `${RUN_NAMESPACE_PREFIX[kind]}${runId}`;
}

/** The kind of run a namespace name belongs to, by its prefix; null for anything else. */
export function runKindOf(namespace: string): RunKind | null {
  for (const kind of ["preflight", "probe"] as const) {
    if (namespace.startsWith(RUN_NAMESPACE_PREFIX[kind])) return kind;
  }
  return null;
}

/** Runs a command in a container of a cluster; never throws. */
export type PodExec = (
  namespace: string,
  pod: string,
  container: string,
  command: readonly string[],
) => Promise<ExecOutcome>;

/** One probe pod, running and Ready. */
export interface ProbePod {
  /** The cluster whose pod network it sits in (offloaded pods: `remote`). */
  side: Side;
  /** The cluster it is exec'd through (offloaded pods: `local`, through the virtual kubelet). */
  execSide: Side;
  /** The run namespace it lives in (offloaded pods: the consumer's). */
  namespace: string;
  /** Pod name. */
  name: string;
  /** Node it runs on; for offloaded pods the remote node when known, else the virtual node. */
  node: string;
  /** Pod IP in its own cluster (offloaded pods: as the consumer sees it, already remapped). */
  podIP: string;
}

/** A node left out of the matrix, and why (control plane, taint, cordoned, not Ready). */
export interface ExcludedNode {
  /** The cluster of the node. */
  side: Side;
  /** Node name. */
  node: string;
  /** Why it was left out, with the flag that would bring it in. */
  reason: string;
}

/** The probe pods of one run. */
export interface Fleet {
  /** The run's id (its namespace is {@link probeNamespace}). */
  runId: string;
  /** How the peer is reached. */
  mode: ProbeMode;
  /** Remote cluster ID of the peer probed. */
  peer: string;
  /** Probe pods in the local cluster, one per schedulable node. */
  local: ProbePod[];
  /** Probe pods in (or offloaded to) the remote cluster. */
  remote: ProbePod[];
  /** Nodes left out of the fleet, and why. */
  excluded: ExcludedNode[];
}

/** One object a run created. */
export interface CreatedObject {
  /** Display name of the cluster. */
  cluster: string;
  /** Kubernetes kind. */
  kind: string;
  /** Namespace, null for cluster-scoped objects. */
  namespace: string | null;
  /** Object name. */
  name: string;
}

/** What became of one run namespace at the end. */
export interface CleanupRecord {
  /** Display name of the cluster. */
  cluster: string;
  /** The run namespace. */
  namespace: string;
  /** removed: gone; kept: --keep; stuck: still Terminating when the wait ended; failed: delete refused. */
  status: "removed" | "kept" | "stuck" | "failed";
  /** How long it took, the finalizers of a stuck namespace, or the refusal. */
  detail: string;
}

/** The state of one matrix cell for one protocol. */
export type CellState = "ok" | "fail" | "flaky" | "unknown";

/** One cell: from a row pod to a column pod. */
export interface MatrixCell {
  /** TCP connect to the pod's netexec port. */
  tcp: CellState;
  /** UDP echo (netexec `/dial hostname`) naming the pod dialled. */
  udp: CellState;
  /** Why it is not ok (e.g. "TCP TIMEOUT after 3 s; UDP no answer"), "" when both are ok. */
  detail: string;
}

/** One direction of the matrix: rows are source nodes, columns destination nodes. */
export interface MatrixGrid {
  /** e.g. "rome-4b2a9e → milan-8d1f03" or "rome-4b2a9e → rome-4b2a9e (control)". */
  title: string;
  /** Same-cluster control group. */
  control: boolean;
  /** Cluster of the source pods (rows). */
  fromCluster: string;
  /** Cluster of the destination pods (columns). */
  toCluster: string;
  /** Source node names (one probe pod each). */
  rows: string[];
  /** Destination node names. */
  cols: string[];
  /** cells[row][col]. */
  cells: MatrixCell[][];
}

/** The matrix as reported, with the reading that applies. */
export interface ActiveMatrix {
  /** One grid per direction, then the control grids. */
  grids: MatrixGrid[];
  /** The reading rules, printed with the result. */
  rules: string[];
  /** What the pattern says, e.g. "column milan-worker-2 red: that remote node". */
  reading: string[];
}

/** The active part of a report: what ran, what it created and removed, and the matrix. */
export interface ActiveRunRecord {
  /** The run's id (namespace `flyingfish-probe-<id>`, label `flyingfish.io/run-id`). */
  runId: string;
  /** How the peer was reached. */
  mode: ProbeMode;
  /** Remote cluster ID of the peer probed. */
  peer: string;
  /** The probes run. */
  probes: ProbeName[];
  /** Every object the run created. */
  created: CreatedObject[];
  /** What became of each run namespace. */
  cleanup: CleanupRecord[];
  /** Nodes left out of the fleet, and why. */
  excluded: ExcludedNode[];
  /** Images used, by role (`probe`). */
  images: Record<string, string>;
  /** The reachability matrix, when PROBE-MATRIX ran. */
  matrix: ActiveMatrix | null;
}
