/**
 * The Markdown reporter: an incident write-up that pastes into an issue or a chat. When and how it
 * was run at the top (timestamp, command line), the diagnosis, then the "All Checks — Summary"
 * table, details of every non-pass check, the peering dump, the manual test cheat sheet and the
 * run metadata; the long sections (the table, the dump, the cheat sheet) fold into `<details>`.
 * Fix commands are fenced code blocks holding only the command, ready to copy. Every string from
 * the cluster is escaped, so `<pending>`, `|` or `*` in an object name render literally.
 */
import { activeMarkdown } from "./active_markdown.ts";
import { preflightMarkdown } from "./preflight.ts";
import {
  LAYER_TITLES,
  type RemediationStep,
  type ReportResult,
  type ReportSection,
} from "../report/model.ts";
import {
  foreignClusterTable,
  formatDuration,
  type Report,
  reportSubject,
  runTables,
  varyingScopes,
} from "../report/model.ts";
import { MARKS } from "./text.ts";
import { commentPlacement } from "../report/remediation.ts";
import type { DumpTable } from "../report/model.ts";

export { mdCell, mdCodeBlock, mdEscape, mdInlineCode, mdTable } from "./markdown_text.ts";
import { mdCodeBlock, mdEscape, mdInlineCode, mdTable } from "./markdown_text.ts";
import { isNeedsRemote } from "../report/skips.ts";

/**
 * Remediation steps as Markdown blocks: remarks and comments that introduce a command as text,
 * commands in `sh` code blocks (adjacent commands share one; a short comment stays beside its
 * command as a shell comment), so a copied block runs as is.
 */
export function mdSteps(steps: readonly RemediationStep[]): string[] {
  const blocks: { code: boolean; lines: string[] }[] = [];
  const add = (code: boolean, line: string) => {
    const last = blocks.at(-1);
    if (last && last.code === code) last.lines.push(line);
    else blocks.push({ code, lines: [line] });
  };
  for (const s of steps) {
    if (s.command !== null && s.comment !== null && commentPlacement(s) === "beside") {
      add(true, `${s.command}   # ${s.comment}`);
      continue;
    }
    if (s.comment !== null) add(false, mdEscape(s.comment));
    if (s.command !== null) add(true, s.command);
  }
  return blocks.flatMap((b) => [b.code ? mdCodeBlock(b.lines.join("\n"), "sh") : b.lines.join("  \n"), ""]);
}

/** `<details>` around `body` (blank lines keep the Markdown inside rendered). */
function folded(summary: string, body: readonly string[]): string[] {
  return [`<details><summary>${summary}</summary>`, "", ...body, "", "</details>", ""];
}

function lines(s: string): string[] {
  return s.split(/\r?\n/).filter((l) => l.trim() !== "");
}

function scopeText(cluster: string | null, peer: string | null, showCluster: boolean): string {
  return [showCluster ? cluster : null, peer !== null ? `peer ${peer}` : null].filter((x) => x).join(" · ");
}

/** The checks skipped for want of `--remote-kubeconfig`, as one line. */
function needsRemoteLine(rs: readonly ReportResult[]): string {
  const ids = [...new Set(rs.map((r) => r.id))];
  return `*${MARKS.skip} ${mdEscape(ids.join(", "))}: need --remote-kubeconfig (both ends of the peering)*`;
}

/** Renders the Markdown report (ends with a newline). */
export function renderMarkdown(report: Report): string {
  const out: string[] = [];
  const scopes = varyingScopes(report.results);
  const s = report.summary;
  const subject = reportSubject(report);
  out.push(`# FlyingFish ${subject.kind}${subject.about ? ` — ${mdEscape(subject.about)}` : ""}`, "");
  const inv = report.invocation;
  const when = [
    mdEscape(report.generatedAt),
    report.mode === "snapshot"
      ? `judged from a snapshot taken ${mdEscape(report.snapshotTakenAt ?? "at an unknown time")}`
      : null,
    inv?.host ? `from host ${mdInlineCode(inv.host)}` : null,
  ].filter((x) => x).join(" · ");
  out.push(`Generated ${when}${inv ? ` by ${mdInlineCode(inv.commandLine)}` : ""}`, "");

  if (report.preflight) out.push(...preflightMarkdown(report.preflight, mdEscape, mdCodeBlock));
  // Diagnosis
  out.push("## Diagnosis", "");
  if (report.stopped) {
    out.push(`> **${MARKS.unknown} Run not finished:** ${mdEscape(report.stopped.message)}`, "");
  }
  const d = report.diagnosis;
  if (d) {
    const where = scopeText(d.cluster, d.peer, scopes.cluster || report.clusters.length > 1);
    out.push(
      `**${MARKS.fail} ${mdEscape(d.id)}** [${LAYER_TITLES[d.layer]}]${
        where ? ` ${mdEscape(where)}` : ""
      }: ` +
        mdEscape(d.summary.replace(/\r?\n/g, " ")),
    );
    if (d.remediation.length) out.push("", "**⚑ Fix:**", "", ...mdSteps(d.remediation));
    const also = d.alsoFailing ?? [];
    if (also.length) {
      out.push("", "Also failing (faults the diagnosis does not explain):", "");
      for (const f of also) {
        const at = scopeText(f.cluster, f.peer, scopes.cluster || report.clusters.length > 1);
        out.push(
          `- **${MARKS.fail} ${mdEscape(f.id)}** [${LAYER_TITLES[f.layer]}]${
            at ? ` ${mdEscape(at)}` : ""
          }: ` +
            mdEscape(f.summary.replace(/\r?\n/g, " ")),
        );
      }
    }
  } else {
    const extra = [
      s.warn ? `${s.warn} warning${s.warn === 1 ? "" : "s"}` : "",
      s.unknown ? `${s.unknown} unknown` : "",
    ]
      .filter((x) => x);
    out.push(`No failure found${extra.length ? ` — ${extra.join(", ")}` : ""}.`);
  }
  out.push(
    "",
    `${s.pass} passed · ${s.warn} warning${
      s.warn === 1 ? "" : "s"
    } · ${s.fail} failed · ${s.skip} skipped · ${s.unknown} unknown` +
      ` · ${formatDuration(report.durationMs)} · exit code ${report.exitCode}`,
    "",
  );
  // Summary table
  out.push("## All Checks — Summary", "");
  out.push(...folded(
    `${s.total} checks: ${s.pass} passed, ${s.warn} warning${s.warn === 1 ? "" : "s"}, ${s.fail} failed, ` +
      `${s.skip} skipped, ${s.unknown} unknown`,
    [mdTable(
      ["Status", "ID", "Layer", "Cluster", "Peer", "Result"],
      report.results.map((r) => [
        `${MARKS[r.status]} ${r.status}`,
        r.id,
        LAYER_TITLES[r.layer],
        r.cluster,
        r.peer ?? "—",
        r.blockedBy && r.status === "skip" ? `blocked by ${r.blockedBy}` : r.summary,
      ]),
    )],
  ));

  // Details
  const needsRemote = report.results.filter(isNeedsRemote);
  const notPass = report.results.filter((r) => r.status !== "pass" && !isNeedsRemote(r));
  if (notPass.length || needsRemote.length) {
    out.push("## Details", "");
    for (const r of notPass) {
      const where = scopeText(r.cluster, r.peer, true);
      out.push(`### ${MARKS[r.status]} ${mdEscape(r.id)} — ${mdEscape(r.title)}`, "");
      out.push(`*${r.status} · ${LAYER_TITLES[r.layer]} · ${mdEscape(where)}*`, "");
      if (r.status === "skip" && r.blockedBy) out.push(`Blocked by ${mdEscape(r.blockedBy)}.`, "");
      else out.push(lines(r.summary).map(mdEscape).join("  \n"), "");
      if (r.evidence.length) {
        out.push("Evidence:", "", ...r.evidence.map((e) => `- ${lines(e).map(mdEscape).join("<br>")}`), "");
      }
      if (r.remediation.length) out.push("**⚑ Fix:**", "", ...mdSteps(r.remediation));
    }
    if (needsRemote.length) out.push(needsRemoteLine(needsRemote), "");
  }

  if (report.active) out.push(...activeMarkdown(report, report.active));

  // Peering dump
  const gaps = (section: ReportSection): string[] =>
    report.incomplete.filter((g) => g.section === section).map((g) =>
      `> **Incomplete:** ${mdEscape(g.reason)}`
    );
  const peeringGaps = gaps("peering");
  if (report.peering || peeringGaps.length) {
    const tables: DumpTable[] = report.peering
      ? [foreignClusterTable(report.peering.foreignClusters), ...report.peering.tables]
      : [];
    out.push("## Peering", "");
    if (peeringGaps.length) out.push(...peeringGaps, "");
    const body: string[] = [];
    for (const t of tables) {
      body.push(`### ${mdEscape(t.title)}`, "");
      body.push(t.rows.length ? mdTable(t.columns, t.rows) : "*none*", "");
    }
    if (body.length) out.push(...folded(tables.map((t) => mdEscape(t.title)).join(", "), body));
  }

  // Cheat sheet
  const sheetGaps = gaps("cheat-sheet");
  if (report.cheatSheet.length || sheetGaps.length) {
    out.push("## Manual test cheat sheet", "");
    if (sheetGaps.length) out.push(...sheetGaps, "");
    const body: string[] = [];
    for (const e of report.cheatSheet) {
      const where = scopeText(e.cluster, e.peer, true);
      body.push(`- **${mdEscape(e.title)}:** ${mdEscape(e.value)}${where ? ` (${mdEscape(where)})` : ""}`);
      if (e.command) body.push("", mdCodeBlock(e.command, "sh", "  "), "");
    }
    if (body.length) {
      out.push(...folded(`${report.cheatSheet.length} values and commands to test by hand`, body));
    }
  }

  // Run metadata
  out.push("## Run", "");
  if (inv) {
    out.push("Command line:", "", mdCodeBlock(inv.commandLine, "sh"), "");
    const where = report.mode === "snapshot" ? "Judged on" : "Probes ran from";
    out.push(`${where}: ${inv.host ? mdInlineCode(inv.host) : "an unknown host (no --allow-sys)"}`, "");
  }
  for (const t of runTables(report)) out.push(mdTable(t.columns, t.rows), "");
  out.push(
    `Generated ${mdEscape(report.generatedAt)} by ${report.tool.name} ${mdEscape(report.tool.version)}` +
      ` (${report.mode}${report.snapshotTakenAt ? `, snapshot ${mdEscape(report.snapshotTakenAt)}` : ""}),` +
      ` report schema v${report.schemaVersion}.`,
  );
  return out.join("\n").replace(/\n{3,}/g, "\n\n") + "\n";
}
