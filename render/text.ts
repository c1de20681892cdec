/**
 * The human text report (the default `flyingfish check` output).
 *
 * Layout: one line per cluster the run looked at, then one block per layer in catalog order, one
 * line per check (`✓ ID  title  [cluster · peer]`), non-pass checks expanded with their summary,
 * evidence (`·`) and fix (`⚑`), then a rule, the count line and the diagnosis.
 *
 * Everything fits the given width (the terminal's, or {@link PIPE_WIDTH} through a pipe): labels
 * that do not fit beside a title go on the next line, long text wraps with a hanging indent, and
 * fix commands wrap with a ` \` continuation so they still paste as one command. An error shared
 * by several checks (an unreadable kind) is printed once; the others point at it. Strings from the
 * cluster are stripped of control characters, so a hostile object name cannot move the cursor or
 * recolour the terminal.
 */
import { createColors } from "./colors.ts";
import {
  type DumpTable,
  foreignClusterTable,
  formatDuration,
  type Layer,
  LAYER_TITLES,
  LAYERS,
  type RemediationStep,
  type Report,
  type ReportResult as CheckResult,
  type ReportSection,
  type ReportSummary,
  type Status,
  varyingScopes,
} from "../report/model.ts";
import { commentPlacement } from "../report/remediation.ts";
import { clusterLines } from "./context.ts";
import { activeLines } from "./active_text.ts";
import { preflightTextLines } from "./preflight.ts";
import { displayWidth, type Hang, PIPE_WIDTH, wrapCommand, wrapWords } from "./wrap.ts";
import { isNeedsRemote } from "../report/skips.ts";

export { PIPE_WIDTH } from "./wrap.ts";

/** Options of the text renderer. */
export interface TextOptions {
  /** Emit ANSI colours. When false the output contains no escape sequences at all. */
  color: boolean;
  /** Show pass evidence, run metadata, the peering dump and the cheat sheet. */
  verbose: boolean;
  /** Only the count line, the diagnosis and its first fix step (wrapped to the width, never cut). */
  quiet: boolean;
  /** Columns no line may exceed (the verbose tables excepted); default {@link PIPE_WIDTH}. */
  width?: number;
}

/** Status marks. */
export const MARKS: Readonly<Record<Status, string>> = {
  pass: "✓",
  warn: "!",
  fail: "✗",
  skip: "-",
  unknown: "?",
};

/** The colour functions of one rendering (no-ops without colour). */
export type Colors = ReturnType<typeof createColors>;

/** Which parts of `[cluster · peer]` labels to show. */
export interface LabelScopes {
  cluster: boolean;
  peer: boolean;
}

const RULE_WIDTH = 40;
const DETAIL = "      ";
const HANG = "        ";
const ID_WIDTH = 8;
const MAX_TITLE_WIDTH = 48;
/** Where the diagnosis lines continue (under the diagnosed ID). */
const DIAG_HANG = " ".repeat(13);
/** Shorter repeated texts ("blocked by …", "network probes disabled") are not worth a reference. */
const MIN_SHARED_ERROR = 40;

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

/** Wraps every line of a (possibly multi-line) string: `hang.first` on the first, `hang.rest` after. */
function paragraph(s: string, width: number, hang: Hang): string[] {
  return s.split(/\r?\n/).flatMap((l, i) =>
    wrapWords(cleanText(l), width, { first: i === 0 ? hang.first : hang.rest, rest: hang.rest })
  );
}

/**
 * One line of a fix: a shell comment (`# …`) or a command with the comment beside it (`note`,
 * `# …`; null: none). `text` is the whole line.
 */
type FixLine =
  | { kind: "comment"; text: string }
  | { kind: "command"; text: string; command: string; note: string | null };

/**
 * The fix as typed lines: a remark is a comment line; a command's comment goes above it, or beside
 * it when short (`cmd   # comment`, see commentPlacement).
 */
function fixLines(steps: readonly RemediationStep[]): FixLine[] {
  return steps.flatMap((s): FixLine[] => {
    const remark: FixLine[] = s.comment === null ? [] : [{ kind: "comment", text: `# ${s.comment}` }];
    if (s.command === null) return remark;
    if (s.comment !== null && commentPlacement(s) === "beside") {
      const note = `# ${s.comment}`;
      return [{ kind: "command", text: `${s.command}   ${note}`, command: s.command, note }];
    }
    return [...remark, { kind: "command", text: s.command, command: s.command, note: null }];
  });
}

/** Lays out `# …` under `lead` (first line) and `rest`, the `#` repeated on every line. */
function commentLines(comment: string, width: number, lead: string, rest: string): string[] {
  const hash = /^#+ */.exec(comment)![0];
  return wrapWords(comment.slice(hash.length), width, { first: lead + hash, rest: rest + hash });
}

/**
 * Lays out fix lines under `hang`: comments wrap as comments (`#` on every line), commands wrap
 * with ` \` continuations (a trailing comment moves to its own line when it does not fit).
 */
function fixBlock(lines: readonly FixLine[], width: number, hang: Hang): string[] {
  const out: string[] = [];
  for (const [i, f] of lines.entries()) {
    const lead = i === 0 ? hang.first : hang.rest;
    const rest = hang.rest;
    if (f.kind === "comment") {
      out.push(...commentLines(cleanText(f.text), width, lead, rest));
      continue;
    }
    const cmd = cleanText(f.command);
    const note = f.note === null ? null : cleanText(f.note);
    const wrapped = wrapCommand(cmd, width, { first: lead, rest: rest + "    " });
    const last = wrapped.length - 1;
    if (note === null) out.push(...wrapped);
    else if (displayWidth(`${wrapped[last]}   ${note}`) <= width) {
      out.push(...wrapped.slice(0, last), `${wrapped[last]}   ${note}`);
    } else out.push(...wrapped, ...commentLines(note, width, rest, rest));
  }
  return out;
}

/** One check line (or the `all ok` line of a healthy group) before layout. */
interface Head {
  mark: string;
  id: string;
  title: string;
  label: string;
  status: Status;
}

/** A head line and what goes under it. */
interface Row {
  head: Head;
  result: CheckResult | null;
}

interface LineCtx {
  c: Colors;
  scopes: LabelScopes;
  titleWidth: number;
  verbose: boolean;
  width: number;
  /** Long error texts already printed → the check that printed them first. */
  shared: Map<string, CheckResult>;
}

function prefixOf(h: Head): string {
  return `  ${h.mark} ${oneLine(h.id).padEnd(ID_WIDTH)} `;
}

/** How a head line lays out for a title column `titleWidth`: 2 label aligned, 1 label ragged, 0 wrapped. */
function fitScore(h: Head, titleWidth: number, width: number): number {
  const pw = displayWidth(prefixOf(h));
  const tw = displayWidth(oneLine(h.title));
  const lw = displayWidth(h.label);
  if (!h.label) return 2;
  if (tw <= titleWidth && pw + titleWidth + 1 + lw <= width) return 2;
  return pw + tw + 2 + lw <= width ? 1 : 0;
}

/**
 * The title column: the width that puts the most labels beside their titles (aligned first, then
 * anywhere on the line), the widest among equals, at most {@link MAX_TITLE_WIDTH}.
 */
function chooseTitleWidth(heads: readonly Head[], width: number): number {
  const longest = Math.min(MAX_TITLE_WIDTH, Math.max(0, ...heads.map((h) => displayWidth(oneLine(h.title)))));
  let best = longest, bestScore = -1;
  for (let t = longest; t >= 0; t--) {
    const score = heads.reduce((n, h) => n + fitScore(h, t, width), 0);
    if (score > bestScore) {
      best = t;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The head line of a check: mark, ID, title (wrapped under itself when too long), and the label at
 * the title column, after the title, or on a line of its own (indented) when it does not fit.
 */
function headLines(h: Head, ctx: LineCtx): string[] {
  const { c, width } = ctx;
  const prefix = prefixOf(h);
  const indent = " ".repeat(displayWidth(prefix));
  const titles = wrapWords(oneLine(h.title), width, { first: indent, rest: indent });
  const idCol = oneLine(h.id).padEnd(ID_WIDTH);
  const lines = titles.map((l, i) =>
    i === 0
      ? `  ${paint(c, h.status, h.mark)} ${h.status === "fail" ? c.bold(idCol) : idCol} ${
        l.slice(indent.length)
      }`
      : l
  );
  if (!h.label) return lines;
  const last = titles[titles.length - 1];
  const lw = displayWidth(h.label);
  const column = indent.length + ctx.titleWidth + 1;
  const end = displayWidth(last);
  if (end < column && column + lw <= width) {
    lines[lines.length - 1] += " ".repeat(column - end) + c.dim(h.label);
  } else if (end + 2 + lw <= width) {
    lines[lines.length - 1] += "  " + c.dim(h.label);
  } else {
    const at = column + lw <= width ? " ".repeat(column) : indent;
    lines.push(...wrapWords(h.label, width, { first: at, rest: indent }).map(c.dim));
  }
  return lines;
}

/**
 * A summary, or — when its error text was already printed for an earlier check — the summary with
 * the error replaced by a reference to that check (`GW-01`, with its label when its scope differs).
 * The error is the part after the first ` — ` (`forbidden: gatewayclients on rome — <API message>`),
 * or the whole summary.
 */
function sharedError(r: CheckResult, ctx: LineCtx): string {
  const at = r.summary.indexOf(" — ");
  const [head, error] = at >= 0 ? [r.summary.slice(0, at), r.summary.slice(at + 3)] : ["", r.summary];
  if (error.length < MIN_SHARED_ERROR) return r.summary;
  const first = ctx.shared.get(error);
  if (first === undefined) {
    ctx.shared.set(error, r);
    return r.summary;
  }
  const label = groupKey(first) === groupKey(r) ? "" : scopeLabel(first, ctx.scopes);
  const ref = `${oneLine(first.id)}${label ? ` ${label}` : ""}`;
  return head ? `${head} — same error as ${ref} above` : `same as ${ref} above`;
}

/** What goes under a head line: nothing for a quiet pass, the details otherwise. */
function detailLines(r: CheckResult, ctx: LineCtx): string[] {
  const { c, width } = ctx;
  const item: Hang = { first: `${DETAIL}· `, rest: HANG };
  if (r.status === "pass") {
    if (!ctx.verbose) return [];
    return [
      ...paragraph(r.summary, width, { first: DETAIL, rest: HANG }),
      ...r.evidence.flatMap((e) => paragraph(e, width, item)),
    ].map(c.dim);
  }
  if (r.status === "skip") {
    const why = r.blockedBy ? `blocked by ${oneLine(r.blockedBy)}` : oneLine(r.summary);
    return wrapWords(why, width, { first: DETAIL, rest: HANG }).map(c.dim);
  }
  const out = paragraph(r.status === "unknown" ? sharedError(r, ctx) : r.summary, width, {
    first: DETAIL,
    rest: HANG,
  });
  for (const e of r.evidence) out.push(...paragraph(e, width, item));
  if (r.remediation.length) {
    out.push(
      ...fixBlock(fixLines(r.remediation), width, { first: `${DETAIL}⚑ `, rest: HANG }).map((l) => c.cyan(l)),
    );
  }
  return out;
}

function groupKey(r: { cluster: string; peer: string | null }): string {
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

/** A layer's rows: one per check, a healthy group of several folded into `✓ all ok  ID ID …`. */
function layerRows(
  results: readonly CheckResult[],
  scopes: LabelScopes,
  verbose: boolean,
  clusterOrder: Map<string, number>,
): Row[] {
  const groups = groupByScope(results, clusterOrder);
  return groups.flatMap((g): Row[] => {
    const healthy = g.every((r) => r.status === "pass");
    if (groups.length > 1 && healthy && g.length > 1 && !verbose) {
      const title = g.map((r) => oneLine(r.id)).join(" ");
      return [{
        head: { mark: MARKS.pass, id: "all ok", title, label: scopeLabel(g[0], scopes), status: "pass" },
        result: null,
      }];
    }
    return g.map((r) => ({
      head: {
        mark: MARKS[r.status],
        id: r.id,
        title: r.title,
        label: scopeLabel(r, scopes),
        status: r.status,
      },
      result: r,
    }));
  });
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Joins coloured parts with `sep`, starting a new line (after `indent`) where the next part would not fit. */
function packParts(
  parts: readonly { plain: string; shown: string }[],
  sep: string,
  width: number,
  indent: string,
): string[] {
  const out: string[] = [];
  let plain = "", shown = "";
  for (const p of parts) {
    if (plain && displayWidth(plain + sep + p.plain) > width) {
      out.push(shown + sep.trimEnd());
      plain = indent + p.plain;
      shown = indent + p.shown;
    } else {
      plain += (plain ? sep : " ") + p.plain;
      shown += (shown ? sep : " ") + p.shown;
    }
  }
  out.push(shown);
  return out;
}

/** The count line: `22 passed ⋅ 0 warnings ⋅ 1 failed ⋅ 0 skipped ⋅ 0 unknown (4.8s)`. */
export function countLine(summary: ReportSummary, durationMs: number, c: Colors, width = PIPE_WIDTH): string {
  const part = (n: number, s: Status, text: string) => ({
    plain: text,
    shown: n > 0 ? paint(c, s, text) : text,
  });
  const parts = [
    part(summary.pass, "pass", `${summary.pass} passed`),
    part(summary.warn, "warn", plural(summary.warn, "warning", "warnings")),
    part(summary.fail, "fail", `${summary.fail} failed`),
    part(summary.skip, "skip", `${summary.skip} skipped`),
    part(summary.unknown, "unknown", `${summary.unknown} unknown`),
  ];
  const last = parts[parts.length - 1];
  const took = ` (${formatDuration(durationMs)})`;
  parts[parts.length - 1] = { plain: last.plain + took, shown: last.shown + took };
  return packParts(parts, " ⋅ ", width, " ").join("\n");
}

/** ` (also failing: A, B peer x)` within `room` columns: as many as fit, the rest counted (`+3 more`). */
function foldedAlso(items: readonly string[], room: number): string {
  if (!items.length) return "";
  for (let k = items.length; k > 1; k--) {
    const more = k < items.length ? ` +${items.length - k} more` : "";
    const text = ` (also failing: ${items.slice(0, k).join(", ")}${more})`;
    if (displayWidth(text) <= room) return text;
  }
  const first = ` (also failing: ${items[0]}${items.length > 1 ? ` +${items.length - 1} more` : ""})`;
  return displayWidth(first) <= room ? first : ` (also failing: ${items.length})`;
}

/** `run not finished: …` when the run was stopped before its end (a signal, `--timeout`). */
function stoppedLines(report: Report, c: Colors, width: number): string[] {
  if (!report.stopped) return [];
  return wrapWords(`${MARKS.unknown} run not finished: ${oneLine(report.stopped.message)}`, width, {
    first: " ",
    rest: "   ",
  }).map(c.yellow);
}

/** Most "also failing" lines printed under the diagnosis; the rest are counted. */
const MAX_ALSO_FAILING = 5;

/**
 * The diagnosis lines (or `no failure found …`): the diagnosis, the first step of its fix (a
 * command with its comment, or a remark), and one `also failing:` line per other root failure,
 * wrapped to `width`. `quiet` folds those into the diagnosis and keeps its first fix step (wrapped,
 * never cut: a command must still paste).
 */
export function diagnosisLines(
  report: Report,
  c: Colors,
  scopes: LabelScopes,
  quiet = false,
  width = PIPE_WIDTH,
): string[] {
  const d = report.diagnosis;
  if (!d) {
    const extra: string[] = [];
    if (report.summary.warn) extra.push(plural(report.summary.warn, "warning", "warnings"));
    if (report.summary.unknown) extra.push(`${report.summary.unknown} unknown`);
    // A run that did not finish found no failure in what it measured: that is no verdict.
    const found = report.stopped ? "no failure found in what was measured" : "no failure found";
    const text = `${found}${extra.length ? ` — ${extra.join(", ")}` : ""}`;
    return wrapWords(text, width, { first: " ", rest: "   " }).map(
      extra.length || report.stopped ? c.yellow : c.green,
    );
  }
  const whereOf = (f: { cluster: string; peer: string | null }): string => {
    const where: string[] = [];
    if (scopes.cluster) where.push(f.cluster);
    if (f.peer !== null) where.push(`peer ${f.peer}`);
    return where.length ? " " + oneLine(where.join(" · ")) : "";
  };
  const also = d.alsoFailing ?? [];
  const lead = `diagnosis ${MARKS.fail} ${oneLine(d.id)}`;
  const about = ` [${LAYER_TITLES[d.layer]}]${whereOf(d)}: `;
  // The first step of the fix: its command (with the comment that goes with it), or its remark.
  const firstStep = fixLines(d.remediation.slice(0, 1));
  const fix = firstStep[0];
  if (quiet) {
    // One diagnosis (the other root failures folded into it) and its first fix step, wrapped to the
    // width like the full output: a command is never cut, so what is printed still pastes.
    const folded = foldedAlso(also.map((f) => oneLine(f.id) + whereOf(f)), Math.max(PIPE_WIDTH, width) - 12);
    const heads = wrapWords(`${lead}${about}${oneLine(d.summary)}${folded}`, width, {
      first: " ",
      rest: DIAG_HANG,
    });
    const out = [
      heads[0].replace(lead, `${c.bold("diagnosis")} ${c.red(`${MARKS.fail} ${oneLine(d.id)}`)}`),
      ...heads.slice(1),
    ];
    if (fix) {
      out.push(
        ...fixBlock(firstStep, width, { first: "           ⚑ ", rest: DIAG_HANG }).map((l) => c.cyan(l)),
      );
    }
    return out;
  }
  const heads = wrapWords(`${lead}${about}${oneLine(d.summary)}`, width, { first: " ", rest: DIAG_HANG });
  const out = [
    heads[0].replace(lead, `${c.bold("diagnosis")} ${c.red(`${MARKS.fail} ${oneLine(d.id)}`)}`),
    ...heads.slice(1),
  ];
  if (fix) {
    out.push(
      ...fixBlock(firstStep, width, { first: "           ⚑ ", rest: DIAG_HANG }).map((l) => c.cyan(l)),
    );
  }
  for (const f of also.slice(0, MAX_ALSO_FAILING)) {
    const text = `also failing: ${MARKS.fail} ${oneLine(f.id)} [${LAYER_TITLES[f.layer]}]${whereOf(f)}: ${
      oneLine(f.summary)
    }`;
    const lines = wrapWords(text, width, { first: "           ", rest: DIAG_HANG });
    lines[0] = lines[0].replace(
      `also failing: ${MARKS.fail} ${oneLine(f.id)}`,
      `${c.bold("also failing:")} ${c.red(`${MARKS.fail} ${oneLine(f.id)}`)}`,
    );
    out.push(...lines);
  }
  if (also.length > MAX_ALSO_FAILING) {
    out.push(`           ${c.bold("also failing:")} … and ${also.length - MAX_ALSO_FAILING} more (✗ above)`);
  }
  return out;
}

function textTable(t: DumpTable, c: Colors): string[] {
  const rows = t.rows.map((r) => r.map(oneLine));
  const cols = t.columns.map(oneLine);
  const widths = cols.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ""))));
  const fmt = (cells: string[]) =>
    "   " +
    cells.map((x, i) => x + " ".repeat(Math.max(0, widths[i] - displayWidth(x)))).join("  ").trimEnd();
  return [`  ${c.bold(oneLine(t.title))}`, c.dim(fmt(cols)), ...rows.map(fmt)];
}

/** "incomplete: …" lines of one report section. */
function gapLines(report: Report, section: ReportSection, c: Colors, width: number): string[] {
  return report.incomplete.filter((g) => g.section === section).flatMap((g) =>
    wrapWords(`${MARKS.unknown} incomplete: ${oneLine(g.reason)}`, width, { first: "  ", rest: "    " }).map(
      c.yellow,
    )
  );
}

/**
 * The peering dump and the cheat sheet (`-v`): the dump's tables keep their columns and the cheat
 * sheet its one-line commands whatever the width.
 */
function verboseSections(report: Report, c: Colors, width: number): string[] {
  const out: string[] = [];
  const peeringGaps = gapLines(report, "peering", c, width);
  if (report.peering || peeringGaps.length) {
    out.push("", ` ${c.bold("PEERING")}`, ...peeringGaps);
    const tables = report.peering
      ? [foreignClusterTable(report.peering.foreignClusters), ...report.peering.tables]
      : [];
    for (const t of tables) if (t.rows.length) out.push(...textTable(t, c));
  }
  const sheetGaps = gapLines(report, "cheat-sheet", c, width);
  if (report.cheatSheet.length || sheetGaps.length) {
    out.push("", ` ${c.bold("MANUAL TEST CHEAT SHEET")}`, ...sheetGaps);
    // Kept whole, like the tables: each command is one line to copy (this section is -v only).
    for (const e of report.cheatSheet) {
      const scope = [e.cluster, e.peer ? `peer ${e.peer}` : null].filter((x) => x !== null).join(" · ");
      out.push(
        `  ${oneLine(e.title)}: ${c.bold(oneLine(e.value))}${scope ? c.dim(`  [${oneLine(scope)}]`) : ""}`,
      );
      if (e.command) {
        const lines = e.command.split(/\r?\n/);
        out.push(...lines.map((l, i) => c.cyan(`    ${i === 0 ? "$ " : "  "}${cleanText(l)}`)));
      }
    }
  }
  return out;
}

/** The lines above the checks: the clusters looked at (and the tool, with -v), the snapshot time. */
function header(report: Report, c: Colors, verbose: boolean, width: number): string[] {
  const out: string[] = [];
  if (verbose) {
    const tool = `${report.tool.name} ${oneLine(report.tool.version)} · ${oneLine(report.generatedAt)}`;
    out.push(...wrapWords(tool, width, { first: " ", rest: "   " }).map(c.dim));
  }
  for (const l of clusterLines(report, verbose)) {
    const parts = l.split(" · ").map((p) => ({ plain: p, shown: p }));
    // Break between the facts (ID, context, server, Liqo), not inside one.
    const lines = packParts(parts, " · ", width, "   ");
    out.push(
      ...lines.flatMap((x) =>
        displayWidth(x) <= width ? [x] : wrapWords(x.trim(), width, { first: " ", rest: "   " })
      ).map(c.dim),
    );
  }
  if (report.mode === "snapshot") {
    const when = oneLine(report.snapshotTakenAt ?? "at an unknown time");
    out.push(
      ...wrapWords(`snapshot taken ${when} — judged as of then`, width, { first: " ", rest: "   " }).map(
        c.yellow,
      ),
    );
  }
  if (out.length) out.push("");
  return out;
}

/** One closing line naming the checks that need --remote-kubeconfig (none when there are none). */
function needsRemoteLines(results: readonly CheckResult[], c: Colors, width: number): string[] {
  const ids = [...new Set(results.filter(isNeedsRemote).map((r) => r.id))];
  if (!ids.length) return [];
  const text = `${MARKS.skip} ${ids.join(" ")}: needs --remote-kubeconfig (both ends of the peering)`;
  return ["", ...wrapWords(text, width, { first: " ", rest: "   " }).map(c.dim)];
}

/** Renders the text report. Ends with a newline. */
export function renderText(report: Report, opts: TextOptions): string {
  const c = createColors(opts.color);
  const width = opts.width ?? PIPE_WIDTH;
  const scopes = varyingScopes(report.results);
  const tail = [
    "",
    ...stoppedLines(report, c, width),
    ...diagnosisLines(report, c, scopes, opts.quiet, width),
    ...(report.preflight ? preflightTextLines(report.preflight, c, width) : []),
  ];
  const counts = countLine(report.summary, report.durationMs, c, width);
  if (opts.quiet) return [counts, ...tail].join("\n") + "\n";
  const out: string[] = header(report, c, opts.verbose, width);
  const clusterOrder = new Map<string, number>();
  for (const r of report.results) {
    if (!clusterOrder.has(r.cluster)) clusterOrder.set(r.cluster, clusterOrder.size);
  }
  // Checks that need --remote-kubeconfig are one closing line, not a skip per layer and peer.
  const needsRemote = opts.verbose ? [] : report.results.filter(isNeedsRemote);
  const layers: [Layer, Row[]][] = LAYERS.map((layer) => [
    layer,
    layerRows(
      report.results.filter((r) => r.layer === layer && !needsRemote.includes(r)),
      scopes,
      opts.verbose,
      clusterOrder,
    ),
  ]);
  const heads = layers.flatMap(([, rows]) => rows.map((r) => r.head));
  const ctx: LineCtx = {
    c,
    scopes,
    titleWidth: chooseTitleWidth(heads, width),
    verbose: opts.verbose,
    width,
    shared: new Map(),
  };
  const first = out.length;
  for (const [layer, rows] of layers) {
    if (!rows.length) continue;
    if (out.length > first) out.push("");
    out.push(` ${c.bold(LAYER_TITLES[layer])}`);
    for (const row of rows) {
      out.push(...headLines(row.head, ctx));
      if (row.result) out.push(...detailLines(row.result, ctx));
    }
  }
  if (report.active) out.push(...activeLines(report, report.active, c, width, opts.verbose));
  out.push(...needsRemoteLines(needsRemote, c, width));
  if (opts.verbose) out.push(...verboseSections(report, c, width));
  out.push("", ` ${c.dim("─".repeat(Math.min(RULE_WIDTH, width - 1)))}`, counts, ...tail);
  return out.join("\n") + "\n";
}
