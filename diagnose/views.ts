/**
 * Reading the clusters: which kinds a run lists (the union of what the checks and the report
 * sections declare), one ClusterView per cluster, and its peers.
 */
import { Inventory } from "../kube/inventory.ts";
import { type KindId, KINDS } from "../kube/kinds.ts";
import type { ClusterSource } from "../kube/source.ts";
import { type Malformed, Objects } from "../liqo/views/mod.ts";
import { type ForeignCluster, salvageForeignCluster } from "../liqo/views/peering.ts";
import { clusterIdOf, liqoNamespaceOf, REMOTE_ID_LABEL, tenantNamespaceOf } from "../liqo/lookups.ts";
import type { CheckDef, ClusterView, PeerView } from "../checks/types.ts";
import { readProblem } from "../checks/engine.ts";
import { PEERING_DUMP_READS, PEERING_DUMP_READS_IN } from "../report/peering.ts";
import { CHEAT_SHEET_READS, CHEAT_SHEET_READS_IN } from "../report/cheatsheet.ts";
import { type ReadScope, type Resolved, resolveScope, SCOPE_INPUTS } from "../liqo/scopes.ts";
import { TENANT_NAMESPACE_LABEL } from "../liqo/names.ts";

/** What a run reads: each kind, and where (see liqo/scopes.ts). */
export type ReadPlan = ReadonlyMap<KindId, ReadonlySet<ReadScope>>;

/** Something that declares its reads like a check does (checks, report sections). */
export interface DeclaresReads {
  readonly reads: readonly KindId[];
  readonly optionalReads?: readonly KindId[];
  readonly readsIn?: { readonly [K in KindId]?: readonly ReadScope[] };
}

/**
 * Read by every run: the cluster's identity (the cluster-ID ConfigMap in the Liqo namespace), its
 * peers, and what locates Liqo's namespace.
 */
const ALWAYS: DeclaresReads = {
  reads: ["configmaps", "deployments", "foreignclusters", "namespaces"],
  readsIn: { configmaps: ["liqo"] },
};

/** The report sections' reads, declared like checks'. */
const SECTIONS: readonly DeclaresReads[] = [
  { reads: PEERING_DUMP_READS, readsIn: PEERING_DUMP_READS_IN },
  { reads: CHEAT_SHEET_READS, readsIn: CHEAT_SHEET_READS_IN },
];

/** The read plan of a catalog: every kind its checks and the report sections read, and where. */
export function planFor(catalog: readonly DeclaresReads[]): ReadPlan {
  const plan = new Map<KindId, Set<ReadScope>>();
  for (const d of [ALWAYS, ...SECTIONS, ...catalog]) {
    for (const k of [...d.reads, ...(d.optionalReads ?? [])]) {
      const where = d.readsIn?.[k] ?? ["cluster"];
      const set = plan.get(k) ?? new Set<ReadScope>();
      for (const s of where) set.add(s);
      plan.set(k, set);
    }
  }
  // A scope is located from kinds read everywhere: they are part of the plan too.
  for (const scopes of [...plan.values()]) {
    for (const s of scopes) {
      for (const k of SCOPE_INPUTS[s]) if (!plan.has(k)) plan.set(k, new Set(["cluster"]));
    }
  }
  for (const [k, scopes] of plan) {
    // Read everywhere, a kind needs no narrower request; cluster-scoped kinds have no namespaces.
    if (scopes.has("cluster") || !KINDS[k].namespaced && !scopes.has("virtual-nodes")) {
      plan.set(k, new Set(["cluster"]));
    }
  }
  return plan;
}

/** The inventory kinds a catalog needs. */
export function kindsFor(catalog: readonly CheckDef[]): Set<KindId> {
  return new Set(planFor(catalog).keys());
}

/**
 * Reads one cluster by a plan: the kinds read everywhere and the scope inputs at once, each scoped
 * request as soon as the kinds that locate it are in. Each (path, selectors) is requested once.
 */
export class ViewLoader {
  /** The inventory being filled (complete after {@link view}). */
  readonly inventory: Inventory;
  /** "kind@scope" → the reads of that kind there are answered. */
  readonly #done = new Map<string, Promise<void>>();

  /**
   * Starts every request of the plan. The reads in `urgent` (and what locates them) go before the
   * others waiting for a connection slot: they are what the run's critical path waits on.
   */
  constructor(
    readonly source: ClusterSource,
    readonly plan: ReadPlan,
    urgent: readonly (readonly [KindId, ReadScope])[] = [],
    /** The other reads are issued once this resolves (a fleet: every cluster's urgent reads first). */
    hold?: Promise<void>,
  ) {
    const inv = this.inventory = Inventory.reading(source, true);
    const isUrgent = (kind: KindId, scope: ReadScope) =>
      urgent.some(([k, s]) => k === kind && s === scope) ||
      urgent.some(([, s]) => SCOPE_INPUTS[s].includes(kind) && scope === "cluster");
    const located = new Map<ReadScope, Promise<Resolved>>();
    const locate = (scope: ReadScope) => {
      let p = located.get(scope);
      if (!p) {
        p = Promise.all(
          SCOPE_INPUTS[scope].map((k) => inv.read(k, undefined, { urgent: isUrgent(k, "cluster") })),
        )
          .then(() => resolveScope(scope, new Objects(inv)));
        located.set(scope, p);
      }
      return p;
    };
    // Urgent reads are issued first, so they are also first in line for a connection.
    const entries = [...plan].sort(([a, as], [b, bs]) => rank(b, bs) - rank(a, as));
    function rank(kind: KindId, scopes: ReadonlySet<ReadScope>): number {
      return [...scopes].some((s) => isUrgent(kind, s)) ? 1 : 0;
    }
    for (const [kind, scopes] of entries) {
      for (const scope of scopes) {
        const opts = { urgent: isUrgent(kind, scope) };
        const issue = () =>
          scope === "cluster" ? inv.read(kind, undefined, opts) : locate(scope).then(async (where) => {
            if (where.everywhere) return inv.read(kind, undefined, opts);
            if (where.scopes.length === 0) return inv.readNone(kind);
            await Promise.all(where.scopes.map((s) => inv.read(kind, s, opts)));
          });
        // Held reads that ask what an urgent one already asks share its request (never sent twice).
        const done = hold && !opts.urgent ? hold.then(issue) : issue();
        // A run-ending error (rejected credentials) may come back before anyone waits for this read:
        // it is surfaced where the run waits (the /version probe, `view()`), never as an unhandled
        // rejection that kills the process with a stack trace.
        done.catch(() => {});
        this.#done.set(`${kind}@${scope}`, done);
      }
    }
  }

  /**
   * Resolves when the reads of these kinds (each where it is read: `[kind, scope]`, or every scope
   * of a kind given alone) are answered; the inventory is not settled yet.
   */
  async ready(reads: readonly (KindId | readonly [KindId, ReadScope])[]): Promise<Objects> {
    const everywhere = (kind: KindId) => [...(this.plan.get(kind) ?? [])].map((s) => `${kind}@${s}`);
    // A kind read everywhere has no narrower read to wait for: wait for all of its reads.
    const keys = reads.flatMap((r) =>
      typeof r === "string"
        ? everywhere(r)
        : this.#done.has(`${r[0]}@${r[1]}`)
        ? [`${r[0]}@${r[1]}`]
        : everywhere(r[0])
    );
    await Promise.all(keys.map((k) => this.#done.get(k)));
    return new Objects(this.inventory);
  }

  /** The complete view, once every request and discovery are answered. */
  async view(): Promise<ClusterView> {
    await Promise.all(this.#done.values());
    await this.inventory.settle();
    return viewOf(this.source, new Objects(this.inventory));
  }
}

/** A ClusterView over the objects read so far (a complete view only after the loader settled). */
export function viewOf(source: ClusterSource, inv: Objects): ClusterView {
  const clusterId = clusterIdOf(inv);
  return {
    name: clusterId ?? source.endpoint.context,
    clusterId,
    liqoNamespace: liqoNamespaceOf(inv),
    context: source.endpoint.context,
    server: source.endpoint.server,
    ...(source.endpoint.caFingerprint ? { caFingerprint: source.endpoint.caFingerprint } : {}),
    inv,
    now: source.now(),
    isSnapshot: source.isSnapshot,
  };
}

/** Reads one cluster into a ClusterView, by the read plan of a catalog. */
export function loadView(source: ClusterSource, plan: ReadPlan): Promise<ClusterView> {
  return new ViewLoader(source, plan).view();
}

/**
 * Peers of a cluster (ForeignClusters), optionally narrowed. A ForeignCluster that does not fit its
 * view is still a peer — kept with what can be read of it and flagged `malformed`, so its checks are
 * unknown naming the bad field — rather than silently disappearing.
 */
export function peersOf(view: ClusterView, only?: readonly string[]): PeerView[] {
  const listed = view.inv.tryItems("foreignclusters");
  const fcs = listed ?? peersFromLabels(view);
  // Found by labels only: the locator itself could not be read (see PeerView.unlocated).
  const unlocated = listed === null
    ? `${
      readProblem(view, "foreignclusters") ?? "foreignclusters unreadable"
    } (peer found only by the labels of its objects or tenant namespace)`
    : undefined;
  const peer = (fc: ForeignCluster, malformed?: Malformed): PeerView => ({
    clusterId: String(fc.spec?.clusterID ?? fc.metadata.name),
    foreignCluster: fc,
    tenantNamespace: tenantNamespaceOf(view.inv, fc),
    ...(malformed ? { malformed } : {}),
    ...(unlocated ? { unlocated } : {}),
  });
  const all = fcs.map((fc) => peer(fc));
  for (const { raw, malformed } of view.inv.leftOut("foreignclusters")) {
    const fc = salvageForeignCluster(raw);
    if (fc) all.push(peer(fc, malformed));
  }
  if (!only || only.length === 0) return all;
  return all.filter((p) => only.includes(p.clusterId) || only.includes(p.foreignCluster.metadata.name));
}

/** Per-peer kinds whose `liqo.io/remote-cluster-id` label names a peer. */
const PEER_LABELLED: readonly KindId[] = [
  "gatewayservers",
  "gatewayclients",
  "configurations",
  "connections",
];

/**
 * When the ForeignClusters cannot be listed, the peers are still known from the per-peer objects
 * Liqo labels with the remote cluster ID (and the tenant namespaces): each becomes a stand-in
 * ForeignCluster carrying only the ID, flagged `unlocated`, so its checks are listed as `unknown`
 * naming the refusal — neither judged (a stale tenant namespace is no broken peering) nor silently
 * gone.
 */
function peersFromLabels(view: ClusterView): ForeignCluster[] {
  const ids = new Set<string>();
  for (const kind of PEER_LABELLED) {
    for (const o of view.inv.tryItems(kind) ?? []) {
      const id = o.metadata.labels?.[REMOTE_ID_LABEL];
      if (id) ids.add(id);
    }
  }
  for (const ns of view.inv.tryItems("namespaces") ?? []) {
    const id = ns.metadata.labels?.[REMOTE_ID_LABEL];
    if (id && ns.metadata.labels?.[TENANT_NAMESPACE_LABEL] === "true") ids.add(id);
  }
  return [...ids].sort().map((id) => ({ metadata: { name: id }, spec: { clusterID: id } }));
}
