/**
 * One active probe session — the one entry point `flyingfish probe` and `check --active` call: pick
 * the peer, plan the fleet from the passive inventory, open it (pre-flight, namespace, dry run, pods
 * Ready), run the selected probes IN PARALLEL, ALWAYS clean up (success, failure, timeout,
 * SIGINT/SIGTERM — through active/fleet/signals.ts withSignalCleanup, which runActive installs
 * itself: a second signal exits 130 at once printing the `--cleanup --run-id` command), and turn
 * everything into PROBE-* CheckResults plus the report's ActiveRunRecord.
 *
 * Errors: a refused pre-flight or dry run is a ToolError (exit 3; nothing is left behind: the
 * pre-flight creates nothing, a dry-run refusal is cleaned up before the error propagates); an
 * ambiguous or unknown `--peer`, or `--mode direct` without the remote kubeconfig, too. A fleet that
 * does not come up (image pull, Unschedulable, offloading failed) is a finding: `fail` for every
 * probe that needed the pods, naming the cause.
 */
import {
  fix,
  type FixPart,
  flyingfish,
  kubectl,
  kubectlIn,
  type RemediationStep,
  step,
} from "../checks/remediation.ts";
import type { CheckResult, Status } from "../checks/types.ts";
import { findProbeCheck } from "./catalog.ts";
import { cleanupRun } from "./fleet/cleanup.ts";
import { type FleetHandle, type FleetPlan, openFleet } from "./fleet/fleet.ts";
import { FLEET_PROBES, PreflightError, usesProbePods } from "./fleet/preflight.ts";
import { newRunId } from "./fleet/run_id.ts";
import { type StopCause, withSignalCleanup } from "./fleet/signals.ts";
import type { SignalHost } from "./fleet/signals.ts";
import { cleanupCommand, type ProbeTarget } from "./fleet/target.ts";
import {
  type ActiveMatrix,
  type ActiveRunRecord,
  type CleanupRecord,
  type CreatedObject,
  PROBE_CHECK_IDS,
  PROBE_NAMES,
  type ProbeName,
  probeNamespace,
  type ProbePod,
} from "./model.ts";
import { abortable, within } from "../time.ts";
import { createAddressing } from "./addressing.ts";
import {
  type ActiveCluster,
  type ActiveOptions,
  createProbeRunContext,
  type ProbeRun,
  type ProbeRunContext,
  type ProbeRunner,
  withSignal,
} from "./context.ts";
import { runMatrix } from "./matrix/measure.ts";
import { runMtu } from "./mtu/measure.ts";
import { placeOffloadedPods, remoteNamespaceOf } from "./offload.ts";
import { checkModeAndRemote, choosePeer, planRun } from "./plan.ts";
import { runService } from "./service/measure.ts";
import { runTrace } from "./trace/measure.ts";
import { runUdp } from "./udp/measure.ts";

export type { ActiveCluster, ActiveOptions } from "./context.ts";

/** What a session returns: the PROBE-* results and the report's `active` block. */
export interface ActiveOutput {
  results: CheckResult[];
  /** null when no run was attempted (no peer to probe). */
  record: ActiveRunRecord | null;
  /** What stopped the run early (SIGINT, SIGTERM, the run timeout); null/absent: it ran to its end. */
  stoppedBy?: StopCause | null;
}

/** How the caller steers a session. */
export interface ActiveControl {
  /** Aborts the run like a first SIGINT (cleanup still runs, with its own budget). */
  signal: AbortSignal;
  /** Progress lines for the user (stderr). */
  onProgress?: (line: string) => void;
  /** Bound on the whole run (the CLI's `--timeout`): aborts it like a first signal. */
  runTimeoutMs?: number;
  /** Signal listeners (tests); default Deno's SIGINT/SIGTERM. */
  signalHost?: SignalHost;
  /** Where the second-signal line goes (default stderr). */
  write?: (line: string) => void;
}

/** The probe runners, by probe. */
export const PROBE_RUNNERS: Readonly<Record<ProbeName, ProbeRunner>> = {
  matrix: runMatrix,
  udp: runUdp,
  mtu: runMtu,
  service: runService,
  trace: runTrace,
};

/** Probes that need the probe pods (the others only exec in the gateway pods). */
const NEEDS_FLEET: ReadonlySet<ProbeName> = FLEET_PROBES;

/** Time a probe may take to return after its timeout fired before it is given up on. */
const GIVE_UP_GRACE_MS = 5_000;

function probesInOrder(probes: readonly ProbeName[]): ProbeName[] {
  return PROBE_NAMES.filter((p) => probes.includes(p));
}

/**
 * The run's cluster flags (`--kubeconfig rome.yaml --context 'my ctx'`, as fleet/target.ts quotes
 * them) as word groups: `["--kubeconfig", "rome.yaml"]`, a quoted value unquoted (`'…'` pieces and
 * the `"'"` or `\'` between them).
 */
function flagGroups(flags: string): string[][] {
  const value = String.raw`(?:'[^']*'|"'"|\\'|[^\s'"])+`;
  return [...flags.matchAll(new RegExp(String.raw`(--[\w-]+)(?:( |=)(?!--)(${value}))?`, "g"))].map((m) => {
    if (m[3] === undefined) return [m[1]];
    const v = m[3].replace(/'([^']*)'|"'"|\\'/g, (_piece, inQuotes) => inQuotes ?? "'");
    return m[2] === "=" ? [`${m[1]}=${v}`] : [m[1], v];
  });
}

/**
 * The `flyingfish …` commands of a remediation with the run's cluster flags appended, so the
 * suggested follow-up probes the same clusters; flags a command already names are left to it.
 */
export function withFlyingfishFlags(steps: readonly RemediationStep[], flags: string): RemediationStep[] {
  const groups = flagGroups(flags);
  if (groups.length === 0) return [...steps];
  return steps.map((s) => {
    const c = s.command;
    if (c === null || c.argv[0] !== "flyingfish") return s;
    const named = (flag: string) =>
      c.argv.some((w) => typeof w === "string" && (w === flag || w.startsWith(`${flag}=`)));
    const add = groups.filter((g) => !named(g[0].split("=")[0]));
    return add.length ? { ...s, command: { ...c, argv: [...c.argv, ...add.flat()] } } : s;
  });
}

/** A PROBE-* CheckResult from what a runner returned. */
export function probeResult(
  probe: ProbeName,
  run: ProbeRun,
  where: { peer: string | null; cluster: string; flags?: string },
  durationMs: number,
): CheckResult {
  const id = PROBE_CHECK_IDS[probe];
  return {
    id,
    title: findProbeCheck(id)?.title ?? id,
    layer: "probe",
    status: run.status,
    peer: where.peer,
    cluster: run.cluster ?? where.cluster,
    summary: run.summary,
    evidence: run.evidence ?? [],
    remediation: withFlyingfishFlags(run.remediation ?? [], where.flags ?? ""),
    blockedBy: null,
    skipKind: run.status === "skip" ? run.skipKind ?? "not-applicable" : null,
    durationMs: Math.max(0, Math.round(durationMs)),
  };
}

function same(probes: readonly ProbeName[], status: Status, summary: string, evidence: string[] = []): Map<
  ProbeName,
  ProbeRun
> {
  return new Map(probes.map((p) => [p, { status, summary, evidence }]));
}

/** The remediation of a fleet that did not come up, by its cause. */
export function fleetRemediation(failure: string, ns: string): RemediationStep[] {
  const parts: FixPart[] = [];
  if (/ErrImagePull|ImagePullBackOff|InvalidImageName|ErrImageNeverPull|pull/i.test(failure)) {
    parts.push(
      "the probe image cannot be pulled in that cluster: mirror it and point FlyingFish at the mirror",
      flyingfish("probe", "--print-images"),
      step(flyingfish("probe", "--image-registry", "<your-mirror>"), "or --image probe=<ref@sha256:…>"),
    );
  }
  if (/Unschedulable|no schedulable node|taint/i.test(failure)) {
    parts.push(
      "no node accepts the probe pod: see the scheduler's message; tolerate a taint only if pods may run there",
      kubectl("local", "get", "nodes", "-o", "custom-columns=NAME:.metadata.name,TAINTS:.spec.taints"),
      flyingfish("probe", "--tolerate", "<taint key>"),
    );
  }
  if (/offload/i.test(failure)) {
    parts.push(
      "the run namespace could not be offloaded to the peer",
      flyingfish("check", "--only", "reflection"),
      kubectl("local", "get", "virtualnodes", "-A"),
    );
  }
  if (/CreateContainer|Failed|FailedCreate/.test(failure) || parts.length === 0) {
    parts.push(flyingfish("probe", "--keep"), step(kubectlIn("local", ns, "describe", "pods"), "then:"));
  }
  return fix(...parts);
}

function reasonOf(signal: AbortSignal): string {
  const r = signal.reason;
  return r instanceof Error ? r.message : typeof r === "string" ? r : "interrupted";
}

/** Runs one probe under its own timeout; a runner that throws or hangs becomes `unknown`. */
async function runOne(probe: ProbeName, runner: ProbeRunner, ctx: ProbeRunContext): Promise<ProbeRun> {
  const timeoutMs = ctx.options.probeTimeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(
    () =>
      timeout.abort(new DOMException(`${probe} probe timed out after ${timeoutMs / 1000} s`, "TimeoutError")),
    timeoutMs,
  );
  const signal = AbortSignal.any([ctx.signal, timeout.signal]);
  const running = Promise.resolve().then(() => runner(withSignal(ctx, signal)));
  const couldNotRun = (err: unknown): ProbeRun => ({
    status: "unknown",
    summary: `${probe} probe could not run: ${err instanceof Error ? err.message : String(err)}`,
  });
  try {
    return await abortable(running, signal);
  } catch (err) {
    if (!signal.aborted) return couldNotRun(err);
    // Stopped (its timeout, a signal): the runner gets a grace period to report what it measured.
    try {
      const late = await within(running, GIVE_UP_GRACE_MS);
      return late.done
        ? late.value
        : { status: "unknown", summary: `${probe} probe did not finish: ${reasonOf(signal)}` };
    } catch (lateErr) {
      return couldNotRun(lateErr);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Offloaded pods labelled by their provider node, when the provider's pods are readable. */
async function placeOffloaded(
  pods: ProbePod[],
  runId: string,
  local: ActiveCluster,
  remote: ActiveCluster | null,
  signal: AbortSignal,
): Promise<ProbePod[]> {
  if (!remote || pods.length === 0) return pods;
  const rns = remoteNamespaceOf(null, probeNamespace(runId), local.view.clusterId);
  if (!rns) return pods;
  try {
    const listed = await remote.target.writer.list(`/api/v1/namespaces/${rns}/pods`, { signal });
    return listed.ok ? placeOffloadedPods(pods, listed.items) : pods;
  } catch {
    return pods;
  }
}

/**
 * Runs the probes `opts.probes` against the peer of `local` (the only one with networking, or
 * `opts.peer`), in direct mode with `remote`'s own kubeconfig or in offload mode through Liqo.
 * Always cleans up what it created (unless `opts.keep`), with `opts.cleanupTimeoutMs` of its own.
 */
export async function runActive(
  local: ActiveCluster,
  remote: ActiveCluster | null,
  opts: ActiveOptions,
  ctl: ActiveControl,
): Promise<ActiveOutput> {
  const probes = probesInOrder(opts.probes);
  const say = (line: string) => ctl.onProgress?.(line);
  const localName = local.view.name;

  const choice = choosePeer(local.view, opts.peer);
  if (!choice.ok) {
    const runs = same(probes, "unknown", choice.reason);
    return {
      results: probes.map((p) => probeResult(p, runs.get(p)!, { peer: opts.peer, cluster: localName }, 0)),
      record: null,
    };
  }
  const peer = choice.peer;
  checkModeAndRemote(opts.mode, remote?.view ?? null, peer);
  const runId = opts.runId ?? newRunId();
  const started = new Date();
  const clusterLabel = remote ? `${localName} ↔ ${remote.view.name}` : localName;
  const flags = [local.target.flags, remote?.target.flags ?? ""].filter((f) => f.trim() !== "").join(" ");
  const where = { peer, cluster: clusterLabel, flags };
  const planned = planRun({ runId, peer, local, remote, options: { ...opts, probes }, now: started });
  const record: ActiveRunRecord = {
    runId,
    mode: opts.mode,
    peer,
    probes,
    created: [],
    cleanup: [],
    excluded: planned.ok ? planned.plan.excluded : planned.excluded,
    images: { ...opts.images },
    matrix: null,
  };
  if (!planned.ok) {
    const runs = same(probes, "unknown", `no probe fleet: ${planned.reason}`);
    return { results: probes.map((p) => probeResult(p, runs.get(p)!, where, 0)), record };
  }
  const plan: FleetPlan = planned.plan;
  for (const n of planned.notes) say(n);
  const targets: ProbeTarget[] = plan.remote ? [plan.local.target, plan.remote.target] : [plan.local.target];
  const command = cleanupCommand(runId, targets);
  const ns = probeNamespace(runId);
  say(
    `run ${runId}: ${probes.join(", ")} against ${peer} (${opts.mode} mode), ${
      usesProbePods(probes) ? `namespace ${ns}` : "in the gateway pods only (nothing is created)"
    }`,
  );

  let preflightRefused = false;
  const created: CreatedObject[] = [];

  const body = async (
    stop: AbortSignal,
  ): Promise<{ runs: Map<ProbeName, ProbeRun>; ms: Map<ProbeName, number> }> => {
    const signal = AbortSignal.any([stop, ctl.signal]);
    const fleetStart = performance.now();
    let handle: FleetHandle | null = null;
    try {
      handle = await openFleet(plan, { signal, onProgress: say, onCreated: (c) => created.push(c) });
    } catch (err) {
      if (err instanceof PreflightError) preflightRefused = true;
      // A stop during pre-flight, the namespace or the dry run is a stop, not a tool error: the
      // probes did not run, and cleanup (after this returns) removes what was created so far.
      if (!signal.aborted) throw err;
    }
    const fleetMs = performance.now() - fleetStart;
    const ms = new Map<ProbeName, number>();
    if (signal.aborted || handle === null) {
      const runs = same(probes, "unknown", `not run: ${reasonOf(signal)}`);
      probes.forEach((p) => ms.set(p, fleetMs));
      return { runs, ms };
    }
    const runs = new Map<ProbeName, ProbeRun>();
    if (handle.failure) {
      say(`probe pods not Ready: ${handle.failure}`);
      for (const p of probes.filter((p) => NEEDS_FLEET.has(p))) {
        runs.set(p, {
          status: "fail",
          summary: `probe pods not Ready: ${handle.failure}`,
          evidence: [`fleet of run ${runId} in ${targets.map((t) => t.name).join(", ")}: ${handle.failure}`],
          remediation: fleetRemediation(handle.failure, ns),
        });
        ms.set(p, fleetMs);
      }
    }
    // The provider node of each offloaded pod, where the remote kubeconfig shows it (both modes).
    const fleet = handle.fleet.mode === "offload"
      ? { ...handle.fleet, remote: await placeOffloaded(handle.fleet.remote, runId, local, remote, signal) }
      : handle.fleet;
    if (handle.fleet.mode === "direct" && handle.offloaded.length > 0) {
      handle = { ...handle, offloaded: await placeOffloaded(handle.offloaded, runId, local, remote, signal) };
    }
    const ctx = createProbeRunContext({
      local,
      remote,
      peer,
      fleet,
      handle,
      addressing: createAddressing({ local: local.view, remote: remote?.view ?? null, peer }),
      options: { ...opts, probes },
      signal,
      onProgress: say,
    });
    const toRun = probes.filter((p) => !runs.has(p));
    await Promise.all(toRun.map(async (p) => {
      const why = planned.unavailable[p];
      if (why) {
        runs.set(p, { status: "unknown", summary: why });
        ms.set(p, 0);
        return;
      }
      const t0 = performance.now();
      const run = await runOne(p, PROBE_RUNNERS[p], ctx);
      ms.set(p, performance.now() - t0);
      runs.set(p, run);
      say(`${PROBE_CHECK_IDS[p]}: ${run.status} — ${run.summary}`);
    }));
    return { runs, ms };
  };

  const cleanup = async (): Promise<CleanupRecord[]> => {
    // Refused before anything was created, or a run that creates nothing (probe mtu): nothing to remove.
    if (preflightRefused || !usesProbePods(probes)) return [];
    if (!opts.keep) say(`cleanup: removing ${ns} from ${targets.map((t) => t.name).join(", ")}`);
    const records = await Promise.all(targets.map((t) =>
      cleanupRun(t, runId, {
        budgetMs: opts.cleanupTimeoutMs,
        keep: opts.keep,
        offloading: t.side === "local" && plan.offload !== null,
      })
    ));
    const flat = records.flat().map((r) =>
      r.status === "kept" ? { ...r, detail: `${r.detail}; remove it with: ${command}` } : r
    );
    if (opts.keep) say(`kept ${ns}: remove it with: ${command}`);
    for (const r of flat.filter((r) => r.status === "stuck" || r.status === "failed")) {
      say(`cleanup: ${r.cluster} ${r.namespace} ${r.status}: ${r.detail}; retry with: ${command}`);
    }
    return flat;
  };

  const out = await withSignalCleanup(command, body, cleanup, {
    timeoutMs: ctl.runTimeoutMs,
    host: ctl.signalHost,
    write: ctl.write,
  });
  record.created = created;
  record.cleanup = out.cleanup;
  const matrix: ActiveMatrix | null = out.value.runs.get("matrix")?.matrix ?? null;
  record.matrix = matrix;
  const results = probes.map((p) =>
    probeResult(
      p,
      out.value.runs.get(p) ?? { status: "unknown", summary: "not run" },
      where,
      out.value.ms.get(p) ?? 0,
    )
  );
  return { results, record, stoppedBy: out.stoppedBy };
}
