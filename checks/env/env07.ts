/**
 * ENV-07: the nodes that host Liqo's components are Ready. A node whose kubelet stopped posting status
 * (Ready Unknown, taint node.kubernetes.io/unreachable) or whose Ready condition is False takes every
 * Liqo pod on it down while their last-posted status still says Running: the gateway stops, the
 * fabric DaemonSet is one pod short, the Connection goes stale, exec fails with "error dialing
 * backend". This check names the node and what it hosts, so those symptoms read as that node's.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Pod } from "../../liqo/views/core.ts";
import { isVirtualNode, liqoComponentOf, type NodeDown, nodeDown, nodeDownText } from "../../liqo/lookups.ts";
import { liqoNs } from "./shared.ts";
import { fix, kubectl, kubectlIn, step } from "../remediation.ts";

/** Pods that still occupy a node (not finished). */
const live = (p: Pod): boolean => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed";

/** A DaemonSet's pod serves only its own node: down with a lost node, it takes nothing else down. */
const nodeLocal = (p: Pod): boolean =>
  (p.metadata.ownerReferences ?? []).some((o) => o?.kind === "DaemonSet");

/** Gateways first (they carry the peering), then the other components by name. */
const byGatewayFirst = (a: { what: string }, b: { what: string }): number =>
  Number(!a.what.startsWith("gateway ")) - Number(!b.what.startsWith("gateway ")) ||
  a.what.localeCompare(b.what);

interface DownNode {
  down: NodeDown;
  /**
   * One per Liqo pod on the node: "liqo-fabric", "gateway gw-rome-4b2a9e", and the pod; `replacedBy`: a
   * Running pod of the same component on a Ready node (the workload moved; the pod left behind is stale).
   */
  components: { what: string; pod: Pod; replacedBy: Pod | null }[];
  /** Gateway pods on the node, for the remediation. */
  gateways: Pod[];
}

function run(ctx: CheckContext): Outcome {
  const { inv, now } = ctx.cluster;
  const nodes = inv.items("nodes").filter((n) => !isVirtualNode(n));
  if (nodes.length === 0) {
    return { status: "skip", summary: "no (non-virtual) nodes visible" };
  }
  const downs = nodes.map(nodeDown).filter((d): d is NodeDown => d !== null);
  if (downs.length === 0) {
    return { status: "pass", summary: `all ${nodes.length} nodes Ready` };
  }
  const pods = inv.tryItems("pods");
  const podsState = inv.state("pods");
  if (pods === null) {
    return {
      status: "unknown",
      summary: `node${downs.length > 1 ? "s" : ""} ${
        downs.map((d) => d.name).join(", ")
      } NotReady; cannot tell which Liqo components run there (pods not readable)`,
      evidence: [
        ...downs.map((d) => `${d.name}: ${nodeDownText(d, now)}`),
        `pods: ${"message" in podsState ? podsState.message : podsState.state}`,
      ],
    };
  }
  const ns = liqoNs(ctx.cluster);
  const downNames = new Set(downs.map((d) => d.name));
  const replacement = (p: Pod, what: string): Pod | null =>
    nodeLocal(p)
      ? null
      : pods.find((q) =>
        q !== p && !q.metadata.deletionTimestamp && q.status?.phase === "Running" && q.spec?.nodeName &&
        !downNames.has(q.spec.nodeName) && liqoComponentOf(q, ns) === what
      ) ?? null;
  const found: DownNode[] = downs.map((down) => {
    const mine = pods.filter((p) => p.spec?.nodeName === down.name && live(p));
    const components: DownNode["components"] = [];
    const gateways: Pod[] = [];
    for (const p of mine) {
      const what = liqoComponentOf(p, ns);
      if (what === null) continue;
      components.push({ what, pod: p, replacedBy: replacement(p, what) });
      if (what.startsWith("gateway ")) gateways.push(p);
    }
    return { down, components, gateways };
  });
  // Down with the node: a component nothing replaced elsewhere (a DaemonSet's pod serves only its node).
  const lost = (f: DownNode) => f.components.filter((c) => c.replacedBy === null && !nodeLocal(c.pod));
  const hosting = found.filter((f) => lost(f).length > 0);
  const moved = found.filter((f) => f.components.length > 0 && lost(f).length === 0);
  const idle = found.filter((f) => f.components.length === 0);
  const evidence: string[] = [];
  for (const f of [...hosting, ...moved, ...idle]) {
    evidence.push(
      `node ${f.down.name}: ${nodeDownText(f.down, now)}${
        f.down.taints.length ? `, taints ${f.down.taints.join(", ")}` : ""
      }${f.down.since ? `, Ready condition changed at ${f.down.since}` : ""}`,
    );
    if (f.components.length === 0) evidence.push("  hosts no Liqo component");
    for (const c of f.components) {
      const state = c.pod.metadata.deletionTimestamp ? ", Terminating" : "";
      evidence.push(
        `  hosts ${c.what} (pod ${c.pod.metadata.namespace}/${c.pod.metadata.name}${state})${
          c.replacedBy
            ? ` — replaced by ${c.replacedBy.metadata.name} on ${c.replacedBy.spec?.nodeName}`
            : nodeLocal(c.pod)
            ? " — DaemonSet pod, serves only this node"
            : ""
        }`,
      );
    }
  }
  const ready = nodes.length - downs.length;
  evidence.push(`${ready}/${nodes.length} nodes Ready`);
  const remediation = found.flatMap((f) =>
    fix(
      step(
        kubectl("local", "describe", "node", f.down.name),
        "conditions and taints; then check the machine, its kubelet and container runtime",
      ),
      kubectl("local", "get", "pods", "-A", "-o", "wide", "--field-selector", `spec.nodeName=${f.down.name}`),
      ...f.gateways.flatMap((g) => [
        "the gateway does not move by itself while its pod is bound to the lost node; to reschedule it now:",
        kubectlIn(
          "local",
          g.metadata.namespace ?? "",
          "delete",
          "pod",
          g.metadata.name,
          "--force",
          "--grace-period=0",
        ),
      ]),
    )
  );
  if (hosting.length > 0) {
    // Gateways first (they carry the peering), each with its pod; the other components by name.
    const what = hosting.map((f) => {
      const sorted = [...lost(f), ...f.components.filter((c) => nodeLocal(c.pod))].sort(byGatewayFirst);
      const names = [
        ...new Set(
          sorted.map((c) =>
            c.what.startsWith("gateway ") ? `${c.what} (pod ${c.pod.metadata.name})` : c.what
          ),
        ),
      ];
      return `node ${f.down.name} ${nodeDownText(f.down, now)} hosts ${names.join(", ")}`;
    });
    return {
      status: "fail",
      summary: `${what.join("; ")}: these Liqo components are down with the node`,
      evidence,
      remediation,
    };
  }
  if (moved.length > 0) {
    const lines = moved.map((f) => {
      const repl = [
        ...new Set(
          f.components.filter((c) => c.replacedBy).sort(byGatewayFirst)
            .map((c) => `${c.what} → ${c.replacedBy!.spec?.nodeName}`),
        ),
      ];
      const local = [...new Set(f.components.filter((c) => nodeLocal(c.pod)).map((c) => c.what))];
      return repl.length > 0
        ? `node ${f.down.name} ${nodeDownText(f.down, now)}: its Liqo pods run elsewhere now (${
          repl.join(", ")
        })`
        : `node ${f.down.name} ${nodeDownText(f.down, now)} hosts only ${
          local.join(", ")
        } (DaemonSet pods serving that node alone)`;
    });
    return { status: "warn", summary: lines.join("; "), evidence, remediation };
  }
  return {
    status: "warn",
    summary: `node${idle.length > 1 ? "s" : ""} ${
      idle.map((f) => `${f.down.name} ${nodeDownText(f.down, now)}`).join(", ")
    }: hosts no Liqo component`,
    evidence,
    remediation,
  };
}

export const ENV_07: CheckDef = {
  id: "ENV-07",
  title: "Nodes hosting Liqo components are Ready",
  layer: "env",
  needs: [],
  scope: "single",
  perPeer: false,
  reads: ["nodes"],
  optionalReads: ["pods"],
  readsIn: { pods: ["liqo", "tenants"] },
  explain: {
    reads:
      "Every non-virtual Node: the Ready condition (status, reason, message, lastTransitionTime) and the " +
      "node.kubernetes.io/unreachable and not-ready taints; the pods bound to a NotReady node (spec.nodeName) that " +
      "are Liqo's: gateway pods (networking.liqo.io/component=gateway), every pod of the Liqo namespace " +
      "(controller-manager, ipam, proxy, webhook, crd-replicator, metric-agent, fabric) and virtual-kubelet pods " +
      "(offloading.liqo.io/component=virtual-kubelet).",
    decides:
      "fail when a node whose Ready condition is not True (Unknown: the kubelet stopped posting status; " +
      "False; or the unreachable taint) hosts a Liqo component — the summary names the node, for how long " +
      "(from the Ready condition's lastTransitionTime) and every Liqo component on it; warn for a NotReady node " +
      "hosting nothing of Liqo; unknown when a node is NotReady and the pods cannot be read; pass when all nodes " +
      "are Ready. A component whose replacement runs on a Ready node (the same component, Running, not being " +
      "deleted) is not down with the node, nor is a DaemonSet pod, which serves only its node: a lost node whose " +
      "Liqo pods all moved is a warning naming where they run now. It comes first in the ENV layer: a lost node explains a DaemonSet one pod short, a gateway whose " +
      'status is stale, exec failing with "error dialing backend" and a stale Connection — GW-01, FAB-01, ' +
      "ENV-01 and TUN-01 then say the symptom is on that node (see ENV-07).",
    fixes: "Bring the node back (kubelet, container runtime, network, the machine itself) or remove it " +
      "(kubectl delete node); a gateway pod bound to a lost node is rescheduled once it is deleted (the command " +
      "is printed with the real names).",
  },
  hops: ["node"],
  run,
};
