/**
 * Helpers shared by several CONTROL PLANE checks: the peer's IDs and namespaces, and how a condition
 * is quoted. Not a check itself; checks import it, never each other.
 */
import type { CheckContext } from "../types.ts";
import { ageMs, formatAge, liqoNamespaceOf } from "../../liqo/lookups.ts";
import type { Condition } from "../../liqo/views/meta.ts";

/** Remote cluster ID of the checked peer ("unknown" outside a per-peer run). */
export function peerId(ctx: CheckContext): string {
  return ctx.peer?.clusterId ?? "unknown";
}

/** Tenant namespace of the peer on the checked cluster (Liqo's default name when unknown). */
export function tenantNs(ctx: CheckContext): string {
  return ctx.peer?.tenantNamespace ?? `liqo-tenant-${peerId(ctx)}`;
}

/** Namespace Liqo runs in on the checked cluster ("liqo" when unknown). */
export function liqoNs(ctx: CheckContext): string {
  return ctx.cluster.liqoNamespace ?? liqoNamespaceOf(ctx.cluster.inv) ?? "liqo";
}

/** "Type=Status (Reason) for 12m" for one condition. */
export function describeCondition(c: Condition, now: Date): string {
  const since = ageMs(now, c?.lastTransitionTime);
  return `${c?.type ?? "?"}=${c?.status ?? "?"}${c?.reason ? ` (${c.reason})` : ""} for ${formatAge(since)}`;
}
