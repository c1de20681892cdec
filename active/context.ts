/**
 * What every probe runner (active/<probe>.ts) receives: both clusters, the fleet of probe pods the
 * session opened, the Liqo-aware addressing, the run options and a bounded exec. Runners do their
 * execs through {@link ProbeRunContext.exec} / {@link ProbeRunContext.execPod} so that one cluster
 * never has more than {@link EXEC_CONCURRENCY} execs in flight, whatever probes run in parallel.
 */
import type { ClusterView, Outcome } from "../checks/types.ts";
import type { ExecOutcome } from "../kube/source.ts";
import { createLimiter, type Limiter } from "../kube/limiter.ts";
import { abortable } from "../time.ts";
import { PROBE_CONTAINER } from "./commands.ts";
import type { FleetHandle } from "./fleet/fleet.ts";
import type { ProbeTarget } from "./fleet/target.ts";
import type { ActiveMatrix, Fleet, ProbeMode, ProbeName, ProbePod, Side } from "./model.ts";
import type { Addressing } from "./addressing.ts";

/** One cluster of an active run: its passive view (inventory) and how to write/exec in it. */
export interface ActiveCluster {
  side: Side;
  view: ClusterView;
  target: ProbeTarget;
}

/** The options of one active run (the CLI's probe flags). */
export interface ActiveOptions {
  /** Probes to run (already expanded from `all`). */
  probes: ProbeName[];
  mode: ProbeMode;
  /** `--peer`: the remote cluster ID to probe; null = the only peer with networking. */
  peer: string | null;
  /** `--keep`: leave everything in place and print the cleanup command. */
  keep: boolean;
  /** Images by role (`probe`), already resolved (overrides, registry mirror). */
  images: Record<string, string>;
  /** `--tolerate KEY`: taint keys probe pods tolerate (such nodes join the fleet). */
  tolerate: string[];
  /** Bound on bringing the fleet up and on each probe. */
  probeTimeoutMs: number;
  /** Cleanup's own budget (`--cleanup-timeout`). */
  cleanupTimeoutMs: number;
  /** A fixed run id (tests); default: a fresh random one. */
  runId?: string;
}

/**
 * What a probe runner returns: the judged outcome (from its judge.ts) — the session adds
 * id, title, layer, peer, cluster and duration — plus, for PROBE-MATRIX, the matrix for the report.
 */
export interface ProbeRun extends Outcome {
  /** PROBE-MATRIX only: the grids, reading rules and reading (the report's `active.matrix`). */
  matrix?: ActiveMatrix;
  /** The cluster the result is about, when not the default (local name, or "A ↔ B" in direct mode). */
  cluster?: string;
}

/** A probe runner: `runMatrix`, `runUdp`, `runMtu`, `runTrace`, `runService`. */
export type ProbeRunner = (ctx: ProbeRunContext) => Promise<ProbeRun>;

/** Most execs in flight per cluster (the API server proxies every exec to a kubelet). */
export const EXEC_CONCURRENCY = 16;

/** Everything a probe runner needs. */
export interface ProbeRunContext {
  readonly local: ActiveCluster;
  /** The remote cluster in direct mode (or offload mode with `--remote-kubeconfig`); else null. */
  readonly remote: ActiveCluster | null;
  readonly mode: ProbeMode;
  /** Remote cluster ID of the peer probed. */
  readonly peer: string;
  /** The probe pods (Ready). */
  readonly fleet: Fleet;
  /** The open fleet: create more objects in the run namespace (`handle.create`), what was created. */
  readonly handle: FleetHandle;
  /** Which address a pod dials for another, and which source the far side should see. */
  readonly addressing: Addressing;
  readonly options: ActiveOptions;
  /** Aborted on SIGINT/SIGTERM or the run's timeout: stop promptly, report what was measured. */
  readonly signal: AbortSignal;
  /** Judgement time. */
  now(): Date;
  /** The cluster a side names (null: remote in offload mode without the remote kubeconfig). */
  cluster(side: Side): ActiveCluster | null;
  /** Exec in a probe pod's `probe` container, through the cluster it is exec'd through; bounded. */
  exec(pod: ProbePod, command: readonly string[]): Promise<ExecOutcome>;
  /** Exec in any pod of one side (e.g. the gateway pod), under the same per-cluster bound. */
  execPod(
    side: Side,
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ExecOutcome>;
  /** Progress line for the user (stderr), e.g. "matrix: 24/36 cells". */
  progress(line: string): void;
  /** Display name for a result about both clusters in direct mode ("rome ↔ milan"), else the local name. */
  readonly clusterLabel: string;
}

/** The inputs of {@link createProbeRunContext}. */
export interface ProbeRunContextInit {
  local: ActiveCluster;
  remote: ActiveCluster | null;
  peer: string;
  fleet: Fleet;
  handle: FleetHandle;
  addressing: Addressing;
  options: ActiveOptions;
  signal: AbortSignal;
  now?: () => Date;
  onProgress?: (line: string) => void;
  /** Per-cluster exec bound (default {@link EXEC_CONCURRENCY}). */
  execConcurrency?: number;
}

/** The outcome of an exec cut short by the run's signal. */
function abortedExec(signal: AbortSignal): ExecOutcome {
  const r = signal.reason;
  const why = r instanceof Error ? r.message : typeof r === "string" ? r : "aborted";
  return { ok: false, reason: "error", message: `not run: ${why}` };
}

/** `p`, or the aborted outcome as soon as `signal` aborts (the exec itself is left to its own timeout). */
function untilAborted(p: Promise<ExecOutcome>, signal: AbortSignal): Promise<ExecOutcome> {
  return abortable(p, signal).catch((e) =>
    signal.aborted ? abortedExec(signal) : { ok: false, reason: "error", message: String(e) }
  );
}

const LIMITERS = new WeakMap<ProbeRunContext, Record<Side, Limiter>>();

function build(init: ProbeRunContextInit, limiters: Record<Side, Limiter>): ProbeRunContext {
  const clusterOf = (side: Side): ActiveCluster | null => side === "local" ? init.local : init.remote;
  const signal = init.signal;
  const bounded = async (
    side: Side,
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ExecOutcome> => {
    const c = clusterOf(side);
    if (!c) return { ok: false, reason: "error", message: `no kubeconfig for the ${side} cluster` };
    if (signal.aborted) return abortedExec(signal);
    let release: () => void;
    try {
      release = await limiters[side].acquire(signal);
    } catch {
      return abortedExec(signal);
    }
    try {
      return await untilAborted(c.target.exec(namespace, pod, container, command), signal);
    } finally {
      release();
    }
  };
  const remoteName = init.remote?.view.name ?? init.peer;
  const ctx: ProbeRunContext = {
    local: init.local,
    remote: init.remote,
    mode: init.fleet.mode,
    peer: init.peer,
    fleet: init.fleet,
    handle: init.handle,
    addressing: init.addressing,
    options: init.options,
    signal,
    now: init.now ?? (() => new Date()),
    cluster: clusterOf,
    exec: (pod, command) => bounded(pod.execSide, pod.namespace, pod.name, PROBE_CONTAINER, command),
    execPod: bounded,
    progress: (line) => init.onProgress?.(line),
    clusterLabel: init.remote ? `${init.local.view.name} ↔ ${remoteName}` : init.local.view.name,
  };
  LIMITERS.set(ctx, limiters);
  return ctx;
}

/** Builds the context the probe runners share (one exec limiter per cluster). */
export function createProbeRunContext(init: ProbeRunContextInit): ProbeRunContext {
  const limit = init.execConcurrency ?? EXEC_CONCURRENCY;
  return build(init, { local: createLimiter(limit), remote: createLimiter(limit) });
}

/**
 * The same context under another signal (e.g. one probe's timeout on top of the run's): execs
 * started through it stop waiting when that signal aborts, and share the per-cluster bound.
 */
export function withSignal(ctx: ProbeRunContext, signal: AbortSignal): ProbeRunContext {
  const limiters = LIMITERS.get(ctx) ??
    { local: createLimiter(EXEC_CONCURRENCY), remote: createLimiter(EXEC_CONCURRENCY) };
  return build({
    local: ctx.local,
    remote: ctx.remote,
    peer: ctx.peer,
    fleet: ctx.fleet,
    handle: ctx.handle,
    addressing: ctx.addressing,
    options: ctx.options,
    signal,
    now: ctx.now,
    onProgress: ctx.progress,
  }, limiters);
}
