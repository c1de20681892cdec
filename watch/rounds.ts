/**
 * The round runner of `flyingfish watch` and `flyingfish serve`: one diagnosis per {@link
 * RoundRunner.next} call over sources opened once. A source that can watch (opened with
 * kube/live/watch.ts `openWatchableSource`, or any {@link WatchableSource}) is wrapped in the watch
 * cache (kube/watch_cache.ts): after the first round its lists come from Kubernetes watches, and a
 * round costs only the /version probe and the `wg show` execs. Each round gets a fresh probe hub, so
 * the WireGuard readings (two samples, `options.sampleIntervalMs` apart) are taken every round.
 *
 * The runner does not pace rounds: the caller waits its interval between `next()` calls.
 */
import type { ClusterSource } from "../kube/source.ts";
import {
  canWatch,
  type WatchCachedSource,
  type WatchCacheStats,
  withWatchCache,
} from "../kube/watch_cache.ts";
import type { ProbeHub } from "../probes/hub.ts";
import { createProbeHub } from "../probes/live_hub.ts";
import type { CheckDef, RunOptions } from "../checks/types.ts";
import type { Report } from "../report/model.ts";
import type { Invocation } from "../report/invocation.ts";
import { runDiagnosis } from "../diagnose/run.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import { recordingSource } from "../diff/capture.ts";
import { SinceHealthy } from "../diff/since_healthy.ts";

/** Runs diagnosis rounds over the same sources. */
export interface RoundRunner {
  /**
   * Runs one round now and returns its report. Calls are serialised (a call made while a round
   * runs starts after it). Rejects like `runDiagnosis` (e.g. a ToolError when the cluster is
   * unreachable: the next call tries again) and after {@link RoundRunner.close}.
   */
  next(): Promise<Report>;
  /** Stops the watches and closes the sources (idempotent); a running round is aborted. */
  close(): Promise<void>;
}

/** What {@link startRounds} needs. */
export interface RoundsOptions {
  /** The local cluster; the runner owns it from now on (closed by {@link RoundRunner.close}). */
  local: ClusterSource;
  /** Dual mode: the other cluster, or why it could not be opened (as cli/check.ts openSources gives it). */
  remote?: { source: ClusterSource | null; error?: string } | null;
  /** Narrow to these peers (cluster IDs or ForeignCluster names). */
  peers?: readonly string[];
  /** Run options (cli/check.ts `runOptionsFrom`). */
  options: RunOptions;
  /** Builds each round's probe hub; default: the live hub (kube exec `wg show`, UDP/TLS probes per options). */
  probes?: (sources: Map<string, ClusterSource>) => ProbeHub;
  /** The checks to run (default: the whole catalog). */
  catalog?: readonly CheckDef[];
  /** Recorded in each report. */
  invocation?: Invocation;
  /** Lines for the user while a round runs (e.g. the remote cluster is left out). */
  onNotice?: (line: string) => void;
  /** Aborting it closes the runner. */
  signal?: AbortSignal;
  /** Keep lists current with watches when the source can watch (default true). */
  watch?: boolean;
  /**
   * Keep the last healthy round's objects (redacted like collect, bounded per kind) so a round with
   * a failure carries `changedSinceHealthy` (default true).
   */
  sinceHealthy?: boolean;
}

/** A runner, with counters for tests and benchmarks. */
export interface RoundRunnerWithStats extends RoundRunner {
  /** Rounds completed. */
  readonly rounds: number;
  /** Watch cache counters per cluster source (local first); empty when nothing is watched. */
  cacheStats(): WatchCacheStats[];
}

/** Starts a round runner; nothing is sent before the first {@link RoundRunner.next}. */
export function startRounds(opts: RoundsOptions): RoundRunnerWithStats {
  const useWatch = opts.watch !== false;
  const wrap = (s: ClusterSource): ClusterSource => useWatch && canWatch(s) ? withWatchCache(s) : s;
  const local = wrap(opts.local);
  const remoteSource = opts.remote?.source ? wrap(opts.remote.source) : null;
  const remote = opts.remote ? { ...opts.remote, source: remoteSource } : null;
  const cached = [local, remoteSource].filter((s): s is WatchCachedSource =>
    s !== null && "stats" in s && typeof s.stats === "function"
  );
  // What each round reads is recorded (on top of the watch cache) for the diff since healthy.
  const keep = opts.sinceHealthy !== false;
  const localRec = keep ? recordingSource(local) : null;
  const remoteRec = keep && remoteSource ? recordingSource(remoteSource) : null;
  const tracker = keep ? new SinceHealthy(opts.catalog ?? PASSIVE_CHECKS) : null;
  const roundRemote = remote && remoteRec ? { ...remote, source: remoteRec.source } : remote;
  const probes = opts.probes ?? ((sources: Map<string, ClusterSource>) =>
    createProbeHub({
      sources,
      networkProbes: opts.options.networkProbes,
      preciseUdp: opts.options.preciseUdp,
      sampleIntervalMs: opts.options.sampleIntervalMs,
    }));
  const stop = new AbortController();
  let closed = false;
  let closing: Promise<void> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let rounds = 0;

  const onAbort = (): void => void runner.close();
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  async function round(): Promise<Report> {
    if (closed) throw new Error("the round runner is closed");
    localRec?.reset();
    remoteRec?.reset();
    const report = await runDiagnosis({
      local: localRec?.source ?? local,
      remote: roundRemote,
      peers: opts.peers,
      options: opts.options,
      probes,
      catalog: opts.catalog,
      invocation: opts.invocation,
      onNotice: opts.onNotice,
      signal: stop.signal,
    });
    rounds++;
    if (tracker && localRec) {
      const nameOf = (role: "local" | "remote") => report.clusters.find((c) => c.role === role)?.name ?? role;
      const diff = tracker.observe({
        label: `round ${rounds}`,
        mode: "live",
        report,
        clusters: [
          localRec.capture("local", nameOf("local")),
          ...(remoteRec && report.clusters.some((c) => c.role === "remote" && c.clusterId !== null)
            ? [remoteRec.capture("remote", nameOf("remote"))]
            : []),
        ],
      });
      if (diff) report.changedSinceHealthy = diff;
    }
    // Watches this round no longer read (a tenant namespace gone) are stopped.
    for (const c of cached) c.sweep();
    return report;
  }

  const runner: RoundRunnerWithStats = {
    get rounds(): number {
      return rounds;
    },
    next(): Promise<Report> {
      const p = queue.then(round, round);
      queue = p.catch(() => {});
      return p;
    },
    cacheStats: () => cached.map((c) => c.stats()),
    close(): Promise<void> {
      closing ??= (async () => {
        closed = true;
        stop.abort();
        opts.signal?.removeEventListener("abort", onAbort);
        await Promise.allSettled([local.close(), remoteSource?.close()]);
      })();
      return closing;
    },
  };
  return runner;
}
