/** Reporter dispatch: one entry point from a report and an output format to text. */
import type { Report } from "../report/model.ts";
import { renderJson } from "./json.ts";
import { renderYaml } from "./yaml.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderJunit } from "./junit.ts";
import { renderText, type TextOptions } from "./text.ts";
import { renderHtml } from "./html.ts";

/** Output formats, as accepted by `-o`. */
export const FORMATS = ["text", "json", "yaml", "markdown", "junit", "html"] as const;

/** An output format. */
export type Format = typeof FORMATS[number];

/** Renders `report` in `format`; `opts` only affects the text format. */
export function render(report: Report, format: Format, opts: TextOptions): string {
  switch (format) {
    case "text":
      return renderText(report, opts);
    case "json":
      return renderJson(report);
    case "yaml":
      return renderYaml(report);
    case "markdown":
      return renderMarkdown(report);
    case "junit":
      return renderJunit(report);
    case "html":
      return renderHtml(report);
  }
}
