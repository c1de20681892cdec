/**
 * Where preflight's pods go, like Liqo's gateway pods: the nodeSelector, tolerations and affinity
 * of the side's gateway template (WgGatewayServerTemplate `wireguard-server` for the echo server,
 * WgGatewayClientTemplate `wireguard-client` for the client, in the Liqo namespace), when Liqo is
 * installed and the template is readable; otherwise none — the scheduler places the pod, as a
 * gateway Deployment with Liqo's default template (no placement) would be placed. A Go-template
 * string where a map belongs (an unrendered `{{ … }}`) is left out, never guessed.
 */
import type { ClusterView } from "../../checks/types.ts";
import {
  GATEWAY_CLIENT_TEMPLATE as CLIENT_TEMPLATE,
  GATEWAY_SERVER_TEMPLATE as SERVER_TEMPLATE,
} from "../../liqo/names.ts";
import type { GatewayPlacement } from "../fleet/templates.ts";

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => v !== null && typeof v === "object" && !Array.isArray(v) ? v as Loose : {};

/** The placement of a side's gateway `role` pods from its template, or undefined when there is none to follow. */
export function gatewayPlacement(view: ClusterView, role: "server" | "client"): GatewayPlacement | undefined {
  const kind = role === "server" ? "wggatewayservertemplates" : "wggatewayclienttemplates";
  const name = role === "server" ? SERVER_TEMPLATE : CLIENT_TEMPLATE;
  const items = view.inv.tryItems(kind);
  if (!items) return undefined;
  const t = items.find((x) =>
    x.metadata.name === name && (view.liqoNamespace === null || x.metadata.namespace === view.liqoNamespace)
  );
  if (!t) return undefined;
  const spec = rec(rec(rec(rec(rec(rec(t.spec?.template).spec).deployment).spec).template).spec);
  const out: GatewayPlacement = {};
  const sel = rec(spec.nodeSelector);
  if (
    Object.values(sel).every((v) => typeof v === "string" && !v.includes("{{")) && Object.keys(sel).length
  ) {
    out.nodeSelector = sel as Record<string, string>;
  }
  if (Array.isArray(spec.tolerations)) {
    const tol = spec.tolerations.map(rec).filter((x) => !JSON.stringify(x).includes("{{"));
    if (tol.length) out.tolerations = tol;
  }
  const aff = rec(spec.affinity);
  if (Object.keys(aff).length && !JSON.stringify(aff).includes("{{")) out.affinity = aff;
  return Object.keys(out).length ? out : undefined;
}
