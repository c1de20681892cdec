/**
 * Admission beyond Pod Security and the webhooks (writes.ts `admissionDeny`), as clusters really
 * refuse pods: a ResourceQuota on pods (the quota plugin's `exceeded quota` 403); and the NodePort
 * allocator of Services of type
 * NodePort and LoadBalancer (30000–32767, the API server's default range).
 */
import { field, type K8sObject } from "./object.ts";
import type { Lifecycle } from "./lifecycle_schema.ts";

/** The default NodePort range of kube-apiserver (`--service-node-port-range`). */
export const NODE_PORT_RANGE = { first: 30000, last: 32767 } as const;

/** The quota object's name in the refusal (what a policy controller would call it). */
export const QUOTA_NAME = "compute-resources";

/** A refusal: HTTP status, reason and message; null when admitted. */
export type Refusal = { code: number; reason: string; message: string } | null;

/**
 * Why a create of `kind` `name` in namespace `ns` is refused by the quota, or null.
 * `podsInNamespace`: the pods already stored there.
 */
export function policyRefusal(
  kind: string,
  plural: string,
  name: string,
  ns: string | undefined,
  cfg: Pick<Lifecycle, "quota">,
  podsInNamespace: number,
): Refusal {
  if (kind === "Pod" && cfg.quota && ns !== undefined && podsInNamespace + 1 > cfg.quota.pods) {
    const used = podsInNamespace;
    return {
      code: 403,
      reason: "Forbidden",
      message: `${plural} "${name}" is forbidden: exceeded quota: ${QUOTA_NAME}, requested: pods=1, ` +
        `used: pods=${used}, limited: pods=${cfg.quota.pods}`,
    };
  }
  return null;
}

/** The Service with a NodePort on every port that lacks one (types NodePort and LoadBalancer). */
export function allocateNodePorts(svc: K8sObject, existing: readonly K8sObject[]): K8sObject {
  const spec = { ...(svc.spec as Record<string, unknown> ?? {}) };
  if (spec.type !== "NodePort" && spec.type !== "LoadBalancer") return svc;
  const used = new Set<number>();
  for (const s of existing) {
    for (const p of (field(s.spec, "ports") as unknown[] | undefined) ?? []) {
      const n = (p as { nodePort?: unknown })?.nodePort;
      if (typeof n === "number") used.add(n);
    }
  }
  let next: number = NODE_PORT_RANGE.first + 1234;
  const take = (): number => {
    while (used.has(next)) next = next >= NODE_PORT_RANGE.last ? NODE_PORT_RANGE.first : next + 1;
    used.add(next);
    return next;
  };
  spec.ports = ((spec.ports as unknown[] | undefined) ?? []).map((p) => {
    const x = { ...(p as Record<string, unknown>) };
    if (typeof x.nodePort !== "number") x.nodePort = take();
    return x;
  });
  return { ...svc, spec };
}
