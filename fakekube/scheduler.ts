/**
 * The fake cluster's stub scheduler: the filter plugins of kube-scheduler's default profile that
 * decide where a probe pod may go — NodeUnschedulable (cordon), TaintToleration
 * (NoSchedule/NoExecute), NodeAffinity (nodeSelector + required nodeAffinity) and a stand-in for
 * NodeResourcesFit (nodes a scenario marks full) — in that order, first failure per node, and the
 * FitError message kube-scheduler writes on the PodScheduled=False condition:
 *
 * `0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: },
 * 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4
 * Preemption is not helpful for scheduling.`
 */
import { field, type K8sObject } from "./object.ts";

/** Where the scheduler put a pod, or why nowhere. */
export type ScheduleResult = { node: string } | { node: null; message: string };

/** Scenario knobs of the scheduler. */
export interface ScheduleOptions {
  /** Nodes that are full ("Too many pods"). */
  unschedulable?: readonly string[];
  /** Pods already on a node: the least loaded feasible node wins (ties by name). */
  load?: (node: string) => number;
  /** Pods already bound (for pod anti-affinity on `kubernetes.io/hostname`). */
  pods?: readonly K8sObject[];
}

const REASON_UNSCHEDULABLE = "node(s) were unschedulable";
const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
const REASON_FULL = "Too many pods";
const REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
/** Filter failures preemption cannot fix (kube-scheduler: UnschedulableAndUnresolvable). */
const NOT_HELPFUL = "Preemption is not helpful for scheduling";
const NO_VICTIMS = "No preemption victims found for incoming pod";

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
const arr = (v: unknown): unknown[] => Array.isArray(v) ? [...v] : [];

/** True for a Liqo virtual node (label `liqo.io/type=virtual-node`). */
export function isVirtualNode(node: K8sObject): boolean {
  return node.metadata.labels?.["liqo.io/type"] === "virtual-node";
}

/** One taint or toleration as on the wire. */
interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** kube's `Toleration.ToleratesTaint`. */
export function tolerates(toleration: unknown, taint: Taint): boolean {
  const t = rec(toleration);
  const effect = String(t.effect ?? "");
  if (effect !== "" && effect !== taint.effect) return false;
  const key = String(t.key ?? "");
  if (key !== "" && key !== taint.key) return false;
  const op = String(t.operator ?? "Equal");
  if (op === "Exists") return true;
  return op === "Equal" && String(t.value ?? "") === String(taint.value ?? "");
}

/**
 * The taints of a node, plus the one the node lifecycle controller adds to a node whose Ready
 * condition is False (`node.kubernetes.io/not-ready`) or Unknown (`node.kubernetes.io/unreachable`)
 * when a scenario only set the condition.
 */
function taintsOf(node: K8sObject): unknown[] {
  const taints = arr(field(node.spec, "taints"));
  const ready = arr(field(node.status, "conditions")).map(rec).find((c) => c.type === "Ready");
  const implied = ready?.status === "False"
    ? "node.kubernetes.io/not-ready"
    : ready?.status === "Unknown"
    ? "node.kubernetes.io/unreachable"
    : null;
  if (implied && !taints.some((t) => rec(t).key === implied)) {
    taints.push({ key: implied, effect: "NoSchedule" });
  }
  return taints;
}

/** The first NoSchedule/NoExecute taint of `node` no toleration of `pod` tolerates, or null. */
export function untoleratedTaint(pod: K8sObject, node: K8sObject): Taint | null {
  const tolerations = arr(field(pod.spec, "tolerations"));
  for (const raw of taintsOf(node)) {
    const t = rec(raw);
    const taint: Taint = {
      key: String(t.key ?? ""),
      value: t.value as string | undefined,
      effect: String(t.effect),
    };
    if (taint.effect !== "NoSchedule" && taint.effect !== "NoExecute") continue;
    if (!tolerations.some((x) => tolerates(x, taint))) return taint;
  }
  return null;
}

function matchesRequirement(req: Record<string, unknown>, value: string | undefined): boolean {
  const values = arr(req.values).map(String);
  switch (req.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1) return false;
      return req.operator === "Gt" ? Number(value) > Number(values[0]) : Number(value) < Number(values[0]);
    }
    default:
      return false;
  }
}

/**
 * One NodeSelectorTerm (AND of matchExpressions on labels and matchFields on `metadata.name`); a
 * term with neither selects nothing, as in kube.
 */
export function matchesNodeSelectorTerm(term: unknown, node: K8sObject): boolean {
  const exprs = arr(field(term, "matchExpressions")).map(rec);
  const fields = arr(field(term, "matchFields")).map(rec);
  if (exprs.length === 0 && fields.length === 0) return false;
  return exprs.every((e) => matchesRequirement(e, node.metadata.labels?.[String(e.key)])) &&
    fields.every((f) => f.key === "metadata.name" && matchesRequirement(f, node.metadata.name));
}

/** A NodeSelector (OR of its terms); a selector without terms selects every node. */
export function matchesNodeSelector(selector: unknown, node: K8sObject): boolean {
  const terms = arr(field(selector, "nodeSelectorTerms"));
  return terms.length === 0 || terms.some((t) => matchesNodeSelectorTerm(t, node));
}

/** NodeAffinity filter: `spec.nodeSelector` and required node affinity both hold. */
export function matchesNodeAffinity(pod: K8sObject, node: K8sObject): boolean {
  const spec = rec(pod.spec);
  for (const [k, v] of Object.entries(rec(spec.nodeSelector))) {
    if (node.metadata.labels?.[k] !== String(v)) return false;
  }
  const required = field(
    field(field(spec.affinity, "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution"),
    "nodeSelectorTerms",
  );
  if (!Array.isArray(required)) return true;
  return required.some((t) => matchesNodeSelectorTerm(t, node));
}

function matchesLabelSelector(selector: unknown, labels: Record<string, string> | undefined): boolean {
  const ml = rec(field(selector, "matchLabels"));
  const exprs = arr(field(selector, "matchExpressions")).map(rec);
  if (Object.keys(ml).length === 0 && exprs.length === 0) return false;
  return Object.entries(ml).every(([k, v]) => labels?.[k] === String(v)) &&
    exprs.every((e) => matchesRequirement(e, labels?.[String(e.key)]));
}

/**
 * How many bound pods on `node` a pod anti-affinity term selects (topology `kubernetes.io/hostname`
 * only: one node is one domain; namespaces default to the pod's own).
 */
function antiAffinityHits(term: unknown, pod: K8sObject, node: string, pods: readonly K8sObject[]): number {
  if (field(term, "topologyKey") !== "kubernetes.io/hostname") return 0;
  const nss = arr(field(term, "namespaces")).map(String);
  const inNs = nss.length > 0 ? nss : [pod.metadata.namespace ?? ""];
  return pods.filter((p) =>
    p !== pod && p.metadata.name !== pod.metadata.name && field(p.spec, "nodeName") === node &&
    inNs.includes(p.metadata.namespace ?? "") &&
    matchesLabelSelector(field(term, "labelSelector"), p.metadata.labels)
  ).length;
}

const antiAffinity = (pod: K8sObject): Record<string, unknown> =>
  rec(field(field(pod.spec, "affinity"), "podAntiAffinity"));

/** Why `node` cannot take `pod` (kube-scheduler's reason string), or null when it can. */
export function filterNode(pod: K8sObject, node: K8sObject, opts: ScheduleOptions = {}): string | null {
  if (field(node.spec, "unschedulable") === true) {
    const taint: Taint = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };
    if (!arr(field(pod.spec, "tolerations")).some((t) => tolerates(t, taint))) return REASON_UNSCHEDULABLE;
  }
  const taint = untoleratedTaint(pod, node);
  if (taint) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`;
  if (!matchesNodeAffinity(pod, node)) return REASON_AFFINITY;
  if (opts.unschedulable?.includes(node.metadata.name)) return REASON_FULL;
  const required = arr(antiAffinity(pod).requiredDuringSchedulingIgnoredDuringExecution);
  if (required.some((t) => antiAffinityHits(t, pod, node.metadata.name, opts.pods ?? []) > 0)) {
    return REASON_ANTI_AFFINITY;
  }
  return null;
}

function histogram(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(", ");
}

/**
 * Picks a node for `pod` among `nodes`: the least loaded one that passes every filter, or the
 * FitError message (reasons counted and sorted like kube-scheduler, with the preemption summary).
 */
export function schedulePod(
  pod: K8sObject,
  nodes: readonly K8sObject[],
  opts: ScheduleOptions = {},
): ScheduleResult {
  if (nodes.length === 0) return { node: null, message: "no nodes available to schedule pods" };
  const feasible: string[] = [];
  const reasons: string[] = [];
  for (const node of nodes) {
    const why = filterNode(pod, node, opts);
    if (why === null) feasible.push(node.metadata.name);
    else reasons.push(why);
  }
  if (feasible.length > 0) {
    const load = opts.load ?? (() => 0);
    // InterPodAffinity scoring: preferred anti-affinity weighs against nodes with matching pods.
    const preferred = arr(antiAffinity(pod).preferredDuringSchedulingIgnoredDuringExecution).map(rec);
    const penalty = (n: string): number =>
      preferred.reduce(
        (sum, w) =>
          sum + Number(w.weight ?? 1) * antiAffinityHits(w.podAffinityTerm, pod, n, opts.pods ?? []),
        0,
      );
    feasible.sort((a, b) => penalty(a) - penalty(b) || load(a) - load(b) || (a < b ? -1 : a > b ? 1 : 0));
    return { node: feasible[0] };
  }
  const n = nodes.length;
  const preemption = histogram(reasons.map((r) => r === REASON_FULL ? NO_VICTIMS : NOT_HELPFUL));
  return {
    node: null,
    message: `0/${n} nodes are available: ${
      histogram(reasons)
    }. preemption: 0/${n} nodes are available: ${preemption}.`,
  };
}
