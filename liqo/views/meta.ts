/**
 * Shared pieces of the typed views (zod 4): object metadata, conditions, label selectors, containers
 * and pod templates. Every field is optional (real objects omit things) except `metadata.name`, which
 * every source guarantees; every object is loose, so fields the views do not name are kept.
 */
import { z } from "zod";

/** A string map (labels, annotations, selectors, config data). */
export const StringMap = z.record(z.string(), z.string());
/** A string map. */
export type StringMap = z.infer<typeof StringMap>;

/** A Kubernetes quantity or int-or-string value ("100m", "1Gi", 110). */
export const IntOrString = z.union([z.string(), z.number()]);
/** A quantity or int-or-string value. */
export type IntOrString = z.infer<typeof IntOrString>;

/** A map of resource quantities (capacity, allocatable, ResourceSlice resources). */
export const ResourceList = z.record(z.string(), IntOrString);
/** A map of resource quantities. */
export type ResourceList = z.infer<typeof ResourceList>;

/** An RFC 3339 timestamp as sent by the API (null for unset pointers such as `eventTime`). */
export const Timestamp = z.string().nullish();

/** metav1.OwnerReference. */
export const OwnerReferenceView = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
/** An owner reference. */
export type OwnerReference = z.infer<typeof OwnerReferenceView>;

/** metav1.ObjectMeta of a listed object (`name` is always filled by the sources). */
export const ObjectMetaView = z.looseObject({
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
/** Metadata of a listed object. */
export type ObjectMeta = z.infer<typeof ObjectMetaView>;

/** Metadata inside templates (pod templates, Service templates): nothing is required. */
export const TemplateMetaView = z.looseObject({
  name: z.string().optional(),
  namespace: z.string().optional(),
  labels: StringMap.nullish(),
  annotations: StringMap.nullish(),
  finalizers: z.array(z.string()).optional(),
  creationTimestamp: Timestamp,
});
/** Metadata inside a template. */
export type TemplateMeta = z.infer<typeof TemplateMetaView>;

/**
 * A status condition. Covers metav1.Condition, the core kinds' conditions and Liqo's variants
 * (ForeignCluster module conditions, per-host `Applied` entries of Route/FirewallConfigurations).
 * Node heartbeat/probe times are kept but not declared (fewer declared keys parse faster).
 */
export const ConditionView = z.looseObject({
  type: z.string().optional(),
  status: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: Timestamp,
  observedGeneration: z.number().optional(),
  /** Route/FirewallConfiguration: the pod that applied (or failed to apply) the object. */
  host: z.string().optional(),
});
/** A status condition. */
export type Condition = z.infer<typeof ConditionView>;

/** An array of conditions (the API may send null). */
export const Conditions = z.array(ConditionView).nullish();

/** One metav1.LabelSelectorRequirement. */
export const LabelSelectorRequirementView = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  values: z.array(z.string()).nullish(),
});
/** A label selector requirement. */
export type LabelSelectorRequirement = z.infer<typeof LabelSelectorRequirementView>;

/** metav1.LabelSelector. */
export const LabelSelectorView = z.looseObject({
  matchLabels: StringMap.nullish(),
  matchExpressions: z.array(LabelSelectorRequirementView).nullish(),
});
/** A label selector. */
export type LabelSelector = z.infer<typeof LabelSelectorView>;

/** corev1.ObjectReference (also Liqo's template / gateway refs). */
export const ObjectReferenceView = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  fieldPath: z.string().optional(),
});
/** An object reference. */
export type ObjectReference = z.infer<typeof ObjectReferenceView>;

/** A reference by name only (secretRef, kubeconfigSecretRef). */
export const NameRefView = z.looseObject({ name: z.string().optional() });
/** A reference by name. */
export type NameRef = z.infer<typeof NameRefView>;

/** corev1.EnvVar. */
export const EnvVarView = z.looseObject({
  name: z.string().optional(),
  value: z.string().optional(),
  valueFrom: z.looseObject({}).optional(),
});
/** An environment variable. */
export type EnvVar = z.infer<typeof EnvVarView>;

/** corev1.ContainerPort. */
export const ContainerPortView = z.looseObject({
  name: z.string().optional(),
  containerPort: z.number().optional(),
  hostPort: z.number().optional(),
  protocol: z.string().optional(),
});
/** A container port. */
export type ContainerPort = z.infer<typeof ContainerPortView>;

/** corev1.Container. */
export const ContainerView = z.looseObject({
  name: z.string().optional(),
  image: z.string().optional(),
  command: z.array(z.string()).nullish(),
  args: z.array(z.string()).nullish(),
  env: z.array(EnvVarView).nullish(),
  ports: z.array(ContainerPortView).nullish(),
  securityContext: z.looseObject({}).optional(),
  resources: z.looseObject({}).optional(),
});
/** A container. */
export type Container = z.infer<typeof ContainerView>;

/** corev1.Toleration. */
export const TolerationView = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  tolerationSeconds: z.number().nullish(),
});
/** A toleration. */
export type Toleration = z.infer<typeof TolerationView>;

/** corev1.Taint. */
export const TaintView = z.looseObject({
  key: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  timeAdded: Timestamp,
});
/** A taint. */
export type Taint = z.infer<typeof TaintView>;

/** corev1.PodSpec (the parts FlyingFish reads; the rest is kept as is). */
export const PodSpecView = z.looseObject({
  containers: z.array(ContainerView).nullish(),
  initContainers: z.array(ContainerView).nullish(),
  nodeName: z.string().optional(),
  nodeSelector: StringMap.nullish(),
  tolerations: z.array(TolerationView).nullish(),
  hostNetwork: z.boolean().optional(),
  serviceAccountName: z.string().optional(),
});
/** A pod spec. */
export type PodSpec = z.infer<typeof PodSpecView>;

/** corev1.PodTemplateSpec (Deployment, DaemonSet, VirtualNode templates). */
export const PodTemplateSpecView = z.looseObject({
  metadata: TemplateMetaView.optional(),
  spec: PodSpecView.optional(),
});
/** A pod template. */
export type PodTemplateSpec = z.infer<typeof PodTemplateSpecView>;

/** The envelope every listed object shares: apiVersion, kind, metadata. */
export const ObjectEnvelope = {
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMetaView,
};
