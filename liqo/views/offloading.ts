/**
 * Typed views of Liqo's offloading.liqo.io/v1beta1 kinds: NamespaceOffloading, NamespaceMap,
 * VirtualNode, ShadowEndpointSlice (Liqo's `apis/offloading/v1beta1/*_types.go`).
 */
import { z } from "zod";
import { type Endpoint, type EndpointPort, EndpointPortView, EndpointView } from "./core.ts";
import {
  type Condition,
  Conditions,
  type KubeObject,
  type NameRef,
  NameRefView,
  ObjectEnvelope,
  StringMap,
  type TemplateMeta,
  TemplateMetaView,
} from "./meta.ts";

/** A NamespaceOffloading. */
export interface NamespaceOffloading extends KubeObject {
  spec?: {
    namespaceMappingStrategy?: string;
    remoteNamespaceName?: string;
    podOffloadingStrategy?: string;
    clusterSelector?: { [k: string]: unknown };
    [k: string]: unknown;
  };
  status?: {
    offloadingPhase?: string;
    remoteNamespaceName?: string;
    remoteNamespacesConditions?: Record<string, Condition[] | null | undefined> | null;
    observedGeneration?: number;
    [k: string]: unknown;
  };
}
/** offloading.liqo.io NamespaceOffloading (`remoteNamespacesConditions` is keyed by cluster ID). */
export const NamespaceOffloadingView: z.ZodType<NamespaceOffloading> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    namespaceMappingStrategy: z.string().optional(),
    remoteNamespaceName: z.string().optional(),
    podOffloadingStrategy: z.string().optional(),
    clusterSelector: z.looseObject({}).optional(),
  }).optional(),
  status: z.looseObject({
    offloadingPhase: z.string().optional(),
    remoteNamespaceName: z.string().optional(),
    remoteNamespacesConditions: z.record(z.string(), Conditions).nullish(),
    observedGeneration: z.number().optional(),
  }).optional(),
});

/** A current namespace mapping. */
export interface RemoteNamespaceStatus {
  remoteNamespace?: string;
  phase?: string;
  [k: string]: unknown;
}
/** One entry of NamespaceMap `status.currentMapping`. */
export const RemoteNamespaceStatusView: z.ZodType<RemoteNamespaceStatus> = z.looseObject({
  remoteNamespace: z.string().optional(),
  phase: z.string().optional(),
});

/** A NamespaceMap. */
export interface NamespaceMap extends KubeObject {
  spec?: { desiredMapping?: StringMap | null; [k: string]: unknown };
  status?: { currentMapping?: Record<string, RemoteNamespaceStatus> | null; [k: string]: unknown };
}
/** offloading.liqo.io NamespaceMap. */
export const NamespaceMapView: z.ZodType<NamespaceMap> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({ desiredMapping: StringMap.nullish() }).optional(),
  status: z.looseObject({
    currentMapping: z.record(z.string(), RemoteNamespaceStatusView).nullish(),
  }).optional(),
});

/** A VirtualNode. */
export interface VirtualNode extends KubeObject {
  spec?: {
    clusterID?: string;
    createNode?: boolean;
    disableNetworkCheck?: boolean;
    kubeconfigSecretRef?: NameRef;
    vkOptionsTemplateRef?: { kind?: string; name?: string; namespace?: string; [k: string]: unknown };
    template?: {
      metadata?: TemplateMeta;
      spec?: { [k: string]: unknown };
      [k: string]: unknown;
    };
    labels?: StringMap | null;
    annotations?: StringMap | null;
    [k: string]: unknown;
  };
  status?: { conditions?: Condition[] | null; [k: string]: unknown };
}
/** offloading.liqo.io VirtualNode (the virtual-kubelet Deployment template is kept loose). */
export const VirtualNodeView: z.ZodType<VirtualNode> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    clusterID: z.string().optional(),
    createNode: z.boolean().optional(),
    disableNetworkCheck: z.boolean().optional(),
    kubeconfigSecretRef: NameRefView.optional(),
    vkOptionsTemplateRef: z.looseObject({
      kind: z.string().optional(),
      name: z.string().optional(),
      namespace: z.string().optional(),
    }).optional(),
    template: z.looseObject({
      metadata: TemplateMetaView.optional(),
      spec: z.looseObject({}).optional(),
    }).optional(),
    labels: StringMap.nullish(),
    annotations: StringMap.nullish(),
  }).optional(),
  status: z.looseObject({ conditions: Conditions }).optional(),
});

/** A ShadowEndpointSlice. */
export interface ShadowEndpointSlice extends KubeObject {
  spec?: {
    template?: {
      addressType?: string;
      endpoints?: Endpoint[] | null;
      ports?: EndpointPort[] | null;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
}
/** offloading.liqo.io ShadowEndpointSlice (`spec.template` is an EndpointSlice body). */
export const ShadowEndpointSliceView: z.ZodType<ShadowEndpointSlice> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    template: z.looseObject({
      addressType: z.string().optional(),
      endpoints: z.array(EndpointView).nullish(),
      ports: z.array(EndpointPortView).nullish(),
    }).optional(),
  }).optional(),
});
