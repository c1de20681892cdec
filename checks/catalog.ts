/**
 * The check catalog, in layer order. Order within a layer matters: the diagnosis is the first
 * failing check in this order.
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

/** Every check FlyingFish knows, in layer order. */
export const CATALOG: readonly CheckDef[] = [
  ...ENV_CHECKS,
  ...CONTROLPLANE_CHECKS,
  ...GATEWAY_CHECKS,
  ...TUNNEL_CHECKS,
  ...FABRIC_CHECKS,
  ...IPAM_CHECKS,
  ...CNI_CHECKS,
  ...REFLECTION_CHECKS,
];

/** A check by ID (case-insensitive), if it exists. */
export function findCheck(id: string): CheckDef | undefined {
  return CATALOG.find((c) => c.id.toLowerCase() === id.toLowerCase());
}

/** IDs of the checks that need the given one (what its failure blocks). */
export function dependentsOf(id: string): string[] {
  return CATALOG.filter((c) => c.needs.includes(id)).map((c) => c.id);
}
