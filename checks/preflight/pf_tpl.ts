/**
 * PF-TPL: the gateway templates `liqoctl peer` will render exist where they are needed — the
 * WgGatewayServerTemplate `wireguard-server` on the would-be server side, the
 * WgGatewayClientTemplate `wireguard-client` on the client side, in the Liqo namespace
 * (`forge/gatewayserver.go`, `forge/gatewayclient.go` defaults) — and carry what the chosen flags
 * need: a service with a UDP port, and a `nodePort` (or `?nodePort`) field when a NodePort is forced
 * (`--gw-server-service-nodeport`), as liqoctl's `CheckTemplateGwServer` requires — it looks for the
 * field only then (`pkg/liqoctl/network/cluster.go` checkTemplateServerServiceNodePort); without a
 * forced port Kubernetes allocates one, and a template without the field is only a warning.
 */
import type { CheckContext, CheckDef, ClusterView, Outcome } from "../types.ts";
import { fix, kubectl, step } from "../remediation.ts";
import {
  intentOf,
  liqoInstalled,
  liqoItems,
  liqoNamespace,
  named,
  noProvider,
  notInstalled,
  sidesOf,
  unreadable,
} from "./_shared.ts";

/** The default template names (`forge/gatewayserver.go` DefaultGwServerTemplateName, gatewayclient.go). */
export const SERVER_TEMPLATE = "wireguard-server";
export const CLIENT_TEMPLATE = "wireguard-client";

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};

/** What is wrong with a server template for the chosen service type ([] when nothing is). */
export function serverTemplateProblems(
  template: unknown,
  serviceType: "LoadBalancer" | "NodePort",
  forcedNodePort = false,
): string[] {
  const spec = rec(rec(rec(template).spec).template);
  const inner = rec(spec.spec);
  const out: string[] = [];
  if (!inner.deployment) out.push("spec.template.spec.deployment is missing");
  const service = rec(rec(inner.service).spec);
  const ports = Array.isArray(service.ports) ? service.ports : null;
  if (!inner.service) {
    out.push("spec.template.spec.service is missing: the gateway server would not be exposed");
  } else if (!ports || ports.length === 0) out.push("spec.template.spec.service.spec.ports is missing");
  else {
    const p = rec(ports[0]);
    if (p.port === undefined) out.push("spec.template.spec.service.spec.ports[0].port is missing");
    if (p.protocol !== undefined && p.protocol !== "UDP") {
      out.push(`spec.template.spec.service.spec.ports[0].protocol is ${String(p.protocol)}, not UDP`);
    }
    if (serviceType === "NodePort" && forcedNodePort && !hasNodePortField(template)) {
      out.push(
        "spec.template.spec.service.spec.ports[0].nodePort is missing (needed by --gw-server-service-nodeport)",
      );
    }
  }
  return out;
}

/** True when the server template's first service port can carry a forced NodePort (`nodePort` or `?nodePort`). */
export function hasNodePortField(template: unknown): boolean {
  const ports = rec(rec(rec(rec(rec(template).spec).template).spec).service).spec;
  const list = Array.isArray(rec(ports).ports) ? rec(ports).ports as unknown[] : [];
  const p = rec(list[0]);
  return p.nodePort !== undefined || p["?nodePort"] !== undefined;
}

/** A client template's problems. */
function clientTemplateProblems(template: unknown): string[] {
  const inner = rec(rec(rec(rec(template).spec).template).spec);
  return inner.deployment ? [] : ["spec.template.spec.deployment is missing"];
}

function run(ctx: CheckContext): Outcome {
  const sides = sidesOf(ctx);
  if (typeof sides === "string") return noProvider(sides);
  const intent = intentOf(ctx.options);
  const fails: string[] = [];
  const unknowns: string[] = [];
  const skips: string[] = [];
  const warns: string[] = [];
  const evidence: string[] = [];
  for (const side of sides) {
    const server = side.role === intent.serverSide;
    const installed = liqoInstalled(side.view);
    if (installed === false) {
      skips.push(notInstalled(side.view));
      continue;
    }
    if (installed === null) {
      unknowns.push(unreadable(side.view, "deployments"));
      continue;
    }
    const kind = server ? "wggatewayservertemplates" : "wggatewayclienttemplates";
    const name = server ? SERVER_TEMPLATE : CLIENT_TEMPLATE;
    const ns = liqoNamespace(side.view);
    const items = liqoItems(side.view as ClusterView, kind);
    const label = `${server ? "WgGatewayServerTemplate" : "WgGatewayClientTemplate"} ${ns}/${name} on ${
      named(side)
    }`;
    if (items === null) {
      unknowns.push(unreadable(side.view, kind));
      continue;
    }
    const t = items.find((x) => x.metadata.name === name && x.metadata.namespace === ns);
    if (!t) {
      fails.push(`${label} does not exist (the ${server ? "server" : "client"} side needs it)`);
      continue;
    }
    const problems = server
      ? serverTemplateProblems(t, intent.serviceType, intent.nodePort !== null)
      : clientTemplateProblems(t);
    if (problems.length) fails.push(...problems.map((p) => `${label}: ${p}`));
    else if (server && intent.serviceType === "NodePort" && !hasNodePortField(t)) {
      warns.push(
        `${label}: spec.template.spec.service.spec.ports[0] has no nodePort field: Kubernetes allocates the ` +
          "NodePort at random, and liqoctl would refuse to force one (--gw-server-service-nodeport, e.g. the port " +
          "a NAT forwards to)",
      );
    } else {evidence.push(`${label}: present${
        server
          ? `, renders a ${intent.serviceType} Service on UDP port ${intent.port} (the GatewayServer's)`
          : ""
      }`);}
  }
  if (fails.length) {
    return {
      status: "fail",
      summary: fails[0] + (fails.length > 1 ? ` (+${fails.length - 1} more)` : ""),
      evidence: [...fails, ...unknowns, ...evidence],
      remediation: fix(
        "Restore the template from Liqo's chart (helm upgrade with the release's values re-renders it), or fix the " +
          "field named above:",
        step(kubectl("local", "get", "wggatewayservertemplates,wggatewayclienttemplates", "-A")),
      ),
    };
  }
  if (unknowns.length) {
    return { status: "unknown", summary: unknowns.join("; "), evidence: [...warns, ...evidence] };
  }
  if (warns.length) {
    return {
      status: "warn",
      summary: warns[0],
      evidence: [...warns, ...evidence],
      remediation: fix(
        'To force a NodePort later, add `?nodePort: "{{ .Spec.Endpoint.NodePort }}"` to the template\'s service port ' +
          "(as Liqo's chart renders it), or re-render the template from the chart:",
        step(kubectl(intent.serverSide, "get", "wggatewayservertemplates", "-A")),
      ),
    };
  }
  if (skips.length === sides.length) {
    return { status: "skip", skipKind: "not-applicable", summary: skips.join("; "), evidence };
  }
  const partial = skips.length ? ` (${skips.join("; ")}: its templates come with the install)` : "";
  return {
    status: "pass",
    summary: `the gateway templates liqoctl peer will use are in place${partial}`,
    evidence,
  };
}

export const PF_TPL: CheckDef = {
  id: "PF-TPL",
  title: "Gateway templates exist and fit the chosen flags",
  layer: "preflight",
  needs: ["PF-ID"],
  runsIfUnknown: ["PF-ID"],
  scope: "dual",
  perPeer: false,
  reads: ["deployments"],
  optionalReads: ["wggatewayservertemplates", "wggatewayclienttemplates"],
  explain: {
    reads: "The WgGatewayServerTemplate wireguard-server on the would-be server side (the provider unless " +
      "--server-side consumer) and the WgGatewayClientTemplate wireguard-client on the client side, in the Liqo " +
      "namespace.",
    decides:
      "fail naming the template and field: missing template, no deployment, no service or UDP port, no " +
      "nodePort field when a NodePort is forced (--gw-server-service-nodeport, the only case liqoctl checks it); " +
      "warn when a NodePort gateway's template has no nodePort field (a random NodePort only); skip where Liqo " +
      "is not installed (the templates come with the install).",
    fixes: "Re-render the templates with Liqo's chart, or add the field named.",
  },
  hops: [],
  run,
};
