/**
 * Typed views of the peering kinds: ForeignCluster (core.liqo.io) and Identity, Tenant, ResourceSlice
 * (authentication.liqo.io): Liqo's `apis/core/v1beta1/foreigncluster_types.go` and
 * `apis/authentication/v1beta1/*_types.go`.
 */
import { z } from "zod";
import {
  type Condition,
  Conditions,
  type KubeObject,
  type NameRef,
  NameRefView,
  ObjectEnvelope,
  ObjectMetaView,
  ResourceList,
  StringMap,
} from "./meta.ts";

/** A ForeignCluster module. */
export interface Module {
  enabled?: boolean;
  conditions?: Condition[] | null;
  [k: string]: unknown;
}
/** One ForeignCluster module (`status.modules.<networking|authentication|offloading>`). */
export const ModuleView: z.ZodType<Module> = z.looseObject({
  enabled: z.boolean().optional(),
  conditions: Conditions,
});

/** A ForeignCluster. */
export interface ForeignCluster extends KubeObject {
  spec?: { clusterID?: string; [k: string]: unknown };
  status?: {
    role?: string;
    modules?: {
      networking?: Module;
      authentication?: Module;
      offloading?: Module;
      [k: string]: unknown;
    };
    conditions?: Condition[] | null;
    apiServerUrl?: string;
    foreignProxyUrl?: string;
    tenantNamespace?: { local?: string; remote?: string; [k: string]: unknown };
    observedGeneration?: number;
    [k: string]: unknown;
  };
}
/** core.liqo.io ForeignCluster (cluster-scoped; name = remote cluster ID). */
export const ForeignClusterView: z.ZodType<ForeignCluster> = z.looseObject({
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

/**
 * What can still be read of a ForeignCluster that does not fit {@link ForeignClusterView}: its
 * metadata (or only its name) and `spec.clusterID` when it is a string — enough to name the peer;
 * the rest (status, modules, conditions) is left out. Null without a readable, non-empty name.
 */
export function salvageForeignCluster(raw: unknown): ForeignCluster | null {
  const o = isRecord(raw) ? raw : {};
  const meta = ObjectMetaView.safeParse(o.metadata);
  const name = meta.success ? meta.data.name : isRecord(o.metadata) ? o.metadata.name : undefined;
  if (typeof name !== "string" || name === "") return null;
  const clusterID = isRecord(o.spec) ? o.spec.clusterID : undefined;
  return {
    metadata: meta.success ? meta.data : { name },
    ...(typeof clusterID === "string" ? { spec: { clusterID } } : {}),
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Authentication parameters. */
export interface AuthParams {
  ca?: string;
  signedCRT?: string;
  apiServer?: string;
  proxyURL?: string;
  awsConfig?: { [k: string]: unknown };
  [k: string]: unknown;
}
/** authentication.liqo.io AuthParams (`ca` and `signedCRT` are base64, `format: byte`). */
export const AuthParamsView: z.ZodType<AuthParams> = z.looseObject({
  ca: z.string().optional(),
  signedCRT: z.string().optional(),
  apiServer: z.string().optional(),
  proxyURL: z.string().optional(),
  awsConfig: z.looseObject({}).optional(),
});

/** An Identity. */
export interface Identity extends KubeObject {
  spec?: {
    clusterID?: string;
    type?: string;
    authParams?: AuthParams;
    namespace?: string;
    [k: string]: unknown;
  };
  status?: { kubeconfigSecretRef?: NameRef; [k: string]: unknown };
}
/** authentication.liqo.io Identity. */
export const IdentityView: z.ZodType<Identity> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    clusterID: z.string().optional(),
    type: z.string().optional(),
    authParams: AuthParamsView.optional(),
    namespace: z.string().optional(),
  }).optional(),
  status: z.looseObject({ kubeconfigSecretRef: NameRefView.optional() }).optional(),
});

/** A Tenant. */
export interface Tenant extends KubeObject {
  spec?: {
    clusterID?: string;
    authzPolicy?: string;
    publicKey?: string;
    csr?: string;
    signature?: string;
    proxyURL?: string;
    tenantCondition?: string;
    [k: string]: unknown;
  };
  status?: { tenantNamespace?: string; authParams?: AuthParams; [k: string]: unknown };
}
/** authentication.liqo.io Tenant (`status.tenantNamespace` is a plain string here). */
export const TenantView: z.ZodType<Tenant> = z.looseObject({
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

/** A class offered by a provider. */
interface OfferedClass {
  default?: boolean;
  [k: string]: unknown;
}
/** A class offered by a provider (storage / ingress / load-balancer classes). */
const OfferedClassView: z.ZodType<OfferedClass> = z.looseObject({ default: z.boolean().optional() });

/** A ResourceSlice. */
export interface ResourceSlice extends KubeObject {
  spec?: {
    consumerClusterID?: string;
    providerClusterID?: string;
    resources?: ResourceList | null;
    class?: string;
    csr?: string;
    [k: string]: unknown;
  };
  status?: {
    conditions?: Condition[] | null;
    resources?: ResourceList | null;
    authParams?: AuthParams;
    storageClasses?: OfferedClass[] | null;
    ingressClasses?: OfferedClass[] | null;
    loadBalancerClasses?: OfferedClass[] | null;
    nodeLabels?: StringMap | null;
    nodeSelector?: StringMap | null;
    [k: string]: unknown;
  };
}
/** authentication.liqo.io ResourceSlice. */
export const ResourceSliceView: z.ZodType<ResourceSlice> = z.looseObject({
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
