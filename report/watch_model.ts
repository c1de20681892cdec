/**
 * The vocabulary of `flyingfish watch`: the events of its JSON-lines stream and the plain model its
 * terminal dashboard is drawn from (render/watch_dashboard.ts). Built by watch/session.ts from the
 * reports of successive rounds; renderers see only this and the report model.
 */
import type { Layer, ReportSummary, Status } from "./model.ts";

/** What one dashboard cell shows for a peer and a layer: its worst status, or `none` (no check). */
export type CellStatus = Status | "none";

/** Identifies one check instance across rounds. */
export interface CheckKey {
  /** The cluster the check observed (`A ↔ B` for dual checks). */
  cluster: string;
  /** Remote cluster ID for peer-scoped checks, null for cluster-wide ones. */
  peer: string | null;
  /** Check ID, e.g. GW-02. */
  id: string;
}

/** The first round's full picture: every check's status. */
export interface SnapshotEvent {
  type: "snapshot";
  /** RFC 3339 time the round finished. */
  time: string;
  round: number;
  /** The exit code `check` would give for this round. */
  exitCode: number;
  summary: ReportSummary;
  /** The diagnosis (first broken link) of the round, or null. */
  diagnosis: { id: string; cluster: string; peer: string | null; summary: string } | null;
  clusters: { name: string; context: string; server: string; role: string }[];
  results: (CheckKey & { layer: Layer; status: Status; summary: string })[];
}

/** A check whose status changed between two rounds (`from` null: new; `to` null: gone). */
export interface TransitionEvent extends CheckKey {
  type: "transition";
  time: string;
  layer: Layer;
  from: Status | null;
  to: Status | null;
  /** The check's summary in the newer round (the older one's when it is gone). */
  summary: string;
  /** On a transition to `fail` once a healthy round was seen: what changed since then. */
  changedSinceHealthy?: SinceHealthyBrief;
}

/** What changed since the last healthy round, in brief (serve's `/diff` has the whole document). */
export interface SinceHealthyBrief {
  /** When the last healthy round read the clusters (RFC 3339). */
  since: string;
  /** The earliest newly failing check since then (null: none newly fails). */
  answer: string | null;
  /** The answer's check ID when this transition follows from it, else null. */
  downstreamOf: string | null;
  /** One line per changed object, the answer's reads first (at most 20). */
  changes: string[];
  /** Changed objects not listed. */
  more: number;
}

/** One line per round after the first. */
export interface HeartbeatEvent {
  type: "heartbeat";
  time: string;
  round: number;
  exitCode: number;
  summary: ReportSummary;
  /** Diagnosis check ID of the round, or null. */
  diagnosis: string | null;
  /** Transitions in this round. */
  transitions: number;
  durationMs: number;
}

/** A check that changed status more than the threshold within the window. */
export interface FlappingEvent extends CheckKey {
  type: "flapping";
  time: string;
  layer: Layer;
  /** Status changes within the window. */
  changes: number;
  windowMs: number;
  /** When each change was seen (RFC 3339), oldest first. */
  times: string[];
}

/** A round that could not be completed (e.g. the API server unreachable); the next one tries again. */
export interface RoundErrorEvent {
  type: "error";
  time: string;
  round: number;
  message: string;
}

/** Why the watch ended. */
export type EndReason = "healthy" | "failure" | "timeout" | "stopped";

/** The last line: why the watch stopped and its exit code. */
export interface EndEvent {
  type: "end";
  time: string;
  reason: EndReason;
  exitCode: number;
  rounds: number;
}

/** One line of `flyingfish watch -o jsonl`. */
export type WatchEvent =
  | SnapshotEvent
  | TransitionEvent
  | HeartbeatEvent
  | FlappingEvent
  | RoundErrorEvent
  | EndEvent;

/** The first broken link of a peer, and since when it has been the first. */
export interface FirstBroken {
  id: string;
  layer: Layer;
  status: Status;
  summary: string;
  /** RFC 3339: the first round that saw it as this peer's first broken link. */
  since: string;
  /** How long it has been (until the dashboard's `now`). */
  forMs: number;
}

/** One dashboard row: a peer as one cluster sees it. */
export interface WatchRow {
  cluster: string;
  /** Null: a cluster without peers (its cluster-wide checks only). */
  peer: string | null;
  cells: Record<Layer, CellStatus>;
  firstBroken: FirstBroken | null;
}

/** What the dashboard shows at one moment. */
export interface WatchDashboardModel {
  /** The clusters watched (local first). */
  clusters: { name: string; context: string; server: string }[];
  intervalMs: number;
  /** Rounds completed. */
  round: number;
  /** RFC 3339 end of the last round, null before the first. */
  lastRoundAt: string | null;
  lastRoundMs: number | null;
  summary: ReportSummary | null;
  exitCode: number | null;
  rows: WatchRow[];
  /** The most recent transitions, oldest first. */
  transitions: TransitionEvent[];
  /** Checks flapping now. */
  flapping: FlappingEvent[];
  /** The last round's error, when it failed. */
  error: string | null;
  /** Milliseconds until the next round (null: one is running, or none will follow). */
  nextInMs: number | null;
  /** RFC 3339 "now" of this frame. */
  now: string;
  /** `--until`, when waiting for a condition. */
  until: "healthy" | "failure" | null;
  /** Why the watch ended (the last frame), null while it runs. */
  ended: EndReason | null;
}
