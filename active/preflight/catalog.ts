/**
 * Preflight's active checks (PF-API, PF-EXP, PF-UDP, PF-DIR, PF-MTU): each `run` asks the run's
 * preflight phase (./phase.ts) for its outcome, as the PROBE-* checks ask the active phase.
 */
import type { CheckDef } from "../../checks/types.ts";

/** The `flyingfish preflight --probe` checks, in dependency order. */
export const PREFLIGHT_PROBE_CHECKS: readonly CheckDef[] = [];
