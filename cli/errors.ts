/**
 * How a tool error reaches the user: one line on stderr (the errors themselves live in the ground
 * floor's errors.ts, so every layer can raise them).
 */
import { oneLine, PermissionError, type ToolError } from "../errors.ts";

/** Formats a tool error as the single line printed to stderr. */
export function formatToolError(e: ToolError): string {
  if (e instanceof PermissionError) {
    // The task grants every permission a run needs except FFI (opt-in: it bypasses the net sandbox).
    const task = e.flag.startsWith("--allow-ffi") ? "" : " or use the `deno task flyingfish` task";
    return `flyingfish: missing Deno permission ${e.flag} (needed to ${e.purpose}). Run with ${e.flag}${task}.`;
  }
  return `flyingfish: ${oneLine(e.message)}`;
}

/** Output formats that get a document on stdout even when the run fails (exit 3). */
export const DOCUMENT_FORMATS = ["json", "yaml", "junit"] as const;

/** A format with an error document. */
export type DocumentFormat = typeof DOCUMENT_FORMATS[number];

/** Commands whose `-o` is an output format with error documents. */
const FORMAT_COMMANDS = new Set(["check", "demo", "checks", "probe"]);

/**
 * The `-o` format a command line asks for, read from the raw arguments (a usage error happens before
 * commander has parsed anything), when it is one with an error document; else null.
 */
export function requestedDocumentFormat(args: readonly string[]): DocumentFormat | null {
  const command = args.find((a) => !a.startsWith("-"));
  if (!command || !FORMAT_COMMANDS.has(command)) return null;
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") break;
    if (a === "-o" || a === "--output") value = args[i + 1];
    else if (a.startsWith("--output=")) value = a.slice("--output=".length);
    else if (/^-o[^-]/.test(a)) value = a.slice(2).replace(/^=/, "");
  }
  return DOCUMENT_FORMATS.find((f) => f === value) ?? null;
}

/**
 * The document printed on stdout for a tool error in a machine format: the JSON or YAML error
 * document of the published schema (report/error_doc.ts), or a JUnit file with one errored test
 * case, so a CI job shows the reason instead of an empty or unparsable file.
 */
export async function errorDocumentText(
  format: DocumentFormat,
  message: string,
  permission: string | null,
): Promise<string> {
  const [{ errorDocument }, { VERSION }] = await Promise.all([
    import("../report/error_doc.ts"),
    import("../version.ts"),
  ]);
  const doc = errorDocument(message, VERSION, permission);
  if (format === "json") return JSON.stringify(doc, null, 2) + "\n";
  if (format === "yaml") {
    const { stringify } = await import("yaml");
    return stringify(doc, { lineWidth: 0 });
  }
  const m = xmlEscape(message);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="flyingfish" tests="1" failures="0" errors="1">`,
    `  <testsuite name="flyingfish" tests="1" failures="0" errors="1" skipped="0" timestamp="${doc.generatedAt}">`,
    `    <testcase classname="flyingfish" name="run">`,
    `      <error type="tool error (exit 3)" message="${m}">${m}</error>`,
    `    </testcase>`,
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}

function xmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}
