/**
 * Validation of one JSON report (as printed by `flyingfish check -o json`) in every output format:
 *
 * - JSON: `ReportSchema.parse` succeeds, and the document validates against `jsonSchema()` with
 *   {@link validateJsonSchema} — a small validator for the JSON Schema keywords zod emits. It fails
 *   on any keyword it does not implement, so "valid" never means "not looked at"; `format` is
 *   checked for `date-time` only. Re-rendering the parsed report gives the same document.
 * - YAML: parses back to a document deep-equal to the JSON one.
 * - JUnit: well-formed XML (the reporters' own `checkMarkup` checker: balanced tags, quoted
 *   attributes, escaped text), one `<testcase>` per result with the result's ID, one `<failure>`
 *   per failed result, and matching `tests`/`failures` counts (a preflight's verdict: one more).
 * - Markdown: the "All Checks — Summary" table with one row per result, and the diagnosis (its ID
 *   under "## Diagnosis", or "No failure found").
 * - HTML: well-formed, `#diagnosis` with the diagnosed ID, a `#datapath` diagram when there are
 *   peers (not in a preflight: no peering yet), and no external reference (no script, link, src, remote URL or @import).
 * - Text: no escape codes without colour; quiet mode is the count line and the diagnosis only.
 */
import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { jsonSchema, type Report, ReportSchema } from "../../report/model.ts";
import { renderJson } from "../../render/json.ts";
import { renderYaml } from "../../render/yaml.ts";
import { renderJunit } from "../../render/junit.ts";
import { renderMarkdown } from "../../render/markdown.ts";
import { renderHtml } from "../../render/html.ts";
import { MARKS, renderText } from "../../render/text.ts";
import { checkMarkup } from "../support/report_fixture.ts";

/** A JSON Schema (the subset zod's `toJSONSchema` emits). */
export type JsonSchema = boolean | { [keyword: string]: unknown };

/** The preflight verdicts that pass as a JUnit test case. */
const CAN_PEER = new Set(["can-peer", "can-peer-with-changes", "already-peered"]);

const ANNOTATIONS = new Set(["$id", "$schema", "title", "description", "default", "examples", "$comment"]);

const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeMatches(v: unknown, t: string): boolean {
  const actual = typeOf(v);
  if (t === "number") return actual === "number" || actual === "integer";
  return actual === t;
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  if (!ref.startsWith("#")) throw new Error(`unsupported $ref ${ref}`);
  let node: unknown = root;
  for (const part of ref.slice(1).split("/").filter(Boolean)) {
    node = (node as Record<string, unknown>)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node as JsonSchema;
}

/**
 * Validates `value` against a JSON Schema (draft 2020-12) using the keywords zod emits: `type`,
 * `properties`, `required`, `additionalProperties`, `propertyNames`, `items`, `enum`, `const`, `anyOf`, `oneOf`,
 * `allOf`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength`,
 * `minItems`, `maxItems`, `pattern`, `format: date-time`, local `$ref`/`$defs`. Any other keyword
 * is reported as an error rather than ignored. Returns the errors (empty when valid).
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown, root: JsonSchema = schema): string[] {
  const errors: string[] = [];
  visit(schema, value, "$");
  return errors;

  function visit(s: JsonSchema, v: unknown, at: string): void {
    if (s === true) return;
    if (s === false) {
      errors.push(`${at}: no value allowed`);
      return;
    }
    for (const [k, arg] of Object.entries(s)) {
      if (ANNOTATIONS.has(k) || k === "$defs" || k === "definitions") continue;
      switch (k) {
        case "$ref":
          visit(resolveRef(root, String(arg)), v, at);
          break;
        case "type": {
          const types = Array.isArray(arg) ? arg.map(String) : [String(arg)];
          if (!types.some((t) => typeMatches(v, t))) {
            errors.push(`${at}: ${typeOf(v)} is not of type ${types.join("|")}`);
          }
          break;
        }
        case "properties":
          if (typeOf(v) === "object") {
            for (const [p, ps] of Object.entries(arg as Record<string, JsonSchema>)) {
              if (Object.hasOwn(v as object, p)) visit(ps, (v as Record<string, unknown>)[p], `${at}.${p}`);
            }
          }
          break;
        case "required":
          if (typeOf(v) === "object") {
            for (const p of arg as string[]) {
              if (!Object.hasOwn(v as object, p)) errors.push(`${at}: missing required property ${p}`);
            }
          }
          break;
        case "additionalProperties":
          if (typeOf(v) === "object") {
            const known = new Set(Object.keys((s.properties ?? {}) as object));
            for (const [p, pv] of Object.entries(v as Record<string, unknown>)) {
              if (known.has(p)) continue;
              if (arg === false) errors.push(`${at}: unexpected property ${p}`);
              else visit(arg as JsonSchema, pv, `${at}.${p}`);
            }
          }
          break;
        case "propertyNames":
          // Every key of the object, as a string, against the sub-schema (zod's z.record keys).
          if (typeOf(v) === "object") {
            for (const p of Object.keys(v as object)) {
              visit(arg as JsonSchema, p, `${at}{key ${JSON.stringify(p)}}`);
            }
          }
          break;
        case "items":
          if (Array.isArray(v)) v.forEach((x, i) => visit(arg as JsonSchema, x, `${at}[${i}]`));
          break;
        case "enum":
          if (!(arg as unknown[]).some((e) => e === v)) {
            errors.push(`${at}: ${JSON.stringify(v)} not in enum ${JSON.stringify(arg)}`);
          }
          break;
        case "const":
          if (arg !== v) errors.push(`${at}: ${JSON.stringify(v)} is not ${JSON.stringify(arg)}`);
          break;
        case "anyOf":
        case "oneOf": {
          const ok = (arg as JsonSchema[]).filter((sub) =>
            validateJsonSchema(sub, v, root).length === 0
          ).length;
          if (k === "anyOf" ? ok === 0 : ok !== 1) {
            errors.push(`${at}: matches ${ok} of the ${k} alternatives`);
          }
          break;
        }
        case "allOf":
          for (const sub of arg as JsonSchema[]) visit(sub, v, at);
          break;
        case "minimum":
        case "maximum":
        case "exclusiveMinimum":
        case "exclusiveMaximum":
          if (typeof v === "number") {
            const n = Number(arg);
            const ok = k === "minimum"
              ? v >= n
              : k === "maximum"
              ? v <= n
              : k === "exclusiveMinimum"
              ? v > n
              : v < n;
            if (!ok) errors.push(`${at}: ${v} violates ${k} ${n}`);
          }
          break;
        case "minLength":
        case "maxLength":
          if (typeof v === "string") {
            const len = [...v].length;
            if (k === "minLength" ? len < Number(arg) : len > Number(arg)) {
              errors.push(`${at}: length ${len} violates ${k} ${arg}`);
            }
          }
          break;
        case "minItems":
        case "maxItems":
          if (Array.isArray(v) && (k === "minItems" ? v.length < Number(arg) : v.length > Number(arg))) {
            errors.push(`${at}: ${v.length} items violates ${k} ${arg}`);
          }
          break;
        case "pattern":
          if (typeof v === "string" && !new RegExp(String(arg), "u").test(v)) {
            errors.push(`${at}: ${JSON.stringify(v)} does not match pattern`);
          }
          break;
        case "format":
          if (arg !== "date-time") {
            errors.push(`${at}: unsupported format ${arg} (validator does not know it)`);
          } else if (typeof v === "string" && (!RFC3339.test(v) || Number.isNaN(Date.parse(v)))) {
            errors.push(`${at}: ${JSON.stringify(v)} is not an RFC 3339 date-time`);
          }
          break;
        default:
          errors.push(`${at}: unsupported JSON Schema keyword ${k} (validator does not know it)`);
      }
    }
  }
}

/** Lines of the Markdown summary table that are result rows (`| ✓ pass | ID | …`). */
export function markdownResultRows(md: string): string[] {
  const start = md.indexOf("## All Checks — Summary");
  if (start < 0) return [];
  const end = md.indexOf("\n## ", start + 1);
  const section = md.slice(start, end < 0 ? undefined : end);
  const marks = Object.values(MARKS).map((m) => m.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join("|");
  const row = new RegExp(`^\\| (?:${marks}) (?:pass|warn|fail|skip|unknown) \\| `);
  return section.split("\n").filter((l) => row.test(l));
}

/** `<testcase>` start tags of a JUnit document, with their `name` attribute. */
export function junitTestcases(xml: string): { name: string; failed: boolean }[] {
  const out: { name: string; failed: boolean }[] = [];
  const re = /<testcase\b[^>]*\bname="([^"]*)"[^>]*?(\/?)>/g;
  for (const m of xml.matchAll(re)) {
    let failed = false;
    if (m[2] !== "/") {
      const close = xml.indexOf("</testcase>", m.index);
      failed = xml.slice(m.index, close).includes("<failure");
    }
    out.push({ name: m[1], failed });
  }
  return out;
}

/** Finds external references in an HTML document (scripts, links, src, remote URLs, @import). */
export function externalReferences(html: string): string[] {
  const found: string[] = [];
  const patterns: RegExp[] = [
    /<script\b/gi,
    /<link\b/gi,
    /<iframe\b/gi,
    /<img\b/gi,
    /<object\b/gi,
    /<embed\b/gi,
    /\bsrc\s*=/gi,
    /\bhref\s*=\s*(?:"(?!#)|'(?!#)|(?!["'#]))/gi,
    /url\(\s*["']?(?!data:|#)[^)]*\)/gi,
    /@import\b/gi,
  ];
  for (const re of patterns) for (const m of html.matchAll(re)) found.push(m[0]);
  return found;
}

/**
 * Validates one JSON report (the parsed output of `check -o json`) in every format; throws an
 * AssertionError naming the first problem. Returns the schema-parsed report.
 */
export function assertAllFormats(doc: unknown, label = ""): Report {
  const ctx = label ? `${label}: ` : "";
  assert.ok(doc && typeof doc === "object", `${ctx}no JSON report`);

  // JSON: zod schema, JSON Schema, canonical re-rendering.
  const parsed = ReportSchema.safeParse(doc);
  assert.ok(parsed.success, `${ctx}ReportSchema rejects the report: ${parsed.error?.message}`);
  const report = parsed.data;
  const schemaErrors = validateJsonSchema(jsonSchema(), doc);
  assert.deepEqual(schemaErrors, [], `${ctx}report does not validate against jsonSchema()`);
  const json = renderJson(report);
  assert.deepEqual(JSON.parse(json), doc, `${ctx}JSON re-rendering differs from the CLI's document`);

  // YAML.
  assert.deepEqual(parseYaml(renderYaml(report)), doc, `${ctx}YAML does not parse to the same document`);

  // JUnit.
  const xml = renderJunit(report);
  const markup = checkMarkup(xml);
  assert.deepEqual(markup.errors, [], `${ctx}JUnit XML is not well-formed`);
  assert.ok(
    xml.startsWith(`<?xml version="1.0" encoding="UTF-8"?>`),
    `${ctx}JUnit lacks the XML declaration`,
  );
  assert.equal(markup.elements.filter((e) => e === "testsuites").length, 1, `${ctx}one <testsuites>`);
  // A preflight adds one test case, its verdict, failed unless the clusters can peer (or already do).
  const verdict = report.preflight
    ? {
      name: `verdict: ${report.preflight.verdict.replaceAll("-", " ")}`,
      failed: !CAN_PEER.has(report.preflight.verdict),
    }
    : null;
  const all = junitTestcases(xml);
  const cases = all.filter((c) => c.name !== verdict?.name);
  assert.equal(all.length - cases.length, verdict ? 1 : 0, `${ctx}JUnit: the verdict's test case`);
  if (verdict) {
    assert.equal(all.find((c) => c.name === verdict.name)?.failed, verdict.failed, `${ctx}verdict`);
  }
  const extra = verdict ? 1 : 0;
  assert.equal(markup.elements.filter((e) => e === "testcase").length, report.results.length + extra);
  assert.equal(cases.length, report.results.length, `${ctx}JUnit: one testcase per result`);
  const caseIds = cases.map((c) => c.name.split(" ")[0]).sort();
  assert.deepEqual(caseIds, report.results.map((r) => r.id).sort(), `${ctx}JUnit testcase IDs`);
  const fails = report.results.filter((r) => r.status === "fail").length;
  assert.equal(cases.filter((c) => c.failed).length, fails, `${ctx}JUnit: one <failure> per failed result`);
  assert.match(
    xml,
    new RegExp(
      `<testsuites name="flyingfish" tests="${report.results.length + extra}" failures="${
        fails + (verdict?.failed ? 1 : 0)
      }"`,
    ),
  );

  // Markdown.
  const md = renderMarkdown(report);
  assert.ok(md.includes("## All Checks — Summary"), `${ctx}Markdown lacks the summary table`);
  assert.ok(md.includes("| Status | ID | Layer | Cluster | Peer | Result |"), `${ctx}summary table header`);
  const rows = markdownResultRows(md);
  assert.equal(rows.length, report.results.length, `${ctx}Markdown: one summary row per result`);
  rows.forEach((row, i) =>
    assert.ok(row.includes(` | ${report.results[i].id} | `), `${ctx}row ${i}: ${row}`)
  );
  const diagSection = md.slice(md.indexOf("## Diagnosis"), md.indexOf("## All Checks"));
  if (report.diagnosis) {
    assert.ok(
      diagSection.includes(`**${MARKS.fail} ${report.diagnosis.id}**`),
      `${ctx}Markdown diagnosis lacks ${report.diagnosis.id}:\n${diagSection}`,
    );
  } else {
    assert.match(diagSection, /No failure found/, `${ctx}Markdown diagnosis`);
  }

  // HTML.
  const html = renderHtml(report);
  assert.deepEqual(checkMarkup(html, true).errors, [], `${ctx}HTML is not well-formed`);
  assert.deepEqual(externalReferences(html), [], `${ctx}HTML has external references`);
  assert.match(html, /<section id="diagnosis"/);
  if (report.diagnosis) {
    assert.ok(html.includes(`data-check="${report.diagnosis.id}"`), `${ctx}HTML diagnosis`);
  }
  // A preflight has no data path yet: its verdict heads the page instead of the diagram.
  if (report.peers.length && !report.preflight) {
    assert.match(html, /<svg id="datapath"/, `${ctx}HTML data-path diagram`);
  }

  // Text.
  const plain = renderText(report, { color: false, verbose: true, quiet: false });
  assert.ok(!plain.includes("\x1b"), `${ctx}text without colour contains escape codes`);
  for (const r of report.results) assert.ok(plain.includes(` ${r.id} `), `${ctx}text lacks ${r.id}`);
  const quietAll = renderText(report, { color: false, verbose: false, quiet: true }).trimEnd().split("\n");
  // A preflight's quiet output ends with its verdict (and the liqoctl line): judged apart.
  const verdictAt = quietAll.findIndex((l) => /^ \S verdict: /.test(l));
  assert.equal(verdictAt > 0, report.preflight !== undefined, `${ctx}quiet: the verdict iff a preflight`);
  const quiet = verdictAt > 0 ? quietAll.slice(0, verdictAt).slice(0, -1) : quietAll;
  if (verdictAt > 0) assert.equal(quietAll[verdictAt - 1], "", `${ctx}quiet: the verdict after a blank line`);
  assert.match(quiet[0], /^ \d+ passed ⋅ /, `${ctx}quiet: count line first`);
  if (report.diagnosis) assert.ok(quiet[2].includes(`diagnosis ${MARKS.fail} ${report.diagnosis.id}`));
  else assert.match(quiet[2], /no failure found/);
  // After the count line: the diagnosis and its first fix step, wrapped (continuations indented), never cut.
  assert.ok(
    quiet.slice(3).every((l) => /^ {11}/.test(l)),
    `${ctx}quiet output is the count line and the diagnosis (with its fix) only`,
  );
  if (report.diagnosis) {
    const words = (t: string) => t.split(/\s+/).filter(Boolean).join(" ");
    const summary = words(report.diagnosis.summary.split("\n")[0]);
    assert.ok(words(quiet.join(" ")).includes(summary), `${ctx}quiet cuts nothing of the diagnosis`);
  }
  return report;
}
