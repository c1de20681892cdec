/**
 * Fleet rounds (`watch --all-contexts`): what changed between two fleet reports — an edge that
 * appeared, went away, or changed verdict (with its first broken link) — and whether a round meets
 * `--until`. Pure.
 */
import type { EdgeVerdict, FleetReport } from "../report/fleet.ts";

/** One edge's change between two rounds. */
export interface EdgeTransition {
  edge: string;
  /** null: the edge is new this round. */
  from: EdgeVerdict | null;
  /** null: the edge is gone this round (its peering removed, or an end no longer readable). */
  to: EdgeVerdict | null;
  /** The edge's first broken link this round (none when it passes or is gone). */
  firstBroken: string | null;
}

/** The edges whose verdict changed from `prev` to `next` (every edge when there is no `prev`). */
export function edgeTransitions(prev: FleetReport | null, next: FleetReport): EdgeTransition[] {
  const out: EdgeTransition[] = [];
  const before = prev?.edges ?? {};
  for (const [id, e] of Object.entries(next.edges)) {
    const was = before[id]?.verdict ?? null;
    if (prev && was === e.verdict) continue;
    out.push({
      edge: id,
      from: was,
      to: e.verdict,
      firstBroken: e.verdict === "pass" || !e.firstBroken
        ? null
        : `${e.firstBroken.id}: ${e.firstBroken.summary}`,
    });
  }
  for (const id of Object.keys(before)) {
    if (!(id in next.edges)) out.push({ edge: id, from: before[id].verdict, to: null, firstBroken: null });
  }
  return out;
}

/** True when the round meets `--until`: every edge passes (healthy), or one fails (failure). */
export function roundMeets(report: FleetReport, until: "healthy" | "failure"): boolean {
  return until === "healthy" ? report.exitCode === 0 : report.exitCode === 2;
}
