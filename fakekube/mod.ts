/**
 * @module
 * A fake Kubernetes API server on 127.0.0.1 for FlyingFish's demo and tests: it serves scenario
 * clusters (testdata/scenarios/, testdata/active/) over HTTPS or HTTP with discovery, list/watch,
 * writes with admission and lifecycle, the exec WebSocket backed by a fake data plane, and pod
 * logs, with injectable faults. This module is the member's only face: everything outside
 * fakekube/ imports from here. The fake imports nothing of the product it tests.
 */

export {
  activeScenariosRoot,
  baseRoot,
  buildClusterConfig,
  DEFAULT_REFERENCE_TIME,
  fleetRoot,
  listScenarios,
  loadBase,
  loadScenario,
  parseObjects,
  preflightProbeScenariosRoot,
  preflightScenariosRoot,
  readText,
  type Scenario,
  scenariosRoot,
  type ServedScenario,
  serveScenario,
  shiftCertificates,
  shiftTimestamps,
  useTestdata,
} from "./scenario.ts";
export { type FleetFile, loadFleet, type ServedFleet, serveFleet } from "./fleet.ts";
export {
  type FakeCluster,
  type FakeClusterConfig,
  type RequestLogEntry,
  startFakeCluster,
} from "./server.ts";
export type { ExecResult, WireguardState } from "./exec.ts";
export type { Network } from "./netpath.ts";
export type { FaultAction, FaultRule } from "./faults.ts";
export { lifecycleDefaults, type LifecycleInput } from "./lifecycle.ts";
export { podSecurityViolations, SAFE_SYSCTLS, validate } from "./admission.ts";
export { createNetworkHost, goJson } from "./probe_exec.ts";
export { NetworkModelSchema } from "./netmodel.ts";
export { configurationFor, toPeerView } from "./nettopo.ts";
export { LiqoReflection } from "./reflection.ts";
export { generateTlsMaterial, reissueCertificate } from "./tls.ts";
export {
  MATRIX_ROW_MARKER,
  PREFLIGHT_ECHO_MARKER,
  SERVICE_SWEEP_MARKER,
  UDP_SERIES_MARKER,
} from "./markers.ts";
export { LIQO_CRDS } from "./crds.ts";
export { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
export { remapAddress } from "./ipv4.ts";
export type { K8sObject } from "./object.ts";

// The types the API above refers to.
export type { ParsedBase, ScenarioFile } from "./scenario.ts";
export type {
  DropRule,
  FaultProtocol,
  FlakyRule,
  Hop,
  NatRule,
  NetworkHost,
  NetworkModel,
} from "./netmodel.ts";
export type { Traffic } from "./tls_front.ts";
export type { PodWireguardState } from "./exec.ts";
export type { Endpoint, Packet, Proto, SeenPacket, Target, Walk } from "./netpath.ts";
export type { ExecFault, FaultMatch } from "./faults.ts";
export type { Lifecycle } from "./lifecycle_schema.ts";
export type { PodSecurityLevel } from "./admission.ts";
export type { WriteContext } from "./writes.ts";
export type { TlsMaterial } from "./tls.ts";
export type { CrdSpec } from "./crds.ts";
export type { Matcher } from "./selectors.ts";
