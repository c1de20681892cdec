/**
 * The Liqo-aware side of the diff: which layer each kind belongs to, what a changed field is in
 * Liqo's terms (gateway endpoint, public key, remapped CIDRs, MTU, versions, kernels, Connection
 * status), and how an object is recognised across the sides when its name is not stable (a pod
 * recreated by its Deployment or DaemonSet). Field paths follow liqo/views and Liqo's CRDs
 * (`apis/networking/v1beta1`, `apis/ipam/v1alpha1`).
 */
import type { KindId } from "../kube/kinds.ts";
import type { K8sObject } from "../kube/source.ts";
import type { Layer } from "../report/model.ts";
import { GATEWAY_LABELS } from "../liqo/names.ts";

/** The layer a kind's changes are grouped under. */
export const KIND_LAYER: Readonly<Record<KindId, Layer>> = {
  nodes: "env",
  namespaces: "env",
  pods: "env",
  services: "gateway",
  configmaps: "env",
  secrets: "gateway",
  endpointslices: "reflection",
  deployments: "env",
  daemonsets: "fabric",
  networkpolicies: "cni",
  foreignclusters: "controlplane",
  configurations: "ipam",
  connections: "tunnel",
  gatewayservers: "gateway",
  gatewayclients: "gateway",
  publickeies: "tunnel",
  internalnodes: "fabric",
  internalfabrics: "fabric",
  genevetunnels: "fabric",
  routeconfigurations: "fabric",
  firewallconfigurations: "fabric",
  wggatewayservers: "gateway",
  wggatewayclients: "gateway",
  wggatewayservertemplates: "gateway",
  wggatewayclienttemplates: "gateway",
  networks: "ipam",
  ips: "ipam",
  identities: "controlplane",
  tenants: "controlplane",
  resourceslices: "controlplane",
  namespaceoffloadings: "reflection",
  namespacemaps: "reflection",
  virtualnodes: "reflection",
  shadowendpointslices: "reflection",
  events: "env",
};

/** Kinds not compared: Warning events come and go with time (the API server expires them). */
export const NOT_COMPARED: ReadonlySet<KindId> = new Set(["events"]);

/** A gateway pod (Liqo's gateway labels): its restarts and recreations are readings. */
export function isGatewayPod(o: K8sObject): boolean {
  return o.metadata.labels?.[GATEWAY_LABELS.name] !== undefined;
}

/** The layer of one object (a gateway pod is the gateway's, whatever its kind says). */
export function layerOf(kind: KindId, o: K8sObject): Layer {
  if (kind === "pods" && isGatewayPod(o)) return "gateway";
  if (kind === "deployments" && isGatewayPod({ metadata: { name: "", labels: o.metadata.labels } })) {
    return "gateway";
  }
  return KIND_LAYER[kind];
}

/** The kinds that carry a gateway endpoint (`endpoint.addresses/port/protocol`). */
const ENDPOINT_KINDS = ["GatewayServer", "GatewayClient", "WgGatewayServer", "WgGatewayClient"];

/** Liqo's words for the fields that matter, by kind and path (first match wins). */
const FIELD_LABELS: readonly { kinds: readonly string[]; path: RegExp; label: string }[] = [
  {
    kinds: ENDPOINT_KINDS,
    path: /endpoint\.addresses/,
    label: "gateway endpoint address",
  },
  { kinds: ENDPOINT_KINDS, path: /endpoint\.port$/, label: "gateway endpoint port" },
  {
    kinds: ENDPOINT_KINDS,
    path: /endpoint\.protocol$/,
    label: "gateway endpoint protocol",
  },
  { kinds: ["GatewayServer"], path: /^spec\.endpoint\.serviceType$/, label: "gateway service type" },
  { kinds: ["GatewayServer", "GatewayClient", "InternalFabric"], path: /^spec\.mtu$/, label: "MTU" },
  { kinds: ["PublicKey"], path: /^spec\.publicKey$/, label: "public key (fingerprint)" },
  { kinds: ["Secret"], path: /^data\.publicKey$/, label: "gateway public key (fingerprint)" },
  { kinds: ["Configuration"], path: /^status\.remote\.cidr\.pod/, label: "remapped pod CIDR" },
  { kinds: ["Configuration"], path: /^status\.remote\.cidr\.external/, label: "remapped external CIDR" },
  { kinds: ["Configuration"], path: /^spec\.remote\.cidr/, label: "remote CIDR" },
  { kinds: ["Configuration"], path: /^spec\.local\.cidr/, label: "local CIDR" },
  { kinds: ["Network"], path: /^status\.cidr$/, label: "remapped CIDR" },
  { kinds: ["Network"], path: /^spec\.cidr$/, label: "CIDR" },
  { kinds: ["IP"], path: /^status\.ip/, label: "allocated IP" },
  { kinds: ["Connection"], path: /^status\.value$/, label: "Connection status" },
  { kinds: ["InternalFabric"], path: /^spec\.gatewayIP$/, label: "gateway IP of the fabric" },
  { kinds: ["Node"], path: /^status\.nodeInfo\.kernelVersion$/, label: "kernel" },
  { kinds: ["Node"], path: /^status\.nodeInfo\.kubeletVersion$/, label: "Kubernetes version (kubelet)" },
  { kinds: ["Node"], path: /^status\.conditions\[Ready\]/, label: "node Ready" },
  { kinds: ["Node"], path: /^status\.addresses/, label: "node address" },
  {
    kinds: ["Deployment", "DaemonSet", "Pod"],
    path: /containers\[[^\]]+\]\.image$/,
    label: "image (version)",
  },
  { kinds: ["Service"], path: /^status\.loadBalancer\.ingress/, label: "LoadBalancer address" },
  { kinds: ["Service"], path: /^spec\.ports\[[^\]]+\]\.nodePort$/, label: "node port" },
  { kinds: ["Service"], path: /^spec\.type$/, label: "Service type" },
  { kinds: ["ForeignCluster"], path: /^status\.modules/, label: "module status" },
  { kinds: ["FirewallConfiguration", "RouteConfiguration"], path: /^status\.conditions/, label: "applied" },
  { kinds: ["NetworkPolicy"], path: /^spec\./, label: "policy rule" },
];

/** Liqo's word for a field of `kind`, or null. */
export function fieldLabel(kind: string, path: string): string | null {
  return FIELD_LABELS.find((l) => l.kinds.includes(kind) && l.path.test(path))?.label ?? null;
}

const TEMPLATE_HASH = "pod-template-hash";

/**
 * The name an object is matched by across the sides. A pod owned by a controller is matched by its
 * controller's name (the generated suffix and template hash stripped) and, for a DaemonSet's, its
 * node: a pod recreated into the same place is the same pod, recreated.
 */
export function identityOf(kind: KindId, o: K8sObject): string {
  const ns = o.metadata.namespace ?? "";
  if (kind !== "pods") return `${ns}/${o.metadata.name}`;
  const owner = o.metadata.ownerReferences?.find((r) => r.controller) ?? o.metadata.ownerReferences?.[0];
  // Without generateName (a hand-written object), the generated suffix is the name's last segment.
  const gen = typeof o.metadata.generateName === "string"
    ? o.metadata.generateName
    : /^(.+-)[a-z0-9]{5}$/.exec(o.metadata.name)?.[1] ?? null;
  if (!owner || !gen) return `${ns}/${o.metadata.name}`;
  let base = gen.replace(/-$/, "");
  const hash = o.metadata.labels?.[TEMPLATE_HASH];
  if (hash && base.endsWith(`-${hash}`)) base = base.slice(0, -hash.length - 1);
  if (owner.kind === "ReplicaSet" && !hash) base = base.replace(/-[a-z0-9]{5,10}$/, "");
  const node = typeof (o.spec as { nodeName?: unknown } | undefined)?.nodeName === "string"
    ? (o.spec as { nodeName: string }).nodeName
    : "";
  return `${ns}/${base}${owner.kind === "DaemonSet" ? `@${node}` : ""}`;
}

/** A one-line summary of an object's change, Liqo-aware for the fields it knows. */
export function changeSummary(
  kind: string,
  name: string,
  change: "added" | "removed" | "modified",
  fields: readonly { path: string; label: string | null; before: string | null; after: string | null }[],
): string {
  if (change !== "modified") return `${kind} ${name} ${change}`;
  const named = fields.filter((f) => f.label !== null);
  const shown = (named.length ? named : fields).slice(0, 3).map((f) =>
    `${f.label ?? f.path} ${f.before ?? "(none)"} → ${f.after ?? "(none)"}`
  );
  const more = (named.length ? named : fields).length - shown.length;
  return `${kind} ${name}: ${shown.join("; ")}${more > 0 ? ` (+${more} more)` : ""}`;
}
