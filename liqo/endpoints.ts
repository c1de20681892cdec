/**
 * Gateway endpoints as Liqo writes them (`{addresses[], port}`) and the node address Liqo
 * advertises for NodePort exposure (FACTS §2.3).
 */
import type { Node } from "./views/core.ts";

/** An endpoint as Liqo writes it: `{addresses[], port}`. */
export interface Endpoint {
  addresses: string[];
  port: number | null;
}

/** Endpoint from `{addresses, port}` (GatewayClient.spec.endpoint, GatewayServer.status.endpoint). */
export function endpointOf(raw: unknown): Endpoint | null {
  if (!raw || typeof raw !== "object") return null;
  // Not a typed view: GatewayServer status and GatewayClient spec endpoints (and older shapes) come here.
  const e = raw as { addresses?: unknown; port?: unknown; ports?: unknown };
  const addresses = Array.isArray(e.addresses) ? e.addresses.map((a: unknown) => String(a ?? "")) : [];
  const port = typeof e.port === "number"
    ? e.port
    : Array.isArray(e.ports) && typeof e.ports[0] === "number"
    ? e.ports[0]
    : null;
  if (addresses.length === 0 && port === null) return null;
  return { addresses, port };
}

/** "a, b:port" for evidence. */
export function formatEndpoint(e: Endpoint | null): string {
  if (!e) return "(none)";
  const addrs = e.addresses.length === 0
    ? "(no address)"
    : e.addresses.map((a) => a === "" ? '""' : a).join(", ");
  return `${addrs}:${e.port ?? "?"}`;
}

/** Node address Liqo advertises for NodePort: ExternalDNS > ExternalIP > InternalDNS > InternalIP > Hostname. */
export function preferredNodeAddress(node: Node): string | null {
  const addrs = node.status?.addresses ?? [];
  for (const t of ["ExternalDNS", "ExternalIP", "InternalDNS", "InternalIP", "Hostname"]) {
    const a = addrs.find((x) => x?.type === t && x?.address);
    if (a) return String(a.address);
  }
  return null;
}
