/**
 * FAB-02: the per-node Geneve wiring towards the peer's gateway is consistent (Liqo's
 * `pkg/liqo-controller-manager/networking/internal-network/`, `pkg/fabric/genevetunnel_controller.go`): the
 * InternalFabric points at the active gateway pod's IP, and every non-virtual node has an
 * InternalNode with its addresses and a GeneveTunnel.
 */
import { fix, type FixPart, kubectl, kubectlIn, pipe, shell } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { InternalFabric } from "../../liqo/views/networking.ts";
import { activeGatewayPod, gatewayOf, isVirtualNode, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { nodeDown } from "../../liqo/lookups.ts";
import { FABRIC_NAME_LABEL, noGatewaySkip } from "./shared.ts";
import { INTERNAL_FABRIC_NAME_LABEL, INTERNAL_NODE_NAME_LABEL } from "../../liqo/names.ts";

function nodeWiring(
  inv: Objects,
  fabric: InternalFabric | null,
  gwNode: string | undefined,
  evidence: string[],
): string[] {
  const problems: string[] = [];
  const inodes = new Map(inv.items("internalnodes").map((n) => [n.metadata.name, n]));
  // The nodes that have a GeneveTunnel of this InternalFabric (a set: 500 nodes × 10 peers is routine).
  const tunnelled = new Set(
    fabric
      ? inv.items("genevetunnels").filter((t) =>
        t.metadata.namespace === fabric.metadata.namespace &&
        t.metadata.labels?.[INTERNAL_FABRIC_NAME_LABEL] === fabric.metadata.name
      ).map((t) => t.metadata.labels?.[INTERNAL_NODE_NAME_LABEL])
      : [],
  );
  let wired = 0;
  for (const node of inv.items("nodes").filter((n) => !isVirtualNode(n))) {
    const name = node.metadata.name;
    const inode = inodes.get(name);
    // A NotReady node's wiring is that node's problem (ENV-07 names it), not a fabric fault.
    if (nodeDown(node)) {
      evidence.push(`node ${name}: NotReady (see ENV-07), its wiring is not judged`);
      continue;
    }
    if (!inode) {
      problems.push(`node ${name}: no InternalNode`);
      continue;
    }
    const need = name === gwNode ? "local" : "remote";
    const nodeIP = inode.status?.nodeIP?.[need];
    if (!inode.spec?.interface?.node?.ip) {
      problems.push(`node ${name}: InternalNode has no spec.interface.node.ip`);
    }
    if (!nodeIP) {
      problems.push(
        `node ${name}: InternalNode has no status.nodeIP.${need} — its fabric pod is not running or does not see the active gateway`,
      );
    } else if (++wired <= WIRED_SHOWN) {
      evidence.push(
        `InternalNode ${name}: overlay ${inode.spec?.interface?.node?.ip}, nodeIP.${need} ${nodeIP}`,
      );
    }
    if (fabric && !tunnelled.has(name)) {
      problems.push(`node ${name}: no GeneveTunnel for InternalFabric ${fabric.metadata.name}`);
    }
  }
  if (wired > WIRED_SHOWN) {
    evidence.push(`… and ${wired - WIRED_SHOWN} more InternalNodes with an overlay address and nodeIP set`);
  }
  return problems;
}

/** Healthy nodes listed one by one in the evidence; the rest are counted (a 500-node cluster). */
const WIRED_SHOWN = 5;

/** Problems listed one by one in the evidence; the rest are counted. */
const PROBLEMS_SHOWN = 20;

/** The first problems, then how many more. */
function listed(problems: readonly string[]): string[] {
  return problems.length <= PROBLEMS_SHOWN
    ? [...problems]
    : [...problems.slice(0, PROBLEMS_SHOWN), `… and ${problems.length - PROBLEMS_SHOWN} more problems`];
}

function run(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const { inv, liqoNamespace } = ctx.cluster;
  const gw = gatewayOf(inv, peerId);
  if (!gw) return noGatewaySkip(ctx);
  const pod = activeGatewayPod(inv, gw);
  if (!pod) return { status: "skip", summary: `no running gateway pod for ${gw.workloadName} (GW-01)` };
  const podIP: string | undefined = pod.status?.podIP;
  const gwNode: string | undefined = pod.spec?.nodeName;
  const problems: string[] = [];
  const evidence: string[] = [
    `active gateway pod ${gw.namespace}/${pod.metadata.name}: IP ${podIP ?? "?"} on ${gwNode ?? "?"}`,
  ];
  const lns = liqoNamespace ?? "liqo";
  const cmLogs = pipe(
    kubectlIn("local", lns, "logs", "deploy/liqo-controller-manager"),
    shell("grep", "-i", "internalfabric"),
  );
  const fixes: FixPart[] = [];
  const fabrics = inv.items("internalfabrics").filter((f) => f.metadata.labels?.[REMOTE_ID_LABEL] === peerId);
  const fabric = fabrics.find((f) => f.metadata.namespace === gw.namespace) ?? fabrics[0] ?? null;
  if (!fabric) {
    problems.push(`no InternalFabric labelled ${REMOTE_ID_LABEL}=${peerId}`);
    fixes.push(cmLogs);
  } else {
    const ip = fabric.spec?.gatewayIP;
    evidence.push(
      `InternalFabric ${fabric.metadata.namespace}/${fabric.metadata.name}: spec.gatewayIP ${ip ?? "(none)"}`,
    );
    if (ip !== podIP) {
      problems.push(
        `InternalFabric ${fabric.metadata.name} spec.gatewayIP ${ip ?? "(none)"} ≠ gateway pod IP ${
          podIP ?? "?"
        } (stale after a gateway restart): every node's Geneve tunnel points at a dead address`,
      );
      fixes.push(
        "the controller-manager rewrites it from the gateway status; make it reconcile:",
        cmLogs,
        kubectlIn("local", lns, "rollout", "restart", "deploy/liqo-controller-manager"),
      );
    }
  }
  problems.push(...nodeWiring(inv, fabric, gwNode, evidence));
  if (problems.length === 0) {
    return {
      status: "pass",
      summary: `InternalFabric, InternalNodes and GeneveTunnels consistent for ${gw.workloadName}`,
      evidence,
    };
  }
  if (problems.some((p) => p.startsWith("node "))) {
    fixes.push(
      kubectl("local", "get", "internalnodes", "-o", "wide"),
      kubectlIn("local", lns, "get", "pods", "-l", `${FABRIC_NAME_LABEL}=fabric`, "-o", "wide"),
    );
  }
  return {
    status: "fail",
    summary: problems[0],
    evidence: [...evidence, ...listed(problems)],
    remediation: fix(...fixes),
  };
}

export const FAB_02: CheckDef = {
  id: "FAB-02",
  title: "Per-node Geneve wiring",
  layer: "fabric",
  needs: ["FAB-01"],
  scope: "single",
  perPeer: true,
  reads: ["internalnodes", "internalfabrics", "genevetunnels", "nodes", "pods"],
  readsIn: { pods: ["liqo", "gateways"] },
  optionalReads: ["gatewayservers", "gatewayclients"],
  explain: {
    reads:
      "InternalNode per non-virtual node (spec.interface.node.ip, status.nodeIP.local for the gateway's node, " +
      ".remote for the others), the peer's InternalFabric (spec.gatewayIP), GeneveTunnels by their " +
      "internal-fabric-name/internal-node-name labels, the active gateway pod's IP and node.",
    decides:
      "fail naming the node or gateway whose object is missing or stale (gatewayIP ≠ gateway pod IP after " +
      "a gateway restart). NotReady nodes are left out (noted in the evidence): their missing wiring is the " +
      "lost node's, which ENV-07 reports.",
    fixes: "Make the controller-manager reconcile (logs, restart); fix the node's fabric pod.",
  },
  hops: ["node", "geneve"],
  run,
};
