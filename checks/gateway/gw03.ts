/**
 * GW-03: what the GatewayServer advertises (status.endpoint) is what its Service exposes now
 * (Liqo's `pkg/liqo-controller-manager/networking/external-network/wireguard/wggatewayserver_controller.go`):
 * LoadBalancer ingress + port, the active gateway node's address + nodePort, or the
 * cluster IPs.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Service } from "../../liqo/views/core.ts";
import { activeGatewayPod, type GatewayRef, liqoVersionOf, nodeReady } from "../../liqo/lookups.ts";
import { type Endpoint, endpointOf, formatEndpoint, preferredNodeAddress } from "../../liqo/endpoints.ts";
import { gatewayService, serverOnly, servicePort } from "./shared.ts";
import { fix, kubectl, kubectlIn, pipe, shell, step } from "../remediation.ts";
import { hostnameFirstRisk, hostnameLines } from "../common/endpoint_names.ts";

/** What GatewayServer.status.endpoint should say given the Service (the server controller above). */
function expectedServerEndpoint(
  ctx: CheckContext,
  gw: GatewayRef,
  svc: Service,
): { endpoint: Endpoint; note: string } | { skip: string } {
  const type = svc.spec?.type ?? "ClusterIP";
  const port = servicePort(svc, gw);
  if (type === "LoadBalancer") {
    const ingress = svc.status?.loadBalancer?.ingress ?? [];
    const addresses: string[] = [];
    for (const i of ingress) {
      if (i?.ip) addresses.push(String(i.ip));
      if (i?.hostname) addresses.push(String(i.hostname));
    }
    return { endpoint: { addresses, port: port?.port ?? null }, note: "LoadBalancer ingress + service port" };
  }
  if (type === "NodePort") {
    const active = activeGatewayPod(ctx.cluster.inv, gw);
    const nodeName = active?.spec?.nodeName;
    if (!nodeName) {
      return { skip: "no running gateway pod, so no node address to advertise (see GW-01)" };
    }
    const node = ctx.cluster.inv.items("nodes").find((n) => n.metadata.name === nodeName);
    const ready = node ? nodeReady(node) : false;
    const addr = node && ready ? preferredNodeAddress(node) ?? "" : "";
    return {
      endpoint: { addresses: [addr], port: port?.nodePort ?? null },
      note: `address of node ${nodeName}${ready ? "" : ' (NotReady → "")'} + nodePort`,
    };
  }
  const ips: string[] = (svc.spec?.clusterIPs ?? [svc.spec?.clusterIP]).filter((x) => x)
    .map(String);
  return { endpoint: { addresses: ips, port: port?.port ?? null }, note: "ClusterIP + service port" };
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const l = serverOnly(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const svc = gatewayService(ctx, gw);
  if (!svc) return { status: "skip", summary: "no gateway server Service (see GW-02)" };
  const exp = expectedServerEndpoint(ctx, gw, svc);
  if ("skip" in exp) return { status: "skip", summary: exp.skip };
  const status = endpointOf(gw.object.status?.endpoint);
  const evidence = [
    `GatewayServer ${gw.namespace}/${gw.name} status.endpoint: ${formatEndpoint(status)}`,
    `Service ${svc.metadata.name} (${svc.spec?.type ?? "ClusterIP"}) → ${
      formatEndpoint(exp.endpoint)
    } (${exp.note})`,
  ];
  const wg = (ctx.cluster.inv.tryItems("wggatewayservers") ?? []).find((w) =>
    w.metadata.namespace === gw.namespace && w.metadata.name === gw.name
  );
  if (wg) {
    evidence.push(
      `WgGatewayServer ${gw.name} status.endpoint: ${formatEndpoint(endpointOf(wg.status?.endpoint))}`,
    );
  }
  evidence.push(...await hostnameLines(ctx, "advertised address", status));
  const lns = ctx.cluster.liqoNamespace ?? "liqo";
  const refresh = [
    pipe(kubectlIn("local", lns, "logs", "deploy/liqo-controller-manager"), shell("grep", "-i", gw.name)),
    step(
      kubectlIn("local", lns, "rollout", "restart", "deploy/liqo-controller-manager"),
      "re-reconciles status.endpoint from the Service",
    ),
  ];
  if (!status || status.addresses.length === 0) {
    return {
      status: "fail",
      summary: `GatewayServer ${gw.name} advertises no endpoint (status.endpoint missing)`,
      evidence,
      remediation: fix(
        kubectlIn("local", gw.namespace, "get", "gatewayserver", gw.name, "-o", "yaml"),
        ...refresh,
      ),
    };
  }
  if (status.addresses[0] === "") {
    return {
      status: "fail",
      summary:
        `GatewayServer ${gw.name} advertises an empty address: the node running the gateway is NotReady`,
      evidence,
      remediation: fix(
        kubectl("local", "get", "nodes", "-o", "wide"),
        kubectlIn("local", gw.namespace, "get", "pods", "-o", "wide"),
      ),
    };
  }
  const addrOk = sameSet(status.addresses, exp.endpoint.addresses);
  const portOk = status.port === exp.endpoint.port;
  if (addrOk && portOk) {
    // Only addresses[0] is dialled: a hostname first hides the IPs after it from old clients. With both
    // kubeconfigs GW-04 judges it with the client's own version; here this cluster's version stands in.
    const risk = hostnameFirstRisk(
      status,
      ctx.remote ? liqoVersionOf(ctx.remote.inv) : liqoVersionOf(ctx.cluster.inv),
      ctx.remote
        ? `the client ${ctx.remote.name}'s controller-manager image`
        : "this cluster's controller-manager image; the client usually runs the same",
    );
    if (risk) evidence.push(risk.line);
    if (risk?.certain && !ctx.remote) {
      return {
        status: "warn",
        summary: `GatewayServer ${gw.name} advertises ${formatEndpoint(status)}: ${risk.summary}`,
        evidence,
        remediation: risk.remediation,
      };
    }
    if (risk?.certain) evidence.push("what the client actually dials is judged by GW-04");
    return {
      status: "pass",
      summary: `advertised endpoint ${formatEndpoint(status)} matches the Service`,
      evidence,
    };
  }
  const what = [!addrOk ? "address" : "", !portOk ? "port" : ""].filter((x) => x).join(" and ");
  return {
    status: "fail",
    summary: `GatewayServer ${gw.name} advertises a stale ${what}: ${
      formatEndpoint(status)
    }, the Service is at ${formatEndpoint(exp.endpoint)}`,
    evidence,
    remediation: fix(...refresh, "then make sure the peer's GatewayClient dials the new endpoint (GW-04)"),
  };
}

export const GW_03: CheckDef = {
  id: "GW-03",
  title: "Advertised endpoint matches the exposure",
  layer: "gateway",
  needs: ["GW-02"],
  scope: "single",
  perPeer: true,
  reads: ["gatewayservers", "gatewayclients", "services", "nodes", "pods"],
  readsIn: { pods: ["gateways"] },
  optionalReads: ["wggatewayservers"],
  explain: {
    reads:
      "GatewayServer status.endpoint {addresses, port}; the Service: LoadBalancer ingress IPs and hostnames " +
      "+ service port, NodePort the address of the node running the active gateway pod (ExternalDNS > " +
      'ExternalIP > InternalDNS > InternalIP > Hostname, "" when NotReady) + nodePort, ClusterIP the cluster IPs.',
    decides:
      "Server side only. fail: status.endpoint missing, an empty address (NotReady node), or addresses/port " +
      "that differ from what the Service exposes now (stale). warn (one kubeconfig): a hostname listed " +
      "before an IP on Liqo before v1.2 (controller-manager image tag), whose client gateway dials only " +
      "addresses[0] and so never tries the IPs when the name does not resolve in its cluster — with both " +
      "kubeconfigs GW-04 judges that with the client's version. Hostname addresses are resolved from this " +
      "host as evidence (only with network probes on; a missing --allow-net permission is an evidence " +
      "line). skip: NodePort without a running gateway pod.",
    fixes:
      "The controller-manager rewrites status.endpoint from the Service: check its logs, restart it; then " +
      "update the peer's GatewayClient (GW-04). Hostname first: make sure it resolves in the client " +
      "cluster, or have the client dial the IP (--gw-client-address).",
  },
  hops: ["gateway"],
  hubReads: ["resolve"],
  run,
};
