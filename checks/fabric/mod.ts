/** FABRIC layer: the in-cluster Geneve overlay between every node and the gateway pod, in catalog order. */
import type { CheckDef } from "../types.ts";
import { FAB_01 } from "./fab01.ts";
import { FAB_02 } from "./fab02.ts";
import { FAB_03 } from "./fab03.ts";
import { FAB_04 } from "./fab04.ts";
import { FAB_05 } from "./fab05.ts";
import { FAB_06 } from "./fab06.ts";

/** FABRIC checks. */
export const FABRIC_CHECKS: readonly CheckDef[] = [FAB_01, FAB_02, FAB_03, FAB_04, FAB_05, FAB_06];
