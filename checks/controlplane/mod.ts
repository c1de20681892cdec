/**
 * CONTROL PLANE layer: ForeignCluster module conditions, provider API server reachability, the
 * in-band API path and identity validity (FC-01, API-01…03).
 */
import type { CheckDef } from "../types.ts";
import { FC_01 } from "./fc01.ts";
import { API_01 } from "./api01.ts";
import { API_02 } from "./api02.ts";
import { API_03 } from "./api03.ts";

/**
 * CONTROL PLANE layer checks, in diagnosis order (= ID order). API-01 comes before API-02 although it
 * needs it: a broken in-band path (API-02) blocks API-01 instead of letting it fail, so the first
 * failure is still the cause; out-of-band, API-02 skips and API-01 judges the API server alone.
 */
export const CONTROLPLANE_CHECKS: readonly CheckDef[] = [FC_01, API_01, API_02, API_03];
