/**
 * PF-EXP's measurement: what the throwaway Service of one would-be server side got (the fleet
 * waited for its LoadBalancer address), and the nodes that could host the gateway with their
 * addresses (one read of the cluster's Nodes).
 */
import type { K8sObject } from "../../../kube/source.ts";
import type { PreflightSideHandle } from "../../fleet/preflight_fleet.ts";
import { PREFLIGHT_SERVICE } from "../../fleet/templates.ts";
import type { Exposure, NodeAddresses, PfSide } from "../model.ts";
import { VIRTUAL_NODE_LABEL, VIRTUAL_NODE_TYPE } from "../../../liqo/names.ts";

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => v !== null && typeof v === "object" && !Array.isArray(v) ? v as Loose : {};
const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];

/** Nodes as the gateway placement sees them: Ready, schedulable, not a Liqo virtual node, matching the selector. */
export function nodeAddresses(
  nodes: readonly K8sObject[],
  nodeSelector: Record<string, string> = {},
): NodeAddresses[] {
  return nodes.map((n) => {
    const status = rec(n.status);
    const spec = rec(n.spec);
    const labels = n.metadata.labels ?? {};
    const ready = arr(status.conditions).map(rec).some((c) => c.type === "Ready" && c.status === "True");
    const virtual = labels[VIRTUAL_NODE_LABEL] === VIRTUAL_NODE_TYPE;
    const tainted = arr(spec.taints).map(rec).some((t) =>
      t.effect === "NoSchedule" || t.effect === "NoExecute"
    );
    const selected = Object.entries(nodeSelector).every(([k, v]) => labels[k] === v);
    return {
      name: n.metadata.name,
      addresses: arr(status.addresses).map(rec).map((a) => ({
        type: String(a.type ?? ""),
        address: String(a.address ?? ""),
      })),
      ready,
      hostsGateway: !virtual && !tainted && spec.unschedulable !== true && selected,
    };
  }).sort((a, b) => a.name.localeCompare(b.name));
}

/** The Exposure of one side from the fleet's handle and the side's Nodes. */
export function exposureOf(
  side: PfSide,
  cluster: string,
  handle: PreflightSideHandle,
  namespace: string,
  plan: { type: "LoadBalancer" | "NodePort"; port: number; boundMs: number },
  nodes: readonly NodeAddresses[] | string,
): Exposure {
  const base: Exposure = {
    side,
    cluster,
    serviceType: plan.type,
    service: `${namespace}/${PREFLIGHT_SERVICE}`,
    port: plan.port,
    nodePort: null,
    nodes: typeof nodes === "string" ? [] : [...nodes],
  };
  if (typeof nodes === "string") base.error = nodes;
  const svc = handle.service;
  if (!svc || svc.refused || !svc.object) {
    return { ...base, error: svc?.refused ?? "the Service was not created" };
  }
  const spec = rec(svc.object.spec);
  const port = arr(spec.ports).map(rec).find((p) => p.protocol === "UDP") ?? {};
  const nodePort = typeof port.nodePort === "number" ? port.nodePort : null;
  const ingress = arr(rec(rec(svc.object.status).loadBalancer).ingress).map(rec);
  const addresses = ingress.flatMap((i) => [i.ip, i.hostname]).filter((x): x is string =>
    typeof x === "string" && x !== ""
  );
  return {
    ...base,
    nodePort,
    ...(plan.type === "LoadBalancer"
      ? { loadBalancer: { addresses, waitedMs: svc.waitedMs, boundMs: plan.boundMs } }
      : {}),
  };
}

/** Lists the side's Nodes; a string when they cannot be read. */
export async function readNodes(
  handle: PreflightSideHandle,
  nodeSelector: Record<string, string> | undefined,
  signal: AbortSignal,
): Promise<NodeAddresses[] | string> {
  try {
    const listed = await handle.target.writer.list("/api/v1/nodes", { signal });
    if (!listed.ok) return `cannot list nodes in ${handle.target.name}: ${listed.message}`;
    return nodeAddresses(listed.items, nodeSelector);
  } catch (err) {
    return `cannot list nodes in ${handle.target.name}: ${err instanceof Error ? err.message : String(err)}`;
  }
}
