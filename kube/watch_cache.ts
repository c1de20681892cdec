/**
 * A ClusterSource that lists each (kind, scope) once and then keeps the answer current with a
 * Kubernetes watch, so the rounds of `flyingfish watch` after the first cost no lists at all: only
 * the execs (`wg show`), which are never cached, and the /version probe.
 *
 * Per list request (path + selectors): the first `list` is a real list that also yields the list's
 * resourceVersion; a watch then starts from it (ADDED/MODIFIED/DELETED apply to the cached objects,
 * BOOKMARK only moves the resourceVersion). While the watch stream is open, `list` answers from the
 * cache. A watch the server ends cleanly (its timeout) is resumed from the last resourceVersion; a
 * 410 Gone, or a stream that breaks, marks the entry stale: the next `list` lists again and starts a
 * new watch. A watch the server refuses (403, 405) leaves that request to plain lists. Failed lists
 * are never cached. What the watcher hands over is already sanitised (see kube/live/watch.ts).
 */
import { listPath, type ListScope, selectorsOf } from "./kinds.ts";
import type { KindSpec } from "./kinds.ts";
import type { ClusterSource, DiscoveryOutcome, K8sObject, ListOutcome } from "./source.ts";

/** The event types of a watch stream (ERROR events are turned into errors by the watcher). */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";

/** One event of a watch stream; a BOOKMARK's object carries only `metadata.resourceVersion`. */
export interface WatchEvent {
  type: WatchEventType;
  object: K8sObject;
}

/** A list answer and the resourceVersion to watch it from (null: the server gave none). */
export interface VersionedList {
  outcome: ListOutcome;
  resourceVersion: string | null;
}

/** The resourceVersion asked for is too old (410 Gone, as a status or an ERROR event): list again. */
export class WatchExpiredError extends Error {
  /** Creates the error with the server's message. */
  constructor(message: string) {
    super(message);
    this.name = "WatchExpiredError";
  }
}

/** The server refused the watch itself (e.g. 403: RBAC grants list but not watch). */
export class WatchRefusedError extends Error {
  /** Creates the error from the HTTP status and the server's message. */
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = "WatchRefusedError";
  }
}

/** Lists with resourceVersions and watches from them (kube/live/watch.ts over a cluster's client). */
export interface Watcher {
  /** Lists like {@link ClusterSource.list} (objects sanitised), keeping the list's resourceVersion. */
  list(spec: KindSpec, scope: ListScope): Promise<VersionedList>;
  /**
   * The events after `resourceVersion`, until the server ends the stream (the iterator returns) or
   * `signal` aborts it. Throws {@link WatchExpiredError} on 410, {@link WatchRefusedError} on
   * another refusal, any other error when the stream breaks. Objects are sanitised, kind filled in.
   */
  watch(
    spec: KindSpec,
    scope: ListScope,
    resourceVersion: string,
    signal: AbortSignal,
  ): AsyncIterable<WatchEvent>;
}

/** A source that can also watch (a live source opened by kube/live/watch.ts). */
export interface WatchableSource extends ClusterSource {
  /** Lists with resourceVersions and watches. */
  readonly watcher: Watcher;
}

/** True when `source` can keep its lists current with watches. */
export function canWatch(source: ClusterSource): source is WatchableSource {
  return "watcher" in source && typeof (source as { watcher?: unknown }).watcher === "object" &&
    (source as { watcher?: unknown }).watcher !== null;
}

/** What the cache did so far (for tests and the benchmark). */
export interface WatchCacheStats {
  /** Real lists (first answers, re-lists, and requests left to plain lists). */
  lists: number;
  /** `list` calls answered from a watched cache. */
  served: number;
  /** Watch streams opened (first ones and resumptions). */
  watches: number;
  /** ADDED/MODIFIED/DELETED events applied. */
  events: number;
  /** BOOKMARK events seen. */
  bookmarks: number;
  /** Watches that ended in 410 Gone. */
  expired: number;
  /** Watch streams that broke (network error, bad event). */
  broken: number;
  /** Watches refused by the server: those requests are plain lists from then on. */
  refused: number;
  /** Discovery reads sent (the rest were answered from the cache). */
  discoveries: number;
  /** Watch streams open now. */
  open: number;
}

/** A source whose lists are kept current by watches. */
export interface WatchCachedSource extends ClusterSource {
  /** Counters (a copy). */
  stats(): WatchCacheStats;
  /**
   * Stops the watches of the requests no `list` asked for since the last sweep (e.g. the pods of a
   * tenant namespace that is gone), so a long run does not keep watches nobody reads. Called by
   * the round runner after each completed round.
   */
  sweep(): number;
}

/** Options of {@link withWatchCache}. */
export interface WatchCacheOptions {
  /** How long a successful discovery answer is reused (default 5 minutes). */
  discoveryTtlMs?: number;
  /** A watch stream that the server ends this soon without an event counts as broken (default 1 s). */
  minStreamMs?: number;
}

type EntryState = "live" | "stale" | "refused";

interface Entry {
  readonly spec: KindSpec;
  readonly scope: ListScope;
  state: EntryState;
  resourceVersion: string;
  /** Asked for since the last sweep. */
  used: boolean;
  /** namespace/name → object (sanitised). */
  readonly objects: Map<string, K8sObject>;
  ctl: AbortController;
}

/** The identity of one list request: path and selectors. */
function keyOf(spec: KindSpec, scope: ListScope): string {
  const { labelSelector, fieldSelector } = selectorsOf(spec, scope);
  return `${listPath(spec, scope.namespace)}?${labelSelector ?? ""}&${fieldSelector ?? ""}`;
}

function objectKey(o: K8sObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}

/** Items in the order an API server lists them (etcd key order: namespace, then name). */
function listOrder(a: K8sObject, b: K8sObject): number {
  const ka = objectKey(a);
  const kb = objectKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Wraps a watchable source: lists are answered from watched caches after the first (see the module
 * comment); discovery is reused for `discoveryTtlMs`; exec, logs and /version pass through.
 * Closing it stops every watch and closes the source.
 */
export function withWatchCache(source: WatchableSource, opts: WatchCacheOptions = {}): WatchCachedSource {
  const discoveryTtlMs = opts.discoveryTtlMs ?? 5 * 60_000;
  const minStreamMs = opts.minStreamMs ?? 1_000;
  const entries = new Map<string, Entry>();
  const listing = new Map<string, Promise<ListOutcome>>();
  const stats: WatchCacheStats = {
    lists: 0,
    served: 0,
    watches: 0,
    events: 0,
    bookmarks: 0,
    expired: 0,
    broken: 0,
    refused: 0,
    discoveries: 0,
    open: 0,
  };
  let discovery: { key: string; at: number; value: Promise<DiscoveryOutcome> } | null = null;
  let closed = false;

  function apply(entry: Entry, ev: WatchEvent): void {
    const rv = ev.object.metadata?.resourceVersion;
    if (ev.type === "BOOKMARK") stats.bookmarks++;
    else {
      stats.events++;
      if (ev.type === "DELETED") entry.objects.delete(objectKey(ev.object));
      else entry.objects.set(objectKey(ev.object), ev.object);
    }
    if (typeof rv === "string" && rv !== "") entry.resourceVersion = rv;
  }

  /** Follows one entry's watch until it is stopped, expires, breaks or is refused. */
  async function follow(entry: Entry): Promise<void> {
    const signal = entry.ctl.signal;
    while (!signal.aborted && entry.state === "live") {
      const opened = performance.now();
      let events = 0;
      stats.watches++;
      stats.open++;
      try {
        for await (const ev of source.watcher.watch(entry.spec, entry.scope, entry.resourceVersion, signal)) {
          events++;
          apply(entry, ev);
        }
        // A clean end (the server's timeout): resume from the last resourceVersion, unless the
        // server keeps closing at once (then list again next time rather than spin).
        if (events === 0 && performance.now() - opened < minStreamMs && !signal.aborted) {
          stats.broken++;
          entry.state = "stale";
        }
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof WatchExpiredError) stats.expired++;
        else if (err instanceof WatchRefusedError && (err.status === 403 || err.status === 405)) {
          stats.refused++;
          entry.state = "refused";
          entry.objects.clear();
          return;
        } else stats.broken++;
        entry.state = "stale";
      } finally {
        stats.open--;
      }
    }
  }

  async function listAndWatch(key: string, spec: KindSpec, scope: ListScope): Promise<ListOutcome> {
    stats.lists++;
    const { outcome, resourceVersion } = await source.watcher.list(spec, scope);
    if (closed || !outcome.ok || resourceVersion === null) return outcome;
    const old = entries.get(key);
    old?.ctl.abort();
    const entry: Entry = {
      spec,
      scope,
      state: "live",
      resourceVersion,
      used: true,
      objects: new Map(outcome.items.map((o) => [objectKey(o), structuredClone(o)])),
      ctl: new AbortController(),
    };
    entries.set(key, entry);
    follow(entry).catch(() => {
      entry.state = "stale";
    });
    return outcome;
  }

  function list(spec: KindSpec, scope: ListScope = {}): Promise<ListOutcome> {
    const key = keyOf(spec, scope);
    const entry = entries.get(key);
    if (entry) entry.used = true;
    if (entry?.state === "live") {
      stats.served++;
      const items = [...entry.objects.values()].sort(listOrder).map((o) => structuredClone(o));
      return Promise.resolve({ ok: true, items });
    }
    if (entry?.state === "refused") {
      stats.lists++;
      return source.list(spec, scope);
    }
    let p = listing.get(key);
    if (!p) {
      p = listAndWatch(key, spec, scope).finally(() => listing.delete(key));
      listing.set(key, p);
    }
    return p;
  }

  function readDiscovery(groups: readonly { group: string; version: string }[]): Promise<DiscoveryOutcome> {
    const key = JSON.stringify(groups);
    const now = performance.now();
    if (discovery && discovery.key === key && now - discovery.at < discoveryTtlMs) return discovery.value;
    stats.discoveries++;
    const value = source.discovery(groups);
    const mine = { key, at: now, value };
    discovery = mine;
    // Only a successful answer is reused.
    value.then((d) => {
      if (!d.ok && discovery === mine) discovery = null;
    }, () => {
      if (discovery === mine) discovery = null;
    });
    return value;
  }

  const cached: WatchCachedSource = {
    endpoint: source.endpoint,
    now: () => source.now(),
    isSnapshot: source.isSnapshot,
    list,
    discovery: readDiscovery,
    exec: (namespace, pod, container, command) => source.exec(namespace, pod, container, command),
    stats: () => ({ ...stats }),
    sweep: () => {
      let stopped = 0;
      for (const [key, e] of entries) {
        if (e.used) {
          e.used = false;
          continue;
        }
        e.ctl.abort();
        entries.delete(key);
        stopped++;
      }
      return stopped;
    },
    close: async () => {
      closed = true;
      for (const e of entries.values()) e.ctl.abort();
      entries.clear();
      await source.close();
    },
  };
  if (source.logs) {
    const logs = source.logs.bind(source);
    cached.logs = (namespace, pod, container, req) => logs(namespace, pod, container, req);
  }
  if (source.probeReachable) {
    const probe = source.probeReachable.bind(source);
    cached.probeReachable = () => probe();
  }
  return cached;
}
