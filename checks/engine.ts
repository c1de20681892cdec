/**
 * The check engine: expands the catalog into instances (per cluster, per peer), runs them
 * concurrently as their dependencies allow, turns timeouts and thrown errors into `unknown`, skips
 * what a failed dependency blocks, and names the first broken link.
 */
import { KindUnavailableError } from "../kube/inventory.ts";
import type { KindId } from "../kube/kinds.ts";
import type { Malformed } from "../liqo/views/mod.ts";
import type { ProbeHub } from "../probes/hub.ts";
import {
  type CheckContext,
  type CheckDef,
  type CheckResult,
  type ClusterView,
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
  probes: ProbeHub;
  options: RunOptions;
  /** Called as each result arrives (live checklist). */
  onResult?: (r: CheckResult) => void;
  /** Called when an instance starts running. */
  onStart?: (i: { id: string; cluster: string; peer: string | null }) => void;
  signal?: AbortSignal;
}

/** Another root failure beside the diagnosis: a fault the diagnosed one does not explain. */
export interface AlsoFailing {
  /** Check ID, e.g. `IPAM-04`. */
  id: string;
  /** Layer of the check. */
  layer: (typeof LAYERS)[number];
  /** Remote cluster ID of the peer it concerns; null for a cluster-wide check. */
  peer: string | null;
  /** Cluster the check ran on (its display name). */
  cluster: string;
  /** One-line finding. */
  summary: string;
}

/** The diagnosis: the first broken link. */
export interface Diagnosis {
  /** ID of the check that is the first broken link, e.g. `GW-02`. */
  id: string;
  /** Layer of the check. */
  layer: (typeof LAYERS)[number];
  /** Remote cluster ID of the peer it concerns; null for a cluster-wide check. */
  peer: string | null;
  /** Cluster the check ran on (its display name). */
  cluster: string;
  /** One-line finding. */
  summary: string;
  /** The fix, as steps (checks/remediation.ts); empty when the check has none. */
  remediation: CheckResult["remediation"];
  /**
   * The other root failures, in dependency order: failures that neither the diagnosis nor an
   * earlier root failure explains (see {@link diagnose}), so fixing the first link is not the end
   * of the story. Always set by the engine (empty when the diagnosis is the only fault).
   */
  alsoFailing?: AlsoFailing[];
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
  promise?: Promise<CheckResult>;
}

const key = (id: string, cluster: string, peer: string | null) => `${id}@${cluster}#${peer ?? ""}`;

/** Runs the catalog and returns ordered results, the diagnosis and the exit code. */
export async function runEngine(input: EngineInput): Promise<EngineOutput> {
  const problems = validateCatalog(input.catalog);
  if (problems.length) throw new Error(`invalid check catalog: ${problems.join("; ")}`);
  const instances = expand(input);
  const index = new Map(instances.map((i) => [key(i.def.id, i.clusterLabel, i.peerLabel), i]));
  for (const inst of instances) inst.deps = resolveDeps(inst, input, index);
  const signal = input.signal ?? new AbortController().signal;
  const results = await Promise.all(instances.map((i) => schedule(i, input, signal)));
  const ranks = new Map(instances.map((i) => [`${i.def.id}@${i.clusterLabel}`, i]));
  results.sort((a, b) => compare(a, b, ranks));
  const diagnosis = diagnose(results, input.catalog);
  const exitCode = results.some((r) => r.status === "fail")
    ? 2
    : results.some((r) => r.status === "warn" || r.status === "unknown")
    ? 1
    : 0;
  return { results, diagnosis, exitCode };
}

/** Layer, then catalog order, then cluster, then peer; `ranks` maps "id@cluster" to its instance. */
function compare(a: CheckResult, b: CheckResult, ranks: ReadonlyMap<string, Instance>): number {
  const rank = (r: CheckResult) => ranks.get(`${r.id}@${r.cluster}`);
  const la = LAYERS.indexOf(a.layer), lb = LAYERS.indexOf(b.layer);
  if (la !== lb) return la - lb;
  const ia = rank(a), ib = rank(b);
  if (ia && ib && ia.order !== ib.order) return ia.order - ib.order;
  if (ia && ib && ia.clusterRank !== ib.clusterRank) return ia.clusterRank - ib.clusterRank;
  return (a.peer ?? "").localeCompare(b.peer ?? "");
}

/**
 * The first failing result in layer order (results must already be ordered), with the other root
 * failures in `alsoFailing`.
 *
 * A failure is explained by an earlier root failure — and so is not a root of its own — when it is
 * that failure's consequence in the dependency graph of `catalog` (`needs`, transitively):
 * - a cluster-wide root explains failures on its cluster of checks that need it;
 * - a per-peer root explains failures on the same peering (either end, and the dual check that
 *   compares both ends) of the same check (the two ends of one link), of checks that need it, and
 *   of checks downstream of the same per-peer link (a shared per-peer dependency: a stale client
 *   endpoint, GW-04, and the Connection, TUN-01, both sit on the advertised endpoint, GW-03 — the
 *   tunnel it keeps down is a symptom, not a second fault).
 * Without a catalog only the same check on the same peering is treated as explained.
 */
export function diagnose(
  results: readonly CheckResult[],
  catalog: readonly CheckDef[] = [],
): Diagnosis | null {
  const failures = results.filter((r) => r.status === "fail");
  if (failures.length === 0) return null;
  const graph = dependencyGraph(catalog);
  const roots: CheckResult[] = [];
  for (const f of failures) if (!roots.some((root) => explains(root, f, graph))) roots.push(f);
  const [first, ...others] = roots;
  return {
    id: first.id,
    layer: first.layer,
    peer: first.peer,
    cluster: first.cluster,
    summary: first.summary,
    remediation: first.remediation,
    alsoFailing: others.map((r) => ({
      id: r.id,
      layer: r.layer,
      peer: r.peer,
      cluster: r.cluster,
      summary: r.summary,
    })),
  };
}

interface DependencyGraph {
  /** Check ID → every check it needs, transitively. */
  ancestors: ReadonlyMap<string, ReadonlySet<string>>;
  /** IDs of per-peer checks. */
  perPeer: ReadonlySet<string>;
}

function dependencyGraph(catalog: readonly CheckDef[]): DependencyGraph {
  const byId = new Map(catalog.map((c) => [c.id, c]));
  const ancestors = new Map<string, Set<string>>();
  const visit = (id: string, seen: Set<string>): Set<string> => {
    const known = ancestors.get(id);
    if (known) return known;
    const out = new Set<string>();
    if (seen.has(id)) return out; // a cycle: validateCatalog reports it
    seen.add(id);
    for (const n of byId.get(id)?.needs ?? []) {
      out.add(n);
      for (const a of visit(n, seen)) out.add(a);
    }
    ancestors.set(id, out);
    return out;
  };
  for (const c of catalog) visit(c.id, new Set());
  return { ancestors, perPeer: new Set(catalog.filter((c) => c.perPeer).map((c) => c.id)) };
}

/** The clusters a result was observed on: one, or both of a dual check's "A ↔ B". */
function clustersOf(r: CheckResult): string[] {
  return r.cluster.split(" ↔ ");
}

/** The peering a per-peer result speaks for, as a sorted pair of cluster names (null: cluster-wide). */
function peeringOf(r: CheckResult): string | null {
  if (r.peer === null) return null;
  return [clustersOf(r)[0], r.peer].sort().join(" ⇄ ");
}

/** Whether `f` is a consequence of the root failure `root` (see {@link diagnose}). */
function explains(root: CheckResult, f: CheckResult, graph: DependencyGraph): boolean {
  const needsRoot = graph.ancestors.get(f.id)?.has(root.id) ?? false;
  const peering = peeringOf(root);
  if (peering === null) return needsRoot && clustersOf(f).some((c) => clustersOf(root).includes(c));
  if (peeringOf(f) !== peering) return false;
  if (f.id === root.id || needsRoot) return true;
  const fa = graph.ancestors.get(f.id), ra = graph.ancestors.get(root.id);
  if (!fa || !ra) return false;
  for (const a of fa) if (graph.perPeer.has(a) && ra.has(a)) return true;
  return false;
}

function expand(input: EngineInput): Instance[] {
  const out: Instance[] = [];
  const views: { view: ClusterView; peers: readonly PeerView[]; rank: number }[] = [
    { view: input.local.view, peers: input.local.peers, rank: 0 },
  ];
  if (input.remote?.view) views.push({ view: input.remote.view, peers: input.remote.peers, rank: 1 });
  input.catalog.forEach((def, order) => {
    const base = { def, order, deps: [] as Instance[] };
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
    const skipReason = input.remote ? undefined : NEEDS_REMOTE;
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

function schedule(inst: Instance, input: EngineInput, signal: AbortSignal): Promise<CheckResult> {
  if (!inst.promise) {
    inst.promise = (async () => {
      const depResults = await Promise.all(inst.deps.map((d) => schedule(d, input, signal)));
      const result = await runInstance(inst, depResults, input, signal);
      input.onResult?.(result);
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
  const finish = (o: Outcome, started: number, blockedBy: string | null = null): CheckResult => ({
    ...base,
    status: o.status,
    summary: o.summary,
    evidence: o.evidence ?? [],
    remediation: o.remediation ?? [],
    blockedBy,
    skipKind: o.status !== "skip" ? null : blockedBy ? "blocked" : o.skipKind ?? "not-applicable",
    durationMs: Math.round(performance.now() - started),
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
  const ctx: CheckContext = {
    cluster: inst.cluster!,
    peer: inst.peer,
    remote: inst.remote,
    remotePeer: inst.remotePeer,
    probes: input.probes,
    options: input.options,
    signal,
  };
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<Outcome>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            status: "unknown",
            summary: `timed out after ${(input.options.checkTimeoutMs / 1000).toFixed(0)}s`,
          }),
        input.options.checkTimeoutMs,
      );
    });
    const outcome = await Promise.race([Promise.resolve().then(() => inst.def.run(ctx)), timeout]);
    return finish(withRetryNotes(outcome, inst), started);
  } catch (err) {
    if (err instanceof KindUnavailableError) {
      return finish({ status: "unknown", summary: err.message }, started);
    }
    const msg = err instanceof Error ? err.message : String(err);
    return finish({ status: "unknown", summary: `check error: ${msg}` }, started);
  } finally {
    clearTimeout(timer);
  }
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

function unreadableKinds(inst: Instance): string | null {
  // A peer whose ForeignCluster did not fit its view: what the check would judge it on was not read.
  for (const [peer, view] of [[inst.peer, inst.cluster], [inst.remotePeer, inst.remote]] as const) {
    if (peer?.malformed && view) return malformedNote("foreignclusters", view, [peer.malformed]);
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
