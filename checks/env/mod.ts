/**
 * ENV layer: is Liqo installed and healthy, at matching versions, on nodes and platforms it supports,
 * without debris of old peerings (ENV-01…06).
 */
import type { CheckDef } from "../types.ts";
import { ENV_01 } from "./env01.ts";
import { ENV_02 } from "./env02.ts";
import { ENV_03 } from "./env03.ts";
import { ENV_04 } from "./env04.ts";
import { ENV_05 } from "./env05.ts";
import { ENV_06 } from "./env06.ts";
import { ENV_07 } from "./env07.ts";

/**
 * ENV layer checks, in diagnosis order. ENV-07 (nodes hosting Liqo components are Ready) comes first:
 * a lost node takes down everything Liqo runs on it at once — a DaemonSet one pod short (ENV-01,
 * FAB-01), a gateway whose last-posted status still says Running (GW-01), exec failing with "error
 * dialing backend" and a stale Connection (TUN-01) — so when it fails it is the diagnosis, and those
 * checks say their symptom is on that node (see ENV-07). Then ID order: ENV-01 comes before ENV-05
 * (kernel) and ENV-03 (CRDs) although it needs them: when either fails, ENV-01 is skipped as blocked
 * rather than failed, so the first failure is still the cause; when Liqo is simply not installed,
 * ENV-01 says so first.
 */
export const ENV_CHECKS: readonly CheckDef[] = [ENV_07, ENV_01, ENV_02, ENV_03, ENV_04, ENV_05, ENV_06];
