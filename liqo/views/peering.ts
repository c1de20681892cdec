/**
 * Typed views of the peering kinds: ForeignCluster (core.liqo.io) and Identity, Tenant, ResourceSlice
 * (authentication.liqo.io) — FACTS §2.1, §2.10.
 */
import { z } from "zod";
import { Conditions, NameRefView, ObjectEnvelope, ResourceList, StringMap } from "./meta.ts";

/** One ForeignCluster module (`status.modules.<networking|authentication|offloading>`). */
export const ModuleView = z.looseObject({
  enabled: z.boolean().optional(),
  conditions: Conditions,
});
/** A ForeignCluster module. */
export type Module = z.infer<typeof ModuleView>;

/** core.liqo.io ForeignCluster (cluster-scoped; name = remote cluster ID). */
export const ForeignClusterView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({ clusterID: z.string().optional() }).optional(),
  status: z.looseObject({
    role: z.string().optional(),
    modules: z.looseObject({
      networking: ModuleView.optional(),
      authentication: ModuleView.optional(),
      offloading: ModuleView.optional(),
    }).optional(),
    conditions: Conditions,
    apiServerUrl: z.string().optional(),
    foreignProxyUrl: z.string().optional(),
    tenantNamespace: z.looseObject({
      local: z.string().optional(),
      remote: z.string().optional(),
    }).optional(),
    observedGeneration: z.number().optional(),
  }).optional(),
});
/** A ForeignCluster. */
export type ForeignCluster = z.infer<typeof ForeignClusterView>;

/** authentication.liqo.io AuthParams (`ca` and `signedCRT` are base64, `format: byte`). */
export const AuthParamsView = z.looseObject({
  ca: z.string().optional(),
  signedCRT: z.string().optional(),
  apiServer: z.string().optional(),
  proxyURL: z.string().optional(),
  awsConfig: z.looseObject({}).optional(),
});
/** Authentication parameters. */
export type AuthParams = z.infer<typeof AuthParamsView>;

/** authentication.liqo.io Identity. */
export const IdentityView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    clusterID: z.string().optional(),
    type: z.string().optional(),
    authParams: AuthParamsView.optional(),
    namespace: z.string().optional(),
  }).optional(),
  status: z.looseObject({ kubeconfigSecretRef: NameRefView.optional() }).optional(),
});
/** An Identity. */
export type Identity = z.infer<typeof IdentityView>;

/** authentication.liqo.io Tenant (`status.tenantNamespace` is a plain string here). */
export const TenantView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    clusterID: z.string().optional(),
    authzPolicy: z.string().optional(),
    publicKey: z.string().optional(),
    csr: z.string().optional(),
    signature: z.string().optional(),
    proxyURL: z.string().optional(),
    tenantCondition: z.string().optional(),
  }).optional(),
  status: z.looseObject({
    tenantNamespace: z.string().optional(),
    authParams: AuthParamsView.optional(),
  }).optional(),
});
/** A Tenant. */
export type Tenant = z.infer<typeof TenantView>;

/** A class offered by a provider (storage / ingress / load-balancer classes). */
const OfferedClassView = z.looseObject({ default: z.boolean().optional() });

/** authentication.liqo.io ResourceSlice. */
export const ResourceSliceView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    consumerClusterID: z.string().optional(),
    providerClusterID: z.string().optional(),
    resources: ResourceList.nullish(),
    class: z.string().optional(),
    csr: z.string().optional(),
  }).optional(),
  status: z.looseObject({
    conditions: Conditions,
    resources: ResourceList.nullish(),
    authParams: AuthParamsView.optional(),
    storageClasses: z.array(OfferedClassView).nullish(),
    ingressClasses: z.array(OfferedClassView).nullish(),
    loadBalancerClasses: z.array(OfferedClassView).nullish(),
    nodeLabels: StringMap.nullish(),
    nodeSelector: StringMap.nullish(),
  }).optional(),
});
/** A ResourceSlice. */
export type ResourceSlice = z.infer<typeof ResourceSliceView>;
