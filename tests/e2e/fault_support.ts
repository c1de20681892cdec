/**
 * Shared by the fault tests: a scenario served with injected faults, diagnosed in-process through the
 * live source (serveScenario + createLiveSource + runDiagnosis), and the invariants a diagnosis over
 * an unreadable kind must keep.
 *
 * Speed: a {@link Replay} lists every kind once, cleanly, and then answers later runs from that record
 * for every kind but the faulted one, which still goes through the real client (retries included) to
 * the faulting fake server; exec always goes live. One fault run is then an inventory view and an
 * engine run, not 32 HTTP lists. Logs, when the live source reads them, also go live.
 */
import { type FaultRule, loadScenario, type ServedScenario, serveScenario } from "../../fakekube/mod.ts";
import type { RetryPolicy } from "../../kube/http.ts";
import { type KindId, KINDS, type KindSpec, listPath, type ListScope } from "../../kube/kinds.ts";
import { createLiveSource, type LiveClusterSource } from "../../kube/live/source.ts";
import type { ClusterSource, DiscoveryOutcome, ExecOutcome, ListOutcome } from "../../kube/source.ts";
import { runDiagnosis } from "../../diagnose/run.ts";
import { createProbeHub } from "../../probes/live_hub.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import type { CheckDef, RunOptions } from "../../checks/types.ts";
import type { ReportResult as CheckResult } from "../../report/model.ts";
import { remediationText } from "../../report/remediation.ts";
import { type Report, ReportSchema } from "../../report/model.ts";
import { PEERING_DUMP_READS } from "../../report/peering.ts";
import { CHEAT_SHEET_READS } from "../../report/cheatsheet.ts";
import { FAKE_CLOCK } from "./harness.ts";

/** Retries without noticeable waits: the matrix counts attempts, it does not time them. */
export const FAST_RETRY: RetryPolicy = { attempts: 3, baseMs: 2, capMs: 10 };

/** Run options of in-process fault runs (the fake servers' WireGuard counters run on a virtual clock). */
export const RUN_OPTIONS: RunOptions = {
  networkProbes: false,
  preciseUdp: false,
  sampleIntervalMs: 1,
  latencyThresholdMs: 200,
  checkTimeoutMs: 10_000,
};

/**
 * The fault pattern of one kind's list requests, everywhere or in one namespace (not discovery,
 * not exec): `^<group path>(/namespaces/<ns>)?/<plural>$`.
 */
export function listPattern(kind: KindId): string {
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const path = listPath(KINDS[kind]);
  const cut = path.lastIndexOf("/");
  return `^${esc(path.slice(0, cut))}(/namespaces/[^/]+)?${esc(path.slice(cut))}$`;
}

/** A served scenario and a live source on its local cluster. */
export interface LiveScenario {
  served: ServedScenario;
  source: LiveClusterSource;
  /** Sets the faults of the local cluster's server. */
  setFaults(rules: FaultRule[]): void;
  /** The requests that got a fault since the last setFaults. */
  faultHits(): readonly string[];
  close(): Promise<void>;
}

/** Serves scenario `name` (plain HTTP unless `tls`) and opens a live source on its local cluster. */
export async function openLiveScenario(
  name: string,
  opts: { retry?: RetryPolicy; timeoutMs?: number; faults?: FaultRule[] } = {},
): Promise<LiveScenario> {
  const s = await loadScenario(name);
  const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
  const cluster = served.clusters[s.run.local];
  if (!cluster) throw new Error(`${name}: the local cluster is down`);
  cluster.setFaults(opts.faults ?? []);
  const source = await createLiveSource({
    kubeconfigYaml: served.kubeconfigYaml(s.run.local),
    requestTimeoutMs: opts.timeoutMs ?? 10_000,
    retry: opts.retry ?? FAST_RETRY,
    execVia: "api",
  });
  return {
    served,
    source,
    setFaults: (rules) => cluster.setFaults(rules),
    faultHits: () => cluster.faultHits,
    close: async () => {
      await source.close();
      await served.close();
    },
  };
}

const execKey = (ns: string, pod: string, container: string, command: readonly string[]): string =>
  JSON.stringify([ns, pod, container, command]);

const specKey = (spec: KindSpec, scope?: ListScope): string =>
  `${spec.group}/${spec.version}/${spec.plural} ${JSON.stringify(scope ?? {})}`;

/** Freezes a recorded answer all the way down (it is handed to every run of the replay). */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * Clean list and discovery answers of one source, replayed for every kind but the faulted one; with
 * `replayExec` (the list-fault matrices) exec answers too, in the order the clean run got them, per
 * (pod, container, command): the fake servers' WireGuard counters step per exec call, so the replay
 * shows each run the same two samples; an exec the clean run never made goes live. Without it every
 * exec goes live (the exec-fault cases fault the exec itself).
 */
export class Replay {
  readonly #lists = new Map<string, ListOutcome>();
  readonly #execs = new Map<string, ExecOutcome[]>();
  #discovery: DiscoveryOutcome | null = null;

  /** Creates the replay of `live` (record it with {@link Replay.record} first). */
  constructor(readonly live: LiveClusterSource, readonly opts: { replayExec?: boolean } = {}) {}

  /** A source that records what it reads (use it for the clean run). */
  record(): ClusterSource {
    return {
      ...this.#base(),
      exec: async (ns, pod, container, command) => {
        const out = await this.live.exec(ns, pod, container, command);
        const key = execKey(ns, pod, container, command);
        this.#execs.set(key, [...this.#execs.get(key) ?? [], structuredClone(out)]);
        return out;
      },
      list: async (spec, scope) => {
        const out = await this.live.list(spec, scope);
        this.#lists.set(specKey(spec, scope), deepFreeze(structuredClone(out)));
        return out;
      },
      discovery: async (groups) => {
        const out = await this.live.discovery(groups);
        this.#discovery = structuredClone(out);
        return out;
      },
    };
  }

  /** A source that lists `faulted` live (and any kind it never recorded) and replays the rest. */
  faulting(faulted: KindId | null): ClusterSource {
    const live = faulted === null ? null : specKey(KINDS[faulted]);
    const calls = new Map<string, number>();
    return {
      ...this.#base(),
      exec: (ns, pod, container, command) => {
        const key = execKey(ns, pod, container, command);
        const n = calls.get(key) ?? 0;
        calls.set(key, n + 1);
        const rec = this.opts.replayExec ? this.#execs.get(key)?.[n] : undefined;
        return rec ? Promise.resolve(structuredClone(rec)) : this.live.exec(ns, pod, container, command);
      },
      list: (spec, scope) => {
        const rec = this.#lists.get(specKey(spec, scope));
        return specKey(spec) === live || !rec
          ? this.live.list(spec, scope)
          // A fresh outer object (the inventory keeps it as its part and may let go of its items) over
          // the recorded objects, frozen: a run that wrote to them would crash, not leak into the next.
          : Promise.resolve({ ...rec });
      },
      discovery: (groups) =>
        this.#discovery ? Promise.resolve(structuredClone(this.#discovery)) : this.live.discovery(groups),
    };
  }

  #base(): Omit<ClusterSource, "list" | "discovery"> {
    const live = this.live;
    return {
      endpoint: live.endpoint,
      now: () => live.now(),
      isSnapshot: false,
      exec: (ns, pod, container, command) => live.exec(ns, pod, container, command),
      ...(live.logs ? { logs: live.logs.bind(live) } : {}),
      close: () => Promise.resolve(),
    };
  }
}

/** A diagnosis run in-process and what it wrote to the console. */
export interface InProcessRun {
  report: Report | null;
  /** The error runDiagnosis threw (a crash), if any. */
  crash: unknown;
  /** console.error / console.warn / console.log output during the run. */
  console: string;
}

/** Runs the diagnosis over `source` in-process, catching a crash and capturing the console. */
export async function diagnoseInProcess(source: ClusterSource): Promise<InProcessRun> {
  const saved = { error: console.error, warn: console.warn, log: console.log };
  let text = "";
  const capture = (...args: unknown[]): void => {
    text += args.map((a) => a instanceof Error ? `${a.stack}` : String(a)).join(" ") + "\n";
  };
  console.error = capture;
  console.warn = capture;
  console.log = capture;
  try {
    const report = await runDiagnosis({
      local: source,
      options: RUN_OPTIONS,
      probes: (sources) =>
        createProbeHub({ sources, networkProbes: false, preciseUdp: false, sampleIntervalMs: 1 }),
    });
    return { report, crash: null, console: text };
  } catch (err) {
    return { report: null, crash: err, console: text };
  } finally {
    Object.assign(console, saved);
  }
}

/** A JS stack frame ("    at f (file:///x.ts:1:2)") in some text. */
export const STACK_FRAME = /^\s+at .*(:\d+:\d+\)?|<anonymous>|native)$/m;

const keyOf = (r: Pick<CheckResult, "id" | "peer">): string => `${r.id}#${r.peer ?? ""}`;
const DEFS: ReadonlyMap<string, CheckDef> = new Map(CATALOG.map((c) => [c.id, c]));
/** Kinds a check or a report section cannot do without. */
const REQUIRED: ReadonlySet<KindId> = new Set([
  ...CATALOG.flatMap((c) => c.reads),
  ...PEERING_DUMP_READS,
  ...CHEAT_SHEET_READS,
]);

/** Status, skip kind and blocker: what a dependent's outcome hangs on. */
const signature = (r: CheckResult | undefined): string =>
  r ? `${r.status}/${r.skipKind ?? ""}/${r.blockedBy ?? ""}` : "absent";

/** "ID#peer [status] summary". */
export function describeResult(r: CheckResult): string {
  return `${keyOf(r)} [${r.status}${r.skipKind ? `/${r.skipKind}` : ""}] ${r.summary}`;
}

/**
 * What is wrong with a run whose local cluster could not serve kind `kind` (empty when nothing):
 * - it crashed, logged a stack trace, exited above 2, or its JSON does not validate against the schema;
 * - a check that declares `kind` in `reads` passed, failed or warned (it must be `unknown`, or a skip);
 * - another check's status differs from the clean run's, unless a check it needs changed too, it is
 *   now `unknown` naming `kind`, or it reads `kind` optionally and is now `unknown`/`skip`/`warn`;
 * - a result appeared or vanished (only an unreadable peer list, foreignclusters, may drop the
 *   per-peer results);
 * - nothing in the report says `kind` could not be read (no `unknown` result, no incomplete section)
 *   although a check or a report section requires it. A kind only read optionally (or only for the
 *   cluster's identity) leaves the results as they were, which the rules above check.
 */
export function faultProblems(clean: Report, run: InProcessRun, kind: KindId): string[] {
  const problems: string[] = [];
  if (run.crash) {
    const e = run.crash;
    return [`crashed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`];
  }
  if (STACK_FRAME.test(run.console)) {
    problems.push(`stack trace on the console:\n${run.console.slice(0, 1500)}`);
  }
  const report = run.report!;
  if (report.exitCode > 2) problems.push(`exit code ${report.exitCode}`);
  const parsed = ReportSchema.safeParse(JSON.parse(JSON.stringify(report)));
  if (!parsed.success) {
    problems.push(`report does not validate: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`);
  }
  const before = new Map(clean.results.map((r) => [keyOf(r), r]));
  const after = new Map(report.results.map((r) => [keyOf(r), r]));
  for (const r of report.results) {
    const text = [r.summary, ...r.evidence, remediationText(r.remediation) ?? ""].join("\n");
    if (STACK_FRAME.test(text)) problems.push(`${keyOf(r)}: stack trace in the result`);
    const def = DEFS.get(r.id);
    if (!def) {
      problems.push(`${keyOf(r)}: not in the catalog`);
      continue;
    }
    if (def.reads.includes(kind)) {
      if (r.status !== "unknown" && r.status !== "skip") {
        problems.push(`${describeResult(r)} — judged although it reads the unreadable ${kind}`);
      }
      continue;
    }
    const c = before.get(keyOf(r));
    if (!c) {
      problems.push(`${describeResult(r)} — not in the clean run`);
      continue;
    }
    if (c.status === r.status) continue;
    const needChanged = def.needs.some((n) => {
      const peer = DEFS.get(n)?.perPeer ? r.peer : null;
      const k = `${n}#${peer ?? ""}`;
      return signature(before.get(k)) !== signature(after.get(k));
    });
    if (needChanged) continue;
    // Unknown naming the unreadable kind is the truth (a check that took it as "nothing there", or
    // leaned on a locator it feeds: the Liqo namespace, the cluster ID, the peer list).
    if (r.status === "unknown" && r.summary.includes(kind)) continue;
    if ((def.optionalReads ?? []).includes(kind) && ["unknown", "skip", "warn"].includes(r.status)) continue;
    problems.push(`${describeResult(r)} — was ${c.status} in the clean run (${c.summary})`);
  }
  if (kind !== "foreignclusters") {
    for (const c of clean.results) {
      if (!after.has(keyOf(c))) problems.push(`${describeResult(c)} — vanished`);
    }
  }
  const said = [
    ...report.results.filter((r) => r.status === "unknown").map((r) => r.summary),
    ...report.incomplete.map((g) => g.reason),
  ].some((t) => t.includes(kind));
  if (REQUIRED.has(kind) && !said) {
    problems.push(`nothing says ${kind} could not be read (no unknown result, no incomplete section)`);
  }
  return problems;
}
