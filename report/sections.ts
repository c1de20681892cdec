/**
 * Building a report section from partial data: a section declares what it reads, like a check;
 * a kind it reads that could not be listed makes the section incomplete (it says so) instead of
 * losing the run, and a builder that still cannot finish leaves the section out with the reason.
 */
import type { KindId } from "../kube/kinds.ts";
import type { ClusterView } from "../checks/types.ts";
import { readProblem } from "../checks/engine.ts";
import type { ReportGap, ReportSection } from "./model.ts";

/** Why each declared read of a section is unavailable on the clusters read ([] when all are). */
export function unreadableReads(
  section: ReportSection,
  reads: readonly KindId[],
  views: readonly ClusterView[],
): ReportGap[] {
  const gaps: ReportGap[] = [];
  for (const v of views) {
    for (const kind of reads) {
      const reason = readProblem(v, kind);
      if (reason) gaps.push({ section, reason });
    }
  }
  return gaps;
}

/** Runs a section builder; on an error the section is `fallback` and a gap says why. */
export function buildSection<T>(
  section: ReportSection,
  reads: readonly KindId[],
  views: readonly ClusterView[],
  build: () => T,
  fallback: T,
): { value: T; gaps: ReportGap[] } {
  const gaps = unreadableReads(section, reads, views);
  try {
    return { value: build(), gaps };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { value: fallback, gaps: [...gaps, { section, reason: `left out: ${why}` }] };
  }
}
