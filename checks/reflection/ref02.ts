/**
 * REF-02: the peer's virtual node is healthy (consumer side): VirtualNode conditions, the
 * virtual-kubelet Deployment running, the virtual Node Ready and without NetworkUnavailable (Liqo's
 * `pkg/virtualKubelet/liqoNodeProvider/setup.go`, `conditions.go`, `utils.go`).
 */
import { fix, kubectl, kubectlIn, type RemediationStep, step, unique } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Node } from "../../liqo/views/core.ts";
import { ageMs, conditionOf, formatAge, peerObjects } from "../../liqo/lookups.ts";
import { fcCondition, virtualNodesOf } from "./shared.ts";
import {
  VIRTUAL_KUBELET_COMPONENT,
  VIRTUAL_KUBELET_LABEL,
  VIRTUAL_NODE_NAME_LABEL,
} from "../../liqo/names.ts";

function nodeProblems(ctx: CheckContext, node: Node, evidence: string[], now: Date): string[] {
  const name = node.metadata.name;
  const out: string[] = [];
  const ready = conditionOf(node, "Ready");
  const net = conditionOf(node, "NetworkUnavailable");
  const pods = ctx.cluster.inv.onNode("pods", name);
  const running = pods.filter((p) => p.status?.phase === "Running").length;
  evidence.push(
    `Node ${name}: Ready=${ready?.status ?? "?"}${
      ready?.reason ? ` (${ready.reason})` : ""
    }, NetworkUnavailable=${net?.status ?? "n/a"}${net?.reason ? ` (${net.reason})` : ""}, age ${
      formatAge(ageMs(now, node.metadata.creationTimestamp))
    }, pods ${running}/${pods.length} running`,
  );
  if (ready?.status !== "True") {
    out.push(
      `virtual node ${name} NotReady${
        ready?.reason ? ` (${ready.reason}${ready.message ? `: ${ready.message}` : ""})` : ""
      } since ${formatAge(ageMs(now, ready?.lastTransitionTime))}${
        net?.status === "True" ? `; NetworkUnavailable=True (${net.reason ?? "?"})` : ""
      }`,
    );
    const fcNet = fcCondition(ctx.peer?.foreignCluster, "networking", "NetworkConnectionStatus");
    if (net?.status === "True" && fcNet) {
      evidence.push(
        `ForeignCluster ${ctx.peer!.clusterId}: NetworkConnectionStatus=${fcNet.status}${
          fcNet.reason ? ` (${fcNet.reason})` : ""
        }`,
      );
      const conn = peerObjects(ctx.cluster.inv, "connections", ctx.peer!.clusterId)[0];
      if (conn) evidence.push(`Connection ${conn.metadata.name}: ${conn.status?.value ?? "no status"}`);
    }
  } else if (net?.status === "True") {
    out.push(`virtual node ${name}: NetworkUnavailable=True (${net.reason ?? "?"})`);
  } else if (pods.length === 0) {
    evidence.push(`Node ${name} is Ready but nothing runs on it`);
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const inv = ctx.cluster.inv;
  const vns = peerObjects(inv, "virtualnodes", peerId);
  const nodes = virtualNodesOf(ctx, peerId);
  if (vns.length === 0 && nodes.length === 0) {
    return {
      status: "skip",
      summary: `no VirtualNode for ${peerId} (provider side, or offloading not enabled)`,
    };
  }
  const problems: string[] = [];
  const evidence: string[] = [];
  const fixes: RemediationStep[] = [];
  const now = ctx.cluster.now;
  for (const vn of vns) {
    const name = vn.metadata.name;
    const conds = vn.status?.conditions ?? [];
    const badConds = conds.filter((c) => c?.status !== "Running" && c?.status !== "None");
    evidence.push(
      `VirtualNode ${vn.metadata.namespace}/${name}: ${
        conds.map((c) => `${c.type}=${c.status}`).join(", ") || "no conditions"
      }`,
    );
    if (badConds.length) {
      problems.push(`VirtualNode ${name}: ${badConds.map((c) => `${c.type}=${c.status}`).join(", ")}`);
    }
    const dep = inv.items("deployments").find((d) =>
      d.metadata.namespace === vn.metadata.namespace &&
      d.metadata.labels?.[VIRTUAL_KUBELET_LABEL] === VIRTUAL_KUBELET_COMPONENT &&
      (d.metadata.labels?.[VIRTUAL_NODE_NAME_LABEL] === name || d.metadata.name === `vk-${name}`)
    );
    if (!dep) {
      problems.push(`virtual-kubelet Deployment vk-${name} not found in ${vn.metadata.namespace}`);
    } else {
      const ready = dep.status?.readyReplicas ?? 0;
      evidence.push(
        `Deployment ${dep.metadata.namespace}/${dep.metadata.name}: ready ${ready}/${
          dep.spec?.replicas ?? 1
        }`,
      );
      if (ready < 1) {
        problems.push(
          `virtual kubelet ${dep.metadata.name} not running (ready ${ready}/${dep.spec?.replicas ?? 1})`,
        );
        fixes.push(
          ...fix(
            kubectlIn("local", dep.metadata.namespace ?? "", "describe", "deploy", dep.metadata.name),
            kubectlIn("local", dep.metadata.namespace ?? "", "logs", `deploy/${dep.metadata.name}`),
          ),
        );
      }
    }
    if (vn.spec?.createNode !== false && !nodes.some((n) => n.metadata.name === name)) {
      problems.push(`virtual Node ${name} does not exist (createNode is true)`);
    }
  }
  for (const node of nodes) problems.push(...nodeProblems(ctx, node, evidence, now));
  if (problems.length === 0) {
    return {
      status: "pass",
      summary: `virtual node(s) ${
        nodes.map((n) => n.metadata.name).join(", ") || vns.map((v) => v.metadata.name).join(", ")
      } Ready`,
      evidence,
    };
  }
  const tn = ctx.peer?.tenantNamespace ?? vns[0]?.metadata.namespace ?? "<tenant ns>";
  fixes.push(
    ...fix(
      kubectl("local", "describe", "node", String(nodes[0]?.metadata.name ?? vns[0]?.metadata.name)),
      kubectlIn("local", tn, "logs", `deploy/vk-${vns[0]?.metadata.name ?? peerId}`),
      step(
        kubectl("local", "get", "foreignclusters", peerId, "-o", "yaml"),
        "the virtual node follows NetworkConnectionStatus",
      ),
    ),
  );
  return {
    status: "fail",
    summary: problems[0],
    evidence: [...evidence, ...problems],
    remediation: unique(fixes),
  };
}

export const REF_02: CheckDef = {
  id: "REF-02",
  title: "Virtual node healthy",
  layer: "reflection",
  // The virtual node goes NotReady when the tunnel is down (pkg/virtualKubelet/liqoNodeProvider/utils.go):
  // that is TUN-01's finding.
  needs: ["TUN-01"],
  scope: "single",
  perPeer: true,
  reads: ["virtualnodes", "nodes", "deployments", "pods"],
  readsIn: { pods: ["virtual-nodes"] },
  optionalReads: ["connections"],
  explain: {
    reads: "VirtualNodes of the peer (conditions), the virtual Node (Ready, NetworkUnavailable, age), the " +
      "virtual-kubelet Deployment (label offloading.liqo.io/component=virtual-kubelet), pods scheduled on the node.",
    decides:
      "skip on the provider side; fail on a NotReady node, NetworkUnavailable=True, a VirtualNode condition " +
      "other than Running/None or a virtual kubelet not running. A Ready node with nothing on it is only noted.",
    fixes: "Follow the virtual kubelet logs; a NetworkUnavailable node follows the ForeignCluster's " +
      "NetworkConnectionStatus.",
  },
  hops: ["remote-pod"],
  run,
};
