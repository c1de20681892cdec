/**
 * The Liqo custom resources the fake cluster has installed: an object of one of these kinds is
 * served under its plural, and a served group/version also serves its other kinds (CRD installed,
 * no objects). Plurals and scopes as Liqo's CRDs define them (deployments/liqo/charts/liqo-crds/
 * crds/); the fake keeps its own table, tests/fakekube/kinds_test.ts checks the product's
 * kube/kinds.ts agrees.
 */

/** One served custom resource. */
export interface CrdSpec {
  readonly group: string;
  readonly version: string;
  /** Resource name in the URL (lower-case plural). */
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

type Row = [group: string, version: string, plural: string, kind: string, namespaced: boolean];

const ROWS: readonly Row[] = [
  ["core.liqo.io", "v1beta1", "foreignclusters", "ForeignCluster", false],
  ["networking.liqo.io", "v1beta1", "configurations", "Configuration", true],
  ["networking.liqo.io", "v1beta1", "connections", "Connection", true],
  ["networking.liqo.io", "v1beta1", "gatewayservers", "GatewayServer", true],
  ["networking.liqo.io", "v1beta1", "gatewayclients", "GatewayClient", true],
  ["networking.liqo.io", "v1beta1", "publickeies", "PublicKey", true],
  ["networking.liqo.io", "v1beta1", "internalnodes", "InternalNode", false],
  ["networking.liqo.io", "v1beta1", "internalfabrics", "InternalFabric", true],
  ["networking.liqo.io", "v1beta1", "genevetunnels", "GeneveTunnel", true],
  ["networking.liqo.io", "v1beta1", "routeconfigurations", "RouteConfiguration", true],
  ["networking.liqo.io", "v1beta1", "firewallconfigurations", "FirewallConfiguration", true],
  ["networking.liqo.io", "v1beta1", "wggatewayservers", "WgGatewayServer", true],
  ["networking.liqo.io", "v1beta1", "wggatewayclients", "WgGatewayClient", true],
  ["networking.liqo.io", "v1beta1", "wggatewayservertemplates", "WgGatewayServerTemplate", true],
  ["networking.liqo.io", "v1beta1", "wggatewayclienttemplates", "WgGatewayClientTemplate", true],
  ["ipam.liqo.io", "v1alpha1", "networks", "Network", true],
  ["ipam.liqo.io", "v1alpha1", "ips", "IP", true],
  ["authentication.liqo.io", "v1beta1", "identities", "Identity", true],
  ["authentication.liqo.io", "v1beta1", "tenants", "Tenant", true],
  ["authentication.liqo.io", "v1beta1", "resourceslices", "ResourceSlice", true],
  ["offloading.liqo.io", "v1beta1", "namespaceoffloadings", "NamespaceOffloading", true],
  ["offloading.liqo.io", "v1beta1", "namespacemaps", "NamespaceMap", true],
  ["offloading.liqo.io", "v1beta1", "virtualnodes", "VirtualNode", true],
  ["offloading.liqo.io", "v1beta1", "shadowendpointslices", "ShadowEndpointSlice", true],
];

/** Every Liqo custom resource the fake serves. */
export const LIQO_CRDS: readonly CrdSpec[] = ROWS.map(([group, version, plural, kind, namespaced]) => ({
  group,
  version,
  plural,
  kind,
  namespaced,
}));
