/**
 * FAB-03: NetworkPolicies selecting the gateway pod admit Geneve (UDP 6091) from every node
 * address, so the nodes' overlay tunnels reach the gateway (passive: policies are evaluated, not probed).
 * Its active half takes PROBE-MATRIX as an input (an active run): the matrix's reading of each node's
 * Geneve path amends the passive outcome (_fab03_active.ts).
 */
import { fix, kubectlIn } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import {
  activeGatewayPod,
  gatewayOf,
  gatewayPods,
  type GatewayRef,
  isVirtualNode,
} from "../../liqo/lookups.ts";
import { describePolicy, ingressPoliciesFor, policiesAdmit } from "../../liqo/policies.ts";
import { amendFab03, MATRIX_ID } from "./_fab03_active.ts";

const GENEVE_PORT = 6091;

function nodeSources(inv: Objects): string[] {
  const out = new Set<string>();
  for (const n of inv.items("internalnodes")) {
    for (const k of ["local", "remote"] as const) {
      const v = n.status?.nodeIP?.[k];
      if (typeof v === "string" && v) out.add(v);
    }
  }
  for (const n of inv.items("nodes").filter((x) => !isVirtualNode(x))) {
    for (const a of n.status?.addresses ?? []) {
      if (a?.type === "InternalIP" && a.address) out.add(a.address);
    }
  }
  return [...out];
}

function run(ctx: CheckContext): Outcome {
  const passive = runPassive(ctx);
  // The active half: what the matrix saw of this end of the probed peering (none: not probed).
  const reading = ctx.input(MATRIX_ID)?.facts.genevePaths?.find((r) =>
    r.cluster === ctx.cluster.name && r.peer === ctx.peer!.clusterId
  );
  return reading ? amendFab03(passive, reading, ctx.cluster.liqoNamespace ?? "liqo") : passive;
}

function runPassive(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const inv = ctx.cluster.inv;
  const gw: GatewayRef | null = gatewayOf(inv, peerId);
  if (!gw) return { status: "skip", summary: "no gateway for this peer (GW-01)" };
  const pods = gatewayPods(inv, gw);
  const pod = activeGatewayPod(inv, gw) ?? pods[0];
  if (!pod) return { status: "skip", summary: `no gateway pod for ${gw.workloadName} (GW-01)` };
  const policies = ingressPoliciesFor(inv.items("networkpolicies"), pod);
  if (policies.length === 0) {
    return { status: "pass", summary: "no NetworkPolicy selects the gateway pod", evidence: [] };
  }
  const sources = nodeSources(inv);
  const blocked = sources.filter((s) => !policiesAdmit(policies, s, "UDP", GENEVE_PORT));
  const evidence = policies.map(describePolicy);
  if (blocked.length === 0) {
    return {
      status: "pass",
      summary: `NetworkPolicies on ${pod.metadata.name} admit Geneve UDP ${GENEVE_PORT} from the nodes`,
      evidence,
    };
  }
  evidence.push(
    `sources not admitted for UDP ${GENEVE_PORT}: ${
      blocked.join(", ")
    } (InternalNode status.nodeIP / node InternalIPs)`,
  );
  const denyAll = policies.every((p) => (p.spec?.ingress ?? []).length === 0);
  const names = policies.map((p) => p.metadata.name).join(", ");
  return {
    status: denyAll ? "fail" : "warn",
    summary: denyAll
      ? `NetworkPolicy ${names} denies all ingress to gateway pod ${pod.metadata.name}: Geneve UDP ${GENEVE_PORT} from the nodes is dropped`
      : `NetworkPolicy ${names} on gateway pod ${pod.metadata.name} may drop Geneve UDP ${GENEVE_PORT} from the nodes`,
    evidence,
    remediation: fix(
      `admit UDP ${GENEVE_PORT} from the node addresses (and the fabric source IPs) to the gateway pods, e.g. add:`,
      `ingress: [{from: [{ipBlock: {cidr: <node CIDR>}}], ports: [{protocol: UDP, port: ${GENEVE_PORT}}]}]`,
      ...policies.map((p) =>
        kubectlIn("local", p.metadata.namespace ?? "", "edit", "networkpolicy", p.metadata.name)
      ),
    ),
  };
}

export const FAB_03: CheckDef = {
  id: "FAB-03",
  title: "Geneve UDP 6091 admitted to the gateway",
  layer: "fabric",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["networkpolicies", "pods", "internalnodes", "nodes"],
  readsIn: { pods: ["gateways"] },
  optionalReads: ["gatewayservers", "gatewayclients"],
  inputs: [MATRIX_ID],
  explain: {
    reads:
      "Passive half: NetworkPolicies selecting the gateway pod (policyTypes Ingress), the Geneve sources " +
      "(InternalNode status.nodeIP, node InternalIPs). Active half (`check --active`, `probe matrix`): the " +
      "PROBE-MATRIX grids — a probe pod on every node dialling every pod of the peer through its Geneve " +
      "tunnel to the gateway, with the same-cluster control grid beside it.",
    decides: "Passive: pass without such policies or when they admit UDP 6091 from every source; fail on a " +
      "deny-all policy; warn otherwise (CNIs differ on host traffic). Active, amending the same result: a " +
      "node whose row is red across the peering (from it nothing reaches the peer; also read when it is red " +
      "both ways) while its own cluster's control grid is green for it → fail, whatever the policies say, " +
      "naming the node; a node red in its control grid too is its CNI, not FAB-03; everything red is the " +
      "tunnel or a gateway (PROBE-MATRIX), not FAB-03. When every probed node reached the peer the status " +
      "is kept with a line saying so — a passive warn or unknown stays: the probe proves the path works " +
      "now, not that the policy is right. Flaky or unmeasured cells add a line, nothing more. " +
      "`flyingfish probe` shows FAB-03 only when its active half failed it.",
    fixes: "Add an ingress rule admitting UDP 6091 from the node addresses. A node the matrix names: its " +
      "InternalNode (`kubectl get internalnode <node> -o yaml`, status.nodeIP), the fabric pod on it " +
      "(`kubectl -n liqo get pods -l app.kubernetes.io/name=fabric --field-selector spec.nodeName=<node>`) " +
      "and its GeneveTunnels (`kubectl get genevetunnels -A -l networking.liqo.io/internal-node-name=<node>`).",
  },
  hops: ["node", "geneve"],
  run,
};
