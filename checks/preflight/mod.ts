/**
 * PREFLIGHT layer (`flyingfish preflight`): can these two clusters peer — judged before `liqoctl
 * peer` creates anything, with or without Liqo installed on each side. Every check is dual: it sees
 * the would-be consumer as the run's local cluster and the would-be provider as its remote one.
 * PF-ID first (nothing else means anything for one cluster named twice); then what must hold for
 * `liqoctl peer` to get through: versions, kernels, permissions, templates, the address plan, clocks.
 */
import type { CheckDef } from "../types.ts";
import { PF_ID } from "./pf_id.ts";
import { PF_VER } from "./pf_ver.ts";
import { PF_KRN } from "./pf_krn.ts";
import { PF_RBAC } from "./pf_rbac.ts";
import { PF_TPL } from "./pf_tpl.ts";
import { PF_IPAM } from "./pf_ipam.ts";
import { PF_CLK } from "./pf_clk.ts";

/** Preflight's passive checks, in diagnosis order. */
export const PREFLIGHT_CHECKS: readonly CheckDef[] = [
  PF_ID,
  PF_VER,
  PF_KRN,
  PF_RBAC,
  PF_TPL,
  PF_IPAM,
  PF_CLK,
];
