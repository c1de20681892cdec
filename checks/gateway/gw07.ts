/**
 * GW-07: the live gateway Deployment is what Liqo rendered for it now. The chain is template
 * (WgGatewayClientTemplate / WgGatewayServerTemplate, rendered with the Helm release's images) → WgGatewayClient
 * / WgGatewayServer `spec.deployment` (the GatewayClient/Server controller,
 * `pkg/liqo-controller-manager/networking/external-network/client-operator/`, `server-operator/`) → Deployment
 * gw-<name> (`…/external-network/wireguard/wggateway{client,server}_controller.go`). Until liqotech/liqo
 * 93cb5426f (after v1.2.0) a changed template — a Helm upgrade — is not re-rendered into existing gateways,
 * so they keep the previous release's images and arguments while every status says Ready.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Deployment } from "../../liqo/views/core.ts";
import { imageTag, liqoVersionOf } from "../../liqo/lookups.ts";
import { gatewayDeployment, lookupGateway } from "../common/gateway.ts";
import { fix, kubectlIn, note } from "../remediation.ts";

interface ContainerShape {
  name: string;
  image: string | null;
  args: string[];
}

/** The containers of a Deployment-shaped object (`spec.template.spec.containers`). */
function containersOf(dep: unknown): ContainerShape[] {
  const spec = (dep as { spec?: { template?: { spec?: { containers?: unknown } } } } | undefined)?.spec;
  const list = spec?.template?.spec?.containers;
  if (!Array.isArray(list)) return [];
  return list.map((c) => {
    const x = c as { name?: unknown; image?: unknown; args?: unknown };
    return {
      name: typeof x.name === "string" ? x.name : "?",
      image: typeof x.image === "string" ? x.image : null,
      args: Array.isArray(x.args) ? x.args.filter((a): a is string => typeof a === "string") : [],
    };
  });
}

function replicasOf(dep: unknown): number {
  const r = (dep as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
  return typeof r === "number" ? r : 1;
}

/** The differences between the rendered deployment and the live one, one line each. */
function drift(rendered: unknown, live: Deployment): string[] {
  const out: string[] = [];
  if (replicasOf(rendered) !== replicasOf(live)) {
    out.push(`replicas ${replicasOf(live)} (rendered ${replicasOf(rendered)})`);
  }
  const liveC = containersOf(live);
  for (const want of containersOf(rendered)) {
    const got = liveC.find((c) => c.name === want.name);
    if (!got) {
      out.push(`container ${want.name} missing`);
      continue;
    }
    if (want.image !== got.image) {
      out.push(`container ${want.name} image ${got.image} (rendered ${want.image})`);
    }
    const missing = want.args.filter((a) => !got.args.includes(a));
    const extra = got.args.filter((a) => !want.args.includes(a));
    if (missing.length || extra.length) {
      out.push(
        `container ${want.name} args ${[...extra].join(" ") || "(none extra)"} instead of ${
          missing.join(" ") || "(none)"
        }`,
      );
    }
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const dep = gatewayDeployment(ctx, gw);
  if (!dep) return { status: "skip", summary: `no Deployment ${gw.workloadName} (GW-01)` };
  const ref = gw.object.status as
    | { clientRef?: { name?: string }; serverRef?: { name?: string } }
    | undefined;
  const wgName = (gw.role === "client" ? ref?.clientRef?.name : ref?.serverRef?.name) ?? gw.name;
  const wgKind = gw.role === "client" ? "wggatewayclients" : "wggatewayservers";
  const wg = ctx.cluster.inv.items(wgKind).find((w) =>
    w.metadata.namespace === gw.namespace && w.metadata.name === wgName
  );
  const wgLabel = `${gw.role === "client" ? "WgGatewayClient" : "WgGatewayServer"} ${gw.namespace}/${wgName}`;
  const evidence: string[] = [];
  if (!wg) return { status: "skip", summary: `no ${wgLabel} (GW-01)` };
  const rendered = wg.spec?.deployment;
  const problems = rendered ? drift(rendered, dep) : [];
  if (!rendered) evidence.push(`${wgLabel} has no spec.deployment: the live Deployment is not compared`);
  else evidence.push(`Deployment ${gw.workloadName} compared with ${wgLabel} spec.deployment`);
  // Evidence only: the controller re-enforces the Deployment on every reconcile, so a difference is
  // transient or an edit it is about to revert; what stays stale is the rendering itself (below).
  for (const p of problems.slice(0, 5)) {
    evidence.push(`Deployment ${gw.workloadName} differs from ${wgLabel}: ${p}`);
  }
  // The rendered gateway against the running release: its images carry the release it was rendered from.
  const version = liqoVersionOf(ctx.cluster.inv);
  const tags = [
    ...new Set(containersOf(dep).map((c) => imageTag(c.image)).filter((t): t is string => t !== null)),
  ];
  const stale = version !== null && /^v\d/.test(version) && tags.length > 0 && !tags.includes(version);
  evidence.push(`gateway images ${tags.join(", ") || "(untagged)"}; Liqo ${version ?? "version unknown"}`);
  if (stale) {
    return {
      status: "warn",
      summary:
        `gateway ${gw.workloadName} still runs ${
          tags.join(", ")
        } images under Liqo ${version}: it was rendered ` +
        `from the previous release's template and was not re-rendered after the upgrade`,
      evidence,
      remediation: fix(
        note(
          "Liqo re-renders gateways when their template changes only since liqotech/liqo 93cb5426f (after v1.2.0); until then, re-create the gateway object so it is rendered from the current template",
        ),
        kubectlIn(
          "local",
          gw.namespace,
          "delete",
          gw.role === "client" ? "wggatewayclient" : "wggatewayserver",
          wgName,
        ),
      ),
    };
  }
  return { status: "pass", summary: `Deployment ${gw.workloadName} is what ${wgLabel} renders`, evidence };
}

export const GW_07: CheckDef = {
  id: "GW-07",
  title: "Gateway Deployment matches its rendered template",
  layer: "gateway",
  needs: ["GW-01"],
  scope: "single",
  perPeer: true,
  reads: ["gatewayservers", "gatewayclients", "wggatewayservers", "wggatewayclients", "deployments"],
  explain: {
    reads:
      "The peer's GatewayServer/GatewayClient (status.serverRef/clientRef), the WgGatewayServer/Client it " +
      "rendered (spec.deployment: replicas, container images and args), the live Deployment gw-<name>, the Liqo " +
      "version (controller-manager image).",
    decides:
      "fail when the live Deployment differs from the WgGateway* spec.deployment (replicas, a container, " +
      "its image or args: the controller is not reconciling it); warn when the gateway's images carry another " +
      "release than the running Liqo (rendered from the previous release's template: before liqotech/liqo " +
      "93cb5426f gateways are not re-rendered when the template changes); pass otherwise. Differences between " +
      "the live Deployment and the WgGateway* spec.deployment (replicas, images, args) are listed as evidence: " +
      "the controller re-enforces the Deployment on every reconcile.",
    fixes:
      "Check the controller-manager; re-create the WgGatewayClient/Server so it is rendered from the current " +
      "template (the GatewayClient/Server controller re-creates it).",
  },
  hops: ["gateway"],
  run,
};
