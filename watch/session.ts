/**
 * What `flyingfish watch` remembers between rounds: the last status of every check, the transitions,
 * flapping checks, and since when each peer's first broken link has been the first. It turns each
 * round's report into the events of the JSON-lines stream and the dashboard model
 * (report/watch_model.ts). Pure: times come in with the reports.
 */
import type { Layer, Report, ReportResult, Status } from "../report/model.ts";
import { LAYERS } from "../report/model.ts";
import type {
  CellStatus,
  EndReason,
  FirstBroken,
  FlappingEvent,
  RoundErrorEvent,
  SnapshotEvent,
  TransitionEvent,
  WatchDashboardModel,
  WatchEvent,
  WatchRow,
} from "../report/watch_model.ts";
import { FlapTracker } from "./flapping.ts";

/** Options of a {@link WatchSession}. */
export interface WatchSessionOptions {
  /** Time between round starts (shown on the dashboard). */
  intervalMs: number;
  /** More status changes than this within the window is flapping (default 3). */
  flapThreshold?: number;
  /** The flapping window (default 10 minutes). */
  flapWindowMs?: number;
  /** Transitions kept for the dashboard (default 50). */
  keepTransitions?: number;
  until?: "healthy" | "failure" | null;
}

/**
 * Worst first: what a cell shows when a layer has several results. A check blocked by a failed
 * dependency was not verified: it outranks a pass, so a layer is ✓ only when nothing in it was
 * blocked; a skip that does not apply ranks below.
 */
const SEVERITY: readonly string[] = ["fail", "unknown", "warn", "blocked", "pass", "skip", "none"];

/** A result's rank in {@link SEVERITY}. */
function rank(r: Pick<ReportResult, "status" | "skipKind">): number {
  return SEVERITY.indexOf(r.status === "skip" && r.skipKind === "blocked" ? "blocked" : r.status);
}

const keyOf = (r: { cluster: string; peer: string | null; id: string }): string =>
  `${r.cluster}\u0000${r.peer ?? ""}\u0000${r.id}`;

const rowKeyOf = (cluster: string, peer: string | null): string => `${cluster}\u0000${peer ?? ""}`;

/** A dual check's cluster reads `A ↔ B`: it speaks for both ends. */
const isDual = (cluster: string): boolean => cluster.includes(" ↔ ");

/** Round-to-round state of one watch. */
export class WatchSession {
  readonly #opts: Required<Omit<WatchSessionOptions, "until">> & { until: "healthy" | "failure" | null };
  readonly #flaps: FlapTracker;
  #last: Report | null = null;
  #lastAt: Date | null = null;
  #statuses = new Map<string, ReportResult>();
  readonly #transitions: TransitionEvent[] = [];
  readonly #firstSince = new Map<string, { id: string; since: string }>();
  #rounds = 0;
  #error: string | null = null;

  /** A session before its first round. */
  constructor(opts: WatchSessionOptions) {
    this.#opts = {
      intervalMs: opts.intervalMs,
      flapThreshold: opts.flapThreshold ?? 3,
      flapWindowMs: opts.flapWindowMs ?? 10 * 60_000,
      keepTransitions: opts.keepTransitions ?? 50,
      until: opts.until ?? null,
    };
    this.#flaps = new FlapTracker(this.#opts.flapThreshold, this.#opts.flapWindowMs);
  }

  /** Rounds observed (completed or failed). */
  get rounds(): number {
    return this.#rounds;
  }

  /** The last completed round's report. */
  get last(): Report | null {
    return this.#last;
  }

  /**
   * Takes a round's report (finished at `at`): the first gives a snapshot event; later ones give
   * their transitions, any check that starts flapping, and a heartbeat.
   */
  observe(report: Report, at: Date): WatchEvent[] {
    this.#rounds++;
    this.#error = null;
    const time = at.toISOString();
    const next = new Map(report.results.map((r) => [keyOf(r), r]));
    const events: WatchEvent[] = [];
    if (this.#last === null) {
      events.push(snapshotOf(report, this.#rounds, time));
    } else {
      const transitions: TransitionEvent[] = [];
      for (const [k, r] of next) {
        const before = this.#statuses.get(k);
        if (before?.status === r.status) continue;
        transitions.push(withSince(transition(r, before?.status ?? null, r.status, time), report));
      }
      for (const [k, r] of this.#statuses) {
        if (!next.has(k)) transitions.push(transition(r, r.status, null, time));
      }
      for (const t of transitions) {
        events.push(t);
        this.#transitions.push(t);
        const flap = this.#flaps.change(keyOf(t), at.getTime());
        if (flap) {
          events.push({
            type: "flapping",
            time,
            cluster: t.cluster,
            peer: t.peer,
            id: t.id,
            layer: t.layer,
            changes: flap.length,
            windowMs: this.#opts.flapWindowMs,
            times: flap.map((ms) => new Date(ms).toISOString()),
          });
        }
      }
      this.#flaps.settle(at.getTime());
      this.#transitions.splice(0, Math.max(0, this.#transitions.length - this.#opts.keepTransitions));
      events.push({
        type: "heartbeat",
        time,
        round: this.#rounds,
        exitCode: report.exitCode,
        summary: report.summary,
        diagnosis: report.diagnosis?.id ?? null,
        transitions: transitions.length,
        durationMs: report.durationMs,
      });
    }
    this.#statuses = next;
    this.#last = report;
    this.#lastAt = at;
    this.#trackFirstBroken(report, time);
    return events;
  }

  /** A round that failed (the previous statuses stand). */
  failed(message: string, at: Date): RoundErrorEvent {
    this.#rounds++;
    this.#error = message;
    return { type: "error", time: at.toISOString(), round: this.#rounds, message };
  }

  /** The dashboard at `now`; `nextInMs` null while a round runs; `ended` on the last frame. */
  model(now: Date, nextInMs: number | null, ended: EndReason | null = null): WatchDashboardModel {
    const report = this.#last;
    const rows = report ? rowsOf(report) : [];
    for (const row of rows) {
      const fb = firstBrokenOf(report!, row);
      const seen = this.#firstSince.get(rowKeyOf(row.cluster, row.peer));
      if (fb && seen?.id === fb.id) {
        row.firstBroken = {
          ...fb,
          since: seen.since,
          forMs: Math.max(0, now.getTime() - Date.parse(seen.since)),
        };
      }
    }
    const flapping: FlappingEvent[] = [];
    for (const [key, times] of this.#flaps.active(now.getTime())) {
      const r = this.#statuses.get(key) ?? this.#transitions.findLast((t) => keyOf(t) === key);
      if (!r) continue;
      flapping.push({
        type: "flapping",
        time: new Date(times[times.length - 1]).toISOString(),
        cluster: r.cluster,
        peer: r.peer,
        id: r.id,
        layer: r.layer,
        changes: times.length,
        windowMs: this.#opts.flapWindowMs,
        times: times.map((ms) => new Date(ms).toISOString()),
      });
    }
    return {
      clusters: (report?.clusters ?? []).filter((c) => c.server !== "").map((c) => ({
        name: c.name,
        context: c.context,
        server: c.server,
      })),
      intervalMs: this.#opts.intervalMs,
      round: this.#rounds,
      lastRoundAt: this.#lastAt?.toISOString() ?? null,
      lastRoundMs: report?.durationMs ?? null,
      summary: report?.summary ?? null,
      exitCode: report?.exitCode ?? null,
      rows,
      transitions: [...this.#transitions],
      flapping,
      error: this.#error,
      nextInMs,
      now: now.toISOString(),
      until: this.#opts.until,
      ended,
    };
  }

  #trackFirstBroken(report: Report, time: string): void {
    const seen = new Set<string>();
    for (const row of rowsOf(report)) {
      const k = rowKeyOf(row.cluster, row.peer);
      seen.add(k);
      const fb = firstBrokenOf(report, row);
      if (!fb) this.#firstSince.delete(k);
      else if (this.#firstSince.get(k)?.id !== fb.id) this.#firstSince.set(k, { id: fb.id, since: time });
    }
    for (const k of [...this.#firstSince.keys()]) if (!seen.has(k)) this.#firstSince.delete(k);
  }
}

/** Brief of the report's diff since healthy (watch/rounds.ts sets it) on a transition to `fail`. */
function withSince(t: TransitionEvent, report: Report): TransitionEvent {
  const d = report.changedSinceHealthy;
  if (!d || t.to !== "fail") return t;
  const mine = d.transitions.find((x) => x.id === t.id && x.peer === t.peer && x.to === "fail");
  const changes = d.objects.slice(0, 20).map((o) => `[${o.cluster}] ${o.summary}`);
  return {
    ...t,
    changedSinceHealthy: {
      since: d.before.takenAt,
      answer: d.answer?.id ?? null,
      downstreamOf: mine?.downstreamOf ?? null,
      changes,
      more: d.objects.length - changes.length,
    },
  };
}

function transition(r: ReportResult, from: Status | null, to: Status | null, time: string): TransitionEvent {
  return {
    type: "transition",
    time,
    cluster: r.cluster,
    peer: r.peer,
    id: r.id,
    layer: r.layer,
    from,
    to,
    summary: r.summary,
  };
}

function snapshotOf(report: Report, round: number, time: string): SnapshotEvent {
  const d = report.diagnosis;
  return {
    type: "snapshot",
    time,
    round,
    exitCode: report.exitCode,
    summary: report.summary,
    diagnosis: d ? { id: d.id, cluster: d.cluster, peer: d.peer, summary: d.summary } : null,
    clusters: report.clusters.map((c) => ({
      name: c.name,
      context: c.context,
      server: c.server,
      role: c.role,
    })),
    results: report.results.map((r) => ({
      cluster: r.cluster,
      peer: r.peer,
      id: r.id,
      layer: r.layer,
      status: r.status,
      summary: r.summary,
    })),
  };
}

/** Does result `r` speak for the row (the peer's own checks, and its cluster's cluster-wide ones)? */
function belongs(r: ReportResult, row: { cluster: string; peer: string | null }): boolean {
  const cluster = r.cluster === row.cluster || isDual(r.cluster);
  return r.peer === null ? cluster : r.peer === row.peer && cluster;
}

function emptyCells(): Record<Layer, CellStatus> {
  return Object.fromEntries(LAYERS.map((l) => [l, "none"])) as Record<Layer, CellStatus>;
}

/** One row per peer of each cluster (a cluster without peers gets a row of its own). */
function rowsOf(report: Report): WatchRow[] {
  const rows: WatchRow[] = report.peers.map((p) => ({
    cluster: p.cluster,
    peer: p.clusterId,
    cells: emptyCells(),
    firstBroken: null,
  }));
  for (const r of report.results) {
    if (r.peer !== null && !rows.some((row) => belongs(r, row))) {
      rows.push({
        cluster: isDual(r.cluster) ? r.cluster : r.cluster,
        peer: r.peer,
        cells: emptyCells(),
        firstBroken: null,
      });
    }
  }
  for (const c of report.clusters) {
    if (c.server !== "" && !rows.some((row) => row.cluster === c.name)) {
      rows.push({ cluster: c.name, peer: null, cells: emptyCells(), firstBroken: null });
    }
  }
  for (const row of rows) {
    const ranks = new Map<Layer, number>();
    for (const r of report.results) {
      if (!belongs(r, row)) continue;
      if (rank(r) < (ranks.get(r.layer) ?? SEVERITY.length)) {
        ranks.set(r.layer, rank(r));
        row.cells[r.layer] = r.status;
      }
    }
    row.firstBroken = firstBrokenOf(report, row);
  }
  return rows;
}

/** The row's first failing check in dependency (report) order. */
function firstBrokenOf(report: Report, row: { cluster: string; peer: string | null }): FirstBroken | null {
  const r = report.results.find((x) => x.status === "fail" && belongs(x, row));
  if (!r) return null;
  return {
    id: r.id,
    layer: r.layer,
    status: r.status,
    summary: r.summary,
    since: report.generatedAt,
    forMs: 0,
  };
}
