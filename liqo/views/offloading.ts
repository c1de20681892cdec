/**
 * Typed views of Liqo's offloading.liqo.io/v1beta1 kinds: NamespaceOffloading, NamespaceMap,
 * VirtualNode, ShadowEndpointSlice (FACTS §2.11).
 */
import { z } from "zod";
import { EndpointPortView, EndpointView } from "./core.ts";
import { Conditions, NameRefView, ObjectEnvelope, StringMap, TemplateMetaView } from "./meta.ts";

/** offloading.liqo.io NamespaceOffloading (`remoteNamespacesConditions` is keyed by cluster ID). */
export const NamespaceOffloadingView = z.looseObject({
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
/** A NamespaceOffloading. */
export type NamespaceOffloading = z.infer<typeof NamespaceOffloadingView>;

/** One entry of NamespaceMap `status.currentMapping`. */
export const RemoteNamespaceStatusView = z.looseObject({
  remoteNamespace: z.string().optional(),
  phase: z.string().optional(),
});
/** A current namespace mapping. */
export type RemoteNamespaceStatus = z.infer<typeof RemoteNamespaceStatusView>;

/** offloading.liqo.io NamespaceMap. */
export const NamespaceMapView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({ desiredMapping: StringMap.nullish() }).optional(),
  status: z.looseObject({
    currentMapping: z.record(z.string(), RemoteNamespaceStatusView).nullish(),
  }).optional(),
});
/** A NamespaceMap. */
export type NamespaceMap = z.infer<typeof NamespaceMapView>;

/** offloading.liqo.io VirtualNode (the virtual-kubelet Deployment template is kept loose). */
export const VirtualNodeView = z.looseObject({
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
/** A VirtualNode. */
export type VirtualNode = z.infer<typeof VirtualNodeView>;

/** offloading.liqo.io ShadowEndpointSlice (`spec.template` is an EndpointSlice body). */
export const ShadowEndpointSliceView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    template: z.looseObject({
      addressType: z.string().optional(),
      endpoints: z.array(EndpointView).nullish(),
      ports: z.array(EndpointPortView).nullish(),
    }).optional(),
  }).optional(),
});
/** A ShadowEndpointSlice. */
export type ShadowEndpointSlice = z.infer<typeof ShadowEndpointSliceView>;
