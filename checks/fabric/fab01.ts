/**
 * FAB-01: the liqo-fabric DaemonSet has a Running+Ready pod on every non-virtual node
 * (Liqo's `deployments/liqo/templates/liqo-fabric-daemonset.yaml`);
 * for each node without one it says why (untolerated taint, nodeSelector, Pending reason, crash).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { DaemonSet, Node, Pod } from "../../liqo/views/core.ts";
import type { Taint, Toleration } from "../../liqo/views/meta.ts";
import {
  conditionOf,
  containerSummaries,
  isVirtualNode,
  type Named,
  networkingEnabled,
  nodeDown,
  nodeDownText,
  nodeReady,
  warningEventsFor,
} from "../../liqo/lookups.ts";
import { containerLog } from "../common/logs.ts";
import { FABRIC_NAME_LABEL, fabricPods } from "./shared.ts";
import { fix, helm, kubectl, kubectlIn, step } from "../remediation.ts";

/** The liqo-fabric DaemonSet (label app.kubernetes.io/name=fabric in the Liqo namespace), if any. */
export function fabricDaemonSet(inv: Objects, liqoNs: string | null): DaemonSet | null {
  const dss = inv.items("daemonsets").filter((d) => liqoNs === null || d.metadata.namespace === liqoNs);
  return dss.find((d) => d.metadata.labels?.[FABRIC_NAME_LABEL] === "fabric") ??
    dss.find((d) => d.metadata.name === "liqo-fabric") ?? null;
}

const podReady = (p: Pod): boolean =>
  p.status?.phase === "Running" && conditionOf(p, "Ready")?.status === "True";

/** True when a toleration tolerates a taint (Kubernetes semantics). */
export function tolerates(tol: Toleration | null | undefined, taint: Taint | null | undefined): boolean {
  if (tol?.effect && tol.effect !== taint?.effect) return false;
  if (tol?.operator === "Exists") return !tol.key || tol.key === taint?.key;
  return tol?.key === taint?.key && (tol?.value ?? "") === (taint?.value ?? "");
}

/** DaemonSet pods tolerate node.kubernetes.io/* condition taints automatically. */
const AUTO_TOLERATED = /^node\.kubernetes\.io\//;

function untoleratedTaints(ds: DaemonSet, node: Node): string[] {
  const tols = ds.spec?.template?.spec?.tolerations ?? [];
  return (node.spec?.taints ?? [])
    .filter((t) =>
      (t?.effect === "NoSchedule" || t?.effect === "NoExecute") && !AUTO_TOLERATED.test(t?.key ?? "")
    )
    .filter((t) => !tols.some((tol) => tolerates(tol, t)))
    .map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`);
}

function whyNoFabric(ds: DaemonSet, node: Node, pods: Pod[], now: Date): string {
  const name = node.metadata.name;
  const down = nodeDown(node);
  if (down) {
    // A lost node: its fabric pod (if any) keeps its last-posted status; ENV-07 names the node.
    const pod = pods[0] ? `fabric pod ${pods[0].metadata.name}` : "no fabric pod";
    return `${name}: ${pod} on NotReady node ${name} (see ENV-07): ${nodeDownText(down, now)}`;
  }
  if (pods.length === 0) {
    const taints = untoleratedTaints(ds, node);
    if (taints.length) {
      return `${name}: no fabric pod — taint ${taints.join(", ")} not tolerated by the DaemonSet`;
    }
    const sel: Record<string, string> = ds.spec?.template?.spec?.nodeSelector ?? {};
    const miss = Object.entries(sel).filter(([k, v]) => node.metadata.labels?.[k] !== v);
    if (miss.length) {
      return `${name}: no fabric pod — nodeSelector ${
        miss.map(([k, v]) => `${k}=${v}`).join(",")
      } not matched`;
    }
    if (!nodeReady(node)) return `${name}: no fabric pod — node is NotReady`;
    return `${name}: no fabric pod scheduled`;
  }
  const p = pods[0];
  if (p.status?.phase === "Pending") {
    const sched = conditionOf(p, "PodScheduled");
    const cs = containerSummaries(p).find((c) => c.state !== "running");
    const why = sched?.status === "False"
      ? `${sched.reason ?? "Unschedulable"}: ${sched.message ?? ""}`
      : cs?.state ?? "";
    return `${name}: fabric pod ${p.metadata.name} Pending${why ? ` (${why.trim()})` : ""}`;
  }
  const bad = containerSummaries(p).filter((c) => !c.ready || c.state !== "running");
  const detail = bad.map((c) =>
    `${c.name} ${c.state}, ${c.restarts} restarts${c.lastTermination ? `, last: ${c.lastTermination}` : ""}`
  );
  return `${name}: fabric pod ${p.metadata.name} ${p.status?.phase ?? "?"}, not Ready${
    detail.length ? ` (${detail.join("; ")})` : ""
  }${nodeReady(node) ? "" : " — node is NotReady"}`;
}

/** Warning events of a fabric pod or the DaemonSet, as indented evidence lines. */
function fabricEvents(ctx: CheckContext, kind: string, o: Named): string[] {
  return warningEventsFor(ctx.cluster.inv, kind, o.metadata.namespace, o.metadata.name, ctx.cluster.now)
    .map((l) =>
      `  event ${kind === "Pod" ? `pod ${o.metadata.name}` : `daemonset ${o.metadata.name}`}: ${l}`
    );
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const { inv, liqoNamespace } = ctx.cluster;
  if (!liqoNamespace) return { status: "skip", summary: "Liqo namespace not found (ENV-01)" };
  const ds = fabricDaemonSet(inv, liqoNamespace);
  if (!ds) {
    if (!networkingEnabled(inv)) {
      return { status: "skip", summary: "networking module disabled (--networking-enabled=false)" };
    }
    return {
      status: "fail",
      summary: `liqo-fabric DaemonSet missing in ${liqoNamespace}: pods on every node won't reach the peer`,
      evidence: [`no DaemonSet labelled ${FABRIC_NAME_LABEL}=fabric in ${liqoNamespace}`],
      remediation: fix(
        helm("local", "-n", liqoNamespace, "status", "liqo"),
        helm("local", "-n", liqoNamespace, "upgrade", "liqo", "liqo/liqo", "--reuse-values"),
      ),
    };
  }
  const pods = fabricPods(inv, liqoNamespace);
  const nodes = inv.items("nodes").filter((n) => !isVirtualNode(n));
  const st = ds.status;
  const evidence = [
    `DaemonSet ${liqoNamespace}/${ds.metadata.name}: desired ${st?.desiredNumberScheduled ?? "?"}, ready ${
      st?.numberReady ?? "?"
    }, non-virtual nodes ${nodes.length}`,
  ];
  const problems: { line: string; nodeDown: boolean; node: string; pod: Pod | null }[] = [];
  for (const node of nodes) {
    const mine = pods.filter((p) => p.spec?.nodeName === node.metadata.name);
    if (mine.some(podReady)) continue;
    problems.push({
      line: whyNoFabric(ds, node, mine, ctx.cluster.now),
      nodeDown: !nodeReady(node) || nodeDown(node) !== null,
      node: node.metadata.name,
      pod: mine[0] ?? null,
    });
  }
  if (problems.length === 0) {
    return { status: "pass", summary: `fabric pod ready on all ${nodes.length} nodes`, evidence };
  }
  const cites: string[] = [];
  for (const p of problems) {
    evidence.push(p.line);
    if (p.pod) evidence.push(...fabricEvents(ctx, "Pod", p.pod));
    // A crashing fabric pod on a reachable node: its log says why (the logs of a lost node are out of reach).
    if (p.pod && !p.nodeDown && cites.length < 2) {
      const failing = containerSummaries(p.pod).find((c) => !c.ready || c.state !== "running");
      if (failing) {
        const log = await containerLog(ctx, p.pod, failing.name);
        evidence.push(...log.evidence);
        if (log.cite) cites.push(log.cite);
      }
    }
  }
  // The DaemonSet's own warnings (FailedCreate, FailedDaemonPod) explain nodes without a pod.
  if (problems.some((p) => !p.pod)) evidence.push(...fabricEvents(ctx, "DaemonSet", ds));
  const names = problems.map((p) => p.node).join(", ");
  // Only lost nodes: ENV-07 fails for them (it names what else they host); this is their symptom.
  const onlyDown = problems.every((p) => p.nodeDown);
  const remediation = problems.flatMap((p) => {
    if (p.nodeDown) return fix(step(kubectl("local", "describe", "node", p.node), "NotReady: see ENV-07"));
    if (p.pod) {
      return fix(
        kubectlIn("local", liqoNamespace, "describe", "pod", p.pod.metadata.name),
        kubectlIn("local", liqoNamespace, "logs", p.pod.metadata.name, "--previous"),
      );
    }
    const taint = p.line.match(/taint (\S+?):(NoSchedule|NoExecute)/);
    if (taint) {
      const [key, value] = taint[1].split("=");
      const tol = JSON.stringify({
        key,
        operator: value ? "Equal" : "Exists",
        ...(value ? { value } : {}),
        effect: taint[2],
      });
      const patch = `[{"op":"add","path":"/spec/template/spec/tolerations/-","value":${tol}}]`;
      return fix(
        "either remove the taint:",
        kubectl("local", "taint", "nodes", p.node, `${taint[1]}:${taint[2]}-`),
        "or let liqo-fabric tolerate it (persist it in your Helm values too):",
        kubectlIn("local", liqoNamespace, "patch", "daemonset", ds.metadata.name, "--type=json", "-p", patch),
      );
    }
    return fix(
      kubectl("local", "describe", "node", p.node),
      kubectlIn("local", liqoNamespace, "describe", "daemonset", ds.metadata.name),
    );
  });
  return {
    status: onlyDown ? "warn" : "fail",
    summary: onlyDown
      ? `no ready fabric pod on NotReady node${problems.length > 1 ? "s" : ""} ${names} (see ENV-07)`
      : `no ready fabric pod on ${names}: pods on ${
        problems.length > 1 ? "nodes" : "node"
      } ${names} won't reach the peer${cites.length ? `; log: "${cites[0]}"` : ""}`,
    evidence,
    remediation,
  };
}

export const FAB_01: CheckDef = {
  id: "FAB-01",
  title: "Fabric DaemonSet covers every node",
  layer: "fabric",
  // A kernel below 5.10 makes the fabric pod refuse to start: ENV-05 explains it.
  needs: ["ENV-05"],
  scope: "single",
  perPeer: false,
  reads: ["daemonsets", "pods", "nodes"],
  readsIn: { pods: ["liqo"] },
  optionalReads: ["deployments", "events"],
  explain: {
    reads: "DaemonSet labelled app.kubernetes.io/name=fabric in the Liqo namespace (status, tolerations, " +
      "nodeSelector), its pods, every non-virtual Node (taints, Ready), the controller-manager's --networking-enabled; " +
      "the recent log of a crashing fabric pod; " +
      "when readable, Warning events of the failing fabric pods and of the DaemonSet.",
    decides:
      "fail listing each node without a Running+Ready fabric pod and why (untolerated taint, Pending " +
      "reason, crash with last termination and the last error line of the fabric container's log — a bounded " +
      "read, the previous instance after a restart; a log that cannot be read says why); warn when the only " +
      'such nodes are NotReady or unreachable ("on NotReady node X (see ENV-07)": ENV-07 fails for them and ' +
      "names what else they host); skip when networking is disabled.",
    fixes:
      "Remove the taint or add a toleration to liqo-fabric; read the fabric pod's logs; for a NotReady " +
      "node see ENV-07.",
  },
  hops: ["node", "geneve"],
  hubReads: ["logs"],
  run,
};
