/**
 * Gateway endpoints as Liqo writes them (`{addresses[], port}`) and the node address Liqo
 * advertises for NodePort exposure (Liqo's
 * `pkg/liqo-controller-manager/networking/external-network/wireguard/wggatewayserver_controller.go`,
 * `pkg/utils/nodeUtils.go`).
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

/**
 * True when an endpoint address is a DNS name rather than an IP literal (IPv4 dotted quad, or an
 * IPv6 address — anything with a colon). Empty addresses (a NotReady NodePort node) are not names.
 */
export function isHostname(address: string): boolean {
  const a = address.trim();
  if (a === "" || a.includes(":")) return false;
  return !/^\d{1,3}(\.\d{1,3}){3}$/.test(a);
}

/** The hostname addresses of an endpoint, in order. */
export function hostnamesOf(e: Endpoint | null): string[] {
  return (e?.addresses ?? []).filter(isHostname);
}

/**
 * An endpoint whose first address is a hostname with IP literals listed after it: a client that
 * dials only `addresses[0]` never falls back to those IPs when the name does not resolve in its pod.
 * Null for any other endpoint.
 */
export function hostnameBeforeIp(e: Endpoint | null): { hostname: string; ips: string[] } | null {
  const first = e?.addresses[0];
  if (!e || first === undefined || !isHostname(first)) return null;
  const ips = e.addresses.slice(1).filter((a) => a.trim() !== "" && !isHostname(a));
  return ips.length > 0 ? { hostname: first, ips } : null;
}

/**
 * The Liqo release from which the issue (#11) says a client no longer dials only `addresses[0]`.
 * Liqo v1.2.0's client template still passes `addresses[0]` alone (`--endpoint-address={{ index
 * .Spec.Endpoint.Addresses 0 }}`, `deployments/liqo/templates/liqo-wireguard-gateway-client-template.yaml`), so below this
 * version the warning is certain; from it on GW-03/GW-04 only record the fact as evidence.
 */
export const FIRST_ADDRESS_ONLY_BEFORE = { major: 1, minor: 2, text: "v1.2" } as const;

/** Parses "v1.1.2", "1.1", "v1.2.0-rc.1" into major/minor; null for anything else (a digest, "latest"). */
export function parseLiqoVersion(v: string | null | undefined): { major: number; minor: number } | null {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec((v ?? "").trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

/**
 * True when a Liqo version dials only `addresses[0]` of a GatewayClient endpoint for certain (before
 * {@link FIRST_ADDRESS_ONLY_BEFORE}); false from that version on; null when the version is unknown.
 */
export function dialsOnlyFirstAddress(version: string | null | undefined): boolean | null {
  const p = parseLiqoVersion(version);
  if (!p) return null;
  const b = FIRST_ADDRESS_ONLY_BEFORE;
  return p.major < b.major || (p.major === b.major && p.minor < b.minor);
}
