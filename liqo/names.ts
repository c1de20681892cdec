/**
 * Liqo's labels, annotations and well-known names, spelled once: the product reads and writes by
 * these constants, never by a literal of its own (tests/architecture_test.ts holds it to that). Most
 * keys are defined in Liqo's `pkg/consts/*.go` (`labels.go`, `annotations.go`, `replication.go`,
 * `authentication.go`, `core.go`); a line names the Liqo file where it is another.
 */
import { KINDS, listPath } from "../kube/kinds.ts";

/** The peer an object refers to, on per-peer objects (ForeignCluster, tenant namespace, gateways, …). */
export const REMOTE_ID_LABEL = "liqo.io/remote-cluster-id";

/** On virtual nodes, with value {@link VIRTUAL_NODE_TYPE}. */
export const VIRTUAL_NODE_LABEL = "liqo.io/type";

/** The value of {@link VIRTUAL_NODE_LABEL} on a virtual node. */
export const VIRTUAL_NODE_TYPE = "virtual-node";

/** On tenant namespaces, value "true" (`pkg/tenantNamespace/namespaceManager.go`). */
export const TENANT_NAMESPACE_LABEL = "liqo.io/tenant-namespace";

/** The tenant namespace `liqoctl peer` creates for a remote cluster: this prefix and its cluster ID (`pkg/tenantNamespace/const.go`). */
export const TENANT_NAMESPACE_PREFIX = "liqo-tenant-";

/** The provider's nonce Secret in the tenant namespace (`authentication/forge/nonce.go`), and its label. */
export const NONCE_SECRET = "liqo-nonce";
export const NONCE_SECRET_LABEL = "liqo.io/nonce";

/** The Secret of a cluster's authentication keys in the Liqo namespace (`consts.AuthKeysSecretName`). */
export const AUTH_KEYS_SECRET = "authentication-keys";

/** The namespace Liqo installs into by default (liqoctl install, the Helm chart's docs). */
export const DEFAULT_LIQO_NAMESPACE = "liqo";

/**
 * Gateway pod, Deployment and Service labels (the gateway templates); `active: "true"` marks the
 * active replica (`pkg/gateway/concurrent/label.go`).
 */
export const GATEWAY_LABELS = {
  component: "networking.liqo.io/component",
  name: "networking.liqo.io/gateway-name",
  namespace: "networking.liqo.io/gateway-namespace",
  active: "networking.liqo.io/active",
} as const;

/** On the PublicKey and the gateway key Secret, value "true". */
export const GATEWAY_RESOURCE_LABEL = "networking.liqo.io/gateway-resource";

/** On a GeneveTunnel: its InternalFabric. */
export const INTERNAL_FABRIC_NAME_LABEL = "networking.liqo.io/internal-fabric-name";

/** On a GeneveTunnel: its node (InternalNode). */
export const INTERNAL_NODE_NAME_LABEL = "networking.liqo.io/internal-node-name";

/** On IPs: `api-server` or `api-server-proxy`. */
export const IP_TYPE_LABEL = "ipam.liqo.io/ip-type";

/** The value of {@link IP_TYPE_LABEL} on the API server proxy's IP. */
export const API_SERVER_PROXY_IP_TYPE = "api-server-proxy";

/** On Networks: which CIDR the Network is (`pod-cidr`, `external-cidr`, …). */
export const NETWORK_TYPE_LABEL = "ipam.liqo.io/network-type";

/** On the per-peer Networks a Configuration makes: `pod` or `external`. */
export const CIDR_TYPE_LABEL = "configuration.liqo.io/cidr-type";

/** Liqo v1.0/v1.1's "Configuration remapped" label. */
export const LEGACY_CONFIGURED_LABEL = "configuration.liqo.io/configured";

/** On IPs Liqo allocates for a reflected EndpointSlice (HEAD). */
export const ENDPOINTSLICE_IP_LABEL = "ipam.liqo.io/endpointslice";

/** On virtual-kubelet pods and Deployments, value {@link VIRTUAL_KUBELET_COMPONENT}. */
export const VIRTUAL_KUBELET_LABEL = "offloading.liqo.io/component";

/** The value of {@link VIRTUAL_KUBELET_LABEL}. */
export const VIRTUAL_KUBELET_COMPONENT = "virtual-kubelet";

/** On virtual-kubelet pods and Deployments: the virtual node they run (`pkg/vkMachinery/forge/creation.go`). */
export const VIRTUAL_NODE_NAME_LABEL = "liqo.io/virtual-node";

/** On consumer pods that are offloaded, value "true". */
export const SHADOW_POD_LABEL = "liqo.io/shadowPod";

/** On the provider's objects reflected from a pod: the consumer pod's name. */
export const OFFLOADED_POD_NAME_LABEL = "offloading.liqo.io/pod-name";

/** On objects reflected to the provider: the consumer's cluster ID (`pkg/virtualKubelet/forge/meta.go`). */
export const ORIGIN_LABEL = "offloading.liqo.io/origin";

/** On provider pods and EndpointSlices made from shadows: `shadowpod` or {@link SHADOW_ENDPOINTSLICE_MANAGER}. */
export const MANAGED_BY_LABEL = "liqo.io/managed-by";

/**
 * The value of {@link MANAGED_BY_LABEL} on the EndpointSlices the provider makes from ShadowEndpointSlices
 * (`pkg/liqo-controller-manager/offloading/shadowendpointslice-controller/shadowendpointslice_controller.go`).
 */
export const SHADOW_ENDPOINTSLICE_MANAGER = "shadowendpointslice";

/** On Helm-installed Networks and the api-server(-proxy) IPs, value "true" (annotation). */
export const PREINSTALLED_ANNOTATION = "liqo.io/preinstalled";

/** On a ForeignCluster Liqo gave up on (annotation). */
export const UNREACHABLE_ANNOTATION = "liqo.io/foreign-cluster-permanently-unreachable";

/**
 * On a remote namespace Liqo created for a NamespaceMap: `<ns>/<name>` of the map (annotation,
 * `pkg/liqo-controller-manager/offloading/namespacemap-controller/enforcement.go`).
 */
export const MANAGED_BY_NAMESPACE_MAP_ANNOTATION = "liqo.io/managed-by-namespace-map";

/** On an offloaded pod: the anti-affinity preset across virtual nodes (annotation). */
export const ANTI_AFFINITY_PRESET_ANNOTATION = "liqo.io/anti-affinity-preset";

/** On an offloaded pod: the labels its anti-affinity preset matches (annotation). */
export const ANTI_AFFINITY_LABELS_ANNOTATION = "liqo.io/anti-affinity-labels";

/** The taint key Liqo puts on virtual nodes (`pkg/virtualKubelet/liqoNodeProvider/setup.go`). */
export const VIRTUAL_NODE_TAINT = "virtual-node.liqo.io/not-allowed";

/** The one name a NamespaceOffloading may have: Liqo reads only this one (`pkg/consts/core.go`). */
export const OFFLOADING_NAME = "offloading";

/** The `apiVersion` of a NamespaceOffloading. */
export const NAMESPACE_OFFLOADING_API_VERSION =
  `${KINDS.namespaceoffloadings.group}/${KINDS.namespaceoffloadings.version}`;

/** The API path of the NamespaceOffloading of `namespace` (it is always {@link OFFLOADING_NAME}). */
export function offloadingPath(namespace: string): string {
  return `${listPath(KINDS.namespaceoffloadings, namespace)}/${OFFLOADING_NAME}`;
}

/**
 * Labels that say who applies a RouteConfiguration (`pkg/route/label.go`, `pkg/gateway/label.go`):
 * category fabric|gateway, subcategory (fabric, single-node…), unique (a peer's cluster ID or a node).
 */
export const ROUTE_LABELS = {
  category: "networking.liqo.io/route-category",
  subcategory: "networking.liqo.io/route-subcategory",
  unique: "networking.liqo.io/route-unique",
} as const;

/**
 * Labels that say who applies a FirewallConfiguration (`pkg/firewall/label.go`,
 * `pkg/liqo-controller-manager/networking/external-network/remapping/label.go`).
 */
export const FIREWALL_LABELS = {
  category: "networking.liqo.io/firewall-category",
  subcategory: "networking.liqo.io/firewall-subcategory",
  unique: "networking.liqo.io/firewall-unique",
} as const;

/** Firewall subcategory of the per-IP NAT mappings (`remapping/label.go` FirewallSubCategoryTargetValueIPMapping). */
export const IP_MAPPING_SUBCATEGORY = "ip-mapping";

/** The default gateway templates Liqo's chart installs (WgGatewayServerTemplate / WgGatewayClientTemplate). */
export const GATEWAY_SERVER_TEMPLATE = "wireguard-server";
export const GATEWAY_CLIENT_TEMPLATE = "wireguard-client";
