/**
 * The JSON reporter (`-o json`): the report document, keys in schema order, 2-space indent — exactly
 * `JSON.stringify(canonical(report), null, 2)` + "\n", printed in pieces ({@link jsonChunks}): each
 * top-level value, and each element of the long arrays, on its own, so the CLI streams a report over
 * thousands of peers instead of building it as one string beside a second copy of the report.
 */
import { canonicalEntries, type Report } from "../report/model.ts";

/** Renders the report as JSON (ends with a newline). */
export function renderJson(report: Report): string {
  return [...jsonChunks(report)].join("");
}

/** JSON.stringify(value, null, 2) printed `indent` deep: every line after the first indented by it. */
function nested(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replaceAll("\n", `\n${indent}`);
}

/** The JSON document of `report` in pieces, in order: their concatenation is {@link renderJson}. */
export function* jsonChunks(report: Report): Generator<string> {
  let first = true;
  yield "{";
  for (const entry of canonicalEntries(report)) {
    const head = `${first ? "" : ","}\n  ${JSON.stringify(entry.key)}: `;
    first = false;
    if ("value" in entry) {
      yield head + nested(entry.value, "  ");
      continue;
    }
    if (entry.length === 0) {
      yield `${head}[]`;
      continue;
    }
    yield `${head}[`;
    let i = 0;
    for (const element of entry.elements) {
      // As JSON.stringify prints an array element it cannot represent.
      yield `${i++ === 0 ? "" : ","}\n    ${element === undefined ? "null" : nested(element, "    ")}`;
    }
    yield "\n  ]";
  }
  yield first ? "}\n" : "\n}\n";
}
