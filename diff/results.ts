/**
 * Check results first: the transitions between two reports of the same engine (matched by cluster
 * role, peer and check ID, so a bundle and a live read line up), and the answer — the earliest newly
 * failing check in dependency order, by the diagnosis's own rule (checks/diagnosis.ts), with the
 * transitions it explains marked downstream. Pure.
 */
import type { CheckDef } from "../checks/types.ts";
import { explainer } from "../checks/diagnosis.ts";
import type { Report, ReportResult } from "../report/model.ts";
import type { DiffAnswer, DiffCluster, DiffTransition } from "../report/diff_schema.ts";

/** Which cluster of its report a result speaks for: by role (a dual check's `A ↔ B` is both). */
export function roleOf(report: Report, cluster: string): DiffCluster {
  if (cluster.includes(" ↔ ")) return "both";
  return report.clusters.find((c) => c.name === cluster)?.role ?? "local";
}

const keyOf = (report: Report, r: ReportResult): string =>
  `${roleOf(report, r.cluster)}\u0000${r.peer ?? ""}\u0000${r.id}`;

function kindOf(
  from: ReportResult["status"] | null,
  to: ReportResult["status"] | null,
): DiffTransition["kind"] {
  if (to === "fail") return "newly-failing";
  if (from === "fail") return "fixed";
  if (to === "unknown") return "new-unknown";
  return "changed";
}

/** Transitions and the answer. */
export interface ResultsDiff {
  transitions: DiffTransition[];
  answer: DiffAnswer | null;
}

/** Compares the results of two reports; `catalog` gives the dependency graph and each check's reads. */
export function diffResults(before: Report, after: Report, catalog: readonly CheckDef[]): ResultsDiff {
  const prior = new Map(before.results.map((r) => [keyOf(before, r), r]));
  const seen = new Set<string>();
  const changed: {
    r: ReportResult;
    from: ReportResult["status"] | null;
    to: ReportResult["status"] | null;
  }[] = [];
  // In the newer report's order: the engine's, which is dependency order.
  for (const r of after.results) {
    const k = keyOf(after, r);
    seen.add(k);
    const b = prior.get(k);
    if (b?.status === r.status) continue;
    changed.push({ r, from: b?.status ?? null, to: r.status });
  }
  for (const [k, r] of prior) if (!seen.has(k)) changed.push({ r, from: r.status, to: null });

  const explains = explainer(catalog);
  const newly = changed.filter((c) => c.to === "fail" && c.from !== "fail").map((c) => c.r);
  const roots: ReportResult[] = [];
  for (const f of newly) if (!roots.some((root) => explains(root, f))) roots.push(f);
  const root = roots[0] ?? null;

  const transitions: DiffTransition[] = changed.map(({ r, from, to }) => ({
    id: r.id,
    title: r.title,
    layer: r.layer,
    cluster: roleOf(to === null ? before : after, r.cluster),
    peer: r.peer,
    from,
    to,
    summary: r.summary,
    kind: kindOf(from, to),
    downstreamOf: root && r !== root && to !== null && explains(root, r) ? root.id : null,
  }));
  if (!root) return { transitions, answer: null };
  const def = catalog.find((c) => c.id === root.id);
  return {
    transitions,
    answer: {
      id: root.id,
      title: root.title,
      layer: root.layer,
      cluster: roleOf(after, root.cluster),
      peer: root.peer,
      from: changed.find((c) => c.r === root)?.from ?? null,
      summary: root.summary,
      remediation: root.remediation,
      reads: [...new Set([...(def?.reads ?? []), ...(def?.optionalReads ?? [])])],
      alsoNewlyFailing: roots.slice(1).map((r) => ({
        id: r.id,
        cluster: roleOf(after, r.cluster),
        peer: r.peer,
        summary: r.summary,
      })),
    },
  };
}
