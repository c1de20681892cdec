/**
 * The active wing's only door: everything outside `active/` imports this module and nothing else of
 * the wing (tests/architecture_test.ts keeps it so). It also holds the ONE catalog — the passive
 * checks and the active ones — because this is the lowest floor that sees both.
 *
 * What a passive command needs (the catalog, the record types) loads with this module; what only an
 * active run needs (the session, the fleet, cleanup) is imported when it is first called, so
 * `flyingfish check` and `--help` stay light.
 */
import { dependentsIn, findCheckIn, PASSIVE_CHECKS } from "../checks/catalog.ts";
import { PREFLIGHT_CHECKS } from "../checks/preflight/mod.ts";
import { PREFLIGHT_PROBE_CHECKS } from "./preflight/catalog.ts";
import type { CheckDef } from "../checks/types.ts";
import { PROBE_CHECKS, type ProbeCheckDef } from "./catalog.ts";
import type { ActivePhaseInput, ActiveRun } from "./phase.ts";
import type { PreflightPhaseInput, PreflightRun } from "./preflight/phase.ts";
import type { CleanupRecord } from "./model.ts";
import type { ProbeTarget } from "./fleet/target.ts";

export { PROBE_CHECKS, type ProbeCheckDef } from "./catalog.ts";
export {
  type ActiveMatrix,
  type ActiveRunRecord,
  type CellState,
  type CleanupRecord,
  type CreatedObject,
  type ExcludedNode,
  type MatrixCell,
  type MatrixGrid,
  PROBE_NAMES,
  type ProbeMode,
  type ProbeName,
  type Side,
} from "./model.ts";
export type { ActiveOptions } from "./context.ts";
export type { ActivePhaseInput, ActiveRun } from "./phase.ts";
export type { ProbeTarget } from "./fleet/target.ts";
export type { StopCause } from "./fleet/signals.ts";
export { cleanupCommand, clusterFlags, probeTarget } from "./fleet/target.ts";
export { newRunId, parseRunId } from "./fleet/run_id.ts";
export { printImages, PROBE_IMAGES, resolveImages } from "./fleet/images.ts";
export { PREFLIGHT_PROBE_CHECKS } from "./preflight/catalog.ts";
export { PREFLIGHT_CHECKS } from "../checks/preflight/mod.ts";
export type { PreflightPhaseInput, PreflightProbeOptions, PreflightRun } from "./preflight/phase.ts";

/** Every check `flyingfish check` knows, passive and active, in layer order. */
export const CATALOG: readonly CheckDef[] = [...PASSIVE_CHECKS, ...PROBE_CHECKS];

/**
 * `flyingfish preflight`'s catalog: the passive PF checks (checks/preflight/), then the active ones
 * (`--probe`, ./preflight/catalog.ts). A catalog of its own: `check` never runs it.
 */
export const PREFLIGHT_CATALOG: readonly CheckDef[] = [...PREFLIGHT_CHECKS, ...PREFLIGHT_PROBE_CHECKS];

/** Every check of both catalogs (what `checks` lists and `explain` finds). */
export const ALL_CHECKS: readonly CheckDef[] = [...CATALOG, ...PREFLIGHT_CATALOG];

/** A check of either catalog by ID (case-insensitive), if it exists. */
export function findCheck(id: string): CheckDef | undefined {
  return findCheckIn(ALL_CHECKS, id);
}

/** IDs of the checks that need the given one (what its failure blocks), in its own catalog. */
export function dependentsOf(id: string): string[] {
  const own = PREFLIGHT_CATALOG.some((c) => c.id === id) ? PREFLIGHT_CATALOG : CATALOG;
  return dependentsIn(own, id);
}

/** The active check of a PROBE-* ID (exact), if it is one. */
export function findProbeCheck(id: string): ProbeCheckDef | undefined {
  return PROBE_CHECKS.find((c) => c.id === id);
}

/** Opens the active phase of a run (active/phase.ts); nothing is created before a probe runs. */
export async function createActivePhase(input: ActivePhaseInput): Promise<ActiveRun> {
  const { createActivePhase } = await import("./phase.ts");
  return createActivePhase(input);
}

/** Opens the preflight phase of `flyingfish preflight --probe` (active/preflight/phase.ts). */
export async function createPreflightPhase(input: PreflightPhaseInput): Promise<PreflightRun> {
  const { createPreflightPhase } = await import("./preflight/phase.ts");
  return createPreflightPhase(input);
}

/**
 * Removes what earlier runs left (`flyingfish probe --cleanup`): the run namespaces labelled for
 * `runId`, or every FlyingFish namespace with `all`, on every target.
 */
export async function cleanupLeftovers(
  targets: readonly ProbeTarget[],
  opts: { runId?: string; all: boolean; budgetMs: number },
): Promise<CleanupRecord[]> {
  const { cleanupLeftovers } = await import("./fleet/cleanup.ts");
  return await cleanupLeftovers(targets, opts);
}
