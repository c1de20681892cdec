/**
 * FlyingFish as a library: run the Liqo connectivity checks against one or two clusters and get
 * the report document back.
 *
 * ```ts
 * import { createLiveSource, createProbeHub, defaultRunOptions, runDiagnosis } from "@flyingfish/cli";
 * const local = await createLiveSource({ context: "rome" });
 * const report = await runDiagnosis({
 *   local,
 *   options: defaultRunOptions(),
 *   probes: (sources) => createProbeHub({ sources, networkProbes: false, preciseUdp: false, sampleIntervalMs: 3000 }),
 * });
 * console.log(report.diagnosis);
 * ```
 * @module
 */
export { type DiagnosisRequest, runDiagnosis } from "./diagnose/run.ts";
export { CATALOG, dependentsOf, findCheck } from "./checks/catalog.ts";
export { type Diagnosis, type EngineOutput, runEngine, validateCatalog } from "./checks/engine.ts";
export type {
  CheckContext,
  CheckDef,
  CheckResult,
  ClusterView,
  Layer,
  Outcome,
  PeerView,
  RunOptions,
  Status,
} from "./checks/types.ts";
export { LAYER_TITLES, LAYERS, STATUSES } from "./checks/types.ts";
export type { ClusterSource, K8sObject } from "./kube/source.ts";
export { createLiveSource, type LiveClusterSource, type LiveSourceOptions } from "./kube/live/source.ts";
export { createProbeHub } from "./probes/live_hub.ts";
export { openSnapshot } from "./kube/snapshot.ts";
export type { ProbeHub } from "./probes/hub.ts";
export { jsonSchema, type Report, ReportSchema, SCHEMA_VERSION, summarize } from "./report/model.ts";
export { type Format, FORMATS, render } from "./render/render.ts";
export { VERSION } from "./version.ts";

import type { RunOptions } from "./checks/types.ts";

/** The CLI's default run options. */
export function defaultRunOptions(): RunOptions {
  return {
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 3000,
    latencyThresholdMs: 200,
    checkTimeoutMs: 30_000,
  };
}
