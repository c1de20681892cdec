/**
 * The inventory: every kind a run needs, listed once per cluster, in parallel, and shared by all
 * checks. A kind that cannot be read is remembered with the reason; a check that needs it becomes
 * `unknown` ("forbidden: …") without having to handle it.
 */
import { type KindId, KINDS, listPath, type ListScope, selectorsOf } from "./kinds.ts";
import type { ClusterSource, DiscoveryOutcome, K8sObject, ListOptions, Unavailable } from "./source.ts";
import { LIQO_GROUP_VERSIONS } from "./kinds.ts";

/** State of one kind in an inventory. */
export type KindState =
  /** `retries`: the list needed that many retried GETs (transient faults); absent when none. */
  | { state: "ok"; count: number; retries?: number }
  | { state: Unavailable; message: string }
  | { state: "not-listed" };

/** Thrown by {@link Inventory.items} when a kind could not be read. */
export class KindUnavailableError extends Error {
  /** Creates the error for a kind and why it is unavailable. */
  constructor(readonly kind: KindId, readonly reason: Unavailable | "not-listed", detail: string) {
    super(`${reason === "forbidden" ? "forbidden" : reason}: ${KINDS[kind].plural} — ${detail}`);
    this.name = "KindUnavailableError";
  }
}

/**
 * What discovery says about a kind: true (served), false (its group/version is known not to serve
 * it: the CRD is not installed), null (discovery did not answer for it). Built-in kinds are served.
 */
export function servedByDiscovery(kind: KindId, discovery: DiscoveryOutcome | null): boolean | null {
  const spec = KINDS[kind];
  const asked = LIQO_GROUP_VERSIONS.some((g) => g.group === spec.group && g.version === spec.version);
  if (!asked) return true;
  if (!discovery?.ok) return null;
  const gv = discovery.groups.find((g) => g.group === spec.group && g.version === spec.version);
  return gv ? gv.resources.includes(spec.plural) : false;
}

/** One list request of a kind: everywhere (no scope) or within a namespace and/or selectors. */
export interface ListRequest {
  readonly kind: KindId;
  readonly scope?: ListScope;
}

/** The identity of a list request: one request per (path, selectors) per cluster. */
export function requestKey(kind: KindId, scope: ListScope = {}): string {
  const spec = KINDS[kind];
  const { labelSelector, fieldSelector } = selectorsOf(spec, scope);
  return `${listPath(spec, scope.namespace)}?${labelSelector ?? ""}&${fieldSelector ?? ""}`;
}

/** What one list request brought back. */
type Part =
  | { ok: true; items: K8sObject[]; retries?: number }
  | { ok: false; reason: Unavailable; message: string };

/**
 * What one cluster holds, read once. A kind may be read in several scoped requests (pods of the
 * Liqo namespace, of each tenant namespace, on each virtual node): the kind's objects are their
 * union, and the kind is readable only when every one of its requests was.
 */
export class Inventory {
  /** kind → request key → what that request returned. */
  readonly #parts = new Map<KindId, Map<string, Part>>();
  readonly #pending = new Map<string, Promise<void>>();
  /** kind → the union of its parts (rebuilt when a part arrives). */
  readonly #merged = new Map<KindId, K8sObject[]>();
  /**
   * Once settled, each kind's state and first failure are computed once (a later read of the kind
   * forgets them). A kind read in thousands of scoped parts (pods of each tenant namespace) is asked
   * for them by every check instance of a run; without this each answer walks every part.
   */
  readonly #states = new Map<KindId, KindState>();
  readonly #failures = new Map<KindId, { reason: Unavailable; message: string } | null>();
  #source: ClusterSource | null = null;
  #settled = false;
  #discovery: DiscoveryOutcome | null = null;
  #discoveryRead: Promise<void> | null = null;

  /** Lists the given kinds everywhere (and discovery when asked) in parallel from a source. */
  static async load(
    source: ClusterSource,
    kinds: Iterable<KindId>,
    withDiscovery: boolean,
  ): Promise<Inventory> {
    const inv = Inventory.reading(source, withDiscovery);
    await Promise.all([...new Set(kinds)].map((kind) => inv.read(kind)));
    await inv.settle();
    return inv;
  }

  /**
   * An inventory filled progressively from a source: {@link read} starts list requests (each at
   * most once), {@link settle} waits for all of them and for discovery.
   */
  static reading(source: ClusterSource, withDiscovery: boolean): Inventory {
    const inv = new Inventory();
    inv.#source = source;
    if (withDiscovery) {
      inv.#discoveryRead = source.discovery(LIQO_GROUP_VERSIONS).then((d) => {
        inv.#discovery = d;
      });
      // Rejected credentials end the run where it waits (settle, or the /version probe first): a
      // discovery that fails before anyone waits for it must not be an unhandled rejection.
      inv.#discoveryRead.catch(() => {});
    }
    return inv;
  }

  /**
   * Reads one kind (everywhere, or within a scope) unless the same request was already made;
   * resolves when its answer is in. Never rejects. `opts.urgent` sends it before waiting others.
   */
  read(kind: KindId, scope?: ListScope, opts?: ListOptions): Promise<void> {
    const key = requestKey(kind, scope);
    const known = this.#pending.get(key);
    if (known) return known;
    const source = this.#source;
    if (!source) throw new Error("Inventory.read: this inventory has no source");
    const done = source.list(KINDS[kind], scope, opts).then(
      (out) => this.#store(kind, key, out),
      (err) => this.#store(kind, key, { ok: false, reason: "error", message: String(err) }),
    );
    this.#pending.set(key, done);
    return done;
  }

  /**
   * Records that a kind was read where it lives and nothing was there to list (a scope that
   * resolved to no namespace): the kind is readable and empty there, not "not listed".
   */
  readNone(kind: KindId): void {
    this.#store(kind, `${kind}#none`, { ok: true, items: [] });
  }

  /** The list requests made so far (their keys), e.g. to compare with what checks declare. */
  requested(): string[] {
    return [...this.#pending.keys()];
  }

  /** Waits for every request made so far and for discovery, then judges 404s against discovery. */
  async settle(): Promise<void> {
    let size = -1;
    // A request may be started while others are awaited: wait until no new one appeared.
    while (size !== this.#pending.size) {
      size = this.#pending.size;
      await Promise.all([...this.#pending.values(), this.#discoveryRead]);
    }
    if (this.#discoveryRead) this.#reconcileMissing();
    this.#settled = true;
  }

  /** True once {@link settle} returned: every request is answered and judged; nothing changes any more. */
  get settled(): boolean {
    return this.#settled;
  }

  /**
   * Replaces a settled kind's objects by `items` — the same objects as parsed by their typed view
   * (liqo/views): the raw answers are let go instead of being held twice. Counts and states stay.
   */
  compact(kind: KindId, items: K8sObject[]): void {
    if (!this.#settled || this.#failure(kind)) return;
    const merged = this.#union(kind);
    if (!merged || merged.length !== items.length) return;
    for (const part of this.#parts.get(kind)?.values() ?? []) if (part.ok) part.items = [];
    this.#merged.set(kind, items);
  }

  #store(kind: KindId, key: string, out: Part): void {
    let parts = this.#parts.get(kind);
    if (!parts) this.#parts.set(kind, parts = new Map());
    parts.set(key, out);
    this.#merged.delete(kind);
    this.#states.delete(kind);
    this.#failures.delete(kind);
  }

  /**
   * A 404 on a list means "not installed" only when discovery agrees that the API does not serve
   * the kind; otherwise the list is unreadable (missing data must never read as "nothing there").
   */
  #reconcileMissing(): void {
    for (const [kind, parts] of this.#parts) {
      for (const [key, part] of parts) {
        if (part.ok || part.reason !== "missing") continue;
        const served = servedByDiscovery(kind, this.#discovery);
        if (served === false) continue;
        const spec = KINDS[kind];
        const gv = spec.group === "" ? spec.version : `${spec.group}/${spec.version}`;
        parts.set(key, {
          ok: false,
          reason: "error",
          message: served
            ? `the list of ${spec.plural} answered 404 although discovery serves ${gv}/${spec.plural} (${part.message})`
            : `the list of ${spec.plural} answered 404 and discovery could not confirm that ${gv} is not installed (${part.message})`,
        });
        this.#merged.delete(kind);
      }
    }
  }

  /** The first failed request of a kind (a refusal first), if any. */
  #failure(kind: KindId): { reason: Unavailable; message: string } | null {
    const known = this.#settled ? this.#failures.get(kind) : undefined;
    if (known !== undefined) return known;
    let first: { reason: Unavailable; message: string } | null = null;
    for (const part of this.#parts.get(kind)?.values() ?? []) {
      if (part.ok) continue;
      if (part.reason === "forbidden") {
        first = part;
        break;
      }
      if (!first || first.reason === "missing") first = part;
    }
    if (this.#settled) this.#failures.set(kind, first);
    return first;
  }

  /** The union of a kind's readable parts (each object once), or null when none was read. */
  #union(kind: KindId): K8sObject[] | null {
    const cached = this.#merged.get(kind);
    if (cached) return cached;
    const parts = this.#parts.get(kind);
    if (!parts || parts.size === 0) return null;
    const oks = [...parts.values()].filter((p) => p.ok);
    let items: K8sObject[];
    if (oks.length <= 1) items = oks[0]?.items ?? [];
    else {
      const seen = new Set<string>();
      items = [];
      for (const part of oks) {
        for (const o of part.items) {
          const id = `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
          if (seen.has(id)) continue;
          seen.add(id);
          items.push(o);
        }
      }
    }
    this.#merged.set(kind, items);
    return items;
  }

  /** Builds an inventory from already-known lists (tests, snapshots). */
  static fromLists(
    lists: Partial<Record<KindId, K8sObject[]>>,
    errors: Partial<Record<KindId, { reason: Unavailable; message: string }>> = {},
    discovery: DiscoveryOutcome | null = null,
  ): Inventory {
    const inv = new Inventory();
    for (const [k, v] of Object.entries(lists)) {
      inv.#store(k as KindId, "", { ok: true, items: v as K8sObject[] });
    }
    // An error wins over a list of the same kind, as when one of its requests failed.
    for (const [k, v] of Object.entries(errors)) inv.#store(k as KindId, "!", { ok: false, ...v! });
    inv.#discovery = discovery;
    return inv;
  }

  /** All objects of a kind; a CRD that is not installed reads as empty. Throws if unreadable. */
  items(kind: KindId): readonly K8sObject[] {
    const err = this.#failure(kind);
    if (err && err.reason !== "missing") throw new KindUnavailableError(kind, err.reason, err.message);
    const list = this.#union(kind);
    if (list) return list;
    throw new KindUnavailableError(kind, "not-listed", "the check did not declare it in `reads`");
  }

  /** Objects of a kind, or null when it could not be read. */
  tryItems(kind: KindId): readonly K8sObject[] | null {
    const err = this.#failure(kind);
    if (err && err.reason !== "missing") return null;
    return this.#union(kind);
  }

  /** Objects of a kind in one namespace. */
  inNamespace(kind: KindId, namespace: string): K8sObject[] {
    return this.items(kind).filter((o) => o.metadata.namespace === namespace);
  }

  /** Objects of a kind carrying label `key` (with `value` when given). */
  withLabel(kind: KindId, key: string, value?: string): K8sObject[] {
    return this.items(kind).filter((o) => {
      const v = o.metadata.labels?.[key];
      return v !== undefined && (value === undefined || v === value);
    });
  }

  /** One object by namespace and name, if present. */
  get(kind: KindId, namespace: string | undefined, name: string): K8sObject | undefined {
    return this.items(kind).find((o) => o.metadata.name === name && o.metadata.namespace === namespace);
  }

  /** Why a kind is unavailable, or its count. */
  state(kind: KindId): KindState {
    const known = this.#settled ? this.#states.get(kind) : undefined;
    if (known) return known;
    const s = this.#stateNow(kind);
    if (this.#settled) this.#states.set(kind, s);
    return s;
  }

  #stateNow(kind: KindId): KindState {
    const parts = this.#parts.get(kind);
    if (!parts || parts.size === 0) return { state: "not-listed" };
    const err = this.#failure(kind);
    if (err && err.reason !== "missing") return { state: err.reason, message: err.message };
    if (err && ![...parts.values()].some((p) => p.ok)) return { state: "missing", message: err.message };
    const count = this.#union(kind)?.length ?? 0;
    let retries = 0;
    for (const p of parts.values()) if (p.ok) retries += p.retries ?? 0;
    return retries ? { state: "ok", count, retries } : { state: "ok", count };
  }

  /** Discovery result, when it was requested. */
  get discovery(): DiscoveryOutcome | null {
    return this.#discovery;
  }

  /** Kinds read and their states (for manifests and verbose output). */
  states(): Record<string, KindState> {
    const out: Record<string, KindState> = {};
    for (const k of this.#parts.keys()) out[k] = this.state(k);
    return out;
  }
}
