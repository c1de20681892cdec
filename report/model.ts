/**
 * The report model: the JSON contract every reporter renders from — its published shapes and zod
 * schemas (report/schema.ts), the views the renderers build from it (report/views.ts), and the
 * check vocabulary they print. The renderers import only this module.
 */
export * from "./schema.ts";
export * from "./views.ts";
export { CELL_LEGEND, CELL_MARKS, cellState, cellText, cleanupCommandOf, createdSummary } from "./active.ts";

// The renderers see only this module: the check vocabulary they print comes through here.
export type { CheckResult, Hop, Layer, SkipKind, Status } from "../checks/types.ts";
export type { AlsoFailing, Diagnosis } from "../checks/diagnosis.ts";
export { LAYER_TITLES, LAYERS, STATUSES } from "../checks/types.ts";
export type { Invocation } from "./invocation.ts";
export type { PreflightBlock, PreflightVerdict } from "./preflight.ts";
/** The report's remediation step (a printed command line and its comment); also named `ReportStep`. */
export type { ReportStep, ReportStep as RemediationStep } from "./remediation.ts";
export type {
  ActiveMatrix,
  ActiveRunRecord,
  CellState,
  CleanupRecord,
  CreatedObject,
  ExcludedNode,
  MatrixCell,
  MatrixGrid,
} from "./active.ts";
