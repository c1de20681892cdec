/**
 * `flyingfish diff` in the other formats of `check`: JSON and YAML (the diff document), JUnit (one
 * test case per transition; a newly failing check is a failure), HTML (a self-contained page), and
 * the dispatch. They see only the diff model.
 */
import { stringify } from "yaml";
import type { DiffReport } from "../report/diff_schema.ts";
import { xmlAttr, xmlText } from "./junit.ts";
import type { Format } from "./render.ts";
import { type DiffTextOptions, renderDiffMarkdown, renderDiffText } from "./diff_text.ts";
import { renderDiffHtml } from "./diff_html.ts";

/** The diff as JSON. */
export function renderDiffJson(d: DiffReport): string {
  return JSON.stringify(d, null, 2) + "\n";
}

/** The diff as YAML (the same document). */
export function renderDiffYaml(d: DiffReport): string {
  return stringify(d, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/** The JUnit test cases of a diff: one per transition (a newly failing check fails), one per object. */
export function diffJunitCases(d: DiffReport): { cases: string[]; failures: number } {
  const cases = d.transitions.map((t) => {
    const name = xmlAttr(`${t.id} ${t.cluster}${t.peer ? ` ${t.peer}` : ""}`);
    const body = `${t.from ?? "absent"} → ${t.to ?? "absent"}: ${t.summary}${
      t.downstreamOf ? ` (downstream of ${t.downstreamOf})` : ""
    }`;
    return t.kind === "newly-failing"
      ? `    <testcase classname="diff.${t.layer}" name="${name}"><failure message="${xmlAttr(body)}">${
        xmlText(body)
      }</failure></testcase>`
      : `    <testcase classname="diff.${t.layer}" name="${name}"><system-out>${
        xmlText(body)
      }</system-out></testcase>`;
  });
  const objects = d.objects.map((o) =>
    `    <testcase classname="diff.objects.${o.layer}" name="${
      xmlAttr(`${o.kind} ${o.namespace ?? ""}/${o.name}`)
    }"><system-out>${
      xmlText([
        o.summary,
        ...o.fields.map((f) => `${f.path}: ${f.before ?? "(none)"} → ${f.after ?? "(none)"}`),
      ].join("\n"))
    }</system-out></testcase>`
  );
  return {
    cases: [...cases, ...objects],
    failures: d.transitions.filter((t) => t.kind === "newly-failing").length,
  };
}

/** The diff as JUnit XML: a CI job fails on a newly failing check, names it, and lists the changes. */
export function renderDiffJunit(d: DiffReport): string {
  const { cases: all, failures } = diffJunitCases(d);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="flyingfish diff" tests="${all.length}" failures="${failures}">`,
    `  <testsuite name="flyingfish diff" tests="${all.length}" failures="${failures}">`,
    ...all,
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}

/** Renders the diff in `format` (`opts` only affects text). */
export function renderDiff(d: DiffReport, format: Format, opts: DiffTextOptions): string {
  switch (format) {
    case "text":
      return renderDiffText(d, opts);
    case "json":
      return renderDiffJson(d);
    case "yaml":
      return renderDiffYaml(d);
    case "markdown":
      return renderDiffMarkdown(d);
    case "junit":
      return renderDiffJunit(d);
    case "html":
      return renderDiffHtml(d);
  }
}
