/**
 * Helpers shared by the REFLECTION checks (not a check): ForeignCluster module conditions and the
 * peer's virtual Nodes (REF-01, REF-02).
 */
import type { CheckContext } from "../types.ts";
import type { K8sObject } from "../../kube/source.ts";
import { isVirtualNode, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A condition of one ForeignCluster module (`status.modules.<module>.conditions[]`), by type. */
export function fcCondition(fc: K8sObject | null | undefined, module: string, type: string): Any {
  const list: Any[] = fc?.status?.modules?.[module]?.conditions ?? [];
  return list.find((c) => c?.type === type);
}

/** The peer's virtual Nodes (label liqo.io/type=virtual-node + remote-cluster-id). */
export function virtualNodesOf(ctx: CheckContext, peerId: string): K8sObject[] {
  return ctx.cluster.inv.items("nodes").filter((n) =>
    isVirtualNode(n) && n.metadata.labels?.[REMOTE_ID_LABEL] === peerId
  );
}
