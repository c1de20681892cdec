/**
 * The JUnit XML reporter (`-o junit`) for CI: one `<testsuite>` per layer (per layer, cluster and
 * peer when the run covers several), one `<testcase>` per result. Fail → `<failure>`; warn → a
 * passing test case with the warning in `<system-out>`; skip and unknown → `<skipped>`.
 */
import type { ReportResult as CheckResult } from "../report/model.ts";
import { remediationLines } from "../report/remediation.ts";
import { preflightJunit, verdictPasses } from "./preflight.ts";
import { LAYER_TITLES, LAYERS } from "../report/model.ts";
import { type Report, varyingScopes } from "../report/model.ts";

// Characters XML 1.0 does not allow at all, plus lone surrogates.
const INVALID_XML =
  // deno-lint-ignore no-control-regex
  /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Escapes element text: `& < >`, invalid XML characters replaced with U+FFFD. */
export function xmlText(s: string): string {
  return s.replace(INVALID_XML, "\uFFFD").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escapes an attribute value (double-quoted): as `xmlText`, plus quotes and whitespace as references. */
export function xmlAttr(s: string): string {
  return xmlText(s)
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function details(r: CheckResult): string {
  const out = [r.summary, ...r.evidence.map((e) => `· ${e}`)];
  out.push(...remediationLines(r.remediation).map((l) => `⚑ ${l}`));
  return out.join("\n");
}

function testcase(r: CheckResult, label: string): string {
  const name = `${r.id} ${r.title}${label ? ` [${label}]` : ""}`;
  const open = `    <testcase classname="flyingfish.${r.layer}" name="${xmlAttr(name)}" time="${
    seconds(r.durationMs)
  }"`;
  switch (r.status) {
    case "pass":
      return `${open}/>`;
    case "fail":
      return `${open}>\n      <failure message="${xmlAttr(r.summary)}" type="fail">${
        xmlText(details(r))
      }</failure>\n` +
        `    </testcase>`;
    case "warn":
      return `${open}>\n      <system-out>${xmlText(`WARNING: ${details(r)}`)}</system-out>\n    </testcase>`;
    case "skip": {
      const msg = r.blockedBy ? `blocked by ${r.blockedBy}` : r.summary;
      return `${open}>\n      <skipped message="${xmlAttr(msg)}"/>\n    </testcase>`;
    }
    case "unknown":
      return `${open}>\n      <skipped message="${xmlAttr(`unknown: ${r.summary}`)}"/>\n` +
        `      <system-out>${xmlText(details(r))}</system-out>\n    </testcase>`;
  }
}

/** Renders the report as JUnit XML (ends with a newline). */
export function renderJunit(report: Report): string {
  const scopes = varyingScopes(report.results);
  const labelOf = (r: CheckResult) =>
    [scopes.cluster ? r.cluster : null, scopes.peer && r.peer !== null ? r.peer : null].filter((x) => x).join(
      "/",
    );
  const suites = new Map<string, { name: string; results: CheckResult[] }>();
  for (const layer of LAYERS) {
    for (const r of report.results.filter((x) => x.layer === layer)) {
      const label = labelOf(r);
      const key = `${layer}\u0000${label}`;
      if (!suites.has(key)) {
        suites.set(key, { name: `${LAYER_TITLES[layer]}${label ? ` [${label}]` : ""}`, results: [] });
      }
      suites.get(key)!.results.push(r);
    }
  }
  const count = (rs: CheckResult[], pred: (r: CheckResult) => boolean) => rs.filter(pred).length;
  const isSkipped = (r: CheckResult) => r.status === "skip" || r.status === "unknown";
  const all = report.results;
  const out = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="flyingfish" tests="${all.length + (report.preflight ? 1 : 0)}" failures="${
      count(all, (r) => r.status === "fail") + (report.preflight && !verdictPasses(report.preflight) ? 1 : 0)
    }"` +
    ` errors="${report.stopped ? 1 : 0}" skipped="${count(all, isSkipped)}" time="${
      seconds(report.durationMs)
    }"` +
    ` timestamp="${xmlAttr(report.generatedAt)}">`,
  ];
  if (report.stopped) {
    // A run that did not finish is an error of the run itself, whatever its results say.
    out.push(
      `  <testsuite name="RUN" tests="1" failures="0" errors="1" skipped="0" time="0" timestamp="${
        xmlAttr(report.generatedAt)
      }">`,
      `    <testcase classname="RUN" name="the run finished" time="0">`,
      `      <error message="${xmlAttr(`run not finished: ${report.stopped.message}`)}"/>`,
      `    </testcase>`,
      `  </testsuite>`,
    );
  }
  if (report.preflight) out.push(...preflightJunit(report.preflight, xmlAttr, xmlText));
  for (const { name, results } of suites.values()) {
    const time = results.reduce((t, r) => t + r.durationMs, 0);
    out.push(
      `  <testsuite name="${xmlAttr(name)}" tests="${results.length}"` +
        ` failures="${count(results, (r) => r.status === "fail")}" errors="0"` +
        ` skipped="${count(results, isSkipped)}" time="${seconds(time)}" timestamp="${
          xmlAttr(report.generatedAt)
        }">`,
    );
    for (const r of results) out.push(testcase(r, labelOf(r)));
    out.push(`  </testsuite>`);
  }
  out.push(`</testsuites>`);
  return out.join("\n") + "\n";
}
