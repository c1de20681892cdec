/**
 * The text of a report's `active` block, printed after the ACTIVE PROBES results: each matrix grid
 * as a table (rows = source nodes, columns = destination nodes) that fits the width — node names
 * abbreviated with a legend when they do not — the reading rules and the reading, then what the run
 * created and what became of it.
 */
import {
  type ActiveRunRecord,
  CELL_LEGEND,
  cellState,
  cellText,
  cleanupCommandOf,
  createdSummary,
  type MatrixGrid,
  type Report,
} from "../report/model.ts";
import type { Colors } from "./colors.ts";
import { displayWidth, wrapCommand, wrapWords } from "./wrap.ts";

/** Widest a row label may be before the row names are abbreviated. */
const MAX_ROW_LABEL = 24;
/** Narrowest a column may be: a cell is at most `✓/✗`. */
const MIN_COL = 3;

/** Node names as labels of at most `max` columns, and the legend that maps them back. */
export function abbreviate(
  names: readonly string[],
  max: number,
  tag: string,
): { labels: string[]; legend: string[] } {
  if (names.every((n) => displayWidth(n) <= max)) return { labels: [...names], legend: [] };
  // The common prefix (up to a separator) first: milan-worker-1, -2 → 1, 2.
  let prefix = names.length > 1 ? commonPrefix(names) : "";
  prefix = prefix.slice(0, Math.max(prefix.search(/[-.][^-.]*$/) + 1, 0));
  const rest = names.map((n) => n.slice(prefix.length));
  if (prefix && rest.every((r) => r !== "" && displayWidth(r) <= max) && new Set(rest).size === rest.length) {
    return { labels: rest, legend: [`${tag}: names without the prefix ${prefix}`] };
  }
  const labels = names.map((_, i) => `${tag}${i + 1}`);
  return { labels, legend: names.map((n, i) => `${labels[i]} = ${n}`) };
}

function commonPrefix(names: readonly string[]): string {
  let p = names[0];
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  return p;
}

function padTo(s: string, w: number): string {
  return s + " ".repeat(Math.max(0, w - displayWidth(s)));
}

function paintState(c: Colors, cellText: string, state: ReturnType<typeof cellState>): string {
  switch (state) {
    case "ok":
      return c.green(cellText);
    case "fail":
      return c.red(cellText);
    case "flaky":
      return c.yellow(cellText);
    default:
      return c.gray(cellText);
  }
}

/** One grid as table lines (indented by one space), fitting `width`. */
export function gridLines(g: MatrixGrid, c: Colors, width: number): string[] {
  const out: string[] = [];
  out.push(
    ` ${c.bold(g.title)}${
      g.control
        ? c.dim(`${/control/i.test(g.title) ? "" : " (control)"}  same cluster: its CNI, not Liqo`)
        : ""
    }`,
  );
  if (g.rows.length === 0 || g.cols.length === 0) {
    out.push(c.dim("   (no probe pod on one side: nothing to show)"));
    return out;
  }
  const rows = abbreviate(g.rows, MAX_ROW_LABEL, "r");
  const rowW = Math.max(...rows.labels.map(displayWidth), 4);
  // "   " + row label + per column: two spaces + column.
  const room = Math.floor((width - 3 - rowW) / g.cols.length) - 2;
  const colMax = Math.max(MIN_COL, Math.min(room, 20));
  const cols = abbreviate(g.cols, colMax, "c");
  const colW = Math.max(MIN_COL, ...cols.labels.map(displayWidth));
  out.push(
    c.dim(
      `   ${padTo("from \\ to", rowW)}${cols.labels.map((l) => `  ${padTo(l, colW)}`).join("")}`.trimEnd(),
    ),
  );
  g.cells.forEach((row, i) => {
    const cells = row.map((cell) => `  ${padTo(paintState(c, cellText(cell), cellState(cell)), colW)}`).join(
      "",
    );
    out.push(`   ${padTo(rows.labels[i], rowW)}${cells}`.trimEnd());
  });
  for (const l of [...rows.legend, ...cols.legend]) {
    out.push(...wrapWords(l, width, { first: "   ", rest: "     " }).map(c.dim));
  }
  return out;
}

/** The `active` block as text lines (after the ACTIVE PROBES results). */
export function activeLines(
  report: Report,
  active: ActiveRunRecord,
  c: Colors,
  width: number,
  verbose = false,
): string[] {
  const out: string[] = [""];
  const para = (s: string, first = "   ", rest = "     ") => wrapWords(s, width, { first, rest });
  out.push(
    ` ${c.bold("PROBE RUN")} ${
      // No probes: a `preflight --probe` run (its checks are the PF ones above).
      c.dim(
        active.probes.length
          ? `${active.runId} · ${active.mode} mode · peer ${active.peer} · ${active.probes.join(", ")}`
          : `${active.runId} · preflight --probe · provider ${active.peer}`,
      )}`,
  );
  const m = active.matrix;
  if (m && m.grids.length) {
    out.push("");
    for (const g of m.grids) {
      out.push(...gridLines(g, c, width));
      out.push("");
    }
    out.push(...para(CELL_LEGEND, "   ", "   ").map(c.dim));
    if (m.rules.length) {
      out.push("", ` ${c.bold("Reading rules")}`);
      for (const r of m.rules) out.push(...para(`· ${r}`));
    }
    if (m.reading.length) {
      out.push("", ` ${c.bold("Reading")}`);
      for (const r of m.reading) out.push(...para(`→ ${r}`));
    }
  }
  if (active.excluded.length) {
    out.push("", ` ${c.bold("Nodes left out")}`);
    for (const e of active.excluded) out.push(...para(`${e.side} ${e.node}: ${e.reason}`));
  }
  out.push("", ` ${c.bold("Created")}`);
  if (active.created.length === 0) out.push(c.dim("   nothing"));
  for (const l of createdSummary(active.created)) out.push(...para(l));
  // Image references are long (digest-pinned): -v, JSON and `--print-images` show them.
  if (verbose) {
    for (const [role, ref] of Object.entries(active.images)) {
      out.push(...wrapCommand(`image ${role}: ${ref}`, width, { first: "   ", rest: "     " }).map(c.dim));
    }
  }
  const removed = active.cleanup.filter((x) => x.status === "removed");
  const left = active.cleanup.filter((x) => x.status !== "removed");
  if (removed.length) {
    out.push("", ` ${c.bold("Removed")}`);
    for (const x of removed) {
      out.push(...para(`${c.green("✓")} ${x.cluster}: ${x.namespace}${x.detail ? ` — ${x.detail}` : ""}`));
    }
  }
  if (left.length) {
    out.push("", ` ${c.bold(left.every((x) => x.status === "kept") ? "Kept" : "Not removed")}`);
    for (const x of left) {
      const mark = x.status === "kept" ? c.yellow("·") : c.red("✗");
      out.push(
        ...para(`${mark} ${x.cluster}: ${x.namespace} ${x.status}${x.detail ? ` — ${x.detail}` : ""}`),
      );
    }
    out.push(...para("remove with:", "   ", "   ").map(c.dim));
    const cmd = cleanupCommandOf(active, report.clusters, report.invocation?.kubeconfig ?? null);
    out.push(...wrapCommand(cmd, width, { first: "     ", rest: "       " }));
  }
  return out;
}
