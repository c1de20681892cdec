/**
 * Removing what a probe run created, on every exit path: the NamespaceOffloading first (so Liqo
 * removes the remote namespace it made), then the run namespace (propagation Background: the
 * namespace controller deletes its pods and Services), then a wait until it is gone — all within a
 * budget of its own. A namespace still Terminating when the budget is spent is reported `stuck`
 * with its conditions and finalizers, never waited on forever. Nothing is ever deleted unless its
 * name is the run's (`flyingfish-probe-<id>`, or `flyingfish-preflight-<id>` for `preflight
 * --probe`) AND it carries the run's labels.
 *
 * {@link cleanupLeftovers} finds earlier runs by label (`flyingfish probe --cleanup`).
 */
import { shortError } from "../../kube/live/client.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { ProbeTarget } from "./target.ts";
import { type CleanupRecord, PROBE_LABELS, type RunKind, runKindOf, runNamespace } from "../model.ts";
import { OFFLOADING_NAME, offloadingPath } from "../../liqo/names.ts";

/** Default cleanup budget (`--cleanup-timeout`). */
export const DEFAULT_CLEANUP_BUDGET_MS = 30_000;

/** Prefix of every run namespace. */
export const PROBE_NAMESPACE_PREFIX = "flyingfish-probe-";

/** How long after the budget a hanging request of the cleanup is cut. */
const HARD_STOP_GRACE_MS = 500;

/** Options of {@link cleanupRun}. */
export interface CleanupRunOptions {
  /** Most time the whole cleanup of this cluster may take (default {@link DEFAULT_CLEANUP_BUDGET_MS}). */
  budgetMs?: number;
  /** `--keep`: remove nothing, record the namespace as kept. */
  keep?: boolean;
  /** Stops the cleanup early (its record is then `failed`, "interrupted"). */
  signal?: AbortSignal;
  /**
   * Delete the run's NamespaceOffloading first (default true; a run in direct mode passes false:
   * it never created one, and may lack the permission to delete one).
   */
  offloading?: boolean;
  /** The kind of run (names its namespace; default `probe`). */
  kind?: RunKind;
}

/** The label selector of every run namespace, or of one run's. */
export function runSelector(runId?: string): string {
  const base = `${PROBE_LABELS.managedBy}=${PROBE_LABELS.managedByValue}`;
  return runId ? `${base},${PROBE_LABELS.runId}=${runId}` : base;
}

/**
 * Why a namespace must NOT be deleted as the run `runId`'s, or null when it may: its name must be
 * `flyingfish-probe-<runId>` and it must carry both labels with these values.
 */
export function refusalToDelete(ns: K8sObject, runId: string, kind: RunKind = "probe"): string | null {
  const name = ns.metadata.name;
  const labels = ns.metadata.labels ?? {};
  if (runKindOf(name) !== kind || name !== runNamespace(runId, kind)) {
    return `namespace ${name} is not named ${runNamespace(runId, kind)}`;
  }
  if (labels[PROBE_LABELS.managedBy] !== PROBE_LABELS.managedByValue) {
    return `namespace ${name} is not labelled ${PROBE_LABELS.managedBy}=${PROBE_LABELS.managedByValue}`;
  }
  if (labels[PROBE_LABELS.runId] !== runId) {
    return `namespace ${name} is not labelled ${PROBE_LABELS.runId}=${runId}`;
  }
  return null;
}

function namespacePath(name: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(name)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** What holds a Terminating namespace: phase, True conditions, finalizers. */
export function stuckDetail(ns: K8sObject | null): string {
  if (!ns) return "no state could be read";
  const status = (ns.status ?? {}) as { phase?: unknown; conditions?: unknown };
  const spec = (ns.spec ?? {}) as { finalizers?: unknown };
  const parts: string[] = [];
  if (typeof status.phase === "string") parts.push(`phase ${status.phase}`);
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  for (const c of conditions) {
    if (typeof c !== "object" || c === null) continue;
    const { type, status: st, reason, message } = c as Record<string, unknown>;
    if (st !== "True" || typeof type !== "string") continue;
    const why = [reason, message].filter((x): x is string => typeof x === "string" && x !== "").join(": ");
    parts.push(why ? `${type} (${why})` : type);
  }
  const finalizers = [
    ...(Array.isArray(spec.finalizers) ? spec.finalizers : []),
    ...(ns.metadata.finalizers ?? []),
  ].filter((f): f is string => typeof f === "string");
  if (finalizers.length > 0) parts.push(`finalizers ${finalizers.join(", ")}`);
  return parts.length > 0 ? parts.join("; ") : "no conditions or finalizers reported";
}

/**
 * Removes the run `runId`'s namespace from one cluster (its NamespaceOffloading first) within the
 * budget and says what became of it. Never throws: an error is a `failed` record with its message.
 */
export async function cleanupRun(
  target: ProbeTarget,
  runId: string,
  opts: CleanupRunOptions = {},
): Promise<CleanupRecord[]> {
  const kind = opts.kind ?? "probe";
  const ns = runNamespace(runId, kind);
  const record = (status: CleanupRecord["status"], detail: string): CleanupRecord[] => [{
    cluster: target.name,
    namespace: ns,
    status,
    detail,
  }];
  if (opts.keep) return record("kept", "kept (--keep)");
  const started = Date.now();
  const deadline = started + (opts.budgetMs ?? DEFAULT_CLEANUP_BUDGET_MS);
  const notes: string[] = [];
  const withNotes = (s: string): string => [s, ...notes].join("; ");
  // The budget bounds the waits; a request that hangs past it is cut a moment later (the waits end
  // at the deadline on their own, with the last state they saw).
  const ctl = new AbortController();
  const timer = setTimeout(
    () => ctl.abort(new DOMException("cleanup budget spent", "TimeoutError")),
    deadline - started + HARD_STOP_GRACE_MS,
  );
  const onAbort = (): void => ctl.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });
  const { writer } = target;
  const signal = ctl.signal;
  let lastSeen: K8sObject | null = null;
  try {
    const current = await writer.get(namespacePath(ns), { signal });
    if (!current.ok) {
      if (current.status === 404) return record("removed", "not found: nothing to remove");
      return record("failed", `cannot read namespace ${ns}: ${current.message}`);
    }
    lastSeen = current.object;
    const refusal = refusalToDelete(current.object, runId, kind);
    if (refusal) return record("failed", `not deleted: ${refusal}`);

    if (opts.offloading !== false) {
      const off = await writer.remove(offloadingPath(ns), { propagation: "Background", signal });
      if (off.ok) {
        // Half of what is left at most: the namespace delete must still get its turn.
        const cap = Math.max(0, (deadline - Date.now()) / 2);
        const gone = await writer.waitFor(offloadingPath(ns), (o) => o === null, { timeoutMs: cap, signal });
        if (gone.state === "done") notes.push(`NamespaceOffloading ${OFFLOADING_NAME} removed`);
        else notes.push(`NamespaceOffloading ${OFFLOADING_NAME} still present after ${seconds(cap)}`);
      } else if (off.status !== 404) {
        notes.push(`NamespaceOffloading ${OFFLOADING_NAME} not deleted: ${off.message}`);
      }
    }

    if (!current.object.metadata.deletionTimestamp) {
      const del = await writer.remove(namespacePath(ns), { propagation: "Background", signal });
      if (!del.ok) {
        if (del.status === 404) return record("removed", withNotes("already gone"));
        return record("failed", withNotes(`delete of namespace ${ns} refused: ${del.message}`));
      }
      lastSeen = del.object.kind === "Namespace" ? del.object : lastSeen;
    }
    const wait = await writer.waitFor(namespacePath(ns), (o) => o === null, {
      timeoutMs: Math.max(0, deadline - Date.now()),
      signal,
    });
    if (wait.state === "done") {
      return record("removed", withNotes(`deleted in ${seconds(Date.now() - started)}`));
    }
    lastSeen = wait.object ?? lastSeen;
    return record(
      "stuck",
      withNotes(`still Terminating after ${seconds(Date.now() - started)}: ${stuckDetail(lastSeen)}`),
    );
  } catch (err) {
    if (opts.signal?.aborted) return record("failed", withNotes("interrupted before the namespace was gone"));
    if (signal.aborted) {
      return record(
        "stuck",
        withNotes(`cleanup budget spent after ${seconds(Date.now() - started)}: ${stuckDetail(lastSeen)}`),
      );
    }
    return record("failed", withNotes(shortError(err)));
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

/** Options of {@link cleanupLeftovers}. */
export interface LeftoverOptions {
  /** Only this run (expired or not). */
  runId?: string;
  /** Every run, expired or not. */
  all?: boolean;
  /** Cleanup budget of each namespace (default {@link DEFAULT_CLEANUP_BUDGET_MS}). */
  budgetMs?: number;
  signal?: AbortSignal;
  /** The time expiry is judged against (default now). */
  now?: Date;
}

/**
 * `flyingfish probe --cleanup`: on every cluster, the namespaces labelled as FlyingFish's (and as
 * run `runId`'s when given; `probe` and `preflight --probe` runs alike), each removed like {@link cleanupRun}. Without `runId` or `all` only the
 * expired ones go; the others are listed as `kept` with their expiry. A labelled namespace whose
 * name does not match its run-id label is left alone (and listed). Never throws: a cluster that
 * cannot be listed gives a `failed` record with namespace "-".
 */
export async function cleanupLeftovers(
  targets: readonly ProbeTarget[],
  opts: LeftoverOptions = {},
): Promise<CleanupRecord[]> {
  const now = (opts.now ?? new Date()).getTime();
  const selector = runSelector(opts.runId);
  const perCluster = await Promise.all(targets.map(async (t): Promise<CleanupRecord[]> => {
    let listed;
    try {
      listed = await t.writer.list("/api/v1/namespaces", { labelSelector: selector, signal: opts.signal });
    } catch (err) {
      return [{
        cluster: t.name,
        namespace: "-",
        status: "failed",
        detail: `cannot list namespaces: ${shortError(err)}`,
      }];
    }
    if (!listed.ok) {
      return [{
        cluster: t.name,
        namespace: "-",
        status: "failed",
        detail: `cannot list namespaces labelled ${selector}: ${listed.message}`,
      }];
    }
    const jobs = listed.items
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
      .map((ns): Promise<CleanupRecord[]> => {
        const name = ns.metadata.name;
        const runId = ns.metadata.labels?.[PROBE_LABELS.runId] ?? "";
        // `preflight --probe` runs carry the same labels; their namespace names the kind.
        const kind = runKindOf(name) ?? "probe";
        const kept = (detail: string): Promise<CleanupRecord[]> =>
          Promise.resolve([{ cluster: t.name, namespace: name, status: "kept", detail }]);
        const refusal = runId
          ? refusalToDelete(ns, runId, kind)
          : `namespace ${name} has no ${PROBE_LABELS.runId} label`;
        if (refusal) return kept(`left alone: ${refusal}`);
        if (!opts.runId && !opts.all) {
          const at = ns.metadata.annotations?.[PROBE_LABELS.expiresAt];
          const expires = at ? Date.parse(at) : NaN;
          if (Number.isNaN(expires)) {
            return kept(
              `no valid ${PROBE_LABELS.expiresAt} annotation: remove it with --run-id ${runId} or --all`,
            );
          }
          if (expires > now) {
            return kept(`not expired (expires at ${at}): remove it with --run-id ${runId} or --all`);
          }
        }
        // A preflight run never offloads its namespace: nothing to remove before it.
        return cleanupRun(t, runId, {
          budgetMs: opts.budgetMs,
          signal: opts.signal,
          kind,
          ...(kind === "preflight" ? { offloading: false } : {}),
        });
      });
    return (await Promise.all(jobs)).flat();
  }));
  return perCluster.flat();
}
