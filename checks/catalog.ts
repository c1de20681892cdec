/**
 * The passive checks, in layer order. Order within a layer matters: the diagnosis is the first
 * failing check in this order. The one catalog (these and the active checks) is `CATALOG` of
 * active/mod.ts, the floor that sees both.
 */
import type { CheckDef } from "./types.ts";
import { ENV_CHECKS } from "./env/mod.ts";
import { CONTROLPLANE_CHECKS } from "./controlplane/mod.ts";
import { GATEWAY_CHECKS } from "./gateway/mod.ts";
import { TUNNEL_CHECKS } from "./tunnel/mod.ts";
import { FABRIC_CHECKS } from "./fabric/mod.ts";
import { IPAM_CHECKS } from "./ipam/mod.ts";
import { CNI_CHECKS } from "./cni/mod.ts";
import { REFLECTION_CHECKS } from "./reflection/mod.ts";
import { withKnownBugs } from "./known_bugs.ts";

/** Every passive check, in layer order, each carrying its known Liqo bugs (known_bugs.ts). */
export const PASSIVE_CHECKS: readonly CheckDef[] = [
  ...ENV_CHECKS,
  ...CONTROLPLANE_CHECKS,
  ...GATEWAY_CHECKS,
  ...TUNNEL_CHECKS,
  ...FABRIC_CHECKS,
  ...IPAM_CHECKS,
  ...CNI_CHECKS,
  ...REFLECTION_CHECKS,
].map(withKnownBugs);

/** A check of `catalog` by ID (case-insensitive), if it exists. */
export function findCheckIn(catalog: readonly CheckDef[], id: string): CheckDef | undefined {
  return catalog.find((c) => c.id.toLowerCase() === id.toLowerCase());
}

/** IDs of the checks of `catalog` that need the given one (what its failure blocks). */
export function dependentsIn(catalog: readonly CheckDef[], id: string): string[] {
  return catalog.filter((c) => c.needs.includes(id)).map((c) => c.id);
}
