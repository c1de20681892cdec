/**
 * The terminal dashboard of `flyingfish watch`, from the plain model (report/watch_model.ts): one
 * row per peer and one column per layer (✓ ! ✗ ? -), each peer's first broken link with since when
 * (and for how long), the last transitions, flapping checks, the count line of the last round and
 * when the next one starts. Every line fits the width (cut with …), and the frame fits the height
 * (older transitions are left out first), so the CLI can redraw it in place.
 */
import type { Layer, Status } from "../report/model.ts";
import { LAYERS } from "../report/model.ts";
import type {
  CellStatus,
  EndReason,
  TransitionEvent,
  WatchDashboardModel,
  WatchRow,
} from "../report/watch_model.ts";
import { type Colors, createColors } from "./colors.ts";
import { countLine, MARKS } from "./text.ts";
import { displayWidth, stripAnsi, truncate } from "./wrap.ts";

/** How to draw the dashboard. */
export interface DashboardOptions {
  color: boolean;
  /** Terminal columns. */
  width: number;
  /** Terminal rows: the frame never takes more (default: no limit). */
  height?: number;
  /** Most transitions shown (default 6). */
  maxTransitions?: number;
}

/** Column headings of the layers. */
export const LAYER_SHORT: Readonly<Record<Layer, string>> = {
  env: "ENV",
  controlplane: "CP",
  gateway: "GW",
  tunnel: "TUN",
  fabric: "FAB",
  ipam: "IPAM",
  cni: "CNI",
  reflection: "REF",
  probe: "PRB",
  preflight: "PF",
};

/** The dashboard's columns: watch runs the passive catalog only, so the probe and preflight layers have none. */
const DASHBOARD_LAYERS = LAYERS.filter((l) => l !== "probe" && l !== "preflight");

/** The header's last word once the watch ended. */
const ENDED: Readonly<Record<EndReason, string>> = {
  healthy: "healthy: done",
  failure: "failure found: done",
  timeout: "timed out",
  stopped: "stopped",
};

const CELL_MARK: Readonly<Record<CellStatus, string>> = { ...MARKS, none: " " };

function paint(c: Colors, s: CellStatus, text: string): string {
  switch (s) {
    case "pass":
      return c.green(text);
    case "warn":
      return c.yellow(text);
    case "fail":
      return c.red(text);
    case "unknown":
      return c.magenta(text);
    default:
      return c.dim(text);
  }
}

/** `14:02:11`: the local time of day of an RFC 3339 time. */
export function clockTime(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `38s`, `2m10s`, `3h05m`, `2d4h`: a duration at the precision a dashboard needs. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, "0")}m`;
  return `${Math.floor(s / 86400)}d${Math.floor(s / 3600) % 24}h`;
}

/** Pads a (possibly coloured) string to `cols` columns. */
function pad(s: string, cols: number): string {
  return s + " ".repeat(Math.max(0, cols - displayWidth(stripAnsi(s))));
}

/** Cuts a (possibly coloured) line at `cols` columns: colour is dropped from a line that is cut. */
function fit(s: string, cols: number): string {
  const plain = stripAnsi(s);
  return displayWidth(plain) <= cols ? s : truncate(plain, cols);
}

function rowLabel(row: WatchRow, clusters: number): string {
  if (row.peer === null) return `(${row.cluster})`;
  return clusters > 1 ? `${row.cluster} → ${row.peer}` : row.peer;
}

function statusWord(s: Status | null): string {
  return s ?? "—";
}

/** The dashboard's lines (no trailing newline, no cursor movement: the caller redraws). */
export function renderDashboard(m: WatchDashboardModel, opts: DashboardOptions): string[] {
  const c = createColors(opts.color);
  const width = Math.max(20, opts.width);
  const lines: string[] = [];
  const clusters = m.clusters.length;

  // Header: what is watched, how often, and where the rounds are.
  const where = m.clusters.map((k) => `${k.name} (${k.context})`).join(" ↔ ") || "connecting…";
  lines.push(fit(` ${c.bold("flyingfish watch")} · ${where} · every ${shortDuration(m.intervalMs)}`, width));
  const state: string[] = [];
  if (m.lastRoundAt) {
    state.push(`round ${m.round} at ${clockTime(m.lastRoundAt)}`);
  } else state.push("first round");
  if (m.ended) state.push(ENDED[m.ended]);
  else {
    state.push(m.nextInMs === null ? "checking…" : `next check in ${Math.ceil(m.nextInMs / 1000)}s`);
    if (m.until) state.push(`until ${m.until}`);
    state.push("q quits");
  }
  lines.push(fit(` ${c.dim(state.join(" · "))}`, width));
  lines.push("");

  // The table.
  const labels = m.rows.map((r) => rowLabel(r, clusters));
  const labelW = Math.min(Math.max(4, ...labels.map(displayWidth)), Math.max(8, Math.floor(width / 3)));
  const colW = DASHBOARD_LAYERS.map((l) => LAYER_SHORT[l].length + 1);
  const head = ` ${pad("PEER", labelW)}  ${
    DASHBOARD_LAYERS.map((l, i) => pad(LAYER_SHORT[l], colW[i])).join("")
  } FIRST BROKEN LINK`;
  lines.push(fit(c.bold(head), width));
  if (m.rows.length === 0) lines.push(c.dim(" (no round yet)"));
  m.rows.forEach((row, i) => {
    const cells = DASHBOARD_LAYERS.map((l, k) => {
      const s = row.cells[l];
      return pad(paint(c, s, CELL_MARK[s]), colW[k]);
    }).join("");
    const fb = row.firstBroken;
    const broken = fb
      ? `${paint(c, fb.status, MARKS[fb.status])} ${fb.id} since ${clockTime(fb.since)} (for ${
        shortDuration(fb.forMs)
      })`
      : paint(c, "pass", "none");
    lines.push(fit(` ${pad(truncate(labels[i], labelW), labelW)}  ${cells} ${broken}`, width));
    if (fb) lines.push(fit(c.dim(`     ${truncate(fb.summary, width - 5)}`), width));
  });

  // Flapping checks.
  if (m.flapping.length) {
    lines.push("");
    lines.push(c.bold(" FLAPPING"));
    for (const f of m.flapping) {
      const who = f.peer ?? f.cluster;
      const times = f.times.map(clockTime).join(", ");
      lines.push(fit(
        ` ${c.yellow("!")} ${f.id} ${who}: ${f.changes} changes in ${shortDuration(f.windowMs)} (${times})`,
        width,
      ));
    }
  }

  const tail: string[] = [];
  if (m.error) tail.push(fit(` ${c.red("✗")} last round failed: ${m.error}`, width));
  if (m.summary) {
    tail.push(...countLine(m.summary, m.lastRoundMs ?? 0, c, width).split("\n").map((l) => fit(l, width)));
  }

  // Transitions: as many of the latest as the height leaves room for.
  const maxT = opts.maxTransitions ?? 6;
  const room = opts.height ? opts.height - 1 - lines.length - tail.length - 3 : maxT;
  const shown = m.transitions.slice(-Math.max(0, Math.min(maxT, room)));
  if (shown.length) {
    lines.push("");
    lines.push(c.bold(" LAST TRANSITIONS"));
    const whoW = Math.max(...shown.map((t) => displayWidth(whoOf(t, clusters))));
    const idW = Math.max(...shown.map((t) => t.id.length));
    const changeW = Math.max(...shown.map((t) => displayWidth(changeOf(t))));
    for (const t of shown) lines.push(fit(transitionLine(t, c, clusters, [whoW, idW, changeW]), width));
  }
  if (tail.length) {
    lines.push("");
    lines.push(...tail);
  }
  return opts.height ? lines.slice(0, Math.max(1, opts.height - 1)) : lines;
}

/** Who a transition is about: the peer (with its cluster when several are watched), or the cluster. */
function whoOf(t: TransitionEvent, clusters: number): string {
  return t.peer === null ? t.cluster : clusters > 1 ? `${t.cluster} → ${t.peer}` : t.peer;
}

/** `pass → fail` (`—` for a check that appeared or is gone). */
function changeOf(t: TransitionEvent, c?: Colors): string {
  const word = (s: Status | null) => (s && c ? paint(c, s, s) : statusWord(s));
  return `${word(t.from)} → ${word(t.to)}`;
}

/** `10:01:33  rome-4b2a9e  GW-02  pass → fail  summary`, the middle columns padded to `widths`. */
function transitionLine(
  t: TransitionEvent,
  c: Colors,
  clusters: number,
  [whoW, idW, changeW]: [number, number, number],
): string {
  const who = pad(whoOf(t, clusters), whoW);
  return ` ${clockTime(t.time)}  ${who}  ${t.id.padEnd(idW)}  ${pad(changeOf(t, c), changeW)}  ${
    c.dim(t.summary)
  }`;
}
