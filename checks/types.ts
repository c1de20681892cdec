/**
 * The check contract: statuses, layers, results, check definitions and what a check sees when it
 * runs. Checks are data plus a function over the shared inventory (see engine.ts).
 */
import type { KindId } from "../kube/kinds.ts";
import type { ReadScope } from "../liqo/scopes.ts";
import type { Malformed, Objects } from "../liqo/views/mod.ts";
import type { ForeignCluster } from "../liqo/views/peering.ts";
import type { ProbeHub } from "../probes/hub.ts";
import type { CheckFacts } from "./facts.ts";
import type { RemediationStep } from "./remediation.ts";

/** Outcome of one check. */
export type Status = "pass" | "warn" | "fail" | "skip" | "unknown";

/** Statuses in the order a summary counts them. */
export const STATUSES: readonly Status[] = ["pass", "warn", "fail", "skip", "unknown"];

/** Layers in dependency order: a failure in an earlier layer explains later ones. */
export const LAYERS = [
  "env",
  "controlplane",
  "gateway",
  "tunnel",
  "fabric",
  "ipam",
  "cni",
  "reflection",
  "probe",
  "preflight",
] as const;

/** One layer of the Liqo connectivity chain. */
export type Layer = typeof LAYERS[number];

/** Report headings per layer. */
export const LAYER_TITLES: Readonly<Record<Layer, string>> = {
  env: "ENVIRONMENT",
  controlplane: "CONTROL PLANE",
  gateway: "GATEWAY EXPOSURE",
  tunnel: "TUNNEL",
  fabric: "FABRIC",
  ipam: "IPAM",
  cni: "CNI",
  reflection: "REFLECTION",
  probe: "ACTIVE PROBES",
  preflight: "PREFLIGHT",
};

/**
 * A hop of the data path a check observes (the HTML report's diagram): the local pod, a node, the
 * node's Geneve tunnel, the gateway, the WireGuard tunnel between the gateways, and the remote pod
 * (reachability through IPAM remapping and reflection). Node, Geneve and gateway hops are local or
 * remote by the cluster the result was observed on.
 */
export type Hop = "local-pod" | "node" | "geneve" | "gateway" | "wireguard" | "remote-pod";

/** Why a check was skipped: renderers branch on this, never on summary text. */
export type SkipKind =
  /** A dual check in a single-kubeconfig run. */
  | "needs-remote"
  /** A dependency failed (see `blockedBy`). */
  | "blocked"
  /** The check does not apply here (no peer of that kind, feature off, nothing to compare). */
  | "not-applicable"
  /** Turned off by the user (e.g. `--no-network-probes`) or impossible offline (snapshots). */
  | "disabled";

/** What a check run produced, as reported. */
export interface CheckResult {
  /** Check ID, e.g. `GW-02`. */
  id: string;
  /** One-line title of the check. */
  title: string;
  /** Layer of the Liqo network the check belongs to. */
  layer: Layer;
  /** Outcome: `pass`, `warn`, `fail`, `skip` or `unknown`. */
  status: Status;
  /** Remote cluster ID for peer-scoped checks, null for cluster-wide ones. */
  peer: string | null;
  /** Name of the cluster it was observed on ("A ↔ B" for checks that compare both). */
  cluster: string;
  /** One-line finding. */
  summary: string;
  /** The facts the finding rests on, one per entry. */
  evidence: string[];
  /** The fix, as steps (checks/remediation.ts); empty when there is nothing to do. */
  remediation: RemediationStep[];
  /** ID of the failed check that kept this one from running. */
  blockedBy: string | null;
  /** For skips: why (null otherwise). */
  skipKind: SkipKind | null;
  /** How long the check ran, in milliseconds. */
  durationMs: number;
  /**
   * The input check whose result decided this verdict (FAB-03 failed by PROBE-MATRIX: the matrix
   * found the fault the passive half could not see); absent when the check's own reads decided.
   */
  decidedBy?: string;
}

/** What a check's run function returns. */
export interface Outcome {
  status: Status;
  /** For `skip`: why; "not-applicable" when left out. */
  skipKind?: SkipKind;
  summary: string;
  evidence?: string[];
  /** Facts for the checks that declare this one as an input (never reported). */
  facts?: CheckFacts;
  /** The input check whose result decided this verdict (see {@link CheckResult.decidedBy}). */
  decidedBy?: string;
  /**
   * Active checks only: where the result was observed, when not the run's local cluster (a probe
   * of both clusters is "A ↔ B") and the peer it probed.
   */
  where?: { cluster: string; peer: string | null };
  /** The fix, as steps (checks/remediation.ts builders); absent or empty: nothing to do. */
  remediation?: RemediationStep[];
}

/** How a check is explained by `flyingfish explain`. */
export interface Explanation {
  /** What the check reads (objects, fields, exec commands, probes). */
  reads: string;
  /** How it decides pass / warn / fail / unknown. */
  decides: string;
  /** How to fix what it finds. */
  fixes: string;
}

/**
 * The active phase of a check: it needs the probe fleet (objects created in the clusters), so it
 * runs only in an active run (`flyingfish probe`, `check --active`), once per run, after every
 * passive check that does not wait for it.
 */
export interface ActiveSpec {
  /** The probe that measures it (`flyingfish probe <name>`). */
  readonly probe: string;
  /** Modes it runs in. */
  readonly modes: readonly ("direct" | "offload")[];
}

/** A check: data plus a function. */
export interface CheckDef {
  /** Stable ID, e.g. "GW-02". */
  readonly id: string;
  readonly title: string;
  readonly layer: Layer;
  /**
   * IDs of checks whose failure makes this one meaningless (it is then skipped, blockedBy). An
   * `unknown` dependency blocks too ("blocked by X (unknown)"): nothing is judged on top of a link
   * nobody could verify — unless the dependency is listed in {@link runsIfUnknown}.
   */
  readonly needs: readonly string[];
  /**
   * Dependencies (a subset of `needs`) whose `unknown` does not block this check, because its own
   * inputs still decide (e.g. TUN-01 reads the Connection status even when TUN-04 could not compare
   * the keys with the live WireGuard state).
   */
  readonly runsIfUnknown?: readonly string[];
  /** "single": one kubeconfig is enough; "dual": needs --remote-kubeconfig. */
  readonly scope: "single" | "dual";
  /** Runs once per peer (ForeignCluster) rather than once per cluster. */
  readonly perPeer: boolean;
  /** Inventory kinds the check cannot do without; if one is unreadable the result is unknown. */
  readonly reads: readonly KindId[];
  /** Kinds it uses when readable but can do without. */
  readonly optionalReads?: readonly KindId[];
  /**
   * Where it reads namespaced kinds of `reads`/`optionalReads` (see liqo/scopes.ts): e.g.
   * `{ pods: ["tenants"] }` reads only the pods of the tenant namespaces. A kind not named here is
   * read everywhere; pods and configmaps must be placed (a catalog test enforces it), so that a
   * check that needs more says so.
   */
  readonly readsIn?: { readonly [K in KindId]?: readonly ReadScope[] };
  readonly explain: Explanation;
  /** The data-path hops whose health this check observes ([] for checks off the data path). */
  readonly hops: readonly Hop[];
  /**
   * What the check reads through the probe hub (exec of `wg show`, container logs, UDP/TLS/DNS from the
   * tool's host). The engine hands each check a hub that refuses anything not declared here, so an
   * undeclared read makes the check `unknown` instead of passing unnoticed.
   */
  readonly hubReads?: readonly HubRead[];
  /** Set for active checks (see {@link ActiveSpec}); absent: a passive check. */
  readonly active?: ActiveSpec;
  /**
   * Optional inputs: checks whose results (and facts) this one takes into account when they run in
   * the same run (`CheckContext.input`). Unlike `needs`, an input never blocks: absent from the run,
   * or not decided, the check judges on its own reads (FAB-03 reads PROBE-MATRIX in an active run).
   */
  readonly inputs?: readonly string[];
  run(ctx: CheckContext): Outcome | Promise<Outcome>;
}

/** An input check's result as a check that declares it reads it. */
export interface InputResult {
  readonly result: CheckResult;
  readonly facts: CheckFacts;
}

/**
 * The active half of a run, as active checks see it: each active check's `run` asks it for its
 * outcome. The phase does its work once, for every active check of the run, on the first call
 * (active/ implements it: fleet, probes, cleanup).
 */
export interface ActivePhase {
  /** The outcome of the active check `id`, over the views the passive checks judged. */
  outcome(id: string, views: { local: ClusterView; remote: ClusterView | null }): Promise<Outcome>;
}

/** A probe-hub read a check may declare (see {@link CheckDef.hubReads}). */
export type HubRead = "wireguard" | "logs" | "udp" | "tls" | "resolve" | "access";

/** Every probe-hub read, in the order `explain` lists them. */
export const HUB_READS: readonly HubRead[] = ["wireguard", "logs", "udp", "tls", "resolve", "access"];

/** One cluster as the checks see it. */
export interface ClusterView {
  /** Display name: the Liqo cluster ID when known, else the kubeconfig context. */
  readonly name: string;
  /** Liqo cluster ID from liqo-clusterid-configmap, if found. */
  readonly clusterId: string | null;
  /** Namespace Liqo is installed in (found by the controller-manager's labels), if any. */
  readonly liqoNamespace: string | null;
  readonly context: string;
  readonly server: string;
  /** Identifies the kubeconfig's CA for this cluster (see ClusterEndpoint.caFingerprint). */
  readonly caFingerprint?: string;
  /** The cluster's objects, typed (liqo/views). */
  readonly inv: Objects;
  /** Judgement time (capture time for snapshots). */
  readonly now: Date;
  /** The API server's `/version` gitVersion, when the run read it (preflight's PF-VER). */
  readonly serverVersion?: string | null;
  readonly isSnapshot: boolean;
}

/** One peer (a ForeignCluster) as seen from one cluster. */
export interface PeerView {
  /** Remote cluster ID (`spec.clusterID`). */
  readonly clusterId: string;
  /** The ForeignCluster object. */
  readonly foreignCluster: ForeignCluster;
  /** Tenant namespace for this peer on the local cluster, if known. */
  readonly tenantNamespace: string | null;
  /**
   * Set when the ForeignCluster does not fit its view: `foreignCluster` then holds only what could
   * be read of it (name, cluster ID), and the engine makes the peer's checks `unknown`, naming this.
   */
  readonly malformed?: Malformed;
  /**
   * Set when the ForeignClusters could not be read and the peer was found by the labels Liqo puts on
   * its per-peer objects or tenant namespace (a stale one looks the same): nothing confirms it is a
   * peering, so the engine makes the peer's checks `unknown`, naming this read.
   */
  readonly unlocated?: string;
}

/** Run-wide options checks may consult. */
export interface RunOptions {
  /** GW-05 and API-01 may send packets from this host. */
  readonly networkProbes: boolean;
  /** Use the libc socket (Deno FFI) so GW-05 can see ICMP port-unreachable. */
  readonly preciseUdp: boolean;
  /** Milliseconds between the two `wg show` samples (TUN-03). */
  readonly sampleIntervalMs: number;
  /** TUN-05 warns above this latency. */
  readonly latencyThresholdMs: number;
  /** Per-check timeout. */
  readonly checkTimeoutMs: number;
  /** `flyingfish preflight`: what the command line says of the peering to come. */
  readonly preflight?: PreflightIntent;
}

/** What `flyingfish preflight`'s flags say of the peering to come (null: Liqo's default). */
export interface PreflightIntent {
  /** `--server-side`: where the gateway server would live. */
  readonly serverSide: "consumer" | "provider" | null;
  /** `--service-type`: how it would be exposed. */
  readonly serviceType: "LoadBalancer" | "NodePort" | null;
  /** `--port`: the gateway port (51840 by default). */
  readonly port: number | null;
  /** `--mtu`: the tunnel MTU (1340 by default). */
  readonly mtu: number | null;
  /** `--gw-server-service-nodeport` (with `--probe`): a NodePort forced on the gateway Service. */
  readonly nodePort?: number | null;
  /**
   * `liqoctl version --client` on this host: the version, or why it is not known (not on PATH,
   * no permission to run it). Absent: not asked.
   */
  readonly liqoctl?: { readonly version: string | null; readonly detail: string };
}

/** What a check's run function receives. */
export interface CheckContext {
  readonly cluster: ClusterView;
  /** Set for peer-scoped checks. */
  readonly peer: PeerView | null;
  /** Dual mode: the other cluster (also for single-cluster checks, for their [1/2] comparisons) and,
   * for peer-scoped checks, the other side's PeerView of the same peering (its ForeignCluster for this cluster). */
  readonly remote: ClusterView | null;
  readonly remotePeer: PeerView | null;
  readonly probes: ProbeHub;
  readonly options: RunOptions;
  readonly signal: AbortSignal;
  /** The active phase of an active run (null in a passive run). */
  readonly active: ActivePhase | null;
  /**
   * The result of an input check (one of `CheckDef.inputs`) on the same cluster, or run-wide; null
   * when it is not part of this run.
   */
  input(id: string): InputResult | null;
}
