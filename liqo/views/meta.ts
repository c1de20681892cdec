/**
 * Shared pieces of the typed views (zod 4): object metadata, conditions, label selectors, containers
 * and pod templates. Every field is optional (real objects omit things) except `metadata.name`, which
 * every source guarantees; every object is loose, so fields the views do not name are kept.
 *
 * Each view's type is declared explicitly (JSR rejects inferred types in the public API) and its
 * schema is checked against it; loose objects carry a `[k: string]: unknown` index signature.
 */
import { z } from "zod";

/** A string map (labels, annotations, selectors, config data). */
export type StringMap = Record<string, string>;
/** A string map (labels, annotations, selectors, config data). */
export const StringMap: z.ZodType<StringMap> = z.record(z.string(), z.string());

/** A quantity or int-or-string value. */
export type IntOrString = string | number;
/** A Kubernetes quantity or int-or-string value ("100m", "1Gi", 110). */
export const IntOrString: z.ZodType<IntOrString> = z.union([z.string(), z.number()]);

/** A map of resource quantities. */
export type ResourceList = Record<string, IntOrString>;
/** A map of resource quantities (capacity, allocatable, ResourceSlice resources). */
export const ResourceList: z.ZodType<ResourceList> = z.record(z.string(), IntOrString);

/** An RFC 3339 timestamp as sent by the API (null for unset pointers such as `eventTime`). */
export const Timestamp: z.ZodOptional<z.ZodNullable<z.ZodString>> = z.string().nullish();

/** An owner reference. */
export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
  [k: string]: unknown;
}
/** metav1.OwnerReference. */
export const OwnerReferenceView: z.ZodType<OwnerReference> = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});

/** Metadata of a listed object. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: StringMap;
  annotations?: StringMap;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  finalizers?: string[];
  generation?: number;
  ownerReferences?: OwnerReference[];
  [k: string]: unknown;
}
/** metav1.ObjectMeta of a listed object (`name` is always filled by the sources). */
export const ObjectMetaView: z.ZodType<ObjectMeta> = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  labels: StringMap.optional(),
  annotations: StringMap.optional(),
  creationTimestamp: Timestamp,
  deletionTimestamp: Timestamp,
  finalizers: z.array(z.string()).optional(),
  generation: z.number().optional(),
  ownerReferences: z.array(OwnerReferenceView).optional(),
});

/** Metadata inside a template. */
export interface TemplateMeta {
  name?: string;
  namespace?: string;
  labels?: StringMap | null;
  annotations?: StringMap | null;
  finalizers?: string[];
  creationTimestamp?: string | null;
  [k: string]: unknown;
}
/** Metadata inside templates (pod templates, Service templates): nothing is required. */
export const TemplateMetaView: z.ZodType<TemplateMeta> = z.looseObject({
  name: z.string().optional(),
  namespace: z.string().optional(),
  labels: StringMap.nullish(),
  annotations: StringMap.nullish(),
  finalizers: z.array(z.string()).optional(),
  creationTimestamp: Timestamp,
});

/** A status condition. */
export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
  observedGeneration?: number;
  /** Route/FirewallConfiguration: the pod that applied (or failed to apply) the object. */
  host?: string;
  [k: string]: unknown;
}
/**
 * A status condition. Covers metav1.Condition, the core kinds' conditions and Liqo's variants
 * (ForeignCluster module conditions, per-host `Applied` entries of Route/FirewallConfigurations).
 * Node heartbeat/probe times are kept but not declared (fewer declared keys parse faster).
 */
export const ConditionView: z.ZodType<Condition> = z.looseObject({
  type: z.string().optional(),
  status: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: Timestamp,
  observedGeneration: z.number().optional(),
  /** Route/FirewallConfiguration: the pod that applied (or failed to apply) the object. */
  host: z.string().optional(),
});

/** An array of conditions (the API may send null). */
export const Conditions: z.ZodOptional<z.ZodNullable<z.ZodArray<z.ZodType<Condition>>>> = z.array(
  ConditionView,
).nullish();

/** A label selector requirement. */
export interface LabelSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
  [k: string]: unknown;
}
/** One metav1.LabelSelectorRequirement. */
export const LabelSelectorRequirementView: z.ZodType<LabelSelectorRequirement> = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  values: z.array(z.string()).nullish(),
});

/** A label selector. */
export interface LabelSelector {
  matchLabels?: StringMap | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
  [k: string]: unknown;
}
/** metav1.LabelSelector. */
export const LabelSelectorView: z.ZodType<LabelSelector> = z.looseObject({
  matchLabels: StringMap.nullish(),
  matchExpressions: z.array(LabelSelectorRequirementView).nullish(),
});

/** An object reference. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
  [k: string]: unknown;
}
/** corev1.ObjectReference (also Liqo's template / gateway refs). */
export const ObjectReferenceView: z.ZodType<ObjectReference> = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  fieldPath: z.string().optional(),
});

/** A reference by name. */
export interface NameRef {
  name?: string;
  [k: string]: unknown;
}
/** A reference by name only (secretRef, kubeconfigSecretRef). */
export const NameRefView: z.ZodType<NameRef> = z.looseObject({ name: z.string().optional() });

/** An environment variable. */
export interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: { [k: string]: unknown };
  [k: string]: unknown;
}
/** corev1.EnvVar. */
export const EnvVarView: z.ZodType<EnvVar> = z.looseObject({
  name: z.string().optional(),
  value: z.string().optional(),
  valueFrom: z.looseObject({}).optional(),
});

/** A container port. */
export interface ContainerPort {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  protocol?: string;
  [k: string]: unknown;
}
/** corev1.ContainerPort. */
export const ContainerPortView: z.ZodType<ContainerPort> = z.looseObject({
  name: z.string().optional(),
  containerPort: z.number().optional(),
  hostPort: z.number().optional(),
  protocol: z.string().optional(),
});

/** A container. */
export interface Container {
  name?: string;
  image?: string;
  command?: string[] | null;
  args?: string[] | null;
  env?: EnvVar[] | null;
  ports?: ContainerPort[] | null;
  securityContext?: { [k: string]: unknown };
  resources?: { [k: string]: unknown };
  [k: string]: unknown;
}
/** corev1.Container. */
export const ContainerView: z.ZodType<Container> = z.looseObject({
  name: z.string().optional(),
  image: z.string().optional(),
  command: z.array(z.string()).nullish(),
  args: z.array(z.string()).nullish(),
  env: z.array(EnvVarView).nullish(),
  ports: z.array(ContainerPortView).nullish(),
  securityContext: z.looseObject({}).optional(),
  resources: z.looseObject({}).optional(),
});

/** A toleration. */
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
  [k: string]: unknown;
}
/** corev1.Toleration. */
export const TolerationView: z.ZodType<Toleration> = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  tolerationSeconds: z.number().nullish(),
});

/** A taint. */
export interface Taint {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string | null;
  [k: string]: unknown;
}
/** corev1.Taint. */
export const TaintView: z.ZodType<Taint> = z.looseObject({
  key: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  timeAdded: Timestamp,
});

/** A pod spec. */
export interface PodSpec {
  containers?: Container[] | null;
  initContainers?: Container[] | null;
  nodeName?: string;
  nodeSelector?: StringMap | null;
  tolerations?: Toleration[] | null;
  hostNetwork?: boolean;
  serviceAccountName?: string;
  [k: string]: unknown;
}
/** corev1.PodSpec (the parts FlyingFish reads; the rest is kept as is). */
export const PodSpecView: z.ZodType<PodSpec> = z.looseObject({
  containers: z.array(ContainerView).nullish(),
  initContainers: z.array(ContainerView).nullish(),
  nodeName: z.string().optional(),
  nodeSelector: StringMap.nullish(),
  tolerations: z.array(TolerationView).nullish(),
  hostNetwork: z.boolean().optional(),
  serviceAccountName: z.string().optional(),
});

/** A pod template. */
export interface PodTemplateSpec {
  metadata?: TemplateMeta;
  spec?: PodSpec;
  [k: string]: unknown;
}
/** corev1.PodTemplateSpec (Deployment, DaemonSet, VirtualNode templates). */
export const PodTemplateSpecView: z.ZodType<PodTemplateSpec> = z.looseObject({
  metadata: TemplateMetaView.optional(),
  spec: PodSpecView.optional(),
});

/** The fields every listed object shares: apiVersion, kind, metadata (see {@link ObjectEnvelope}). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}
/** The envelope every listed object shares: apiVersion, kind, metadata. */
export const ObjectEnvelope: {
  apiVersion: z.ZodOptional<z.ZodString>;
  kind: z.ZodOptional<z.ZodString>;
  metadata: z.ZodType<ObjectMeta>;
} = {
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMetaView,
};
