/**
 * Where a run reads namespaced kinds. A 20 000-pod cluster must not be paged through to find a
 * dozen Liqo pods, so checks say where they look (`CheckDef.readsIn`) in words of the Liqo
 * install — "the Liqo namespace", "the tenant namespaces", "the pods on virtual nodes" — and the
 * run turns each word into concrete list requests once the kinds that locate it have been read.
 * A location that cannot be found for sure (its inputs unreadable) is read everywhere instead:
 * slower, never less true.
 */
import type { KindId, ListScope } from "../kube/kinds.ts";
import { isCniDaemonSet } from "./cni.ts";
import { controllerManager, GATEWAY_LABELS, isVirtualNode, REMOTE_ID_LABEL } from "./lookups.ts";
import { MANAGED_BY_LABEL, SHADOW_ENDPOINTSLICE_MANAGER, TENANT_NAMESPACE_LABEL } from "./names.ts";
import type { Objects } from "./views/mod.ts";

/**
 * Where a check reads a namespaced kind:
 * - `cluster`: every namespace (the default for a kind the check does not place);
 * - `liqo`: the namespace Liqo is installed in;
 * - `tenants`: every peer's tenant namespace (gateways, virtual kubelets, per-peer objects);
 * - `gateways`: the gateway pods (and workloads) of every peering, by their template label, in one
 *   request that needs nothing read first (the WireGuard warm-up waits on it);
 * - `virtual-nodes`: the pods scheduled on Liqo virtual nodes (offloaded pods), pods only;
 * - `offloaded`: the namespaces offloaded to peers (those holding a NamespaceOffloading), where the
 *   consumer's offloaded pods, their Services and EndpointSlices live;
 * - `reflected`: the EndpointSlices Liqo reflected from a consumer (label
 *   `liqo.io/managed-by=shadowendpointslice`), wherever they are;
 * - `cni`: the namespaces of the CNI's DaemonSets, and kube-system.
 */
export type ReadScope =
  | "cluster"
  | "liqo"
  | "tenants"
  | "gateways"
  | "virtual-nodes"
  | "offloaded"
  | "reflected"
  | "cni";

/** The label Liqo puts on the EndpointSlices it reflects from a consumer's ShadowEndpointSlices. */
export const REFLECTED_SLICE_SELECTOR = `${MANAGED_BY_LABEL}=${SHADOW_ENDPOINTSLICE_MANAGER}`;

/** The kinds read (everywhere) to locate each scope. */
export const SCOPE_INPUTS: { readonly [S in ReadScope]: readonly KindId[] } = {
  cluster: [],
  liqo: ["deployments", "daemonsets", "namespaces"],
  tenants: ["foreignclusters", "namespaces", "gatewayservers", "gatewayclients", "virtualnodes"],
  gateways: [],
  "virtual-nodes": ["nodes"],
  offloaded: ["namespaceoffloadings"],
  reflected: [],
  cni: ["daemonsets"],
};

/** The list requests a scope stands for: `everywhere`, or these (possibly none). */
export type Resolved = { everywhere: true; why?: string } | { everywhere: false; scopes: ListScope[] };

const EVERYWHERE: Resolved = { everywhere: true };

/** Namespaces as list scopes, each once, in name order. */
function inNamespaces(names: Iterable<string | null | undefined>): Resolved {
  const set = new Set<string>();
  for (const n of names) if (n) set.add(n);
  return { everywhere: false, scopes: [...set].sort().map((namespace) => ({ namespace })) };
}

/**
 * Turns a scope into list requests over the kinds of {@link SCOPE_INPUTS} (already read). When an
 * input could not be read the location is unsure and the answer is `everywhere`.
 */
export function resolveScope(scope: ReadScope, inv: Objects): Resolved {
  if (scope === "cluster") return EVERYWHERE;
  const unreadable = SCOPE_INPUTS[scope].filter((k) => inv.tryItems(k) === null);
  if (unreadable.length) return { everywhere: true, why: `${unreadable.join(", ")} unreadable` };
  switch (scope) {
    case "liqo":
      return inNamespaces([liqoNamespaceGuess(inv)]);
    case "tenants":
      return inNamespaces(tenantNamespaces(inv));
    case "gateways":
      return { everywhere: false, scopes: [{ labelSelector: `${GATEWAY_LABELS.component}=gateway` }] };
    case "virtual-nodes":
      return {
        everywhere: false,
        scopes: inv.items("nodes").filter(isVirtualNode).map((n) => n.metadata.name).sort().map((node) => ({
          fieldSelector: `spec.nodeName=${node}`,
        })),
      };
    case "offloaded":
      return inNamespaces(inv.items("namespaceoffloadings").map((o) => o.metadata.namespace));
    case "reflected":
      return { everywhere: false, scopes: [{ labelSelector: REFLECTED_SLICE_SELECTOR }] };
    case "cni":
      return inNamespaces([
        "kube-system",
        ...inv.items("daemonsets").filter(isCniDaemonSet).map((d) => d.metadata.namespace),
      ]);
  }
}

/**
 * The Liqo namespace: the controller-manager's; without it (a broken install) the namespace of a
 * workload labelled part-of=liqo, else a namespace called `liqo`.
 */
function liqoNamespaceGuess(inv: Objects): string | null {
  const cm = controllerManager(inv);
  if (cm?.metadata.namespace) return cm.metadata.namespace;
  const labelled = [...inv.items("deployments"), ...inv.items("daemonsets")].find((w) =>
    w.metadata.labels?.["app.kubernetes.io/part-of"] === "liqo"
  );
  if (labelled?.metadata.namespace) return labelled.metadata.namespace;
  return inv.items("namespaces").some((n) => n.metadata.name === "liqo") ? "liqo" : null;
}

/**
 * Every namespace that belongs to a peer: the ForeignClusters' tenant namespaces, namespaces
 * labelled as tenant namespaces, and where the gateways and VirtualNodes live.
 */
function tenantNamespaces(inv: Objects): (string | null | undefined)[] {
  return [
    ...inv.items("foreignclusters").map((fc) => fc.status?.tenantNamespace?.local),
    ...inv.items("namespaces").filter((n) =>
      n.metadata.labels?.[TENANT_NAMESPACE_LABEL] === "true" || n.metadata.labels?.[REMOTE_ID_LABEL]
    ).map((n) => n.metadata.name),
    ...inv.items("gatewayservers").map((g) => g.metadata.namespace),
    ...inv.items("gatewayclients").map((g) => g.metadata.namespace),
    ...inv.items("virtualnodes").map((v) => v.metadata.namespace),
  ];
}
