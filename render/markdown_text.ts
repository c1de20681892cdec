/**
 * Markdown building blocks shared by the Markdown reporter and its active-probe section: escaping,
 * table cells, tables, fenced and inline code that no string from the cluster can break out of.
 */

/** Escapes text for Markdown (inline): HTML specials as entities, Markdown punctuation with `\`. */
export function mdEscape(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_[\]|#~]/g, (c) => `\\${c}`)
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "\uFFFD");
}

/** Escapes text for one table cell: as `mdEscape`, newlines as `<br>`. */
export function mdCell(s: string): string {
  return mdEscape(s.trim()).replace(/\r?\n/g, "<br>");
}

/** A fenced code block whose fence is longer than any backtick run in `code`. */
export function mdCodeBlock(code: string, lang = "", indent = ""): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((m) => m.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  // deno-lint-ignore no-control-regex
  const body = code.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "\uFFFD").split(/\r?\n/);
  return [`${fence}${lang}`, ...body, fence].map((l) => indent + l).join("\n");
}

/** A GitHub-flavoured Markdown table. */
export function mdTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) =>
    `| ${columns.map((_, i) => mdCell(cells[i] ?? "")).join(" | ")} |`;
  return [line(columns), `|${columns.map(() => " --- ").join("|")}|`, ...rows.map(line)].join("\n");
}

/** Inline code whose fence is longer than any backtick run in `s` (padded when `s` touches one). */
export function mdInlineCode(s: string): string {
  // deno-lint-ignore no-control-regex
  const text = s.replace(/[\x00-\x1f\x7f]/g, "\uFFFD");
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}
