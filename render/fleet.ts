/**
 * The fleet renderers: the fleet summary first (clusters, edges by class and verdict, the first
 * broken link of each broken edge), then each edge in detail — text, JSON/YAML (the fleet document,
 * keyed by edge), Markdown tables, JUnit (one suite per edge). The HTML graph is render/fleet_html.ts.
 * They see only the report model.
 */
import { stringify } from "yaml";
import { canonical, type Report } from "../report/model.ts";
import type { EdgeVerdict, FleetEdge, FleetReport } from "../report/fleet.ts";
import { renderText, type TextOptions } from "./text.ts";
import { mdSteps } from "./markdown.ts";
import { xmlAttr, xmlText } from "./junit.ts";
import { renderFleetHtml } from "./fleet_html.ts";

/** The formats a fleet run prints. */
export type FleetFormat = "text" | "json" | "yaml" | "markdown" | "junit" | "html";

/** Renders a fleet report in `format` (`opts` only affects text). */
export function renderFleet(report: FleetReport, format: FleetFormat, opts: TextOptions): string {
  switch (format) {
    case "text":
      return renderFleetText(report, opts);
    case "json":
      return JSON.stringify(fleetDocument(report), null, 2) + "\n";
    case "yaml":
      return stringify(fleetDocument(report), { aliasDuplicateObjects: false, lineWidth: 0 });
    case "markdown":
      return renderFleetMarkdown(report);
    case "junit":
      return renderFleetJunit(report);
    case "html":
      return renderFleetHtml(report);
  }
}

/** The document with every nested report in schema order. */
export function fleetDocument(report: FleetReport): FleetReport {
  const c = (r: Report | null) => (r ? canonical(r) : null);
  return {
    ...report,
    clusters: report.clusters.map((x) => ({ ...x, report: c(x.report) })),
    edges: Object.fromEntries(
      Object.entries(report.edges).map(([k, e]) => [k, { ...e, report: c(e.report) }]),
    ),
  };
}

const MARK: Record<EdgeVerdict, string> = { pass: "✓", warn: "!", fail: "✗", unknown: "?" };
const ANSI: Record<EdgeVerdict, string> = { pass: "32", warn: "33", fail: "31", unknown: "35" };

/** The edges, worst first (the document's order). */
export function edgesOf(report: FleetReport): FleetEdge[] {
  return Object.values(report.edges);
}

/** The summary lines (shared by text and the CLI's stderr header). */
export function fleetSummaryLines(report: FleetReport, color = false): string[] {
  const paint = (v: EdgeVerdict, s: string) => (color ? `\x1b[${ANSI[v]}m${s}\x1b[0m` : s);
  const s = report.summary;
  const out: string[] = [];
  out.push(
    `FLEET  ${s.clusters} cluster${s.clusters === 1 ? "" : "s"} from ${s.contexts} context${
      s.contexts === 1 ? "" : "s"
    }${s.unreadable ? ` (${s.unreadable} unreadable)` : ""} · ${s.edges} edge${s.edges === 1 ? "" : "s"}: ` +
      Object.entries(s.byClass).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(", "),
  );
  out.push(
    `       verdicts: ${s.byVerdict.pass} pass · ${s.byVerdict.warn} warn · ${s.byVerdict.fail} fail · ${s.byVerdict.unknown} unknown`,
  );
  out.push("");
  out.push(" CLUSTERS");
  for (const c of report.clusters) {
    const via = c.context ? `via ${c.context}` : `via ${c.contexts.join(", ")}`;
    if (c.error) out.push(`  ${paint("unknown", "?")} ${c.name}  ${via}: ${c.error}`);
    else {
      const id = c.identity === "cluster-id" ? "" : " (no Liqo cluster ID: told apart by API server + CA)";
      out.push(
        `  ${paint("pass", "●")} ${c.name}  ${via}${id}${c.liqoVersion ? ` · Liqo ${c.liqoVersion}` : ""}`,
      );
    }
    if (c.chosenBecause) out.push(`      ${c.chosenBecause}`);
  }
  out.push("");
  out.push(" EDGES");
  for (const e of edgesOf(report)) {
    out.push(`  ${paint(e.verdict, MARK[e.verdict])} ${e.id}  [${e.class}]`);
    if (e.firstBroken && e.verdict !== "pass") {
      out.push(
        `      first broken link: ${e.firstBroken.id}${
          e.firstBroken.cluster ? ` on ${e.firstBroken.cluster}` : ""
        }: ${e.firstBroken.summary}`,
      );
    } else if (e.class !== "paired") out.push(`      ${e.reason}`);
  }
  return out;
}

function renderFleetText(report: FleetReport, opts: TextOptions): string {
  const out = fleetSummaryLines(report, opts.color);
  for (const e of edgesOf(report)) {
    out.push("", `══ ${e.id}  [${e.class}] ${e.verdict} ${"═".repeat(Math.max(2, 60 - e.id.length))}`);
    out.push(` ${e.reason}`);
    if (e.network.server || e.network.client) {
      out.push(
        ` network: GatewayServer on ${e.network.server ?? "?"}, GatewayClient on ${e.network.client ?? "?"}`,
      );
    }
    if (e.finding) {
      out.push(` ${MARK[e.finding.status]} ${e.finding.id}  ${e.finding.summary}`);
      for (const ev of e.finding.evidence) out.push(`     · ${ev}`);
      for (const st of e.finding.remediation) {
        if (st.comment) out.push(`     ⚑ # ${st.comment}`);
        out.push(`       ${st.command}`);
      }
    }
    if (e.report && !opts.quiet) out.push(renderText(e.report, opts).replace(/\n+$/, ""));
  }
  for (const c of report.clusters) {
    if (!c.report) continue;
    out.push("", `══ ${c.name}  [on no edge: judged alone] ${"═".repeat(20)}`);
    out.push(renderText(c.report, opts).replace(/\n+$/, ""));
  }
  out.push("", ` fleet exit code ${report.exitCode} (${(report.durationMs / 1000).toFixed(1)}s)`);
  return out.join("\n") + "\n";
}

const md = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function renderFleetMarkdown(report: FleetReport): string {
  const s = report.summary;
  const out: string[] = [`# FlyingFish fleet report`, ""];
  out.push(
    `${s.clusters} clusters, ${s.edges} edges — ${s.byVerdict.pass} pass, ${s.byVerdict.warn} warn, ` +
      `${s.byVerdict.fail} fail, ${s.byVerdict.unknown} unknown · exit code ${report.exitCode}`,
    "",
    "## Clusters",
    "",
    "| Cluster | Context | Other contexts | Liqo | Status |",
    "| --- | --- | --- | --- | --- |",
  );
  for (const c of report.clusters) {
    out.push(
      `| ${md(c.name)} | ${md(c.context ?? "—")} | ${md(c.contexts.slice(1).join(", ") || "—")} | ${
        md(c.liqoVersion ?? "—")
      } | ${md(c.error ? `unreadable: ${c.error}` : c.chosenBecause ?? "read")} |`,
    );
  }
  out.push("", "## Edges", "", "| Verdict | Edge | Class | First broken link |", "| --- | --- | --- | --- |");
  for (const e of edgesOf(report)) {
    out.push(
      `| ${MARK[e.verdict]} ${e.verdict} | ${md(e.id)} | ${e.class} | ${
        md(e.firstBroken && e.verdict !== "pass" ? `${e.firstBroken.id}: ${e.firstBroken.summary}` : e.reason)
      } |`,
    );
  }
  for (const e of edgesOf(report)) {
    out.push("", `### ${md(e.id)} (${e.class}, ${e.verdict})`, "", md(e.reason), "");
    if (e.finding) {
      out.push(`**${e.finding.id}** ${md(e.finding.summary)}`, "");
      for (const ev of e.finding.evidence) out.push(`- ${md(ev)}`);
      out.push("", ...mdSteps(e.finding.remediation));
    }
    if (e.report) {
      const bad = e.report.results.filter((r) =>
        r.status === "fail" || r.status === "warn" || r.status === "unknown"
      );
      out.push(
        "",
        `${e.report.summary.pass} passed · ${e.report.summary.warn} warnings · ${e.report.summary.fail} failed · ` +
          `${e.report.summary.skip} skipped · ${e.report.summary.unknown} unknown`,
      );
      if (bad.length) {
        out.push("", "| Status | Check | Cluster | Peer | Result |", "| --- | --- | --- | --- | --- |");
        for (const r of bad) {
          out.push(`| ${r.status} | ${r.id} | ${md(r.cluster)} | ${md(r.peer ?? "—")} | ${md(r.summary)} |`);
        }
      }
    }
  }
  return out.join("\n") + "\n";
}

function renderFleetJunit(report: FleetReport): string {
  const edges = edgesOf(report);
  const cases = (e: FleetEdge) => {
    const out: string[] = [];
    if (e.finding) {
      const body = xmlText([e.finding.summary, ...e.finding.evidence].join("\n"));
      out.push(
        `    <testcase classname="${xmlAttr(e.id)}" name="${e.finding.id}" time="0">` +
          (e.finding.status === "fail"
            ? `\n      <failure message="${xmlAttr(e.finding.summary)}">${body}</failure>\n    </testcase>`
            : `\n      <skipped message="${
              xmlAttr(`${e.finding.status}: ${e.finding.summary}`)
            }"/>\n    </testcase>`),
      );
    }
    for (const r of e.report?.results ?? []) {
      const name = xmlAttr(`${r.id} ${r.cluster}${r.peer ? ` → ${r.peer}` : ""}`);
      const open = `    <testcase classname="${xmlAttr(e.id)}" name="${name}" time="${
        (r.durationMs / 1000).toFixed(3)
      }"`;
      if (r.status === "pass") out.push(`${open}/>`);
      else if (r.status === "fail") {
        out.push(
          `${open}>\n      <failure message="${xmlAttr(r.summary)}">${
            xmlText(r.evidence.join("\n"))
          }</failure>\n    </testcase>`,
        );
      } else if (r.status === "warn") {
        out.push(
          `${open}>\n      <system-out>${xmlText(`warning: ${r.summary}`)}</system-out>\n    </testcase>`,
        );
      } else {out.push(
          `${open}>\n      <skipped message="${xmlAttr(`${r.status}: ${r.summary}`)}"/>\n    </testcase>`,
        );}
    }
    return out;
  };
  const lines = [`<?xml version="1.0" encoding="UTF-8"?>`];
  const all = edges.map((e) => ({ e, cs: cases(e) }));
  const failures = (e: FleetEdge) =>
    (e.report?.results.filter((r) => r.status === "fail").length ?? 0) +
    (e.finding?.status === "fail" ? 1 : 0);
  const tests = (x: { cs: string[] }) => x.cs.length;
  lines.push(
    `<testsuites name="flyingfish fleet" tests="${all.reduce((n, x) => n + tests(x), 0)}" failures="${
      edges.reduce((n, e) => n + failures(e), 0)
    }" errors="${report.summary.unreadable}" time="${(report.durationMs / 1000).toFixed(3)}" timestamp="${
      xmlAttr(report.generatedAt)
    }">`,
  );
  for (const c of report.clusters.filter((c) => c.error)) {
    lines.push(
      `  <testsuite name="${
        xmlAttr(`cluster ${c.name}`)
      }" tests="1" failures="0" errors="1" skipped="0" time="0">`,
      `    <testcase classname="${xmlAttr(c.name)}" name="the cluster could be read" time="0">`,
      `      <error message="${xmlAttr(c.error!)}"/>`,
      `    </testcase>`,
      `  </testsuite>`,
    );
  }
  for (const { e, cs } of all) {
    lines.push(
      `  <testsuite name="${xmlAttr(`${e.id} [${e.class}]`)}" tests="${cs.length}" failures="${
        failures(e)
      }" errors="0" ` +
        `skipped="${cs.filter((c) => c.includes("<skipped")).length}" time="0">`,
      ...cs,
      `  </testsuite>`,
    );
  }
  lines.push(`</testsuites>`);
  return lines.join("\n") + "\n";
}
