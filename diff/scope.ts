/**
 * One cluster's capture seen from one of its peerings: a fleet diff compares each edge on its own,
 * so a change that belongs to another peer of the same cluster (an object labelled with that peer's
 * cluster ID, or living in that peer's tenant namespace, and its gateway's `wg show` sample) is left
 * to that peer's edge; the cluster-wide objects (nodes, the Liqo install, the CNI) stay on every
 * edge of the cluster, since each depends on them. Pure.
 */
import type { KindId } from "../kube/kinds.ts";
import type { K8sObject } from "../kube/source.ts";
import { REMOTE_ID_LABEL } from "../liqo/names.ts";
import type { ClusterCapture } from "./capture.ts";

/** The peer an object belongs to (its label, else its tenant namespace's), or null: cluster-wide. */
function peerOf(o: K8sObject, tenantOf: Map<string, string>): string | null {
  const label = o.metadata.labels?.[REMOTE_ID_LABEL];
  if (typeof label === "string" && label) return label;
  return o.metadata.namespace ? tenantOf.get(o.metadata.namespace) ?? null : null;
}

/** `capture` without what belongs to a peer other than `peer`. */
export function scopedToPeer(capture: ClusterCapture, peer: string): ClusterCapture {
  const tenantOf = new Map<string, string>();
  for (const ns of capture.lists.namespaces ?? []) {
    const id = ns.metadata.labels?.[REMOTE_ID_LABEL];
    if (typeof id === "string" && id) tenantOf.set(ns.metadata.name, id);
  }
  const keep = (o: K8sObject) => {
    const p = peerOf(o, tenantOf);
    return p === null || p === peer;
  };
  const lists: ClusterCapture["lists"] = {};
  for (const [kind, items] of Object.entries(capture.lists) as [KindId, K8sObject[]][]) {
    lists[kind] = items.filter(keep);
  }
  const wg = Object.fromEntries(
    Object.entries(capture.wg).filter(([pod]) => {
      const p = tenantOf.get(pod.split("/")[0]);
      return p === undefined || p === peer;
    }),
  );
  return { ...capture, lists, wg };
}
