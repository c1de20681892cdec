/** IPAM layer: the peer's CIDRs declared, remapped and allocated truthfully, in catalog order. */
import type { CheckDef } from "../types.ts";
import { IPAM_01 } from "./ipam01.ts";
import { IPAM_02 } from "./ipam02.ts";
import { IPAM_03 } from "./ipam03.ts";
import { IPAM_04 } from "./ipam04.ts";

/**
 * IPAM checks. Not in ID order:
 * - IPAM-01 first: a Configuration stale after a reinstall (declaring CIDRs the other cluster no
 *   longer has) is the root cause; the remapping and collisions the other checks judge are computed
 *   from those stale spec CIDRs. It needs IPAM-03, so it is only judged once IPAM-03 passed.
 * - IPAM-03 before IPAM-02: IPAM-02 needs it (no remapped CIDRs in status, nothing to compare).
 */
export const IPAM_CHECKS: readonly CheckDef[] = [IPAM_01, IPAM_03, IPAM_02, IPAM_04];
