/**
 * A ClusterSource decorator that counts the reads that fail (for `flyingfish_api_errors_total`)
 * and otherwise passes everything through unchanged. A watchable source keeps its watcher (the
 * round runner's watch cache lists and watches through it), wrapped so that failed lists and watch
 * streams that end in an error are counted too.
 */
import type { KindSpec } from "../kube/kinds.ts";
import type { ClusterSource } from "../kube/source.ts";
import {
  canWatch,
  type WatchableSource,
  type Watcher,
  WatchExpiredError,
  WatchRefusedError,
} from "../kube/watch_cache.ts";
import type { ApiErrorKey } from "./state.ts";

function resourceOf(spec: KindSpec): string {
  return spec.group ? `${spec.plural}.${spec.group}` : spec.plural;
}

/** Why a watch stream ended in an error, as an API error reason. */
function watchReason(err: unknown): string {
  if (err instanceof WatchExpiredError) return "expired";
  if (err instanceof WatchRefusedError) return err.status === 403 ? "forbidden" : "refused";
  return "error";
}

/** Wraps `source`; every failed list, discovery, exec, log read or watch is reported to `count`. */
export function countingSource(source: ClusterSource, count: (key: ApiErrorKey) => void): ClusterSource {
  const cluster = source.endpoint.context;
  const note = <T extends { ok: boolean }>(operation: string, resource: string, outcome: T): T => {
    if (!outcome.ok) {
      count({ cluster, operation, resource, reason: (outcome as { reason?: string }).reason ?? "error" });
    }
    return outcome;
  };
  // A spread keeps whatever else the source offers (the live source's reachability probe); the live
  // source is a plain object of functions (kube/live/source.ts), so its members survive the spread.
  const wrapped: ClusterSource = {
    ...source,
    list: async (spec, scope) => note("list", resourceOf(spec), await source.list(spec, scope)),
    discovery: async (groups) => note("discovery", "discovery", await source.discovery(groups)),
    exec: async (ns, pod, container, command) =>
      note("exec", "pods/exec", await source.exec(ns, pod, container, command)),
  };
  if (source.logs) {
    const logs = source.logs.bind(source);
    wrapped.logs = async (ns, pod, container, req) =>
      note("logs", "pods/log", await logs(ns, pod, container, req));
  }
  if (!canWatch(source)) return wrapped;
  const inner = source.watcher;
  const watcher: Watcher = {
    list: async (spec, scope) => {
      const v = await inner.list(spec, scope);
      note("list", resourceOf(spec), v.outcome);
      return v;
    },
    watch: async function* (spec, scope, resourceVersion, signal) {
      try {
        yield* inner.watch(spec, scope, resourceVersion, signal);
      } catch (err) {
        if (!signal.aborted) {
          count({ cluster, operation: "watch", resource: resourceOf(spec), reason: watchReason(err) });
        }
        throw err;
      }
    },
  };
  return { ...wrapped, watcher } as WatchableSource;
}
