/**
 * Helpers shared by several GATEWAY EXPOSURE checks (not a check): the kubectl prefix, Warning events
 * as evidence, the server-side lookup and the gateway server Service with its port.
 */
import type { CheckContext } from "../types.ts";
import type { Service, ServicePort } from "../../liqo/views/core.ts";
import { GATEWAY_LABELS, type GatewayRef, type Named, warningEventsFor } from "../../liqo/lookups.ts";
import { type GatewayLookup, lookupGateway } from "../common/gateway.ts";

/** Warning events of an object as indented evidence lines (none when events are unreadable). */
export function eventLines(ctx: CheckContext, kind: string, o: Named): string[] {
  return warningEventsFor(ctx.cluster.inv, kind, o.metadata.namespace, o.metadata.name, ctx.cluster.now)
    .map((l) => `  event: ${l}`);
}

/** The gateway server Service: by template labels in the gateway namespace, else by name `gw-<name>`. */
export function gatewayService(ctx: CheckContext, gw: GatewayRef): Service | undefined {
  const svcs = ctx.cluster.inv.items("services").filter((s) => s.metadata.namespace === gw.namespace);
  return svcs.find((s) =>
    s.metadata.labels?.[GATEWAY_LABELS.component] === "gateway" &&
    s.metadata.labels?.[GATEWAY_LABELS.name] === gw.name
  ) ?? svcs.find((s) => s.metadata.name === gw.workloadName);
}

/** The Service port of the gateway (matching GatewayServer spec.endpoint.port, else the first). */
export function servicePort(svc: Service, gw: GatewayRef): ServicePort | undefined {
  const ports = svc.spec?.ports ?? [];
  const want = gw.object.spec?.endpoint?.port;
  return ports.find((p) => p?.port === want) ?? ports.find((p) => p?.protocol === "UDP") ?? ports[0];
}

/** The peer's gateway when this cluster hosts the server; a skip on the client side. */
export function serverOnly(ctx: CheckContext): GatewayLookup {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l;
  if (l.gw.role !== "server") {
    return { outcome: { status: "skip", summary: "the gateway server runs on the peer" } };
  }
  return l;
}
