/**
 * The inventory: every kind a run needs, listed once per cluster, in parallel, and shared by all
 * checks. A kind that cannot be read is remembered with the reason; a check that needs it becomes
 * `unknown` ("forbidden: …") without having to handle it.
 */
import { type KindId, KINDS } from "./kinds.ts";
import type { ClusterSource, DiscoveryOutcome, K8sObject, Unavailable } from "./source.ts";
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

/** What one cluster holds, read once. */
export class Inventory {
  readonly #lists = new Map<KindId, K8sObject[]>();
  readonly #errors = new Map<KindId, { reason: Unavailable; message: string }>();
  readonly #retries = new Map<KindId, number>();
  #discovery: DiscoveryOutcome | null = null;

  /** Lists the given kinds (and discovery when asked) in parallel from a source. */
  static async load(
    source: ClusterSource,
    kinds: Iterable<KindId>,
    withDiscovery: boolean,
  ): Promise<Inventory> {
    const inv = new Inventory();
    const unique = [...new Set(kinds)];
    const lists = unique.map(async (kind) => {
      const out = await source.list(KINDS[kind]);
      if (out.ok) {
        inv.#lists.set(kind, out.items);
        if (out.retries) inv.#retries.set(kind, out.retries);
      } else if (out.reason === "missing") inv.#lists.set(kind, []), inv.#errors.set(kind, out);
      else inv.#errors.set(kind, out);
    });
    const disco = withDiscovery
      ? source.discovery(LIQO_GROUP_VERSIONS).then((d) => {
        inv.#discovery = d;
      })
      : Promise.resolve();
    await Promise.all([...lists, disco]);
    if (withDiscovery) inv.#reconcileMissing();
    return inv;
  }

  /**
   * A 404 on a list means "not installed" only when discovery agrees that the API does not serve
   * the kind; otherwise the list is unreadable (missing data must never read as "nothing there").
   */
  #reconcileMissing(): void {
    for (const [kind, err] of this.#errors) {
      if (err.reason !== "missing") continue;
      const served = servedByDiscovery(kind, this.#discovery);
      if (served === false) continue;
      const spec = KINDS[kind];
      const gv = spec.group === "" ? spec.version : `${spec.group}/${spec.version}`;
      this.#lists.delete(kind);
      this.#errors.set(kind, {
        reason: "error",
        message: served
          ? `the list of ${spec.plural} answered 404 although discovery serves ${gv}/${spec.plural} (${err.message})`
          : `the list of ${spec.plural} answered 404 and discovery could not confirm that ${gv} is not installed (${err.message})`,
      });
    }
  }

  /** Builds an inventory from already-known lists (tests, snapshots). */
  static fromLists(
    lists: Partial<Record<KindId, K8sObject[]>>,
    errors: Partial<Record<KindId, { reason: Unavailable; message: string }>> = {},
    discovery: DiscoveryOutcome | null = null,
  ): Inventory {
    const inv = new Inventory();
    for (const [k, v] of Object.entries(lists)) inv.#lists.set(k as KindId, v as K8sObject[]);
    for (const [k, v] of Object.entries(errors)) inv.#errors.set(k as KindId, v!);
    inv.#discovery = discovery;
    return inv;
  }

  /** All objects of a kind; a CRD that is not installed reads as empty. Throws if unreadable. */
  items(kind: KindId): readonly K8sObject[] {
    const list = this.#lists.get(kind);
    if (list) return list;
    const err = this.#errors.get(kind);
    if (err) throw new KindUnavailableError(kind, err.reason, err.message);
    throw new KindUnavailableError(kind, "not-listed", "the check did not declare it in `reads`");
  }

  /** Objects of a kind, or null when it could not be read. */
  tryItems(kind: KindId): readonly K8sObject[] | null {
    return this.#lists.get(kind) ?? null;
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
    const err = this.#errors.get(kind);
    if (err && err.reason !== "missing") return { state: err.reason, message: err.message };
    const list = this.#lists.get(kind);
    if (err) return { state: "missing", message: err.message };
    if (!list) return { state: "not-listed" };
    const retries = this.#retries.get(kind);
    return retries ? { state: "ok", count: list.length, retries } : { state: "ok", count: list.length };
  }

  /** Discovery result, when it was requested. */
  get discovery(): DiscoveryOutcome | null {
    return this.#discovery;
  }

  /** Kinds read and their states (for manifests and verbose output). */
  states(): Record<string, KindState> {
    const out: Record<string, KindState> = {};
    for (const k of new Set([...this.#lists.keys(), ...this.#errors.keys()])) out[k] = this.state(k);
    return out;
  }
}
