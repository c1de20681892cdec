/** REFLECTION layer: reflected EndpointSlices, the virtual node, namespace offloading, in catalog order. */
import type { CheckDef } from "../types.ts";
import { REF_01 } from "./ref01.ts";
import { REF_02 } from "./ref02.ts";
import { REF_03 } from "./ref03.ts";

/** REFLECTION checks. */
export const REFLECTION_CHECKS: readonly CheckDef[] = [REF_01, REF_02, REF_03];
