/**
 * Where a pod spec can land: its nodeSelector, its required node affinity (matchExpressions) and
 * its tolerations against a node's NoSchedule/NoExecute taints — what the scheduler filters on
 * before anything else. Preflight asks it of the gateway templates and the fabric DaemonSet.
 */
import type { Node } from "../../liqo/views/core.ts";

/** The parts of a pod spec placement reads (kept loose: templates hold Go-template strings). */
export interface Placement {
  /** Where the placement comes from ("WgGatewayServerTemplate liqo/wireguard-server"). */
  from: string;
  nodeSelector?: Record<string, unknown>;
  affinity?: unknown;
  tolerations?: unknown;
}

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];

/**
 * The tolerations of Liqo's fabric DaemonSet in the Helm chart (`deployments/liqo/values.yaml`
 * `networking.fabric.pod`… as installed: CriticalAddonsOnly and the master/infra/control-plane
 * NoSchedule taints), for a cluster where Liqo is not installed yet.
 */
export const CHART_FABRIC_TOLERATIONS = [
  { key: "CriticalAddonsOnly", operator: "Exists" },
  { key: "node-role.kubernetes.io/master", effect: "NoSchedule" },
  { key: "node-role.kubernetes.io/infra", effect: "NoSchedule" },
  { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
];

/** The pod spec of a WgGateway*Template (`spec.template.spec.deployment.spec.template.spec`). */
export function templatePodSpec(template: { spec?: { template?: unknown } }): Record<string, unknown> {
  return rec(rec(rec(rec(rec(rec(template.spec?.template).spec).deployment).spec).template).spec);
}

function tolerated(taint: Record<string, unknown>, tolerations: unknown): boolean {
  return arr(tolerations).some((t0) => {
    const t = rec(t0);
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === "Exists") return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
  });
}

function matchesExpression(labels: Record<string, string>, e0: unknown): boolean {
  const e = rec(e0);
  const key = String(e.key ?? "");
  const values = arr(e.values).map(String);
  const has = Object.hasOwn(labels, key);
  switch (e.operator) {
    case "In":
      return has && values.includes(labels[key]);
    case "NotIn":
      return !has || !values.includes(labels[key]);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
    default:
      return true; // Gt/Lt and templated values: not judged here, never excludes a node
  }
}

/** Why a node cannot host a pod of this placement, or null when it can. */
export function excludedBy(node: Node, p: Placement): string | null {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(p.nodeSelector ?? {})) {
    if (typeof v === "string" && v.includes("{{")) continue;
    if (labels[k] !== v) return `nodeSelector ${k}=${String(v)}`;
  }
  const terms = arr(
    rec(rec(rec(p.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution)
      .nodeSelectorTerms,
  );
  if (terms.length > 0) {
    const ok = terms.some((t) => arr(rec(t).matchExpressions).every((e) => matchesExpression(labels, e)));
    if (!ok) return "required node affinity";
  }
  for (const t0 of node.spec?.taints ?? []) {
    const t = rec(t0);
    if (t.effect !== "NoSchedule" && t.effect !== "NoExecute") continue;
    if (!tolerated(t, p.tolerations)) return `taint ${String(t.key)}:${String(t.effect)} not tolerated`;
  }
  return null;
}
