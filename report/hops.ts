/**
 * Which data-path hops a result speaks for, from the hops its check declares (CheckDef.hops): the
 * HTML report's diagram colours each hop by the results that observe it.
 */
import { findCheck } from "../active/mod.ts";
import type { Hop } from "../checks/types.ts";

/** The hops the check `id` observes ([] for an unknown ID or a check off the data path). */
export function hopsOf(id: string): readonly Hop[] {
  return findCheck(id)?.hops ?? [];
}
