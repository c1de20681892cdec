/**
 * Typed views of Liqo's networking.liqo.io/v1beta1 kinds (CRDs in deployments/liqo/charts/liqo-crds,
 * types in `apis/networking/v1beta1/*_types.go`). Fields present in several Liqo versions with different shapes are all optional
 * (e.g. endpoint `port` in v1.x and `ports[]` at HEAD).
 */
import { z } from "zod";
import {
  type Condition,
  Conditions,
  type KubeObject,
  type NameRef,
  NameRefView,
  ObjectEnvelope,
  type ObjectReference,
  ObjectReferenceView,
  StringMap,
  Timestamp,
} from "./meta.ts";

/** Pod and external CIDRs. */
export interface ClusterCIDR {
  pod?: string[] | null;
  external?: string[] | null;
  [k: string]: unknown;
}
/** Configuration CIDR pair (`cidr.pod[]`, `cidr.external[]`). */
export const ClusterCIDRView: z.ZodType<ClusterCIDR> = z.looseObject({
  pod: z.array(z.string()).nullish(),
  external: z.array(z.string()).nullish(),
});

/** One side of a Configuration. */
export interface ClusterConfig {
  cidr?: ClusterCIDR;
  [k: string]: unknown;
}
/** Configuration `local` / `remote` / `status.remote`. */
export const ClusterConfigView: z.ZodType<ClusterConfig> = z.looseObject({
  cidr: ClusterCIDRView.optional(),
});

/** A Configuration. */
export interface Configuration extends KubeObject {
  spec?: { local?: ClusterConfig; remote?: ClusterConfig; [k: string]: unknown };
  status?: { remote?: ClusterConfig; conditions?: Condition[] | null; [k: string]: unknown };
}
/** networking.liqo.io Configuration. */
export const ConfigurationView: z.ZodType<Configuration> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    local: ClusterConfigView.optional(),
    remote: ClusterConfigView.optional(),
  }).optional(),
  status: z.looseObject({
    remote: ClusterConfigView.optional(),
    conditions: Conditions,
  }).optional(),
});

/** A Connection. */
export interface Connection extends KubeObject {
  spec?: { type?: string; gatewayRef?: ObjectReference; [k: string]: unknown };
  status?: {
    value?: string;
    latency?: { value?: string; timestamp?: string | null; [k: string]: unknown };
    [k: string]: unknown;
  };
}
/** networking.liqo.io Connection. */
export const ConnectionView: z.ZodType<Connection> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    type: z.string().optional(),
    gatewayRef: ObjectReferenceView.optional(),
  }).optional(),
  status: z.looseObject({
    value: z.string().optional(),
    latency: z.looseObject({ value: z.string().optional(), timestamp: Timestamp }).optional(),
  }).optional(),
});

/** A gateway endpoint. */
export interface GatewayEndpoint {
  addresses?: string[] | null;
  /** v1.x single port (deprecated at HEAD). */
  port?: number;
  /** HEAD-only list of ports. */
  ports?: number[] | null;
  protocol?: string;
  [k: string]: unknown;
}
/** A published gateway endpoint (GatewayServer/WgGatewayServer status, GatewayClient spec). */
export const GatewayEndpointView: z.ZodType<GatewayEndpoint> = z.looseObject({
  addresses: z.array(z.string()).nullish(),
  /** v1.x single port (deprecated at HEAD). */
  port: z.number().optional(),
  /** HEAD-only list of ports. */
  ports: z.array(z.number()).nullish(),
  protocol: z.string().optional(),
});

/** A gateway internal endpoint. */
export interface InternalGatewayEndpoint {
  ip?: string;
  node?: string;
  [k: string]: unknown;
}
/** Gateway internal endpoint (`status.internalEndpoint`). */
export const InternalGatewayEndpointView: z.ZodType<InternalGatewayEndpoint> = z.looseObject({
  ip: z.string().optional(),
  node: z.string().optional(),
});

/** A GatewayServer. */
export interface GatewayServer extends KubeObject {
  spec?: {
    endpoint?: {
      port?: number;
      ports?: number[] | null;
      nodePort?: number;
      nodePorts?: number[] | null;
      serviceType?: string;
      loadBalancerIP?: string;
      [k: string]: unknown;
    };
    mtu?: number;
    secretRef?: NameRef;
    serverTemplateRef?: ObjectReference;
    serviceAnnotations?: StringMap | null;
    serviceLabels?: StringMap | null;
    [k: string]: unknown;
  };
  status?: {
    endpoint?: GatewayEndpoint;
    internalEndpoint?: InternalGatewayEndpoint;
    secretRef?: ObjectReference;
    serverRef?: ObjectReference;
    [k: string]: unknown;
  };
}
/** networking.liqo.io GatewayServer. */
export const GatewayServerView: z.ZodType<GatewayServer> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    endpoint: z.looseObject({
      port: z.number().optional(),
      ports: z.array(z.number()).nullish(),
      nodePort: z.number().optional(),
      nodePorts: z.array(z.number()).nullish(),
      serviceType: z.string().optional(),
      loadBalancerIP: z.string().optional(),
    }).optional(),
    mtu: z.number().optional(),
    secretRef: NameRefView.optional(),
    serverTemplateRef: ObjectReferenceView.optional(),
    serviceAnnotations: StringMap.nullish(),
    serviceLabels: StringMap.nullish(),
  }).optional(),
  status: z.looseObject({
    endpoint: GatewayEndpointView.optional(),
    internalEndpoint: InternalGatewayEndpointView.optional(),
    secretRef: ObjectReferenceView.optional(),
    serverRef: ObjectReferenceView.optional(),
  }).optional(),
});

/** A GatewayClient. */
export interface GatewayClient extends KubeObject {
  spec?: {
    endpoint?: GatewayEndpoint;
    mtu?: number;
    secretRef?: NameRef;
    clientTemplateRef?: ObjectReference;
    [k: string]: unknown;
  };
  status?: {
    clientRef?: ObjectReference;
    internalEndpoint?: InternalGatewayEndpoint;
    secretRef?: ObjectReference;
    [k: string]: unknown;
  };
}
/** networking.liqo.io GatewayClient. */
export const GatewayClientView: z.ZodType<GatewayClient> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    endpoint: GatewayEndpointView.optional(),
    mtu: z.number().optional(),
    secretRef: NameRefView.optional(),
    clientTemplateRef: ObjectReferenceView.optional(),
  }).optional(),
  status: z.looseObject({
    clientRef: ObjectReferenceView.optional(),
    internalEndpoint: InternalGatewayEndpointView.optional(),
    secretRef: ObjectReferenceView.optional(),
  }).optional(),
});

/** A PublicKey. */
export interface PublicKey extends KubeObject {
  spec?: { publicKey?: string; [k: string]: unknown };
}
/** networking.liqo.io PublicKey (`spec.publicKey` is base64, `format: byte`). */
export const PublicKeyView: z.ZodType<PublicKey> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({ publicKey: z.string().optional() }).optional(),
});

/** An InternalNode. */
export interface InternalNode extends KubeObject {
  spec?: {
    interface?: {
      node?: { ip?: string; [k: string]: unknown };
      gateway?: { name?: string; [k: string]: unknown };
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  status?: {
    nodeIP?: { local?: string; remote?: string; [k: string]: unknown };
    [k: string]: unknown;
  };
}
/** networking.liqo.io InternalNode (cluster-scoped). */
export const InternalNodeView: z.ZodType<InternalNode> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    interface: z.looseObject({
      node: z.looseObject({ ip: z.string().optional() }).optional(),
      gateway: z.looseObject({ name: z.string().optional() }).optional(),
    }).optional(),
  }).optional(),
  status: z.looseObject({
    nodeIP: z.looseObject({ local: z.string().optional(), remote: z.string().optional() }).optional(),
  }).optional(),
});

/** An InternalFabric. */
export interface InternalFabric extends KubeObject {
  spec?: {
    gatewayIP?: string;
    mtu?: number;
    remoteCIDRs?: string[] | null;
    interface?: {
      gateway?: { ip?: string; [k: string]: unknown };
      node?: { name?: string; [k: string]: unknown };
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
}
/** networking.liqo.io InternalFabric (no status subresource). */
export const InternalFabricView: z.ZodType<InternalFabric> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    gatewayIP: z.string().optional(),
    mtu: z.number().optional(),
    remoteCIDRs: z.array(z.string()).nullish(),
    interface: z.looseObject({
      gateway: z.looseObject({ ip: z.string().optional() }).optional(),
      node: z.looseObject({ name: z.string().optional() }).optional(),
    }).optional(),
  }).optional(),
});

/** A GeneveTunnel. */
export interface GeneveTunnel extends KubeObject {
  spec?: {
    id?: number;
    internalFabricRef?: ObjectReference;
    internalNodeRef?: ObjectReference;
    [k: string]: unknown;
  };
}
/** networking.liqo.io GeneveTunnel. */
export const GeneveTunnelView: z.ZodType<GeneveTunnel> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    id: z.number().optional(),
    internalFabricRef: ObjectReferenceView.optional(),
    internalNodeRef: ObjectReferenceView.optional(),
  }).optional(),
});

/** A route / table `targetRef`. */
interface TargetRef {
  kind?: string;
  name?: string;
  namespace?: string;
  [k: string]: unknown;
}
/** Route `targetRef` / table `targetRef`. */
const TargetRefView: z.ZodType<TargetRef> = z.looseObject({
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
});

/** A route. */
export interface Route {
  dst?: string;
  gw?: string;
  src?: string;
  dev?: string;
  onlink?: boolean;
  scope?: string;
  targetRef?: TargetRef;
  [k: string]: unknown;
}
/** One route of a RouteConfiguration rule. */
export const RouteView: z.ZodType<Route> = z.looseObject({
  dst: z.string().optional(),
  gw: z.string().optional(),
  src: z.string().optional(),
  dev: z.string().optional(),
  onlink: z.boolean().optional(),
  scope: z.string().optional(),
  targetRef: TargetRefView.optional(),
});

/** A route rule. */
export interface RouteRule {
  dst?: string;
  src?: string;
  iif?: string;
  oif?: string;
  fwmark?: number;
  priority?: number;
  routes?: Route[] | null;
  targetRef?: TargetRef;
  [k: string]: unknown;
}
/** One rule of a RouteConfiguration table. */
export const RouteRuleView: z.ZodType<RouteRule> = z.looseObject({
  dst: z.string().optional(),
  src: z.string().optional(),
  iif: z.string().optional(),
  oif: z.string().optional(),
  fwmark: z.number().optional(),
  priority: z.number().optional(),
  routes: z.array(RouteView).nullish(),
  targetRef: TargetRefView.optional(),
});

/** Per-host applied status. */
export interface AppliedStatus {
  conditions?: Condition[] | null;
  [k: string]: unknown;
}
/** Status of a Route/FirewallConfiguration: one `Applied` condition per applying pod (`host`). */
export const AppliedStatusView: z.ZodType<AppliedStatus> = z.looseObject({ conditions: Conditions });

/** A RouteConfiguration. */
export interface RouteConfiguration extends KubeObject {
  spec?: {
    table?: { name?: string; rules?: RouteRule[] | null; targetRef?: TargetRef; [k: string]: unknown };
    [k: string]: unknown;
  };
  status?: AppliedStatus;
}
/** networking.liqo.io RouteConfiguration. */
export const RouteConfigurationView: z.ZodType<RouteConfiguration> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    table: z.looseObject({
      name: z.string().optional(),
      rules: z.array(RouteRuleView).nullish(),
      targetRef: TargetRefView.optional(),
    }).optional(),
  }).optional(),
  status: AppliedStatusView.optional(),
});

/** A firewall chain. */
export interface FirewallChain {
  name?: string;
  type?: string;
  policy?: string;
  hook?: string;
  priority?: number;
  rules?: {
    natRules?: { name?: string; [k: string]: unknown }[] | null;
    filterRules?: { name?: string; action?: string; [k: string]: unknown }[] | null;
    routeRules?: { name?: string; [k: string]: unknown }[] | null;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/** One chain of a FirewallConfiguration table (rules kept loose: nat/filter/route rule lists). */
export const FirewallChainView: z.ZodType<FirewallChain> = z.looseObject({
  name: z.string().optional(),
  type: z.string().optional(),
  policy: z.string().optional(),
  hook: z.string().optional(),
  priority: z.number().optional(),
  rules: z.looseObject({
    natRules: z.array(z.looseObject({ name: z.string().optional() })).nullish(),
    filterRules: z.array(z.looseObject({ name: z.string().optional(), action: z.string().optional() }))
      .nullish(),
    routeRules: z.array(z.looseObject({ name: z.string().optional() })).nullish(),
  }).optional(),
});

/** A FirewallConfiguration. */
export interface FirewallConfiguration extends KubeObject {
  spec?: {
    table?: { name?: string; family?: string; chains?: FirewallChain[] | null; [k: string]: unknown };
    [k: string]: unknown;
  };
  status?: AppliedStatus;
}
/** networking.liqo.io FirewallConfiguration. */
export const FirewallConfigurationView: z.ZodType<FirewallConfiguration> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    table: z.looseObject({
      name: z.string().optional(),
      family: z.string().optional(),
      chains: z.array(FirewallChainView).nullish(),
    }).optional(),
  }).optional(),
  status: AppliedStatusView.optional(),
});

/**
 * A WgGatewayServerTemplate / WgGatewayClientTemplate: `spec.objectKind` and `spec.template`, the
 * WgGateway* spec with Go-template strings (keys prefixed `?` are dropped when empty), kept loose.
 */
export interface GatewayTemplate extends KubeObject {
  spec?: {
    objectKind?: { apiVersion?: string; kind?: string };
    template?: { [k: string]: unknown };
    [k: string]: unknown;
  };
}

/** networking.liqo.io WgGatewayServerTemplate / WgGatewayClientTemplate. */
export const GatewayTemplateView: z.ZodType<GatewayTemplate> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    objectKind: z.looseObject({ apiVersion: z.string().optional(), kind: z.string().optional() }).optional(),
    template: z.looseObject({}).optional(),
  }).optional(),
});

/** A WgGatewayServer. */
export interface WgGatewayServer extends KubeObject {
  spec?: {
    deployment?: { [k: string]: unknown };
    service?: { [k: string]: unknown };
    metrics?: { enabled?: boolean; [k: string]: unknown };
    secretRef?: NameRef;
    [k: string]: unknown;
  };
  status?: {
    endpoint?: GatewayEndpoint;
    internalEndpoint?: InternalGatewayEndpoint;
    secretRef?: ObjectReference;
    [k: string]: unknown;
  };
}
/** networking.liqo.io WgGatewayServer (deployment/service templates kept loose). */
export const WgGatewayServerView: z.ZodType<WgGatewayServer> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    deployment: z.looseObject({}).optional(),
    service: z.looseObject({}).optional(),
    metrics: z.looseObject({ enabled: z.boolean().optional() }).optional(),
    secretRef: NameRefView.optional(),
  }).optional(),
  status: z.looseObject({
    endpoint: GatewayEndpointView.optional(),
    internalEndpoint: InternalGatewayEndpointView.optional(),
    secretRef: ObjectReferenceView.optional(),
  }).optional(),
});

/** A WgGatewayClient. */
export interface WgGatewayClient extends KubeObject {
  spec?: {
    deployment?: { [k: string]: unknown };
    metrics?: { enabled?: boolean; [k: string]: unknown };
    secretRef?: NameRef;
    [k: string]: unknown;
  };
  status?: {
    internalEndpoint?: InternalGatewayEndpoint;
    secretRef?: ObjectReference;
    [k: string]: unknown;
  };
}
/** networking.liqo.io WgGatewayClient (deployment template kept loose). */
export const WgGatewayClientView: z.ZodType<WgGatewayClient> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    deployment: z.looseObject({}).optional(),
    metrics: z.looseObject({ enabled: z.boolean().optional() }).optional(),
    secretRef: NameRefView.optional(),
  }).optional(),
  status: z.looseObject({
    internalEndpoint: InternalGatewayEndpointView.optional(),
    secretRef: ObjectReferenceView.optional(),
  }).optional(),
});
