/** The YAML reporter (`-o yaml`): the same document as the JSON reporter. */
import { stringify } from "yaml";
import { canonical, type Report } from "../report/model.ts";

/** Renders the report as YAML (same keys and order as JSON; no anchors/aliases). */
export function renderYaml(report: Report): string {
  return stringify(canonical(report), { aliasDuplicateObjects: false, lineWidth: 0 });
}
