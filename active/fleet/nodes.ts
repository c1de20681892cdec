/**
 * Which nodes get a probe pod: every node a plain workload pod can be scheduled on, and a reason
 * for each one left out, so the matrix says "rome-cp-1: control plane (--tolerate
 * node-role.kubernetes.io/control-plane to include it)" instead of silently having fewer rows.
 */
import type { K8sObject } from "../../kube/source.ts";
import type { ExcludedNode, Side } from "../model.ts";
import { VIRTUAL_NODE_LABEL, VIRTUAL_NODE_TYPE } from "../../liqo/names.ts";

/** Labels and taint keys that mark a control-plane node. */
export const CONTROL_PLANE_KEYS = [
  "node-role.kubernetes.io/control-plane",
  "node-role.kubernetes.io/master",
] as const;

/** The nodes to probe, and the ones left out with the reason. */
export interface NodeSelection {
  /** Node names, sorted. */
  nodes: string[];
  /** Each node's `kubernetes.io/hostname` label (what the probe pod's node affinity matches). */
  hostnames: Record<string, string>;
  excluded: ExcludedNode[];
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

function taintsOf(node: K8sObject): Taint[] {
  const spec = (node.spec ?? {}) as { taints?: unknown };
  if (!Array.isArray(spec.taints)) return [];
  return spec.taints.filter((t): t is Taint =>
    typeof t === "object" && t !== null && typeof (t as Taint).key === "string" &&
    typeof (t as Taint).effect === "string"
  );
}

function readyOf(node: K8sObject): Condition | null {
  const status = (node.status ?? {}) as { conditions?: unknown };
  if (!Array.isArray(status.conditions)) return null;
  const c = status.conditions.find((c) =>
    typeof c === "object" && c !== null && (c as Condition).type === "Ready"
  );
  return (c as Condition | undefined) ?? null;
}

function describeTaint(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`;
}

/** Why a node cannot take a probe pod apart from control-plane-ness, or null when it can. */
function otherReason(node: K8sObject, tolerated: ReadonlySet<string>): string | null {
  const labels = node.metadata.labels ?? {};
  if (labels[VIRTUAL_NODE_LABEL] === VIRTUAL_NODE_TYPE) {
    return "Liqo virtual node (its pods run in the peer cluster)";
  }
  const os = labels["kubernetes.io/os"];
  if (os !== undefined && os !== "linux") return `${os} node (the probe pods are Linux)`;
  if ((node.spec as { unschedulable?: unknown } | undefined)?.unschedulable === true) return "cordoned";
  const ready = readyOf(node);
  if (ready === null) return "NotReady (no Ready condition)";
  if (ready.status !== "True") {
    const why = [ready.reason, ready.message].filter((s) => s).join(": ");
    return `NotReady${why ? ` (${why})` : ""}`;
  }
  const blocking = taintsOf(node).filter((t) =>
    (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerated.has(t.key) &&
    !(CONTROL_PLANE_KEYS as readonly string[]).includes(t.key)
  );
  if (blocking.length > 0) {
    const keys = [...new Set(blocking.map((t) => t.key))];
    return `tainted ${blocking.map(describeTaint).join(", ")} (${
      keys.map((k) => `--tolerate ${k}`).join(" ")
    } to include it)`;
  }
  return null;
}

/** The control-plane marks of a node not covered by `tolerated`: labels and taints. */
function controlPlaneMarks(
  node: K8sObject,
  tolerated: ReadonlySet<string>,
): { label: boolean; taint: Taint | null } {
  const labels = node.metadata.labels ?? {};
  // The label is our policy, not the scheduler's: tolerating either control-plane key lifts it.
  const label = CONTROL_PLANE_KEYS.some((k) => k in labels) &&
    !CONTROL_PLANE_KEYS.some((k) => tolerated.has(k));
  const taint =
    taintsOf(node).find((t) =>
      (CONTROL_PLANE_KEYS as readonly string[]).includes(t.key) && t.effect !== "PreferNoSchedule" &&
      !tolerated.has(t.key)
    ) ?? null;
  return { label, taint };
}

/**
 * The nodes of one cluster that get a probe pod: schedulable nodes only. Left out, each with a
 * reason: Liqo virtual nodes, non-Linux nodes, cordoned and NotReady nodes, nodes with a
 * NoSchedule/NoExecute taint whose key is not in `tolerate`, and control-plane nodes (by label or
 * taint) unless their key is in `tolerate`. One exception keeps small clusters probeable: when
 * nothing else is left, control-plane nodes that are marked only by label (untainted, as in kind or
 * k3s single-node clusters, where every workload runs on them) are probed.
 */
export function selectNodes(
  nodes: readonly K8sObject[],
  side: Side,
  tolerate: readonly string[],
): NodeSelection {
  const tolerated = new Set(tolerate);
  const picked: K8sObject[] = [];
  const labelOnlyControlPlane: K8sObject[] = [];
  const excluded: ExcludedNode[] = [];
  for (const node of [...nodes].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const name = node.metadata.name;
    const other = otherReason(node, tolerated);
    const cp = controlPlaneMarks(node, tolerated);
    if (other !== null) {
      excluded.push({ side, node: name, reason: cp.label || cp.taint ? `control plane, ${other}` : other });
    } else if (cp.taint) {
      excluded.push({
        side,
        node: name,
        reason: `control plane (tainted ${
          describeTaint(cp.taint)
        }; --tolerate ${cp.taint.key} to include it)`,
      });
    } else if (cp.label) {
      labelOnlyControlPlane.push(node);
    } else {
      picked.push(node);
    }
  }
  if (picked.length === 0) {
    picked.push(...labelOnlyControlPlane);
  } else {
    for (const node of labelOnlyControlPlane) {
      excluded.push({
        side,
        node: node.metadata.name,
        reason: `control plane (--tolerate ${CONTROL_PLANE_KEYS[0]} to include it)`,
      });
    }
  }
  picked.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const hostnames: Record<string, string> = {};
  for (const n of picked) {
    hostnames[n.metadata.name] = n.metadata.labels?.["kubernetes.io/hostname"] ?? n.metadata.name;
  }
  return {
    nodes: picked.map((n) => n.metadata.name),
    hostnames,
    excluded: excluded.sort((a, b) => a.node.localeCompare(b.node)),
  };
}
