/**
 * Helpers shared by the REFLECTION checks (not a check): ForeignCluster module conditions and the
 * peer's virtual Nodes (REF-01, REF-02).
 */
import type { CheckContext } from "../types.ts";
import type { Node } from "../../liqo/views/core.ts";
import type { Condition } from "../../liqo/views/meta.ts";
import type { ForeignCluster } from "../../liqo/views/peering.ts";
import { isVirtualNode, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";

/** A condition of one ForeignCluster module (`status.modules.<module>.conditions[]`), by type. */
export function fcCondition(
  fc: ForeignCluster | null | undefined,
  module: "networking" | "authentication" | "offloading",
  type: string,
): Condition | undefined {
  const list = fc?.status?.modules?.[module]?.conditions ?? [];
  return list.find((c) => c?.type === type);
}

/** The peer's virtual Nodes (label liqo.io/type=virtual-node + remote-cluster-id). */
export function virtualNodesOf(ctx: CheckContext, peerId: string): Node[] {
  return ctx.cluster.inv.items("nodes").filter((n) =>
    isVirtualNode(n) && n.metadata.labels?.[REMOTE_ID_LABEL] === peerId
  );
}
