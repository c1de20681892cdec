/**
 * Helpers shared by the IPAM checks (not a check): CIDR lists for evidence, and the skip when an
 * ipam.liqo.io kind is not served.
 */
import type { ClusterView, Outcome } from "../types.ts";

/** A CIDR list for evidence, `(none)` when empty. */
export const show = (l: string[]): string => (l.length ? l.join(", ") : "(none)");

/**
 * Skip outcome when an ipam.liqo.io kind is not served on one of `views` (its CRD is not installed:
 * the inventory reads it as an empty list, which must not pass for "nothing to compare"). ENV-03
 * reports the missing CRDs.
 */
export function ipamKindMissing(views: ClusterView[], kinds: ("networks" | "ips")[]): Outcome | null {
  const lacking = views.flatMap((v) =>
    kinds.filter((k) => v.inv.state(k).state === "missing").map((k) =>
      `${k}.ipam.liqo.io not served on ${v.name}`
    )
  );
  if (lacking.length === 0) return null;
  return {
    status: "skip",
    summary: `${lacking[0]} (ipam.liqo.io CRDs missing, see ENV-03)`,
    evidence: lacking,
  };
}
