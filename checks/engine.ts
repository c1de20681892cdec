/**
 * The check engine, for passive and active checks alike: expands the catalog into instances (per
 * cluster, per peer; an active check once per run), runs them concurrently as their dependencies
 * and inputs allow, turns timeouts and thrown errors into `unknown`, skips what a failed dependency
 * blocks, and names the first broken link (checks/diagnosis.ts).
 *
 * Active checks (`CheckDef.active`) read their outcome from the run's {@link ActivePhase}; they start
 * once every passive check that does not wait for them has finished, so the probes run on a peering
 * whose passive verdict is in. A check that declares an active check as an input (FAB-03 reads
 * PROBE-MATRIX) runs after it.
 */
import { KindUnavailableError } from "../kube/inventory.ts";
import type { KindId } from "../kube/kinds.ts";
import type { Malformed } from "../liqo/views/mod.ts";
import type { ProbeHub } from "../probes/hub.ts";
import { within } from "../time.ts";
import { type HeapBound, heapBound } from "../heap.ts";
import { ReadLog, watchedPeer, watchedView } from "./_watched.ts";
import { type Diagnosis, diagnosisOf, exitCodeOf } from "./diagnosis.ts";
import {
  type ActivePhase,
  type CheckContext,
  type CheckDef,
  type CheckResult,
  type ClusterView,
  type InputResult,
  LAYERS,
  type Outcome,
  type PeerView,
  type RunOptions,
} from "./types.ts";

/** Summary of a check that needs both kubeconfigs, in a single-cluster run. */
export const NEEDS_REMOTE = "needs --remote-kubeconfig";

/** A pairing of one local peer with the remote cluster's view of the local cluster (dual mode). */
export interface PeerPair {
  local: PeerView;
  /** The remote cluster's ForeignCluster for the local cluster, when both sides know each other. */
  remote: PeerView | null;
}

/** Everything the engine runs over. */
export interface EngineInput {
  catalog: readonly CheckDef[];
  local: { view: ClusterView; peers: readonly PeerView[] };
  /** Dual mode: the remote cluster, its peers, and why dual checks cannot run (if they cannot). */
  remote?: { view: ClusterView | null; peers: readonly PeerView[]; unavailable?: string } | null;
  /** Dual mode: local peer ID → pairing. */
  pairs?: ReadonlyMap<string, PeerPair>;
  /**
   * Single mode only: why there is no other end to correlate with, when it is not that no remote
   * was named (fleet mode: the peer is in no context of the kubeconfig). The dual checks are then
   * skipped `not-applicable` with this reason instead of `needs-remote`.
   */
  noRemoteReason?: string;
  probes: ProbeHub;
  options: RunOptions;
  /** Called as each result arrives (live checklist). */
  onResult?: (r: CheckResult) => void;
  /** Called when an instance starts running. */
  onStart?: (i: { id: string; cluster: string; peer: string | null }) => void;
  signal?: AbortSignal;
  /**
   * The active phase of an active run. Without it the catalog's active checks are left out of the
   * run (a passive run lists none of them).
   */
  active?: ActivePhase | null;
}

/** What a run produced. */
export interface EngineOutput {
  results: CheckResult[];
  diagnosis: Diagnosis | null;
  exitCode: 0 | 1 | 2;
}

/** Validates the catalog: unique IDs, known dependencies, no cycles, scopes that make sense. */
export function validateCatalog(catalog: readonly CheckDef[]): string[] {
  const errors: string[] = [];
  const byId = new Map<string, CheckDef>();
  for (const c of catalog) {
    if (byId.has(c.id)) errors.push(`duplicate check ID ${c.id}`);
    byId.set(c.id, c);
  }
  for (const c of catalog) {
    // An input may be absent from a run's catalog (PROBE-MATRIX in a passive run): it is optional.
    if (c.active && c.inputs?.length) errors.push(`${c.id} is active and cannot take inputs`);
    if (c.active && (c.needs.length || c.scope !== "single" || c.perPeer)) {
      errors.push(`${c.id} is active: it runs once per run (scope single, not per peer, no needs)`);
    }
    for (const n of c.runsIfUnknown ?? []) {
      if (!c.needs.includes(n)) errors.push(`${c.id} runs if ${n} is unknown but does not need it`);
    }
    for (const n of c.needs) {
      const d = byId.get(n);
      if (!d) errors.push(`${c.id} needs unknown check ${n}`);
      else if (d.perPeer && !c.perPeer) errors.push(`${c.id} is cluster-wide but needs per-peer check ${n}`);
      else if (d.scope === "dual" && c.scope !== "dual") {
        errors.push(`${c.id} is single-cluster but needs dual ${n}`);
      } else if (LAYERS.indexOf(d.layer) > LAYERS.indexOf(c.layer)) {
        errors.push(`${c.id} (${c.layer}) needs ${n} from a later layer (${d.layer})`);
      }
    }
  }
  const state = new Map<string, "visiting" | "done">();
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === "done") return;
    if (state.get(id) === "visiting") {
      errors.push(`dependency cycle: ${[...path.slice(path.indexOf(id)), id].join(" → ")}`);
      return;
    }
    state.set(id, "visiting");
    for (const n of byId.get(id)?.needs ?? []) if (byId.has(n)) visit(n, [...path, id]);
    state.set(id, "done");
  };
  for (const c of catalog) visit(c.id, []);
  return errors;
}

interface Instance {
  def: CheckDef;
  order: number;
  cluster: ClusterView | null;
  clusterLabel: string;
  clusterRank: number;
  peer: PeerView | null;
  peerLabel: string | null;
  remote: ClusterView | null;
  remotePeer: PeerView | null;
  /** Reason to skip without running (e.g. dual check in single mode). */
  skipReason?: string;
  unknownReason?: string;
  deps: Instance[];
  /** Instances of the checks this one takes as inputs (run before it; they never block it). */
  inputs: Instance[];
  /** The result, once the instance has finished. */
  settled?: CheckResult;
  /** Waits for this instance (active checks: every passive instance that does not wait for them). */
  gate?: () => Promise<unknown>;
  promise?: Promise<CheckResult>;
}

const key = (id: string, cluster: string, peer: string | null) => `${id}@${cluster}#${peer ?? ""}`;

/** Runs the catalog and returns ordered results, the diagnosis and the exit code. */
export async function runEngine(input: EngineInput): Promise<EngineOutput> {
  const problems = validateCatalog(input.catalog);
  if (problems.length) throw new Error(`invalid check catalog: ${problems.join("; ")}`);
  const instances = expand(input);
  const index = new Map(instances.map((i) => [key(i.def.id, i.clusterLabel, i.peerLabel), i]));
  const places = placesOf(instances);
  for (const inst of instances) {
    inst.deps = resolveDeps(inst, input, index);
    inst.inputs = resolveInputs(inst, places);
  }
  const signal = input.signal ?? new AbortController().signal;
  const run: Run = { input, signal, pacer: new Pacer(), heap: heapBound() };
  // Active checks start when every passive instance that does not wait for them is done.
  const waits = new Map<Instance, boolean>();
  const front = instances.filter((i) => !waitsForActive(i, waits));
  const passiveDone = () => Promise.allSettled(front.map((i) => schedule(i, run)));
  for (const inst of instances) if (inst.def.active) inst.gate = passiveDone;
  // Scheduled a batch per turn of the event loop, like the starts (see Pacer): a run over thousands
  // of peers does not hold a waiting frame for every instance at once.
  const scheduled: Promise<CheckResult>[] = [];
  for (const [n, i] of instances.entries()) {
    scheduled.push(schedule(i, run));
    if (n % STARTS_PER_TURN === STARTS_PER_TURN - 1) await nextTurn();
  }
  const results = await Promise.all(scheduled);
  const instanceOf = new Map(results.map((r, i) => [r, instances[i]]));
  results.sort((a, b) => compare(a, b, (r) => instanceOf.get(r)));
  return { results, diagnosis: diagnosisOf(results, input.catalog), exitCode: exitCodeOf(results) };
}

/**
 * Whether an instance is active, or waits (through its dependencies or inputs) for an active one;
 * memoised in `known`, so the whole run costs one walk of the graph.
 */
function waitsForActive(inst: Instance, known: Map<Instance, boolean>): boolean {
  const k = known.get(inst);
  if (k !== undefined) return k;
  known.set(inst, false); // a cycle (validateCatalog refuses them) ends here
  const v = inst.def.active !== undefined ||
    [...inst.deps, ...inst.inputs].some((d) => waitsForActive(d, known));
  known.set(inst, v);
  return v;
}

/** Layer, then catalog order, then cluster, then peer. */
function compare(a: CheckResult, b: CheckResult, rank: (r: CheckResult) => Instance | undefined): number {
  const la = LAYERS.indexOf(a.layer), lb = LAYERS.indexOf(b.layer);
  if (la !== lb) return la - lb;
  const ia = rank(a), ib = rank(b);
  if (ia && ib && ia.order !== ib.order) return ia.order - ib.order;
  if (ia && ib && ia.clusterRank !== ib.clusterRank) return ia.clusterRank - ib.clusterRank;
  return (a.peer ?? "").localeCompare(b.peer ?? "");
}

function expand(input: EngineInput): Instance[] {
  const out: Instance[] = [];
  const views: { view: ClusterView; peers: readonly PeerView[]; rank: number }[] = [
    { view: input.local.view, peers: input.local.peers, rank: 0 },
  ];
  if (input.remote?.view) views.push({ view: input.remote.view, peers: input.remote.peers, rank: 1 });
  const catalog = input.active ? input.catalog : input.catalog.filter((c) => !c.active);
  catalog.forEach((def, order) => {
    const base = { def, order, deps: [] as Instance[], inputs: [] as Instance[] };
    if (def.active) {
      // Once per run, on the local cluster (its outcome may name both: "A ↔ B").
      const view = input.local.view;
      const remote = input.remote?.view ?? null;
      out.push({
        ...base,
        cluster: view,
        clusterLabel: view.name,
        clusterRank: 0,
        peer: null,
        peerLabel: null,
        remote,
        remotePeer: null,
      });
      return;
    }
    if (def.scope === "single") {
      // In dual mode a single-cluster check also sees the other cluster, for its [1/2] comparisons.
      for (const { view, peers, rank } of views) {
        const other = views.find((v) => v.view !== view)?.view ?? null;
        const common = { ...base, cluster: view, clusterLabel: view.name, clusterRank: rank, remote: other };
        if (!def.perPeer) out.push({ ...common, peer: null, peerLabel: null, remotePeer: null });
        else {
          for (const p of peers) {
            out.push({ ...common, peer: p, peerLabel: p.clusterId, remotePeer: counterpart(input, rank, p) });
          }
        }
      }
      return;
    }
    // dual scope
    const local = input.local.view;
    const remote = input.remote?.view ?? null;
    const label = remote ? `${local.name} ↔ ${remote.name}` : local.name;
    const common = { ...base, cluster: local, clusterLabel: label, clusterRank: 0, remote };
    const skipReason = input.remote ? undefined : input.noRemoteReason ?? NEEDS_REMOTE;
    const unknownReason = input.remote && (!remote || input.remote.unavailable)
      ? input.remote.unavailable ?? "remote cluster unavailable"
      : undefined;
    if (!def.perPeer) {
      out.push({ ...common, peer: null, peerLabel: null, remotePeer: null, skipReason, unknownReason });
      return;
    }
    for (const p of input.local.peers) {
      const pair = input.pairs?.get(p.clusterId);
      let peerSkip = skipReason;
      const peerUnknown = unknownReason;
      if (!peerSkip && !peerUnknown && (!pair || !pair.remote)) {
        peerSkip = `peer ${p.clusterId} is not the cluster behind --remote-kubeconfig`;
      }
      out.push({
        ...common,
        peer: p,
        peerLabel: p.clusterId,
        remotePeer: pair?.remote ?? null,
        skipReason: peerSkip,
        unknownReason: peerUnknown,
      });
    }
  });
  return out;
}

/** The other cluster's ForeignCluster for the same peering, when the pair is known. */
function counterpart(input: EngineInput, rank: number, peer: PeerView): PeerView | null {
  if (!input.pairs) return null;
  if (rank === 0) return input.pairs.get(peer.clusterId)?.remote ?? null;
  for (const pair of input.pairs.values()) if (pair.remote?.clusterId === peer.clusterId) return pair.local;
  return null;
}

function resolveDeps(inst: Instance, input: EngineInput, index: Map<string, Instance>): Instance[] {
  const deps: Instance[] = [];
  const add = (id: string, cluster: string, peer: string | null) => {
    const d = index.get(key(id, cluster, peer));
    if (d) deps.push(d);
  };
  for (const id of inst.def.needs) {
    const d = input.catalog.find((c) => c.id === id)!;
    if (d.scope === "dual") {
      add(id, inst.clusterLabel, inst.peerLabel);
    } else if (inst.def.scope === "single") {
      add(id, inst.clusterLabel, d.perPeer ? inst.peerLabel : null);
    } else {
      add(id, inst.cluster!.name, d.perPeer ? inst.peerLabel : null);
      if (inst.remote) add(id, inst.remote.name, d.perPeer ? inst.remotePeer?.clusterId ?? null : null);
    }
  }
  return deps;
}

/** The run's instances by check ID, by check ID and cluster, and by check ID, cluster and peer (in run order). */
interface Places {
  byId: ReadonlyMap<string, readonly Instance[]>;
  byCluster: ReadonlyMap<string, readonly Instance[]>;
  byPeer: ReadonlyMap<string, readonly Instance[]>;
}

function placesOf(instances: readonly Instance[]): Places {
  const byId = new Map<string, Instance[]>(), byCluster = new Map<string, Instance[]>();
  const byPeer = new Map<string, Instance[]>();
  const add = (m: Map<string, Instance[]>, k: string, i: Instance) => {
    const list = m.get(k);
    if (list) list.push(i);
    else m.set(k, [i]);
  };
  for (const i of instances) {
    add(byId, i.def.id, i);
    add(byCluster, `${i.def.id}@${i.clusterLabel}`, i);
    add(byPeer, key(i.def.id, i.clusterLabel, i.peerLabel), i);
  }
  return { byId, byCluster, byPeer };
}

/**
 * The instances of the checks `inst` takes as inputs: run-wide ones (active checks), or on its
 * cluster — the same peer's when both are per-peer. Looked up in {@link Places}, so a run with
 * thousands of peers does not scan every instance of a check for every instance.
 */
function resolveInputs(inst: Instance, places: Places): Instance[] {
  const ids = inst.def.inputs ?? [];
  if (ids.length === 0) return [];
  return ids.flatMap((id) => {
    const all = places.byId.get(id) ?? [];
    // Every instance of a check shares its definition: active (run-wide), per-peer or not.
    const def = all[0]?.def;
    if (!def) return [];
    if (def.active !== undefined) return [...all];
    if (def.perPeer && inst.def.perPeer) {
      return [...places.byPeer.get(key(id, inst.clusterLabel, inst.peerLabel)) ?? []];
    }
    return [...places.byCluster.get(`${id}@${inst.clusterLabel}`) ?? []];
  });
}

/** What every instance of one run shares. */
interface Run {
  input: EngineInput;
  signal: AbortSignal;
  pacer: Pacer;
  heap: HeapBound;
}

/** Instances started between two turns of the event loop (see {@link Pacer}). */
const STARTS_PER_TURN = 500;

/** The next turn of the event loop: what the microtasks queued so far have finished by then. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Lets a bounded number of instances start per turn of the event loop. Without it a run over
 * thousands of peers starts every ready instance in one go — each with its context, watched views
 * and timeout — and holds them all at once; paced, the ones that finish at once (most do) are gone
 * before the next batch starts. Instances waiting on I/O are not held back: only starts are paced.
 */
class Pacer {
  #started = 0;
  #turn: Promise<void> | null = null;

  /** Resolves when this instance may start. */
  async next(): Promise<void> {
    while (this.#started >= STARTS_PER_TURN) {
      this.#turn ??= nextTurn().then(() => {
        this.#started = 0;
        this.#turn = null;
      });
      await this.#turn;
    }
    this.#started++;
  }
}

/** Facts of finished instances, for the checks that take them as inputs. */
const FACTS = new WeakMap<CheckResult, InputResult["facts"]>();

/** The facts a result's check handed on (never reported; preflight's verdict reads PF-DIR's). */
export function factsOf(result: CheckResult): InputResult["facts"] {
  return FACTS.get(result) ?? {};
}

function schedule(inst: Instance, run: Run): Promise<CheckResult> {
  if (!inst.promise) {
    inst.promise = (async () => {
      await inst.gate?.();
      const [depResults] = await Promise.all([
        Promise.all(inst.deps.map((d) => schedule(d, run))),
        Promise.all(inst.inputs.map((d) => schedule(d, run))),
      ]);
      // Active checks are a handful per run, and bound their own time: never held back.
      if (!inst.def.active) await run.pacer.next();
      const result = await runInstance(inst, depResults, run.input, run.signal);
      inst.settled = result;
      // The run's garbage (promises, contexts, watched views of finished instances) goes as it goes.
      run.heap.tick();
      run.input.onResult?.(result);
      return result;
    })();
  }
  return inst.promise;
}

/** Blocked results whose root dependency is `unknown`, not failed. */
const UNKNOWN_ROOT = new WeakSet<CheckResult>();

async function runInstance(
  inst: Instance,
  deps: CheckResult[],
  input: EngineInput,
  signal: AbortSignal,
): Promise<CheckResult> {
  const base = {
    id: inst.def.id,
    title: inst.def.title,
    layer: inst.def.layer,
    peer: inst.peerLabel,
    cluster: inst.clusterLabel,
    blockedBy: null as string | null,
  };
  const finish = (o: Outcome, started: number, blockedBy: string | null = null): CheckResult => {
    const result = resultOf(o, started, blockedBy);
    if (o.facts) FACTS.set(result, o.facts);
    return result;
  };
  const resultOf = (o: Outcome, started: number, blockedBy: string | null): CheckResult => ({
    ...base,
    ...(o.where ? { cluster: o.where.cluster, peer: o.where.peer } : {}),
    status: o.status,
    summary: o.summary,
    evidence: o.evidence ?? [],
    remediation: o.remediation ?? [],
    blockedBy,
    skipKind: o.status !== "skip" ? null : blockedBy ? "blocked" : o.skipKind ?? "not-applicable",
    durationMs: Math.round(performance.now() - started),
    ...(o.decidedBy ? { decidedBy: o.decidedBy } : {}),
  });
  const t0 = performance.now();
  if (inst.skipReason) {
    const kind = inst.skipReason === NEEDS_REMOTE ? "needs-remote" : "not-applicable";
    return finish({ status: "skip", skipKind: kind, summary: inst.skipReason }, t0);
  }
  if (inst.unknownReason) return finish({ status: "unknown", summary: inst.unknownReason }, t0);
  // A failed dependency blocks; so does an undetermined one ("blocked by X (unknown)"): a check
  // must not judge on top of a link nobody could verify. Failures are named before unknowns.
  const blocker = deps.find((d) => d.status === "fail") ??
    deps.find((d) => d.status === "skip" && d.blockedBy !== null && !UNKNOWN_ROOT.has(d)) ??
    deps.find((d) => d.status === "unknown" && !inst.def.runsIfUnknown?.includes(d.id)) ??
    deps.find((d) => d.status === "skip" && d.blockedBy !== null && !inst.def.runsIfUnknown?.includes(d.id));
  if (blocker) {
    const rootUnknown = blocker.status === "unknown" || UNKNOWN_ROOT.has(blocker);
    const root = blocker.status === "fail" || blocker.status === "unknown" ? blocker.id : blocker.blockedBy!;
    const result = finish(
      {
        status: "skip",
        summary: `blocked by ${root}${rootUnknown ? " (unknown)" : ""}${
          blocker.peer ? ` (peer ${blocker.peer})` : ""
        }`,
      },
      t0,
      root,
    );
    if (rootUnknown) UNKNOWN_ROOT.add(result);
    return result;
  }
  const unreadable = unreadableKinds(inst);
  if (unreadable) return finish({ status: "unknown", summary: unreadable }, t0);
  input.onStart?.({ id: inst.def.id, cluster: inst.clusterLabel, peer: inst.peerLabel });
  // Passive checks see watched views: an unreadable kind taken as "nothing there" makes them unknown.
  const log = new ReadLog();
  const watch = (v: ClusterView | null) => v && !inst.def.active ? watchedView(v, log) : v;
  const watchPeer = (p: PeerView | null, v: ClusterView | null) =>
    p && v && !inst.def.active ? watchedPeer(p, v, log) : p;
  const ctx: CheckContext = {
    cluster: watch(inst.cluster)!,
    peer: watchPeer(inst.peer, inst.cluster),
    remote: watch(inst.remote),
    remotePeer: watchPeer(inst.remotePeer, inst.remote),
    probes: declaredHub(input.probes, inst.def),
    options: input.options,
    signal,
    active: input.active ?? null,
    input: (id) => {
      // A per-peer input of a per-peer check: the same peer's instance, else the first (cluster-wide).
      const i = inst.inputs.find((d) => d.def.id === id && d.peer?.clusterId === inst.peer?.clusterId) ??
        inst.inputs.find((d) => d.def.id === id);
      return i?.settled ? { result: i.settled, facts: FACTS.get(i.settled) ?? {} } : null;
    },
  };
  const started = performance.now();
  if (inst.def.active) {
    // The active phase bounds its own time (fleet, each probe, cleanup): no per-check timeout.
    try {
      return finish(await inst.def.run(ctx), started);
    } catch (err) {
      return finish({ status: "unknown", summary: `check error: ${errorText(err)}` }, started);
    }
  }
  try {
    const ran = await within(Promise.resolve().then(() => inst.def.run(ctx)), input.options.checkTimeoutMs);
    if (!ran.done) {
      const s = (input.options.checkTimeoutMs / 1000).toFixed(0);
      return finish({ status: "unknown", summary: `timed out after ${s}s` }, started);
    }
    return finish(withRetryNotes(unknownIfTakenAsAbsent(ran.value, log), inst), started);
  } catch (err) {
    if (err instanceof KindUnavailableError) {
      return finish({ status: "unknown", summary: err.message }, started);
    }
    return finish({ status: "unknown", summary: `check error: ${errorText(err)}` }, started);
  }
}

/**
 * The probe hub as one check may use it: only the reads it declares (`hubReads`); anything else is
 * refused (the check becomes `unknown`, naming the read), so a declaration cannot fall behind the code.
 */
function declaredHub(hub: ProbeHub, def: CheckDef): ProbeHub {
  const allowed = new Set<string>(def.hubReads ?? []);
  return new Proxy(hub, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      if (typeof prop !== "string" || allowed.has(prop)) return v.bind(target);
      return () =>
        Promise.reject(
          new Error(`${def.id} reads ${prop} through the probe hub without declaring it (hubReads)`),
        );
    },
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Evidence that an input was read only after retried transient API errors (the result stands). */
function withRetryNotes(o: Outcome, inst: Instance): Outcome {
  const notes: string[] = [];
  for (const view of [inst.cluster, inst.remote].filter((v): v is ClusterView => v !== null)) {
    for (const kind of inst.def.reads) {
      const s = view.inv.state(kind);
      if (s.state === "ok" && s.retries) {
        notes.push(
          `read ${kind} on ${view.name} after ${s.retries} retried request(s) (transient API errors)`,
        );
      }
    }
  }
  return notes.length ? { ...o, evidence: [...(o.evidence ?? []), ...notes] } : o;
}

/**
 * The outcome of a check that read an unreadable kind as "nothing there" (without asking whether it
 * could be read): `unknown`, naming the read; what it would have said without it stays as evidence.
 */
function unknownIfTakenAsAbsent(o: Outcome, log: ReadLog): Outcome {
  const gaps = log.unanswered();
  if (gaps.length === 0) return o;
  const problems = gaps.map(({ view, kind }) =>
    readProblem(view, kind) ?? `${kind} on ${view.name} unreadable`
  );
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more unreadable input(s))` : "";
  return {
    status: "unknown",
    summary: `${problems[0]}${more}`,
    evidence: [
      ...problems.slice(1),
      `without it the check would say: ${o.status} — ${o.summary}`,
      ...(o.evidence ?? []),
    ],
  };
}

function unreadableKinds(inst: Instance): string | null {
  // A peer whose ForeignCluster did not fit its view: what the check would judge it on was not read.
  for (const [peer, view] of [[inst.peer, inst.cluster], [inst.remotePeer, inst.remote]] as const) {
    if (peer?.malformed && view) return malformedNote("foreignclusters", view, [peer.malformed]);
    // A peer found without its ForeignCluster (unreadable): nothing says it is a peering at all.
    if (peer?.unlocated) return peer.unlocated;
  }
  const views = [inst.cluster, inst.remote].filter((v): v is ClusterView => v !== null);
  for (const view of views) {
    for (const kind of inst.def.reads as readonly KindId[]) {
      const problem = readProblem(view, kind);
      if (problem) return problem;
    }
  }
  return null;
}

/**
 * Why a kind of one cluster cannot be judged on, or null: forbidden, failed, or holding an object
 * that does not fit its view (missing data too: judging without it could pass or fail on what was
 * never read). Shared by the engine and the report sections.
 */
export function readProblem(view: ClusterView, kind: KindId): string | null {
  const s = view.inv.state(kind);
  if (s.state === "forbidden" || s.state === "error") {
    return `${s.state === "forbidden" ? "forbidden" : "cannot read"}: ${kind} on ${view.name} — ${s.message}`;
  }
  const bad = view.inv.malformed(kind);
  return bad.length > 0 ? malformedNote(kind, view, bad) : null;
}

/** "malformed <kind> on <cluster>: <name> — <path: issue> (and N more)". */
function malformedNote(kind: KindId, view: ClusterView, bad: readonly Malformed[]): string {
  const first = bad[0];
  const name = first.namespace ? `${first.namespace}/${first.name}` : first.name;
  const more = bad.length > 1 ? ` (and ${bad.length - 1} more)` : "";
  return `malformed ${kind} on ${view.name}: ${name} — ${first.issue}${more}`;
}
