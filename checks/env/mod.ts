/**
 * ENV layer: is Liqo installed and healthy, at matching versions, on nodes and platforms it supports,
 * without debris of old peerings (CHECKS.md ENV-01…06).
 */
import type { CheckDef } from "../types.ts";
import { ENV_01 } from "./env01.ts";
import { ENV_02 } from "./env02.ts";
import { ENV_03 } from "./env03.ts";
import { ENV_04 } from "./env04.ts";
import { ENV_05 } from "./env05.ts";
import { ENV_06 } from "./env06.ts";

/**
 * ENV layer checks, in diagnosis order (= ID order). ENV-01 comes first although it needs ENV-05
 * (kernel) and ENV-03 (CRDs): when either fails, ENV-01 is skipped as blocked rather than failed, so
 * the first failure is still the cause; when Liqo is simply not installed, ENV-01 says so first.
 */
export const ENV_CHECKS: readonly CheckDef[] = [ENV_01, ENV_02, ENV_03, ENV_04, ENV_05, ENV_06];
