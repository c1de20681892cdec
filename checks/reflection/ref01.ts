/**
 * REF-01: reflected EndpointSlices are usable: on the consumer, endpoints on the peer's virtual
 * node carry addresses inside the peer's remapped CIDRs; on the provider, reflected endpoints are
 * not forced ready:false by a ForeignCluster condition (Liqo's
 * `pkg/liqo-controller-manager/offloading/shadowendpointslice-controller/shadowendpointslice_controller.go`,
 * `docs/usage/service-continuity.md`).
 */
import { fix, kubectl, kubectlIn, pipe, shell } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { ageMs, formatAge, peerObjects, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { contains } from "../../probes/cidr.ts";
import { peerConfiguration, remappedCidrs } from "../../liqo/ipam.ts";
import { fcCondition, virtualNodesOf } from "./shared.ts";
import {
  MANAGED_BY_LABEL,
  ORIGIN_LABEL,
  SHADOW_ENDPOINTSLICE_MANAGER,
  VIRTUAL_KUBELET_COMPONENT,
  VIRTUAL_KUBELET_LABEL,
} from "../../liqo/names.ts";

function consumerSide(
  ctx: CheckContext,
  peerId: string,
  cidrs: string[],
): { lines: string[]; bad: string[] } {
  const inv = ctx.cluster.inv;
  const vnodes = new Set(virtualNodesOf(ctx, peerId).map((n) => n.metadata.name));
  const lines: string[] = [];
  const bad: string[] = [];
  if (vnodes.size === 0) return { lines, bad };
  for (const s of inv.items("endpointslices")) {
    const eps = (s.endpoints ?? []).filter((e) => e?.nodeName !== undefined && vnodes.has(e.nodeName));
    if (eps.length === 0) continue;
    const where = `EndpointSlice ${s.metadata.namespace}/${s.metadata.name}`;
    for (const e of eps) {
      const addrs: string[] = e?.addresses ?? [];
      const target = e?.targetRef?.name ? ` (pod ${e.targetRef.name})` : "";
      if (addrs.length === 0) bad.push(`${where}: endpoint on ${e.nodeName}${target} has no address`);
      for (const a of addrs) {
        if (cidrs.length && !cidrs.some((c) => contains(c, a))) {
          bad.push(
            `${where}: ${a}${target} on ${e.nodeName} is outside ${peerId}'s remapped CIDRs ${
              cidrs.join(", ")
            }`,
          );
        } else lines.push(`${where}: ${a}${target} on ${e.nodeName}`);
      }
    }
  }
  return { lines, bad };
}

function providerSide(ctx: CheckContext, peerId: string, cidrs: string[]) {
  const inv = ctx.cluster.inv;
  const slices = inv.items("endpointslices").filter((s) =>
    s.metadata.labels?.[MANAGED_BY_LABEL] === SHADOW_ENDPOINTSLICE_MANAGER &&
    s.metadata.labels?.[ORIGIN_LABEL] === peerId
  );
  const shadows = inv.tryItems("shadowendpointslices") ?? [];
  const lines: string[] = [];
  const bad: string[] = [];
  const notReady: string[] = [];
  const upstreamNotReady: string[] = [];
  for (const s of slices) {
    const where = `EndpointSlice ${s.metadata.namespace}/${s.metadata.name}`;
    const eps = s.endpoints ?? [];
    if (eps.length === 0) lines.push(`${where}: no endpoints`);
    const shadow = shadows.find((x) =>
      x.metadata.namespace === s.metadata.namespace && x.metadata.name === s.metadata.name
    );
    const shadowEps = shadow?.spec?.template?.endpoints ?? [];
    for (const e of eps) {
      const addrs: string[] = e?.addresses ?? [];
      const target = e?.targetRef?.name ? ` (${e.targetRef.name})` : "";
      if (addrs.length === 0) bad.push(`${where}: endpoint${target} has no address`);
      for (const a of addrs) {
        if (cidrs.length && !cidrs.some((c) => contains(c, a))) {
          bad.push(`${where}: ${a}${target} is outside ${peerId}'s remapped CIDRs ${cidrs.join(", ")}`);
        }
      }
      if (e?.conditions?.ready === false) {
        const up = shadowEps.find((x) => x?.targetRef?.name && x.targetRef.name === e?.targetRef?.name);
        const line = `${where}: ${addrs.join(",") || "?"}${target} ready:false`;
        if (up?.conditions?.ready === false) upstreamNotReady.push(`${line} (also not ready on ${peerId})`);
        else notReady.push(line);
      } else lines.push(`${where}: ${addrs.join(",")}${target} ready`);
    }
  }
  return { count: slices.length, lines, bad, notReady, upstreamNotReady };
}

function fcCauses(ctx: CheckContext, peerId: string): string[] {
  const fc = ctx.peer?.foreignCluster;
  const out: string[] = [];
  const net = fcCondition(fc, "networking", "NetworkConnectionStatus");
  if (fc?.status?.modules?.networking?.enabled !== false && net?.status !== "Established") {
    out.push(
      `ForeignCluster ${peerId}: NetworkConnectionStatus=${net?.status ?? "missing"}${
        net?.reason ? ` (${net.reason})` : ""
      } since ${formatAge(ageMs(ctx.cluster.now, net?.lastTransitionTime))}`,
    );
  }
  const api = (fc?.status?.conditions ?? []).find((c) => c?.type === "APIServerStatus");
  if (api && api.status !== "Established") {
    out.push(
      `ForeignCluster ${peerId}: APIServerStatus=${api.status}${api.reason ? ` (${api.reason})` : ""}`,
    );
  }
  const conn = peerObjects(ctx.cluster.inv, "connections", peerId)[0];
  if (conn && out.length) {
    out.push(
      `Connection ${conn.metadata.namespace}/${conn.metadata.name}: ${
        conn.status?.value ?? "no status"
      }, latency ${conn.status?.latency?.value ?? "?"} at ${conn.status?.latency?.timestamp ?? "?"}${
        conn.status?.value === "Connected" ? " — the tunnel is up: the ForeignCluster condition is stale" : ""
      }`,
    );
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const inv = ctx.cluster.inv;
  const cfg = peerConfiguration(inv, peerId);
  const r = remappedCidrs(cfg);
  const cidrs = [...r.pod, ...r.external];
  const cons = consumerSide(ctx, peerId, cidrs);
  const prov = providerSide(ctx, peerId, cidrs);
  const ns = ctx.cluster.liqoNamespace ?? "liqo";
  if (prov.notReady.length) {
    const causes = fcCauses(ctx, peerId);
    return {
      status: "fail",
      summary: causes.length
        ? `reflected endpoints from ${peerId} forced ready:false: FC networking or API-server condition not Established`
        : `reflected endpoints from ${peerId} are ready:false although ${peerId}'s pods are ready`,
      evidence: [...prov.notReady, ...causes],
      remediation: fix(
        kubectl("local", "get", "foreignclusters", peerId, "-o", "yaml"),
        kubectl("local", "get", "connections", "-A", "-l", `${REMOTE_ID_LABEL}=${peerId}`),
        "the shadowendpointslice controller only re-evaluates on a ForeignCluster condition change:",
        pipe(
          kubectlIn("local", ns, "logs", "deploy/liqo-controller-manager"),
          shell("grep", "-i", "-e", "foreigncluster", "-e", "shadowendpointslice"),
        ),
        kubectlIn("local", ns, "rollout", "restart", "deploy/liqo-controller-manager"),
      ),
    };
  }
  const bad = [...cons.bad, ...prov.bad];
  if (bad.length) {
    return {
      status: "fail",
      summary: `reflected endpoints of ${peerId} not addressable: ${bad[0]}`,
      evidence: [`remapped CIDRs of ${peerId}: ${cidrs.join(", ") || "(none)"}`, ...bad],
      remediation: fix(
        kubectl("local", "get", "endpointslices", "-A", "-o", "wide"),
        kubectlIn("local", cfg?.metadata.namespace ?? "<tenant ns>", "get", "configuration", "-o", "wide"),
        "addresses outside the remapped CIDRs: the Configuration changed after reflection; restart the virtual kubelet:",
        kubectlIn(
          "local",
          ctx.peer?.tenantNamespace ?? "<tenant ns>",
          ...["rollout", "restart", "deploy", "-l", `${VIRTUAL_KUBELET_LABEL}=${VIRTUAL_KUBELET_COMPONENT}`],
        ),
      ),
    };
  }
  const total = cons.lines.length + prov.lines.length;
  if (total === 0 && prov.upstreamNotReady.length === 0) {
    return { status: "pass", summary: `nothing reflected with ${peerId}`, evidence: [] };
  }
  return {
    status: "pass",
    summary: `${total} reflected endpoint(s) with ${peerId} inside the remapped CIDRs`,
    evidence: [...cons.lines, ...prov.lines, ...prov.upstreamNotReady].slice(0, 20),
  };
}

export const REF_01: CheckDef = {
  id: "REF-01",
  title: "Reflected EndpointSlices",
  layer: "reflection",
  needs: ["TUN-01"],
  scope: "single",
  perPeer: true,
  reads: ["endpointslices", "configurations", "nodes"],
  optionalReads: ["shadowendpointslices", "connections"],
  readsIn: { endpointslices: ["offloaded", "reflected"] },
  explain: {
    reads:
      "Consumer: EndpointSlice endpoints on the peer's virtual node. Provider: EndpointSlices labelled " +
      "liqo.io/managed-by=shadowendpointslice and offloading.liqo.io/origin=<peer>, their ShadowEndpointSlices, the " +
      "ForeignCluster networking/API-server conditions, the Connection. Both: Configuration status.remote.cidr.",
    decides:
      "fail when provider-side endpoints are forced ready:false (FC networking or API-server condition not " +
      "Established) or when addresses are empty or outside the peer's remapped CIDRs; pass otherwise " +
      "(also when nothing is reflected).",
    fixes:
      "Bring the ForeignCluster condition back to Established (controller-manager logs/restart); restart the " +
      "virtual kubelet when addresses are stale.",
  },
  hops: ["remote-pod"],
  run,
};
