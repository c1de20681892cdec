/**
 * The Markdown of a report's `active` block: each matrix grid as a table (rows = source nodes,
 * columns = destination nodes), the reading rules and the reading, the nodes left out, and what
 * the run created and what became of it.
 */
import {
  type ActiveRunRecord,
  CELL_LEGEND,
  cellText,
  cleanupCommandOf,
  createdSummary,
  type Report,
} from "../report/model.ts";
import { mdCodeBlock, mdEscape, mdTable } from "./markdown_text.ts";

/** The `## Active probes` section. */
export function activeMarkdown(report: Report, active: ActiveRunRecord): string[] {
  const out: string[] = ["## Active probes", ""];
  out.push(
    `Run \`${active.runId}\` · ${active.mode} mode · peer ${mdEscape(active.peer)} · probes: ${
      active.probes.map(mdEscape).join(", ")
    }`,
    "",
  );
  const m = active.matrix;
  if (m && m.grids.length) {
    for (const g of m.grids) {
      out.push(
        `### ${mdEscape(g.title)}${
          g.control ? `${/control/i.test(g.title) ? "" : " (control)"} — same cluster: its CNI, not Liqo` : ""
        }`,
        "",
      );
      out.push(
        g.rows.length && g.cols.length
          ? mdTable(["from \\ to", ...g.cols], g.cells.map((row, i) => [g.rows[i], ...row.map(cellText)]))
          : "*no probe pod on one side*",
        "",
      );
    }
    out.push(`*${mdEscape(CELL_LEGEND)}*`, "");
    if (m.rules.length) out.push("Reading rules:", "", ...m.rules.map((r) => `- ${mdEscape(r)}`), "");
    if (m.reading.length) out.push("**Reading:**", "", ...m.reading.map((r) => `- ${mdEscape(r)}`), "");
  }
  if (active.excluded.length) {
    out.push(
      "Nodes left out:",
      "",
      ...active.excluded.map((e) => `- ${e.side} ${mdEscape(e.node)}: ${mdEscape(e.reason)}`),
      "",
    );
  }
  out.push("Created:", "");
  out.push(
    ...(active.created.length
      ? createdSummary(active.created).map((l) => `- ${mdEscape(l)}`)
      : ["- nothing"]),
    "",
  );
  const images = Object.entries(active.images);
  if (images.length) out.push(...images.map(([role, ref]) => `Image ${mdEscape(role)}: \`${ref}\``), "");
  if (active.cleanup.length) {
    out.push(
      mdTable(
        ["Cluster", "Namespace", "Fate", "Detail"],
        active.cleanup.map((c) => [c.cluster, c.namespace, c.status, c.detail]),
      ),
      "",
    );
  }
  if (active.cleanup.some((c) => c.status !== "removed")) {
    const cmd = cleanupCommandOf(active, report.clusters, report.invocation?.kubeconfig ?? null);
    out.push("Remove what is left with:", "", mdCodeBlock(cmd, "sh"), "");
  }
  return out;
}
