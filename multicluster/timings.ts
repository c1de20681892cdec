/**
 * Where a fleet run's wall time goes: marks taken as the run goes (each at `performance.now()`,
 * i.e. milliseconds since the process started, so the process start and the imports are counted),
 * summarised into a few lines — startup, contexts, each cluster's read (first request → view),
 * the edges' judging, assembly, rendering. `check --all-contexts -v` prints them on stderr and
 * `deno task bench:fleet` quotes them. Pure but for the clock.
 */

/** One moment of the run. */
export interface FleetMark {
  /** Milliseconds since the process started. */
  at: number;
  phase:
    | "run-start"
    | "contexts"
    | "read-start"
    | "read-version"
    | "read-end"
    | "reads-done"
    | "planned"
    | "wg-sampled"
    | "edge-judged"
    | "judged"
    | "assembled"
    | "rendered";
  /** The cluster (context) or edge the mark is about. */
  of?: string;
}

/** Collects marks; `mark` is a no-op when timings are not asked for. */
export interface FleetClock {
  mark(phase: FleetMark["phase"], of?: string): void;
  readonly marks: readonly FleetMark[];
}

/** A clock that records (`on`) or one that does nothing. */
export function fleetClock(on: boolean): FleetClock {
  const marks: FleetMark[] = [];
  return {
    mark: on
      ? (phase, of) => void marks.push({ at: performance.now(), phase, ...(of ? { of } : {}) })
      : () => {},
    marks,
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The marks as lines: absolute times since the process started, and the spans between them. */
export function timingLines(marks: readonly FleetMark[]): string[] {
  const first = (p: FleetMark["phase"]) => marks.find((m) => m.phase === p)?.at ?? null;
  const all = (p: FleetMark["phase"]) => marks.filter((m) => m.phase === p);
  const runStart = first("run-start");
  if (runStart === null) return [];
  const lines = [`process start → fleet run start (startup, imports): ${s(runStart)}`];
  const ctx = first("contexts");
  if (ctx !== null) lines.push(`contexts listed: +${s(ctx - runStart)}`);
  const starts = all("read-start"), ends = all("read-end");
  if (starts.length) {
    const spans = ends.flatMap((e) => {
      const st = starts.find((x) => x.of === e.of);
      return st ? [{ of: e.of ?? "?", ms: e.at - st.at }] : [];
    }).sort((a, b) => a.ms - b.ms);
    const versions = all("read-version").flatMap((v) => {
      const st = starts.find((x) => x.of === v.of);
      return st ? [v.at - st.at] : [];
    }).sort((a, b) => a - b);
    const mid = (xs: readonly number[]) => xs[Math.floor(xs.length / 2)] ?? 0;
    lines.push(
      `cluster reads: ${starts.length} started ${s(starts[0].at - runStart)}–${
        s(starts[starts.length - 1].at - runStart)
      } after the run start; /version answered in ${
        s(mid(versions))
      } (median); read (first request → view) ` +
        (spans.length
          ? `min ${s(spans[0].ms)}, median ${s(mid(spans.map((x) => x.ms)))}, max ${
            s(spans[spans.length - 1].ms)
          } (${spans[spans.length - 1].of})`
          : "none completed"),
    );
  }
  const readsDone = first("reads-done");
  if (readsDone !== null) lines.push(`every cluster read: +${s(readsDone - runStart)}`);
  const planned = first("planned");
  if (planned !== null && readsDone !== null) lines.push(`identity + graph: ${s(planned - readsDone)}`);
  const wg = all("wg-sampled");
  if (wg.length) {
    lines.push(
      `wg show samples landed: first +${s(wg[0].at - runStart)}, last +${s(wg[wg.length - 1].at - runStart)}`,
    );
  }
  const edges = all("edge-judged");
  const judged = first("judged");
  if (edges.length && readsDone !== null) {
    lines.push(
      `edges judged: ${edges.length}, first +${s(edges[0].at - runStart)}, last +${
        s(edges[edges.length - 1].at - runStart)
      }`,
    );
  }
  if (judged !== null) lines.push(`judging done: +${s(judged - runStart)}`);
  const assembled = first("assembled");
  if (assembled !== null && judged !== null) lines.push(`report assembled: ${s(assembled - judged)}`);
  const rendered = first("rendered");
  if (rendered !== null && assembled !== null) lines.push(`rendered: ${s(rendered - assembled)}`);
  const last = marks.reduce((t, m) => Math.max(t, m.at), 0);
  lines.push(`total since process start: ${s(last)}`);
  return lines;
}
