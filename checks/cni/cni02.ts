/**
 * CNI-02: NetworkPolicies in offloaded namespaces admit the peer's remapped pod CIDR, and those
 * selecting the gateway server pods admit the WireGuard UDP port. Only warns: policy semantics vary by CNI.
 */
import { fix, kubectlIn } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { NetworkPolicy } from "../../liqo/views/core.ts";
import { gatewayOf, gatewayPods, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { peerConfiguration, remappedCidrs } from "../../liqo/ipam.ts";
import {
  describePolicy,
  ingressPoliciesFor,
  policiesAdmit,
  policyTypes,
  selectorMatches,
} from "../../liqo/policies.ts";
import { MANAGED_BY_NAMESPACE_MAP_ANNOTATION, TENANT_NAMESPACE_LABEL } from "../../liqo/names.ts";

function offloadedNamespaces(ctx: CheckContext, peerId: string): string[] {
  const inv = ctx.cluster.inv;
  const out = new Set<string>();
  for (const nso of inv.items("namespaceoffloadings")) {
    const conds = nso.status?.remoteNamespacesConditions;
    if (!conds || typeof conds !== "object" || Object.keys(conds).length === 0 || peerId in conds) {
      if (nso.metadata.namespace) out.add(nso.metadata.namespace);
    }
  }
  // Provider side: namespaces Liqo created for the consumer (label remote-cluster-id, not tenant namespaces).
  for (const ns of inv.tryItems("namespaces") ?? []) {
    if (
      ns.metadata.labels?.[REMOTE_ID_LABEL] === peerId &&
      ns.metadata.labels?.[TENANT_NAMESPACE_LABEL] !== "true" &&
      ns.metadata.annotations?.[MANAGED_BY_NAMESPACE_MAP_ANNOTATION] !== undefined
    ) out.add(ns.metadata.name);
  }
  return [...out];
}

function blockingInNamespaces(
  policies: readonly NetworkPolicy[],
  namespaces: string[],
  cidrs: string[],
): NetworkPolicy[] {
  const out: NetworkPolicy[] = [];
  for (const ns of namespaces) {
    const inNs = policies.filter((p) => p.metadata.namespace === ns && policyTypes(p).includes("Ingress"));
    const admitsAll = (p: NetworkPolicy) => cidrs.every((c) => policiesAdmit([p], c, null, null));
    const nsWide = inNs.some((p) =>
      selectorMatches(p.spec?.podSelector, {}) &&
      Object.keys(p.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
      (p.spec?.podSelector?.matchExpressions ?? []).length === 0 && admitsAll(p)
    );
    if (nsWide) continue;
    out.push(...inNs.filter((p) => !admitsAll(p)));
  }
  return out;
}

function gatewayBlocking(
  ctx: CheckContext,
  policies: readonly NetworkPolicy[],
  peerId: string,
): { pols: NetworkPolicy[]; port: number } | null {
  const gw = gatewayOf(ctx.cluster.inv, peerId);
  if (!gw || gw.role !== "server") return null;
  const port = Number(gw.object.spec?.endpoint?.port ?? 51840);
  const pods = gatewayPods(ctx.cluster.inv, gw);
  const pols = new Set<NetworkPolicy>();
  for (const pod of pods) {
    const sel = ingressPoliciesFor(policies, pod);
    if (sel.length && !policiesAdmit(sel, "0.0.0.0/0", "UDP", port)) sel.forEach((p) => pols.add(p));
  }
  return pols.size ? { pols: [...pols], port } : null;
}

function run(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const policies = ctx.cluster.inv.items("networkpolicies");
  if (policies.length === 0) return { status: "pass", summary: "no NetworkPolicies", evidence: [] };
  const cfg = peerConfiguration(ctx.cluster.inv, peerId);
  const remotePods = remappedCidrs(cfg).pod;
  const namespaces = offloadedNamespaces(ctx, peerId);
  const evidence: string[] = [];
  let offending: NetworkPolicy[] = [];
  if (remotePods.length && namespaces.length) {
    offending = blockingInNamespaces(policies, namespaces, remotePods);
    evidence.push(
      `peer ${peerId} pods arrive from ${
        remotePods.join(", ")
      } (Configuration status.remote.cidr.pod); offloaded namespaces: ${namespaces.join(", ")}`,
    );
  }
  const gw = gatewayBlocking(ctx, policies, peerId);
  if (offending.length === 0 && !gw) {
    return { status: "pass", summary: `no NetworkPolicy blocks ${peerId}`, evidence };
  }
  const lines = offending.map((p) => `${describePolicy(p)} — does not admit ${remotePods.join(", ")}`);
  if (gw) {
    lines.push(
      ...gw.pols.map((p) =>
        `${describePolicy(p)} — selects the gateway but does not admit UDP ${gw.port} from the peer`
      ),
    );
  }
  const first = offending[0] ?? gw!.pols[0];
  return {
    status: "warn",
    summary:
      `NetworkPolicy ${first.metadata.namespace}/${first.metadata.name} may drop traffic from ${peerId}`,
    evidence: [...evidence, ...lines],
    remediation: fix(
      "Remote pods have no namespace/pod labels here: admit them by address, e.g. add to the policy's ingress:",
      `- from: [{ipBlock: {cidr: ${remotePods[0] ?? "<remapped pod CIDR>"}}}]`,
      ...[...new Set([...offending, ...(gw?.pols ?? [])])].map((p) =>
        kubectlIn("local", p.metadata.namespace ?? "", "edit", "networkpolicy", p.metadata.name)
      ),
    ),
  };
}

export const CNI_02: CheckDef = {
  id: "CNI-02",
  title: "NetworkPolicies admit the peer",
  layer: "cni",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["networkpolicies", "namespaceoffloadings", "configurations", "pods"],
  readsIn: { pods: ["gateways"] },
  optionalReads: ["namespaces", "gatewayservers", "gatewayclients"],
  explain: {
    reads:
      "NetworkPolicies in offloaded namespaces (a NamespaceOffloading on the consumer, the namespaces Liqo " +
      "created for the consumer on the provider) and those selecting the gateway server pods; the peer's remapped " +
      "pod CIDR (Configuration status.remote.cidr.pod).",
    decides:
      "warn listing policies whose ingress rules cannot admit the remapped pod CIDR (ipBlock not containing " +
      "it, or namespace/pod selectors only: remote pods have no namespace here), and gateway-server policies not " +
      "admitting the WireGuard UDP port.",
    fixes: "Add an ipBlock rule for the remapped pod CIDR (and UDP to the gateway).",
  },
  hops: ["local-pod"],
  run,
};
