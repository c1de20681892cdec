/**
 * Typed views of Liqo's networking.liqo.io/v1beta1 kinds (CRDs in deployments/liqo/charts/liqo-crds,
 * FACTS §2.2–§2.8). Fields present in several Liqo versions with different shapes are all optional
 * (e.g. endpoint `port` in v1.x and `ports[]` at HEAD).
 */
import { z } from "zod";
import {
  Conditions,
  NameRefView,
  ObjectEnvelope,
  ObjectReferenceView,
  StringMap,
  Timestamp,
} from "./meta.ts";

/** Configuration CIDR pair (`cidr.pod[]`, `cidr.external[]`). */
export const ClusterCIDRView = z.looseObject({
  pod: z.array(z.string()).nullish(),
  external: z.array(z.string()).nullish(),
});
/** Pod and external CIDRs. */
export type ClusterCIDR = z.infer<typeof ClusterCIDRView>;

/** Configuration `local` / `remote` / `status.remote`. */
export const ClusterConfigView = z.looseObject({ cidr: ClusterCIDRView.optional() });
/** One side of a Configuration. */
export type ClusterConfig = z.infer<typeof ClusterConfigView>;

/** networking.liqo.io Configuration. */
export const ConfigurationView = z.looseObject({
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
/** A Configuration. */
export type Configuration = z.infer<typeof ConfigurationView>;

/** networking.liqo.io Connection. */
export const ConnectionView = z.looseObject({
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
/** A Connection. */
export type Connection = z.infer<typeof ConnectionView>;

/** A published gateway endpoint (GatewayServer/WgGatewayServer status, GatewayClient spec). */
export const GatewayEndpointView = z.looseObject({
  addresses: z.array(z.string()).nullish(),
  /** v1.x single port (deprecated at HEAD). */
  port: z.number().optional(),
  /** HEAD-only list of ports. */
  ports: z.array(z.number()).nullish(),
  protocol: z.string().optional(),
});
/** A gateway endpoint. */
export type GatewayEndpoint = z.infer<typeof GatewayEndpointView>;

/** Gateway internal endpoint (`status.internalEndpoint`). */
export const InternalGatewayEndpointView = z.looseObject({
  ip: z.string().optional(),
  node: z.string().optional(),
});
/** A gateway internal endpoint. */
export type InternalGatewayEndpoint = z.infer<typeof InternalGatewayEndpointView>;

/** networking.liqo.io GatewayServer. */
export const GatewayServerView = z.looseObject({
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
/** A GatewayServer. */
export type GatewayServer = z.infer<typeof GatewayServerView>;

/** networking.liqo.io GatewayClient. */
export const GatewayClientView = z.looseObject({
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
/** A GatewayClient. */
export type GatewayClient = z.infer<typeof GatewayClientView>;

/** networking.liqo.io PublicKey (`spec.publicKey` is base64, `format: byte`). */
export const PublicKeyView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({ publicKey: z.string().optional() }).optional(),
});
/** A PublicKey. */
export type PublicKey = z.infer<typeof PublicKeyView>;

/** networking.liqo.io InternalNode (cluster-scoped). */
export const InternalNodeView = z.looseObject({
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
/** An InternalNode. */
export type InternalNode = z.infer<typeof InternalNodeView>;

/** networking.liqo.io InternalFabric (no status subresource). */
export const InternalFabricView = z.looseObject({
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
/** An InternalFabric. */
export type InternalFabric = z.infer<typeof InternalFabricView>;

/** networking.liqo.io GeneveTunnel. */
export const GeneveTunnelView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    id: z.number().optional(),
    internalFabricRef: ObjectReferenceView.optional(),
    internalNodeRef: ObjectReferenceView.optional(),
  }).optional(),
});
/** A GeneveTunnel. */
export type GeneveTunnel = z.infer<typeof GeneveTunnelView>;

/** Route `targetRef` / table `targetRef`. */
const TargetRefView = z.looseObject({
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
});

/** One route of a RouteConfiguration rule. */
export const RouteView = z.looseObject({
  dst: z.string().optional(),
  gw: z.string().optional(),
  src: z.string().optional(),
  dev: z.string().optional(),
  onlink: z.boolean().optional(),
  scope: z.string().optional(),
  targetRef: TargetRefView.optional(),
});
/** A route. */
export type Route = z.infer<typeof RouteView>;

/** One rule of a RouteConfiguration table. */
export const RouteRuleView = z.looseObject({
  dst: z.string().optional(),
  src: z.string().optional(),
  iif: z.string().optional(),
  oif: z.string().optional(),
  fwmark: z.number().optional(),
  priority: z.number().optional(),
  routes: z.array(RouteView).nullish(),
  targetRef: TargetRefView.optional(),
});
/** A route rule. */
export type RouteRule = z.infer<typeof RouteRuleView>;

/** Status of a Route/FirewallConfiguration: one `Applied` condition per applying pod (`host`). */
export const AppliedStatusView = z.looseObject({ conditions: Conditions });
/** Per-host applied status. */
export type AppliedStatus = z.infer<typeof AppliedStatusView>;

/** networking.liqo.io RouteConfiguration. */
export const RouteConfigurationView = z.looseObject({
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
/** A RouteConfiguration. */
export type RouteConfiguration = z.infer<typeof RouteConfigurationView>;

/** One chain of a FirewallConfiguration table (rules kept loose: nat/filter/route rule lists). */
export const FirewallChainView = z.looseObject({
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
/** A firewall chain. */
export type FirewallChain = z.infer<typeof FirewallChainView>;

/** networking.liqo.io FirewallConfiguration. */
export const FirewallConfigurationView = z.looseObject({
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
/** A FirewallConfiguration. */
export type FirewallConfiguration = z.infer<typeof FirewallConfigurationView>;

/** networking.liqo.io WgGatewayServer (deployment/service templates kept loose). */
export const WgGatewayServerView = z.looseObject({
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
/** A WgGatewayServer. */
export type WgGatewayServer = z.infer<typeof WgGatewayServerView>;

/** networking.liqo.io WgGatewayClient (deployment template kept loose). */
export const WgGatewayClientView = z.looseObject({
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
/** A WgGatewayClient. */
export type WgGatewayClient = z.infer<typeof WgGatewayClientView>;
