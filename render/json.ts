/** The JSON reporter (`-o json`): the report document, keys in schema order, 2-space indent. */
import { canonical, type Report } from "../report/model.ts";

/** Renders the report as JSON (ends with a newline). */
export function renderJson(report: Report): string {
  return JSON.stringify(canonical(report), null, 2) + "\n";
}
