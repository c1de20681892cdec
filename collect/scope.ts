/**
 * What `collect` keeps of the namespaced workload kinds: only the objects the checks and the report
 * sections read, not every Pod and ConfigMap of the cluster. The kinds themselves are the union the
 * catalog declares (`kindsFor`); this narrows pods, configmaps, services, deployments, daemonsets,
 * endpointslices, networkpolicies and events to:
 *
 * - the Liqo namespace (the controller-manager's), the tenant namespaces (`liqo.io/tenant-namespace=true`
 *   and every ForeignCluster's `status.tenantNamespace.local`), the gateway namespaces (GatewayServers,
 *   GatewayClients, gateway pods) and the VirtualNodes' namespaces ({@link CollectScope.core});
 * - anywhere: objects labelled as Liqo's (`app.kubernetes.io/part-of=liqo`, `networking.liqo.io/*`,
 *   `offloading.liqo.io/component`, the controller-manager labels: ENV-01 finds a partial install by
 *   them, ENV-05 the kernel refusals of Liqo pods);
 * - pods: also those on virtual nodes (`liqo.io/type=virtual-node`: REF-02, the peering dump, the
 *   cheat sheet); endpointslices: also those with an endpoint on a virtual node or reflected by Liqo
 *   (`liqo.io/managed-by=shadowendpointslice`: REF-01);
 * - services and networkpolicies: also the offloaded namespaces (NamespaceOffloadings, and namespaces
 *   Liqo created for a consumer: ENV-06, CNI-02);
 * - configmaps: also Liqo's cluster-ID ConfigMap and `cilium-config` wherever they are (CNI-01);
 * - deployments: also `tigera-operator` (CNI-01 tells an operator-managed Calico by it);
 * - daemonsets: also kube-system and the namespaces of the CNI DaemonSets CNI-01 recognises; any other
 *   DaemonSet is kept as its name and namespace only (CNI-01 lists unrecognised DaemonSets by name);
 * - events: those in, or about an object in, a core namespace (GW-0x and FAB-01 evidence).
 *
 * Cluster-scoped kinds and the Liqo CRDs are kept whole (redaction still applies).
 */
import type { KindId } from "../kube/kinds.ts";
import type { K8sObject } from "../kube/source.ts";
import type { Objects } from "../liqo/views/mod.ts";
import { isVirtualNode, liqoNamespaceOf, REMOTE_ID_LABEL, tenantNamespaceOf } from "../liqo/lookups.ts";
import { isCniDaemonSet } from "../liqo/cni.ts";
import {
  GATEWAY_LABELS,
  MANAGED_BY_LABEL,
  MANAGED_BY_NAMESPACE_MAP_ANNOTATION,
  SHADOW_ENDPOINTSLICE_MANAGER,
  TENANT_NAMESPACE_LABEL,
  VIRTUAL_KUBELET_LABEL,
} from "../liqo/names.ts";

/** The kinds whose objects are narrowed to the scope. */
export const SCOPED_KINDS: readonly KindId[] = [
  "pods",
  "configmaps",
  "services",
  "deployments",
  "daemonsets",
  "endpointslices",
  "networkpolicies",
  "events",
];

/** The namespaces and nodes a collect keeps. */
export interface CollectScope {
  /** Liqo, tenant, gateway and VirtualNode namespaces. */
  core: Set<string>;
  /** Namespaces offloaded to (or created by Liqo for) a peer. */
  offloaded: Set<string>;
  /** kube-system and the namespaces of recognised CNI DaemonSets. */
  cni: Set<string>;
  /** Names of virtual nodes. */
  virtualNodes: Set<string>;
}

/** What the manifest records of a scope. */
export interface ScopeSummary {
  namespaces: string[];
  /** Objects left out, per kind. */
  dropped: Record<string, number>;
  /** Objects reduced to their name and namespace, per kind. */
  nameOnly: Record<string, number>;
}

type Labels = Record<string, string> | undefined;

function labelsOf(o: { metadata: { labels?: unknown } }): Labels {
  const l = o.metadata.labels;
  return l && typeof l === "object" ? l as Record<string, string> : undefined;
}

/** Objects Liqo labels as its own, wherever they are. */
function liqoLabelled(labels: Labels): boolean {
  if (!labels) return false;
  if (labels["app.kubernetes.io/part-of"] === "liqo") return true;
  if (
    labels["app.kubernetes.io/component"] === "controller-manager" &&
    labels["app.kubernetes.io/name"] === "controller-manager"
  ) return true;
  if (labels[VIRTUAL_KUBELET_LABEL] !== undefined) return true;
  return Object.keys(labels).some((k) => k.startsWith("networking.liqo.io/"));
}

/** Computes the scope of one cluster from its (full) inventory. */
export function scopeOf(inv: Objects): CollectScope {
  const core = new Set<string>();
  const add = (s: Set<string>, ns: unknown): void => {
    if (typeof ns === "string" && ns !== "") s.add(ns);
  };
  add(core, liqoNamespaceOf(inv));
  for (const ns of inv.tryItems("namespaces") ?? []) {
    if (ns.metadata.labels?.[TENANT_NAMESPACE_LABEL] === "true") add(core, ns.metadata.name);
  }
  for (const fc of inv.tryItems("foreignclusters") ?? []) add(core, tenantNamespaceOf(inv, fc));
  for (const k of ["gatewayservers", "gatewayclients", "virtualnodes"] as const) {
    for (const o of inv.tryItems(k) ?? []) add(core, o.metadata.namespace);
  }
  for (const p of inv.tryItems("pods") ?? []) {
    if (p.metadata.labels?.[GATEWAY_LABELS.component] === "gateway") add(core, p.metadata.namespace);
  }

  const offloaded = new Set<string>();
  for (const o of inv.tryItems("namespaceoffloadings") ?? []) add(offloaded, o.metadata.namespace);
  for (const ns of inv.tryItems("namespaces") ?? []) {
    if (
      ns.metadata.labels?.[REMOTE_ID_LABEL] !== undefined &&
      ns.metadata.annotations?.[MANAGED_BY_NAMESPACE_MAP_ANNOTATION] !== undefined
    ) add(offloaded, ns.metadata.name);
  }

  const cni = new Set<string>(["kube-system"]);
  for (const d of inv.tryItems("daemonsets") ?? []) {
    if (isCniDaemonSet(d)) add(cni, d.metadata.namespace);
  }

  const virtualNodes = new Set<string>();
  for (const n of inv.tryItems("nodes") ?? []) if (isVirtualNode(n)) virtualNodes.add(n.metadata.name);
  return { core, offloaded, cni, virtualNodes };
}

/** What becomes of one object: kept, reduced to its name, or left out. */
export type Verdict = "keep" | "name-only" | "drop";

/** The verdict for one object of a kind (kinds not in {@link SCOPED_KINDS} are always kept). */
export function verdictOf(kind: KindId, o: K8sObject, scope: CollectScope): Verdict {
  if (!SCOPED_KINDS.includes(kind)) return "keep";
  const ns = typeof o.metadata.namespace === "string" ? o.metadata.namespace : "";
  const labels = labelsOf(o);
  if (scope.core.has(ns) || liqoLabelled(labels)) return "keep";
  const spec = (o.spec && typeof o.spec === "object" ? o.spec : {}) as Record<string, unknown>;
  switch (kind) {
    case "pods":
      return typeof spec.nodeName === "string" && scope.virtualNodes.has(spec.nodeName) ? "keep" : "drop";
    case "services":
    case "networkpolicies":
      return scope.offloaded.has(ns) ? "keep" : "drop";
    case "configmaps":
      return labels?.["app.kubernetes.io/name"] === "clusterid-configmap" ||
          ["liqo-clusterid-configmap", "cilium-config"].includes(o.metadata.name)
        ? "keep"
        : "drop";
    case "deployments":
      return o.metadata.name === "tigera-operator" ? "keep" : "drop";
    case "daemonsets":
      return scope.cni.has(ns) || isCniDaemonSet(o) ? "keep" : "name-only";
    case "endpointslices": {
      if (labels?.[MANAGED_BY_LABEL] === SHADOW_ENDPOINTSLICE_MANAGER) return "keep";
      const eps = Array.isArray(o.endpoints) ? o.endpoints : [];
      return eps.some((e) =>
          e && typeof e === "object" && scope.virtualNodes.has(String((e as { nodeName?: unknown }).nodeName))
        )
        ? "keep"
        : "drop";
    }
    case "events": {
      const io = o.involvedObject && typeof o.involvedObject === "object"
        ? o.involvedObject as { namespace?: unknown }
        : {};
      return typeof io.namespace === "string" && scope.core.has(io.namespace) ? "keep" : "drop";
    }
    default:
      return "keep";
  }
}

/**
 * Narrows one kind's items to the scope: kept objects as they are, name-only ones reduced to
 * `{apiVersion, kind, metadata: {name, namespace}}`; counts what was dropped or reduced into `summary`.
 */
export function narrow(
  kind: KindId,
  items: readonly K8sObject[],
  scope: CollectScope,
  summary: ScopeSummary,
): K8sObject[] {
  const out: K8sObject[] = [];
  for (const o of items) {
    const v = verdictOf(kind, o, scope);
    if (v === "keep") out.push(o);
    else if (v === "name-only") {
      out.push({
        ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
        ...(o.kind ? { kind: o.kind } : {}),
        metadata: {
          name: o.metadata.name,
          ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
        },
      });
      summary.nameOnly[kind] = (summary.nameOnly[kind] ?? 0) + 1;
    } else summary.dropped[kind] = (summary.dropped[kind] ?? 0) + 1;
  }
  return out;
}

/** A fresh summary of a scope (namespaces sorted). */
export function summaryOf(scope: CollectScope): ScopeSummary {
  return {
    namespaces: [...new Set([...scope.core, ...scope.offloaded, ...scope.cni])].sort(),
    dropped: {},
    nameOnly: {},
  };
}
