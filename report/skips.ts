/**
 * What a skip means, for every renderer alike: renderers branch on `skipKind`, never on summary
 * text, and ask the same question through one function.
 */
import type { ReportResult } from "./model.ts";

/** A skip only because the run had one kubeconfig (a dual check without `--remote-kubeconfig`). */
export function isNeedsRemote(r: Pick<ReportResult, "status" | "skipKind">): boolean {
  return r.status === "skip" && r.skipKind === "needs-remote";
}
