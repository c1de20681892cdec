/**
 * `flyingfish diff` of two fleets in every format of `check`: the summary of every edge first (the
 * worst first), then each changed edge's own diff as the single diff prints it, then the clusters
 * that came or went. They see only the fleet diff model.
 */
import { stringify } from "yaml";
import type { FleetDiffEdge, FleetDiffEdgeState, FleetDiffReport } from "../report/fleet_diff.ts";
import { createColors } from "./colors.ts";
import { diffJunitCases } from "./diff_formats.ts";
import { diffHtmlSection } from "./diff_html.ts";
import { type DiffTextOptions, renderDiffMarkdown, renderDiffText } from "./diff_text.ts";
import { xmlAttr, xmlText } from "./junit.ts";
import type { Format } from "./render.ts";
import { PIPE_WIDTH, wrapWords } from "./wrap.ts";

const VERDICT: Record<string, string> = { pass: "✓", warn: "!", fail: "✗", unknown: "?" };

const state = (s: FleetDiffEdgeState | null): string =>
  s === null
    ? "absent"
    : `${VERDICT[s.verdict] ?? ""} ${s.verdict}${s.firstBroken ? ` (${s.firstBroken})` : ""}`;

function edgeLine(e: FleetDiffEdge): string {
  const what = e.exitCode === 0
    ? "nothing that matters changed"
    : e.diff?.answer
    ? `newly fails: ${e.diff.answer.id} ${e.diff.answer.summary}`
    : e.changes[0] ?? "changed";
  return `${e.id} [${e.change}] ${state(e.before)} → ${state(e.after)}: ${what}`;
}

/** The fleet diff as text, wrapped to `opts.width`. */
export function renderFleetDiffText(d: FleetDiffReport, opts: DiffTextOptions): string {
  const c = createColors(opts.color);
  const width = opts.width ?? PIPE_WIDTH;
  const out: string[] = [];
  const put = (line: string, rest: number) =>
    out.push(...wrapWords(line, width, { first: "", rest: " ".repeat(rest) }));
  put(
    ` before ${d.before.label} [${d.before.mode}, ${d.before.takenAt}] — fleet exit ${d.before.exitCode}`,
    3,
  );
  put(` after  ${d.after.label} [${d.after.mode}, ${d.after.takenAt}] — fleet exit ${d.after.exitCode}`, 3);
  out.push("", c.bold(" EDGES"));
  for (const e of d.edges) {
    put(`  ${e.exitCode === 2 ? "✗" : e.exitCode === 1 ? "~" : "="} ${edgeLine(e)}`, 6);
  }
  out.push("");
  for (const e of d.edges.filter((x) => x.exitCode > 0)) {
    out.push(c.bold(` EDGE ${e.id}`));
    for (const ch of e.changes) put(`  ${ch}`, 4);
    if (e.diff) {
      const inner = renderDiffText(e.diff, { ...opts, width: width - 2 }).trimEnd().split("\n");
      out.push(...inner.map((l) => (l ? `  ${l}` : l)));
    }
    out.push("");
  }
  const moved = d.clusters.filter((x) => x.exitCode > 0);
  if (moved.length) {
    out.push(c.bold(" CLUSTERS"));
    for (const x of moved) {
      const how = x.change === "kept"
        ? (x.after?.error
          ? `unreadable now: ${x.after.error}`
          : x.diff
          ? "judged alone: changed"
          : "read again")
        : x.change;
      put(`  ${x.name}: ${how}`, 4);
      if (x.diff && x.diff.exitCode > 0) {
        const inner = renderDiffText(x.diff, { ...opts, width: width - 2 }).trimEnd().split("\n");
        out.push(...inner.map((l) => (l ? `  ${l}` : l)));
      }
    }
    out.push("");
  }
  for (const n of d.notes) out.push(...wrapWords(`note: ${n}`, width, { first: " ", rest: "       " }));
  if (d.notes.length) out.push("");
  out.push(" ────────────────────────────────────────");
  const s = d.summary;
  put(
    ` ${s.edges} edge(s) ⋅ ${s.newlyFailing} newly failing ⋅ ${s.changed} changed ⋅ ${s.edgesAdded} added ⋅ ${s.edgesRemoved} gone ⋅ ${s.clustersAdded} cluster(s) added ⋅ ${s.clustersRemoved} gone`,
    1,
  );
  out.push(
    d.exitCode === 0
      ? " nothing that matters changed"
      : d.exitCode === 1
      ? " changed, but nothing newly fails"
      : ` newly failing: ${d.edges.filter((e) => e.exitCode === 2).map((e) => e.id).join(", ")}`,
  );
  return out.join("\n") + "\n";
}

/** The fleet diff as Markdown: the edge table, then each changed edge's diff one heading down. */
export function renderFleetDiffMarkdown(d: FleetDiffReport): string {
  const md = (s: string): string => s.replace(/([|\\`*_[\]<>])/g, "\\$1").replace(/\n/g, " ");
  const out = ["# FlyingFish fleet diff", "", `- **before**: ${md(d.before.label)} (${d.before.takenAt})`];
  out.push(`- **after**: ${md(d.after.label)} (${d.after.takenAt})`, "");
  out.push("| edge | change | before | after | exit |", "|---|---|---|---|---|");
  for (const e of d.edges) {
    out.push(
      `| ${md(e.id)} | ${e.change} | ${md(state(e.before))} | ${md(state(e.after))} | ${e.exitCode} |`,
    );
  }
  out.push("");
  for (const e of d.edges.filter((x) => x.exitCode > 0)) {
    out.push(`## Edge ${md(e.id)}`, "", ...e.changes.map((ch) => `- ${md(ch)}`), "");
    if (e.diff) {
      out.push(
        ...renderDiffMarkdown(e.diff).split("\n").slice(2).map((l) => (l.startsWith("#") ? `##${l}` : l)),
      );
    }
  }
  for (const n of d.notes) out.push(`> note: ${md(n)}`);
  out.push("", `exit ${d.exitCode}`);
  return out.join("\n") + "\n";
}

/** The fleet diff as JUnit XML: one test suite per edge (a newly failing edge has a failure). */
export function renderFleetDiffJunit(d: FleetDiffReport): string {
  let tests = 0, failures = 0;
  const suites = d.edges.map((e) => {
    const inner = e.diff ? diffJunitCases(e.diff) : { cases: [], failures: 0 };
    const own = e.changes.map((ch) =>
      e.exitCode === 2 && !e.diff?.answer
        ? `    <testcase classname="fleet-diff.edge" name="${xmlAttr(ch)}"><failure message="${
          xmlAttr(ch)
        }">${xmlText(ch)}</failure></testcase>`
        : `    <testcase classname="fleet-diff.edge" name="${xmlAttr(ch)}"/>`
    );
    const cases = [...own, ...inner.cases];
    const f = inner.failures + (e.exitCode === 2 && !e.diff?.answer ? own.length : 0);
    tests += cases.length;
    failures += f;
    return [
      `  <testsuite name="${xmlAttr(`${e.id} [${e.change}]`)}" tests="${cases.length}" failures="${f}">`,
      ...cases,
      `  </testsuite>`,
    ].join("\n");
  });
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="flyingfish fleet diff" tests="${tests}" failures="${failures}">`,
    ...suites,
    `</testsuites>`,
    "",
  ].join("\n");
}

/** The fleet diff as one self-contained HTML page: the edge table, then each changed edge's diff. */
export function renderFleetDiffHtml(d: FleetDiffReport): string {
  const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const e = (s: string) => s.replace(/[&<>"']/g, (ch) => ESC[ch]);
  const rows = d.edges.map((x) =>
    `<tr${x.exitCode === 2 ? ' class="fail"' : ""}><td>${e(x.id)}</td><td>${x.change}</td><td>${
      e(state(x.before))
    }</td><td>${e(state(x.after))}</td><td>${x.exitCode}</td></tr>`
  ).join("");
  const parts = [
    `<h1>FlyingFish fleet diff</h1>`,
    `<p>before: ${e(d.before.label)} (${e(d.before.takenAt)})<br>after: ${e(d.after.label)} (${
      e(d.after.takenAt)
    })</p>`,
    `<table><tr><th>edge</th><th>change</th><th>before</th><th>after</th><th>exit</th></tr>${rows}</table>`,
  ];
  for (const x of d.edges.filter((y) => y.exitCode > 0)) {
    parts.push(
      `<h2>Edge ${e(x.id)}</h2>`,
      x.changes.length ? `<ul>${x.changes.map((ch) => `<li>${e(ch)}</li>`).join("")}</ul>` : "",
    );
    if (x.diff) parts.push(diffHtmlSection(x.diff));
  }
  for (const n of d.notes) parts.push(`<p>note: ${e(n)}</p>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>FlyingFish fleet diff</title><style>` +
    `body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}` +
    `td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}.fail{color:#b00}` +
    `</style></head><body>${parts.join("\n")}<p>exit ${d.exitCode}</p></body></html>\n`;
}

/** Renders the fleet diff in `format` (`opts` only affects text). */
export function renderFleetDiff(d: FleetDiffReport, format: Format, opts: DiffTextOptions): string {
  switch (format) {
    case "text":
      return renderFleetDiffText(d, opts);
    case "json":
      return JSON.stringify(d, null, 2) + "\n";
    case "yaml":
      return stringify(d, { aliasDuplicateObjects: false, lineWidth: 0 });
    case "markdown":
      return renderFleetDiffMarkdown(d);
    case "junit":
      return renderFleetDiffJunit(d);
    case "html":
      return renderFleetDiffHtml(d);
  }
}
