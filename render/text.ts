/**
 * The human text report (the default `flyingfish check` output) and the live TTY checklist.
 *
 * Layout: one block per layer, one line per check (`✓ ID  title  [cluster · peer]`), non-pass
 * checks expanded with their summary, evidence (`·`) and fix (`⚑`), then a rule, the count line
 * and the diagnosis. Strings from the cluster are stripped of control characters, so a hostile
 * object name cannot move the cursor or recolour the terminal.
 */
import { createColors } from "picocolors";
import {
  type CheckResult,
  type Layer,
  LAYER_TITLES,
  LAYERS,
  type ReportSection,
  type Status,
} from "../report/model.ts";
import {
  type DumpTable,
  foreignClusterTable,
  formatDuration,
  type Report,
  type ReportSummary,
  varyingScopes,
} from "../report/model.ts";

/** Options of the text renderer. */
export interface TextOptions {
  /** Emit ANSI colours. When false the output contains no escape sequences at all. */
  color: boolean;
  /** Show pass evidence, run metadata, the peering dump and the cheat sheet. */
  verbose: boolean;
  /** Only the count line and the diagnosis. */
  quiet: boolean;
}

/** Status marks. */
export const MARKS: Readonly<Record<Status, string>> = {
  pass: "✓",
  warn: "!",
  fail: "✗",
  skip: "-",
  unknown: "?",
};

type Colors = ReturnType<typeof createColors>;

/** Which parts of `[cluster · peer]` labels to show. */
export interface LabelScopes {
  cluster: boolean;
  peer: boolean;
}

const RULE = "─".repeat(40);
const DETAIL = "      ";
const ID_WIDTH = 8;
const MAX_TITLE_WIDTH = 48;

/** Replaces control characters (ESC, BEL, CR, …) with visible `\xNN` escapes; tabs become spaces. */
export function cleanText(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/\t/g, "  ").replace(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/g, (c) => {
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
}

/** Single-line form of a string: control characters escaped, newlines as ` ⏎ `. */
function oneLine(s: string): string {
  return cleanText(s.replace(/\r?\n/g, " ⏎ "));
}

function paint(c: Colors, status: Status, s: string): string {
  switch (status) {
    case "pass":
      return c.green(s);
    case "warn":
      return c.yellow(s);
    case "fail":
      return c.red(s);
    case "skip":
      return c.dim(s);
    case "unknown":
      return c.magenta(s);
  }
}

/** The `[cluster · peer]` label of a result, with only the parts that vary; "" when none. */
export function scopeLabel(r: { cluster: string; peer: string | null }, scopes: LabelScopes): string {
  const parts: string[] = [];
  if (scopes.cluster) parts.push(r.cluster);
  if (scopes.peer && r.peer !== null) parts.push(`peer ${r.peer}`);
  return parts.length ? `[${oneLine(parts.join(" · "))}]` : "";
}

/** Prefixes the first line of a (possibly multi-line) string and indents the rest to match. */
function block(prefix: string, s: string, indent: string): string[] {
  const lines = s.split(/\r?\n/);
  const hang = " ".repeat([...prefix].length);
  return lines.map((l, i) => `${indent}${i === 0 ? prefix : hang}${cleanText(l)}`);
}

interface LineCtx {
  c: Colors;
  scopes: LabelScopes;
  titleWidth: number;
  verbose: boolean;
}

function headLine(
  mark: string,
  id: string,
  title: string,
  label: string,
  ctx: LineCtx,
  status: Status,
): string {
  const { c } = ctx;
  const idCol = oneLine(id).padEnd(ID_WIDTH);
  let line = `  ${paint(c, status, mark)} ${status === "fail" ? c.bold(idCol) : idCol} ${oneLine(title)}`;
  if (label) line += " ".repeat(Math.max(1, ctx.titleWidth - [...oneLine(title)].length + 1)) + c.dim(label);
  return line;
}

/** The lines for one result: its head line, then (unless a quiet pass) its details. */
function resultLines(r: CheckResult, ctx: LineCtx): string[] {
  const { c } = ctx;
  const out = [headLine(MARKS[r.status], r.id, r.title, scopeLabel(r, ctx.scopes), ctx, r.status)];
  if (r.status === "pass") {
    if (ctx.verbose) {
      out.push(...block("", r.summary, DETAIL).map(c.dim));
      for (const e of r.evidence) out.push(...block("· ", e, DETAIL).map(c.dim));
    }
    return out;
  }
  if (r.status === "skip") {
    out.push(c.dim(`${DETAIL}${r.blockedBy ? `blocked by ${oneLine(r.blockedBy)}` : oneLine(r.summary)}`));
    return out;
  }
  out.push(...block("", r.summary, DETAIL));
  for (const e of r.evidence) out.push(...block("· ", e, DETAIL));
  if (r.remediation) out.push(...block("⚑ ", r.remediation, DETAIL).map((l) => c.cyan(l)));
  return out;
}

function groupKey(r: CheckResult): string {
  return `${r.cluster}\u0000${r.peer ?? ""}`;
}

/** Groups a layer's results by cluster, then peer (cluster-wide first), keeping first-seen order. */
function groupByScope(results: readonly CheckResult[], clusterOrder: Map<string, number>): CheckResult[][] {
  const groups = new Map<string, CheckResult[]>();
  for (const r of results) {
    const k = groupKey(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  const peerOrder = new Map<string, number>();
  for (const r of results) {
    if (r.peer !== null && !peerOrder.has(r.peer)) peerOrder.set(r.peer, peerOrder.size);
  }
  return [...groups.values()].sort((a, b) => {
    const ca = clusterOrder.get(a[0].cluster) ?? 0, cb = clusterOrder.get(b[0].cluster) ?? 0;
    if (ca !== cb) return ca - cb;
    const pa = a[0].peer === null ? -1 : peerOrder.get(a[0].peer)!;
    const pb = b[0].peer === null ? -1 : peerOrder.get(b[0].peer)!;
    return pa - pb;
  });
}

function layerBlock(
  layer: Layer,
  results: CheckResult[],
  ctx: LineCtx,
  clusterOrder: Map<string, number>,
): string[] {
  const { c } = ctx;
  const out = [` ${c.bold(LAYER_TITLES[layer])}`];
  const groups = groupByScope(results, clusterOrder);
  for (const g of groups) {
    const healthy = g.every((r) => r.status === "pass");
    if (groups.length > 1 && healthy && g.length > 1 && !ctx.verbose) {
      const label = scopeLabel(g[0], ctx.scopes);
      out.push(headLine(MARKS.pass, "all ok", g.map((r) => r.id).join(" "), label, ctx, "pass"));
      continue;
    }
    for (const r of g) out.push(...resultLines(r, ctx));
  }
  return out;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The count line: `22 passed ⋅ 0 warnings ⋅ 1 failed ⋅ 0 skipped ⋅ 0 unknown (4.8s)`. */
export function countLine(summary: ReportSummary, durationMs: number, c: Colors): string {
  const part = (n: number, s: Status, text: string) => (n > 0 ? paint(c, s, text) : text);
  return " " + [
    part(summary.pass, "pass", `${summary.pass} passed`),
    part(summary.warn, "warn", plural(summary.warn, "warning", "warnings")),
    part(summary.fail, "fail", `${summary.fail} failed`),
    part(summary.skip, "skip", `${summary.skip} skipped`),
    part(summary.unknown, "unknown", `${summary.unknown} unknown`),
  ].join(" ⋅ ") + ` (${formatDuration(durationMs)})`;
}

/** Most "also failing" lines printed under the diagnosis; the rest are counted. */
const MAX_ALSO_FAILING = 5;

/**
 * The diagnosis lines (or `no failure found …`): the diagnosis, its first fix line, and one
 * `also failing:` line per other root failure. `quiet` folds those into the diagnosis line.
 */
export function diagnosisLines(report: Report, c: Colors, scopes: LabelScopes, quiet = false): string[] {
  const d = report.diagnosis;
  if (!d) {
    const extra: string[] = [];
    if (report.summary.warn) extra.push(plural(report.summary.warn, "warning", "warnings"));
    if (report.summary.unknown) extra.push(`${report.summary.unknown} unknown`);
    const text = ` no failure found${extra.length ? ` — ${extra.join(", ")}` : ""}`;
    return [extra.length ? c.yellow(text) : c.green(text)];
  }
  const whereOf = (f: { cluster: string; peer: string | null }): string => {
    const where: string[] = [];
    if (scopes.cluster) where.push(f.cluster);
    if (f.peer !== null) where.push(`peer ${f.peer}`);
    return where.length ? " " + oneLine(where.join(" · ")) : "";
  };
  const also = d.alsoFailing ?? [];
  const folded = quiet && also.length
    ? c.red(` (also failing: ${also.map((f) => oneLine(f.id) + whereOf(f)).join(", ")})`)
    : "";
  const head =
    ` ${c.bold("diagnosis")} ${c.red(`${MARKS.fail} ${oneLine(d.id)}`)} [${LAYER_TITLES[d.layer]}]` +
    `${whereOf(d)}: ${oneLine(d.summary)}${folded}`;
  const out = [head];
  const fix = d.remediation?.split(/\r?\n/).find((l) => l.trim() !== "");
  if (fix) out.push(c.cyan(`           ⚑ ${cleanText(fix)}`));
  if (quiet) return out;
  for (const f of also.slice(0, MAX_ALSO_FAILING)) {
    out.push(
      `           ${c.bold("also failing:")} ${c.red(`${MARKS.fail} ${oneLine(f.id)}`)} [${
        LAYER_TITLES[f.layer]
      }]` +
        `${whereOf(f)}: ${oneLine(f.summary)}`,
    );
  }
  if (also.length > MAX_ALSO_FAILING) {
    out.push(`           ${c.bold("also failing:")} … and ${also.length - MAX_ALSO_FAILING} more (✗ above)`);
  }
  return out;
}

function textTable(t: DumpTable, c: Colors): string[] {
  const rows = t.rows.map((r) => r.map(oneLine));
  const cols = t.columns.map(oneLine);
  const widths = cols.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? "")].length)));
  const fmt = (cells: string[]) =>
    "   " + cells.map((x, i) => x + " ".repeat(Math.max(0, widths[i] - [...x].length))).join("  ").trimEnd();
  return [`  ${c.bold(oneLine(t.title))}`, c.dim(fmt(cols)), ...rows.map(fmt)];
}

/** "incomplete: …" lines of one report section. */
function gapLines(report: Report, section: ReportSection, c: Colors): string[] {
  return report.incomplete.filter((g) => g.section === section).map((g) =>
    c.yellow(`  ${MARKS.unknown} incomplete: ${oneLine(g.reason)}`)
  );
}

function verboseSections(report: Report, c: Colors): string[] {
  const out: string[] = [];
  const peeringGaps = gapLines(report, "peering", c);
  if (report.peering || peeringGaps.length) {
    out.push("", ` ${c.bold("PEERING")}`, ...peeringGaps);
    const tables = report.peering
      ? [foreignClusterTable(report.peering.foreignClusters), ...report.peering.tables]
      : [];
    for (const t of tables) if (t.rows.length) out.push(...textTable(t, c));
  }
  const sheetGaps = gapLines(report, "cheat-sheet", c);
  if (report.cheatSheet.length || sheetGaps.length) {
    out.push("", ` ${c.bold("MANUAL TEST CHEAT SHEET")}`, ...sheetGaps);
    for (const e of report.cheatSheet) {
      const scope = [e.cluster, e.peer ? `peer ${e.peer}` : null].filter((x) => x !== null).join(" · ");
      out.push(
        `  ${oneLine(e.title)}: ${c.bold(oneLine(e.value))}${scope ? c.dim(`  [${oneLine(scope)}]`) : ""}`,
      );
      if (e.command) out.push(...block("$ ", e.command, "    ").map((l) => c.cyan(l)));
    }
  }
  return out;
}

function header(report: Report, c: Colors, verbose: boolean): string[] {
  const out: string[] = [];
  if (verbose) {
    out.push(c.dim(` ${report.tool.name} ${oneLine(report.tool.version)} · ${report.generatedAt}`));
    for (const cl of report.clusters) {
      out.push(c.dim(
        ` ${cl.role} cluster ${oneLine(cl.name)} (context ${oneLine(cl.context)}, ${oneLine(cl.server)}` +
          `, Liqo ${oneLine(cl.liqoVersion ?? "?")} in ${oneLine(cl.liqoNamespace ?? "?")})`,
      ));
    }
  }
  if (report.mode === "snapshot") {
    out.push(
      c.yellow(
        ` snapshot taken ${oneLine(report.snapshotTakenAt ?? "at an unknown time")} — judged as of then`,
      ),
    );
  }
  if (out.length) out.push("");
  return out;
}

function makeCtx(report: Report, c: Colors, verbose: boolean): LineCtx {
  const scopes = varyingScopes(report.results);
  const titleWidth = Math.min(
    MAX_TITLE_WIDTH,
    Math.max(0, ...report.results.map((r) => [...oneLine(r.title)].length)),
  );
  return { c, scopes, titleWidth, verbose };
}

function isNeedsRemote(r: CheckResult): boolean {
  return r.status === "skip" && r.skipKind === "needs-remote";
}

/** One closing line naming the checks that need --remote-kubeconfig (none when there are none). */
function needsRemoteLines(results: readonly CheckResult[], c: Colors): string[] {
  const ids = [...new Set(results.filter(isNeedsRemote).map((r) => r.id))];
  return ids.length
    ? ["", c.dim(` ${MARKS.skip} ${ids.join(" ")}: needs --remote-kubeconfig (both ends of the peering)`)]
    : [];
}

/** Renders the text report. Ends with a newline. */
export function renderText(report: Report, opts: TextOptions): string {
  const c = createColors(opts.color);
  const ctx = makeCtx(report, c, opts.verbose);
  const tail = ["", ...diagnosisLines(report, c, ctx.scopes, opts.quiet)];
  if (opts.quiet) return [countLine(report.summary, report.durationMs, c), ...tail].join("\n") + "\n";
  const out: string[] = header(report, c, opts.verbose);
  const clusterOrder = new Map<string, number>();
  for (const r of report.results) {
    if (!clusterOrder.has(r.cluster)) clusterOrder.set(r.cluster, clusterOrder.size);
  }
  const first = out.length;
  // Checks that need --remote-kubeconfig are one closing line, not a skip per layer and peer.
  const needsRemote = opts.verbose ? [] : report.results.filter(isNeedsRemote);
  for (const layer of LAYERS) {
    const rs = report.results.filter((r) => r.layer === layer && !needsRemote.includes(r));
    if (!rs.length) continue;
    if (out.length > first) out.push("");
    out.push(...layerBlock(layer, rs, ctx, clusterOrder));
  }
  out.push(...needsRemoteLines(needsRemote, c));
  if (opts.verbose) out.push(...verboseSections(report, c));
  out.push("", ` ${c.dim(RULE)}`, countLine(report.summary, report.durationMs, c), ...tail);
  return out.join("\n") + "\n";
}

/** Options of the live checklist. */
export interface LiveOptions {
  color: boolean;
  verbose: boolean;
  /** Output is a terminal: draw live (spinner, rewritten lines). Defaults to `color`. */
  tty?: boolean;
  /** Label parts to show; by default the peer whenever set and the cluster when not the first seen. */
  scopes?: LabelScopes;
  /** Spinner redraw period. */
  intervalMs?: number;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR_LINE = "\r\x1b[2K";

/**
 * The live checklist: on a TTY, prints each result as it arrives (with its layer header when the
 * layer changes) under a spinner line naming the running checks, redrawn with `\r`. Off a TTY it
 * prints nothing until `finish`, which then prints the whole text report. Call `finish` exactly
 * once: it also stops the spinner timer.
 */
export class LiveChecklist {
  readonly #write: (s: string) => void;
  readonly #opts: LiveOptions;
  readonly #tty: boolean;
  readonly #c: Colors;
  readonly #running = new Map<string, string>();
  readonly #clusters: string[] = [];
  #lastLayer: Layer | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #frame = 0;
  #spinnerShown = false;
  #spinnerWidth = 0;
  #finished = false;

  /** Creates a checklist writing through `write`. */
  constructor(write: (s: string) => void, opts: { color: boolean; verbose: boolean } & Partial<LiveOptions>) {
    this.#write = write;
    this.#opts = opts;
    this.#tty = opts.tty ?? opts.color;
    this.#c = createColors(opts.color);
  }

  /** A check instance started running. */
  start(id: string, cluster: string, peer: string | null): void {
    if (!this.#tty || this.#finished) return;
    this.#running.set(groupKey({ id, cluster, peer } as CheckResult) + `\u0000${id}`, id);
    if (this.#timer === null) {
      const timer = setInterval(() => this.#tick(), this.#opts.intervalMs ?? 80);
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
    this.#drawSpinner();
  }

  /** A result arrived. */
  result(r: CheckResult): void {
    if (!this.#tty || this.#finished) return;
    this.#running.delete(groupKey(r) + `\u0000${r.id}`);
    if (!this.#opts.verbose && isNeedsRemote(r)) return; // summarised in one line by finish()
    if (!this.#clusters.includes(r.cluster)) this.#clusters.push(r.cluster);
    const c = this.#c;
    const scopes = this.#opts.scopes ?? { cluster: r.cluster !== this.#clusters[0], peer: true };
    const ctx: LineCtx = { c, scopes, titleWidth: 34, verbose: this.#opts.verbose };
    const lines: string[] = [];
    if (r.layer !== this.#lastLayer) {
      if (this.#lastLayer !== null) lines.push("");
      lines.push(` ${c.bold(LAYER_TITLES[r.layer])}`);
      this.#lastLayer = r.layer;
    }
    lines.push(...resultLines(r, ctx));
    this.#clearSpinner();
    this.#write(lines.join("\n") + "\n");
    this.#drawSpinner();
  }

  /** The run is over: stop the spinner and print the tail (TTY) or the whole report (not a TTY). */
  finish(report: Report, opts: { quiet?: boolean } = {}): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    if (!this.#tty) {
      this.#write(
        renderText(report, { color: this.#opts.color, verbose: this.#opts.verbose, quiet: !!opts.quiet }),
      );
      return;
    }
    this.#clearSpinner();
    const c = this.#c;
    const scopes = varyingScopes(report.results);
    const out: string[] = [];
    if (!this.#opts.verbose) out.push(...needsRemoteLines(report.results, c));
    if (this.#opts.verbose) out.push(...verboseSections(report, c));
    out.push("", ` ${c.dim(RULE)}`, countLine(report.summary, report.durationMs, c), "");
    out.push(...diagnosisLines(report, c, scopes));
    this.#write(out.join("\n") + "\n");
  }

  #tick(): void {
    this.#frame = (this.#frame + 1) % SPINNER.length;
    this.#drawSpinner();
  }

  #clearSpinner(): void {
    if (this.#spinnerShown) this.#write(this.#clearSeq());
    this.#spinnerShown = false;
  }

  /** `\r` + erase-line with colours on; without ANSI, overwrite the last spinner line with spaces. */
  #clearSeq(): string {
    return this.#opts.color ? CLEAR_LINE : `\r${" ".repeat(this.#spinnerWidth)}\r`;
  }

  #drawSpinner(): void {
    if (this.#finished) return;
    const ids = [...new Set(this.#running.values())];
    if (!ids.length) {
      this.#clearSpinner();
      return;
    }
    const shown = ids.slice(0, 4).map(oneLine).join(" ");
    const more = ids.length > 4 ? ` +${ids.length - 4}` : "";
    const c = this.#c;
    const text = `running ${shown}${more}`;
    this.#write(`${this.#clearSeq()}  ${c.cyan(SPINNER[this.#frame])} ${c.dim(text)}`);
    this.#spinnerWidth = 4 + [...text].length;
    this.#spinnerShown = true;
  }
}
