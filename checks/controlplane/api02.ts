/**
 * API-02: for in-band peerings, the API path through liqo-proxy is consistent: the consumer's
 * foreignProxyUrl points at port 8118 of the provider's proxy IP translated into the remapped
 * external CIDR, and on the provider liqo-proxy is ready and its IP allocated (Liqo's
 * `pkg/utils/ipam/mapping/ips.go`, `pkg/liqoctl/authenticate/handler.go`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { Deployment } from "../../liqo/views/core.ts";
import type { IP } from "../../liqo/views/ipam.ts";
import type { Tenant } from "../../liqo/views/peering.ts";
import { conditionOf, liqoNamespaceOf, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { contains, remapAddress } from "../../probes/cidr.ts";
import { describeCondition, liqoNs, peerId, tenantNs } from "./shared.ts";
import { API_SERVER_PROXY_IP_TYPE, IP_TYPE_LABEL } from "../../liqo/names.ts";
import { fix, kubectl, kubectlIn, liqoctl, remoteKubeconfig, step } from "../remediation.ts";

function proxyDeployment(inv: Objects): Deployment | undefined {
  const ns = liqoNamespaceOf(inv);
  const deps = (inv.tryItems("deployments") ?? []).filter((d) => !ns || d.metadata.namespace === ns);
  return deps.find((d) => d.metadata.labels?.["app.kubernetes.io/name"] === "proxy") ??
    deps.find((d) => d.metadata.name === "liqo-proxy");
}

function proxyIp(inv: Objects): IP | undefined {
  const ips = inv.tryItems("ips") ?? [];
  return ips.find((i) => i.metadata.labels?.[IP_TYPE_LABEL] === API_SERVER_PROXY_IP_TYPE) ??
    ips.find((i) => i.metadata.name === "api-server-proxy");
}

/** Problems with the local provider-side pieces (liqo-proxy Deployment, IP api-server-proxy). */
function providerPieces(inv: Objects, where: string): { problems: string[]; evidence: string[] } {
  const problems: string[] = [];
  const evidence: string[] = [];
  if (!inv.tryItems("deployments")) evidence.push(`${where}: Deployments unreadable`);
  else {
    const d = proxyDeployment(inv);
    const want = d?.spec?.replicas ?? 1, ready = d?.status?.readyReplicas ?? 0;
    if (!d) problems.push(`${where}: no liqo-proxy Deployment (proxy.enabled=false?)`);
    else if (ready < want) {
      problems.push(`${where}: ${d.metadata.namespace}/${d.metadata.name} ${ready}/${want} ready`);
    } else evidence.push(`${where}: ${d.metadata.namespace}/${d.metadata.name} ${ready}/${want} ready`);
  }
  if (inv.state("ips").state === "missing") {
    problems.push(`${where}: ips.ipam.liqo.io not served (ipam.liqo.io CRDs missing, see ENV-03)`);
  } else if (!inv.tryItems("ips")) evidence.push(`${where}: IPs unreadable`);
  else {
    const ip = proxyIp(inv);
    if (!ip) problems.push(`${where}: no IP labelled ipam.liqo.io/ip-type=api-server-proxy`);
    else if (!ip.status?.ip) {
      problems.push(`${where}: IP ${ip.metadata.namespace}/${ip.metadata.name} has no status.ip`);
    } else {evidence.push(
        `${where}: IP ${ip.metadata.namespace}/${ip.metadata.name} status.ip ${ip.status.ip}`,
      );}
  }
  return { problems, evidence };
}

function api02Provider(ctx: CheckContext, tenant: Tenant): Outcome {
  const { problems, evidence } = providerPieces(ctx.cluster.inv, ctx.cluster.name);
  evidence.unshift(
    `Tenant ${tenant.metadata.namespace}/${tenant.metadata.name} spec.proxyURL ${tenant.spec?.proxyURL}`,
  );
  const lns = liqoNs(ctx);
  if (problems.length) {
    return {
      status: "fail",
      summary: `in-band API path broken on the provider: ${problems.join("; ")}`,
      evidence: [...problems, ...evidence],
      remediation: fix(
        kubectlIn("local", lns, "describe", "deploy", "liqo-proxy"),
        kubectlIn("local", lns, "get", "ip", "api-server-proxy", "-o", "yaml"),
        kubectlIn("local", lns, "logs", "deploy/liqo-ipam"),
      ),
    };
  }
  return { status: "pass", summary: "provider side of the in-band API path ready", evidence };
}

function api02Consumer(ctx: CheckContext, proxyUrl: string): Outcome {
  const id = peerId(ctx);
  const evidence = [`foreignProxyUrl ${proxyUrl}`];
  const cond = conditionOf(ctx.peer?.foreignCluster, "APIServerStatus");
  if (cond) {
    evidence.push(`${describeCondition(cond, ctx.cluster.now)}${cond.message ? `: ${cond.message}` : ""}`);
  }
  const problems: string[] = [];
  let expectedUrl: string | null = null;
  let host = "", port = "";
  try {
    const u = new URL(proxyUrl);
    host = u.hostname;
    port = u.port || (u.protocol === "https:" ? "443" : "80");
  } catch {
    return { status: "fail", summary: `foreignProxyUrl ${proxyUrl} is not a URL`, evidence };
  }
  if (port !== "8118") problems.push(`port ${port}, liqo-proxy listens on 8118`);
  const cfgs = ctx.cluster.inv.tryItems("configurations");
  if (!cfgs) return { status: "unknown", summary: "Configurations unreadable", evidence };
  const cfg = cfgs.find((c) => c.metadata.labels?.[REMOTE_ID_LABEL] === id);
  const specExt: string[] = cfg?.spec?.remote?.cidr?.external ?? [];
  const statusExt: string[] = cfg?.status?.remote?.cidr?.external ?? [];
  if (!cfg) {
    problems.push(`no Configuration labelled ${REMOTE_ID_LABEL}=${id} (in-band needs the networking module)`);
  } else if (statusExt.length === 0) {
    problems.push(`Configuration ${cfg.metadata.name} has no status.remote.cidr.external`);
  } else {
    evidence.push(
      `Configuration ${cfg.metadata.name}: remote external ${specExt.join(",")} → remapped ${
        statusExt.join(",")
      }`,
    );
    if (!statusExt.some((c) => contains(c, host))) {
      problems.push(`host ${host} is not inside the remapped external CIDR ${statusExt.join(",")}`);
    }
  }
  if (ctx.remote && ctx.remotePeer) {
    const remote = providerPieces(ctx.remote.inv, ctx.remote.name);
    problems.push(...remote.problems);
    evidence.push(...remote.evidence);
    const rip: string | undefined = proxyIp(ctx.remote.inv)?.status?.ip;
    if (rip && cfg) {
      const expected = specExt.map((s, i) => statusExt[i] ? remapAddress(rip, s, statusExt[i]) : null)
        .find((x) => x !== null) ?? null;
      if (!expected) {
        problems.push(
          `provider proxy IP ${rip} is not inside spec.remote.cidr.external ${
            specExt.join(",")
          } (stale Configuration? see IPAM-01)`,
        );
      } else if (expected !== host) {
        problems.push(`host ${host} ≠ provider proxy IP ${rip} remapped = ${expected}`);
        expectedUrl = `http://${expected}:8118`;
      } else evidence.push(`provider proxy IP ${rip} remapped = ${expected} = URL host`);
    }
  }
  if (problems.length) {
    return {
      status: "fail",
      summary: `in-band API path wrong: ${problems[0]}`,
      evidence: [...problems, ...evidence],
      remediation: fix(
        kubectl("local", "get", "foreigncluster", id, "-o", "jsonpath={.status.foreignProxyUrl}"),
        kubectlIn(
          "local",
          tenantNs(ctx),
          "get",
          "configuration",
          "-l",
          `${REMOTE_ID_LABEL}=${id}`,
          "-o",
          "wide",
        ),
        step(
          kubectlIn(
            "provider",
            ctx.remote?.liqoNamespace ?? "<liqo namespace>",
            "get",
            "ip",
            "api-server-proxy",
          ),
          "On the provider:",
        ),
        kubectlIn("provider", ctx.remote?.liqoNamespace ?? "<liqo namespace>", "get", "deploy", "liqo-proxy"),
        step(
          liqoctl("consumer", "peer", remoteKubeconfig("provider"), "--in-band"),
          "Re-run the in-band authentication so the URL is recomputed" +
            (expectedUrl
              ? ` (without --proxy-url, or --proxy-url ${expectedUrl}: the provider's IP translated into the remapped external CIDR):`
              : ":"),
        ),
      ),
    };
  }
  return { status: "pass", summary: `in-band API path ${host}:8118 consistent`, evidence };
}

function run(ctx: CheckContext): Outcome {
  const fc = ctx.peer?.foreignCluster;
  const id = peerId(ctx);
  const proxyUrl: string | undefined = fc?.status?.foreignProxyUrl || undefined;
  const tenant = (ctx.cluster.inv.tryItems("tenants") ?? []).find((t) =>
    t.metadata.labels?.[REMOTE_ID_LABEL] === id && t.spec?.proxyURL
  );
  if (!proxyUrl && !tenant) {
    return { status: "skip", summary: "out-of-band peering (no foreignProxyUrl)" };
  }
  if (!proxyUrl) return api02Provider(ctx, tenant!);
  return api02Consumer(ctx, proxyUrl);
}

export const API_02: CheckDef = {
  id: "API-02",
  title: "In-band API path",
  layer: "controlplane",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["foreignclusters"],
  optionalReads: ["configurations", "ips", "deployments", "tenants"],
  explain: {
    reads: "ForeignCluster status.foreignProxyUrl (consumer) or Tenant spec.proxyURL (provider); the " +
      "provider's liqo-proxy Deployment and IP api-server-proxy (label ipam.liqo.io/ip-type); the consumer's " +
      "Configuration spec/status.remote.cidr.external.",
    decides:
      "skip for out-of-band peerings; on the consumer fail when the URL port is not 8118, its host is " +
      "not inside the remapped external CIDR, or (dual mode) not equal to the provider proxy IP translated " +
      "with the Configuration; on the provider fail when liqo-proxy is not ready or the IP has no status.ip.",
    fixes: "Make liqo-proxy ready and the IP allocated on the provider, then re-run liqoctl peer --in-band " +
      "so the URL is recomputed.",
  },
  hops: [],
  run,
};
