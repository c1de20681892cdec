/** CNI layer: the CNI's Liqo caveats and NetworkPolicies towards the peer, in catalog order. */
import type { CheckDef } from "../types.ts";
import { CNI_01 } from "./cni01.ts";
import { CNI_02 } from "./cni02.ts";

/** CNI checks. */
export const CNI_CHECKS: readonly CheckDef[] = [CNI_01, CNI_02];
