/**
 * The resource kinds FlyingFish reads, as group/version/plural. Each kind is listed at most once
 * per cluster per run (see inventory.ts); checks declare which of these they read.
 */

/** One listable resource kind. */
export interface KindSpec {
  /** API group; "" for the core group. */
  readonly group: string;
  readonly version: string;
  /** Resource name in the URL (lower-case plural). */
  readonly plural: string;
  /** Kind as it appears in objects. */
  readonly kind: string;
  readonly namespaced: boolean;
  /** Server-side label selector applied to the list (keeps sensitive kinds narrow). */
  readonly labelSelector?: string;
  /** Server-side field selector applied to the list (e.g. only Warning events). */
  readonly fieldSelector?: string;
}

/** Stable id of a kind in {@link KINDS}. */
export type KindId =
  | "nodes"
  | "namespaces"
  | "pods"
  | "services"
  | "configmaps"
  | "secrets"
  | "endpointslices"
  | "deployments"
  | "daemonsets"
  | "networkpolicies"
  | "foreignclusters"
  | "configurations"
  | "connections"
  | "gatewayservers"
  | "gatewayclients"
  | "publickeies"
  | "internalnodes"
  | "internalfabrics"
  | "genevetunnels"
  | "routeconfigurations"
  | "firewallconfigurations"
  | "wggatewayservers"
  | "wggatewayclients"
  | "wggatewayservertemplates"
  | "wggatewayclienttemplates"
  | "networks"
  | "ips"
  | "identities"
  | "tenants"
  | "resourceslices"
  | "namespaceoffloadings"
  | "namespacemaps"
  | "virtualnodes"
  | "shadowendpointslices"
  | "events";

/** Every kind the catalog may read, keyed by a stable id. */
export const KINDS: Readonly<Record<KindId, KindSpec>> = {
  nodes: { group: "", version: "v1", plural: "nodes", kind: "Node", namespaced: false },
  namespaces: { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false },
  pods: { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true },
  services: { group: "", version: "v1", plural: "services", kind: "Service", namespaced: true },
  configmaps: { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true },
  /** Only Liqo's own secrets (gateway keys, kubeconfigs); values are reduced to public facts on read. */
  secrets: {
    group: "",
    version: "v1",
    plural: "secrets",
    kind: "Secret",
    namespaced: true,
    labelSelector: "liqo.io/remote-cluster-id",
  },
  endpointslices: {
    group: "discovery.k8s.io",
    version: "v1",
    plural: "endpointslices",
    kind: "EndpointSlice",
    namespaced: true,
  },
  deployments: { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true },
  daemonsets: { group: "apps", version: "v1", plural: "daemonsets", kind: "DaemonSet", namespaced: true },
  networkpolicies: {
    group: "networking.k8s.io",
    version: "v1",
    plural: "networkpolicies",
    kind: "NetworkPolicy",
    namespaced: true,
  },
  foreignclusters: {
    group: "core.liqo.io",
    version: "v1beta1",
    plural: "foreignclusters",
    kind: "ForeignCluster",
    namespaced: false,
  },
  configurations: liqo("networking", "configurations", "Configuration"),
  connections: liqo("networking", "connections", "Connection"),
  gatewayservers: liqo("networking", "gatewayservers", "GatewayServer"),
  gatewayclients: liqo("networking", "gatewayclients", "GatewayClient"),
  publickeies: liqo("networking", "publickeies", "PublicKey"),
  internalnodes: {
    group: "networking.liqo.io",
    version: "v1beta1",
    plural: "internalnodes",
    kind: "InternalNode",
    namespaced: false,
  },
  internalfabrics: liqo("networking", "internalfabrics", "InternalFabric"),
  genevetunnels: liqo("networking", "genevetunnels", "GeneveTunnel"),
  routeconfigurations: liqo("networking", "routeconfigurations", "RouteConfiguration"),
  firewallconfigurations: liqo("networking", "firewallconfigurations", "FirewallConfiguration"),
  wggatewayservers: liqo("networking", "wggatewayservers", "WgGatewayServer"),
  wggatewayclients: liqo("networking", "wggatewayclients", "WgGatewayClient"),
  wggatewayservertemplates: liqo("networking", "wggatewayservertemplates", "WgGatewayServerTemplate"),
  wggatewayclienttemplates: liqo("networking", "wggatewayclienttemplates", "WgGatewayClientTemplate"),
  networks: {
    group: "ipam.liqo.io",
    version: "v1alpha1",
    plural: "networks",
    kind: "Network",
    namespaced: true,
  },
  ips: { group: "ipam.liqo.io", version: "v1alpha1", plural: "ips", kind: "IP", namespaced: true },
  identities: liqo("authentication", "identities", "Identity"),
  tenants: liqo("authentication", "tenants", "Tenant"),
  resourceslices: liqo("authentication", "resourceslices", "ResourceSlice"),
  namespaceoffloadings: liqo("offloading", "namespaceoffloadings", "NamespaceOffloading"),
  namespacemaps: liqo("offloading", "namespacemaps", "NamespaceMap"),
  virtualnodes: liqo("offloading", "virtualnodes", "VirtualNode"),
  shadowendpointslices: liqo("offloading", "shadowendpointslices", "ShadowEndpointSlice"),
  /** Only Warning events (what `kubectl describe` shows first); the API server expires events after ~1 h. */
  events: {
    group: "",
    version: "v1",
    plural: "events",
    kind: "Event",
    namespaced: true,
    fieldSelector: "type=Warning",
  },
};

/** All kind ids, in a fixed order. */
export const KIND_IDS: readonly KindId[] = Object.keys(KINDS) as KindId[];

function liqo(group: string, plural: string, kind: string): KindSpec {
  return { group: `${group}.liqo.io`, version: "v1beta1", plural, kind, namespaced: true };
}

/**
 * Where one list request looks: a namespace and/or server-side selectors, on top of the kind's own
 * ({@link KindSpec.labelSelector}, {@link KindSpec.fieldSelector}). No scope: every namespace.
 */
export interface ListScope {
  /** Only this namespace (namespaced kinds). */
  readonly namespace?: string;
  /** Server-side label selector, ANDed with the kind's own. */
  readonly labelSelector?: string;
  /** Server-side field selector, ANDed with the kind's own (e.g. `spec.nodeName=<node>`). */
  readonly fieldSelector?: string;
}

/** The URL path that lists a kind across all namespaces, or in one namespace. */
export function listPath(spec: KindSpec, namespace?: string): string {
  const base = spec.group === "" ? `/api/${spec.version}` : `/apis/${spec.group}/${spec.version}`;
  const ns = namespace !== undefined && spec.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${ns}/${spec.plural}`;
}

/** The label and field selectors of one list request: the kind's own ANDed with the scope's. */
export function selectorsOf(
  spec: KindSpec,
  scope: ListScope = {},
): { labelSelector?: string; fieldSelector?: string } {
  const and = (...parts: (string | undefined)[]) => {
    const all = parts.filter((p): p is string => p !== undefined && p.length > 0);
    return all.length ? all.join(",") : undefined;
  };
  const labelSelector = and(spec.labelSelector, scope.labelSelector);
  const fieldSelector = and(spec.fieldSelector, scope.fieldSelector);
  return {
    ...(labelSelector ? { labelSelector } : {}),
    ...(fieldSelector ? { fieldSelector } : {}),
  };
}

/** "pods in namespace liqo with spec.nodeName=vk-x": a list request in words, for messages. */
export function describeList(spec: KindSpec, scope: ListScope = {}): string {
  const parts = [spec.plural];
  if (scope.namespace !== undefined) parts.push(`in namespace ${scope.namespace}`);
  const sel = [scope.labelSelector, scope.fieldSelector].filter(Boolean).join(",");
  if (sel) parts.push(`with ${sel}`);
  return parts.join(" ");
}

/** The Liqo API groups and versions ENV-03 expects discovery to serve. */
export const LIQO_GROUP_VERSIONS: readonly { group: string; version: string }[] = [
  { group: "authentication.liqo.io", version: "v1beta1" },
  { group: "core.liqo.io", version: "v1beta1" },
  { group: "networking.liqo.io", version: "v1beta1" },
  { group: "offloading.liqo.io", version: "v1beta1" },
  { group: "ipam.liqo.io", version: "v1alpha1" },
];
