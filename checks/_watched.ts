/**
 * The cluster views one check instance sees, watched: the engine learns which kinds the check took
 * as "nothing there" although they could not be read (a `tryItems` that answered null, a locator —
 * the Liqo namespace, the cluster ID — that is unknown because its kind could not be read), and
 * which ones it asked about explicitly (`readable`, `state`). A kind taken and never asked about
 * makes the check `unknown`, naming the read: a check cannot forget to handle an unreadable input.
 */
import type { KindId } from "../kube/kinds.ts";
import type { Objects } from "../liqo/views/mod.ts";
import type { ClusterView, PeerView } from "./types.ts";

/** What one check instance did with the kinds it could not read. */
export class ReadLog {
  readonly #taken = new Map<ClusterView, Set<KindId>>();
  readonly #asked = new Map<ClusterView, Set<KindId>>();

  /** Records that the check read `kind` of `view` as absent although it is unreadable. */
  took(view: ClusterView, kind: KindId): void {
    if (!isUnreadable(view.inv, kind)) return;
    add(this.#taken, view, kind);
  }

  /** Records that the check asked whether `kind` of `view` could be read. */
  asked(view: ClusterView, kind: KindId): void {
    add(this.#asked, view, kind);
  }

  /** The unreadable kinds the check took as absent without asking, per view, in the order taken. */
  unanswered(): { view: ClusterView; kind: KindId }[] {
    const out: { view: ClusterView; kind: KindId }[] = [];
    for (const [view, kinds] of this.#taken) {
      for (const kind of kinds) if (!this.#asked.get(view)?.has(kind)) out.push({ view, kind });
    }
    return out;
  }
}

function add(map: Map<ClusterView, Set<KindId>>, view: ClusterView, kind: KindId): void {
  const set = map.get(view);
  if (set) set.add(kind);
  else map.set(view, new Set([kind]));
}

/**
 * Forbidden or failed. A kind the plan never listed is a declaration gap (tests/e2e/reads_suffice_test.ts
 * finds those), and a CRD that discovery confirms is not installed reads as empty: neither is a failed read.
 */
function isUnreadable(inv: Objects, kind: KindId): boolean {
  const s = inv.state(kind).state;
  return s === "forbidden" || s === "error";
}

/**
 * `view` as one check sees it: the same objects, with every read that could hide an unreadable kind
 * recorded in `log` (see {@link ReadLog}). `log` keys its records by `view` (the unwatched one).
 */
export function watchedView(view: ClusterView, log: ReadLog): ClusterView {
  const target = view.inv;
  const inv = new Proxy(target, {
    get(t, prop) {
      const v: unknown = Reflect.get(t, prop, t);
      if (typeof v !== "function") return v;
      const fn = v as (...args: unknown[]) => unknown;
      switch (prop) {
        case "tryItems":
          return (kind: KindId) => {
            const items = t.tryItems(kind);
            if (items === null) log.took(view, kind);
            return items;
          };
        case "malformed":
        case "leftOut":
          // Empty for an unreadable kind: "nothing malformed" would be a claim about what was not read.
          return (kind: KindId) => {
            if (t.raw.tryItems(kind) === null) log.took(view, kind);
            return fn.call(t, kind);
          };
        case "readable":
        case "state":
          return (kind: KindId) => {
            log.asked(view, kind);
            return fn.call(t, kind);
          };
        default:
          return fn.bind(t);
      }
    },
  });
  const watched: ClusterView = { ...view, inv };
  // The locators the view was built with: null because their kind could not be read is not "none".
  return Object.defineProperties(watched, {
    liqoNamespace: {
      enumerable: true,
      get: () => {
        if (view.liqoNamespace === null) log.took(view, "deployments");
        return view.liqoNamespace;
      },
    },
    clusterId: {
      enumerable: true,
      get: () => {
        if (view.clusterId === null) log.took(view, "configmaps");
        return view.clusterId;
      },
    },
  });
}

/**
 * `peer` as one check sees it: its tenant namespace, when not found, recorded as taken from
 * `view`'s namespaces (the labelled namespace is how it is found when the ForeignCluster's status
 * does not name it, liqo/lookups.ts `tenantNamespaceOf`).
 */
export function watchedPeer(peer: PeerView, view: ClusterView, log: ReadLog): PeerView {
  return Object.defineProperty({ ...peer }, "tenantNamespace", {
    enumerable: true,
    get: () => {
      if (peer.tenantNamespace === null) log.took(view, "namespaces");
      return peer.tenantNamespace;
    },
  });
}
