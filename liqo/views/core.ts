/**
 * Typed views of the built-in kinds FlyingFish reads: Node, Namespace, Pod, Service, ConfigMap,
 * Secret, EndpointSlice, Deployment, DaemonSet, NetworkPolicy, Event.
 */
import { z } from "zod";
import {
  Conditions,
  IntOrString,
  LabelSelectorView,
  ObjectEnvelope,
  ObjectReferenceView,
  PodSpecView,
  PodTemplateSpecView,
  ResourceList,
  StringMap,
  TaintView,
  Timestamp,
} from "./meta.ts";

/** corev1.NodeAddress. */
export const NodeAddressView = z.looseObject({
  type: z.string().optional(),
  address: z.string().optional(),
});
/** A node address. */
export type NodeAddress = z.infer<typeof NodeAddressView>;

/** corev1.Node. */
export const NodeView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    taints: z.array(TaintView).nullish(),
    providerID: z.string().optional(),
    podCIDR: z.string().optional(),
    podCIDRs: z.array(z.string()).nullish(),
    unschedulable: z.boolean().optional(),
  }).optional(),
  status: z.looseObject({
    addresses: z.array(NodeAddressView).nullish(),
    conditions: Conditions,
    capacity: ResourceList.optional(),
    allocatable: ResourceList.optional(),
    nodeInfo: z.looseObject({
      kernelVersion: z.string().optional(),
      osImage: z.string().optional(),
      kubeletVersion: z.string().optional(),
      kubeProxyVersion: z.string().optional(),
      containerRuntimeVersion: z.string().optional(),
      architecture: z.string().optional(),
      operatingSystem: z.string().optional(),
    }).optional(),
  }).optional(),
});
/** A Node. */
export type Node = z.infer<typeof NodeView>;

/** corev1.Namespace. */
export const NamespaceView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({ finalizers: z.array(z.string()).nullish() }).optional(),
  status: z.looseObject({ phase: z.string().optional(), conditions: Conditions }).optional(),
});
/** A Namespace. */
export type Namespace = z.infer<typeof NamespaceView>;

/** corev1.ContainerState (one of running / waiting / terminated). */
export const ContainerStateView = z.looseObject({
  running: z.looseObject({ startedAt: Timestamp }).nullish(),
  waiting: z.looseObject({ reason: z.string().optional(), message: z.string().optional() }).nullish(),
  terminated: z.looseObject({
    exitCode: z.number().optional(),
    signal: z.number().optional(),
    reason: z.string().optional(),
    message: z.string().optional(),
    startedAt: Timestamp,
    finishedAt: Timestamp,
  }).nullish(),
});
/** A container state. */
export type ContainerState = z.infer<typeof ContainerStateView>;

/** corev1.ContainerStatus. */
export const ContainerStatusView = z.looseObject({
  name: z.string().optional(),
  ready: z.boolean().optional(),
  started: z.boolean().optional(),
  restartCount: z.number().optional(),
  image: z.string().optional(),
  imageID: z.string().optional(),
  containerID: z.string().optional(),
  state: ContainerStateView.optional(),
  lastState: ContainerStateView.optional(),
});
/** A container status. */
export type ContainerStatus = z.infer<typeof ContainerStatusView>;

/** corev1.Pod. */
export const PodView = z.looseObject({
  ...ObjectEnvelope,
  spec: PodSpecView.optional(),
  status: z.looseObject({
    phase: z.string().optional(),
    reason: z.string().optional(),
    message: z.string().optional(),
    podIP: z.string().optional(),
    podIPs: z.array(z.looseObject({ ip: z.string().optional() })).nullish(),
    hostIP: z.string().optional(),
    startTime: Timestamp,
    conditions: Conditions,
    containerStatuses: z.array(ContainerStatusView).nullish(),
    initContainerStatuses: z.array(ContainerStatusView).nullish(),
  }).optional(),
});
/** A Pod. */
export type Pod = z.infer<typeof PodView>;

/** corev1.ServicePort. */
export const ServicePortView = z.looseObject({
  name: z.string().optional(),
  protocol: z.string().optional(),
  port: z.number().optional(),
  targetPort: IntOrString.optional(),
  nodePort: z.number().optional(),
  appProtocol: z.string().optional(),
});
/** A Service port. */
export type ServicePort = z.infer<typeof ServicePortView>;

/** corev1.LoadBalancerIngress. */
export const LoadBalancerIngressView = z.looseObject({
  ip: z.string().optional(),
  hostname: z.string().optional(),
  ipMode: z.string().optional(),
});
/** A load-balancer ingress point. */
export type LoadBalancerIngress = z.infer<typeof LoadBalancerIngressView>;

/** corev1.Service. */
export const ServiceView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    type: z.string().optional(),
    clusterIP: z.string().optional(),
    clusterIPs: z.array(z.string()).nullish(),
    ports: z.array(ServicePortView).nullish(),
    selector: StringMap.nullish(),
    externalIPs: z.array(z.string()).nullish(),
    loadBalancerIP: z.string().optional(),
    loadBalancerClass: z.string().optional(),
    externalTrafficPolicy: z.string().optional(),
  }).optional(),
  status: z.looseObject({
    loadBalancer: z.looseObject({ ingress: z.array(LoadBalancerIngressView).nullish() }).optional(),
    conditions: Conditions,
  }).optional(),
});
/** A Service. */
export type Service = z.infer<typeof ServiceView>;

/** corev1.ConfigMap. */
export const ConfigMapView = z.looseObject({
  ...ObjectEnvelope,
  data: StringMap.nullish(),
  binaryData: StringMap.nullish(),
});
/** A ConfigMap. */
export type ConfigMap = z.infer<typeof ConfigMapView>;

/**
 * corev1.Secret as held by the inventory: reduced on read (kube/live/source.ts `sanitizeObject`) to the
 * public `publicKey` data key (still base64 in a live read); removed keys are listed in the
 * `flyingfish.io/redacted-keys` annotation and `stringData` is gone.
 */
export const SecretView = z.looseObject({
  ...ObjectEnvelope,
  type: z.string().optional(),
  data: z.looseObject({ publicKey: z.string().optional() }).nullish(),
});
/** A (reduced) Secret. */
export type Secret = z.infer<typeof SecretView>;

/** discoveryv1.Endpoint (also the ShadowEndpointSlice template's endpoints). */
export const EndpointView = z.looseObject({
  addresses: z.array(z.string()).nullish(),
  conditions: z.looseObject({
    ready: z.boolean().nullish(),
    serving: z.boolean().nullish(),
    terminating: z.boolean().nullish(),
  }).optional(),
  hostname: z.string().optional(),
  nodeName: z.string().optional(),
  zone: z.string().optional(),
  targetRef: ObjectReferenceView.optional(),
});
/** An EndpointSlice endpoint. */
export type Endpoint = z.infer<typeof EndpointView>;

/** discoveryv1.EndpointPort. */
export const EndpointPortView = z.looseObject({
  name: z.string().nullish(),
  port: z.number().nullish(),
  protocol: z.string().nullish(),
  appProtocol: z.string().nullish(),
});
/** An EndpointSlice port. */
export type EndpointPort = z.infer<typeof EndpointPortView>;

/** discoveryv1.EndpointSlice (`endpoints` and `ports` are null when empty). */
export const EndpointSliceView = z.looseObject({
  ...ObjectEnvelope,
  addressType: z.string().optional(),
  endpoints: z.array(EndpointView).nullish(),
  ports: z.array(EndpointPortView).nullish(),
});
/** An EndpointSlice. */
export type EndpointSlice = z.infer<typeof EndpointSliceView>;

/** appsv1.Deployment. */
export const DeploymentView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    replicas: z.number().optional(),
    selector: LabelSelectorView.optional(),
    template: PodTemplateSpecView.optional(),
  }).optional(),
  status: z.looseObject({
    observedGeneration: z.number().optional(),
    replicas: z.number().optional(),
    readyReplicas: z.number().optional(),
    availableReplicas: z.number().optional(),
    unavailableReplicas: z.number().optional(),
    updatedReplicas: z.number().optional(),
    conditions: Conditions,
  }).optional(),
});
/** A Deployment. */
export type Deployment = z.infer<typeof DeploymentView>;

/** appsv1.DaemonSet. */
export const DaemonSetView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    selector: LabelSelectorView.optional(),
    template: PodTemplateSpecView.optional(),
  }).optional(),
  status: z.looseObject({
    observedGeneration: z.number().optional(),
    desiredNumberScheduled: z.number().optional(),
    currentNumberScheduled: z.number().optional(),
    numberReady: z.number().optional(),
    numberAvailable: z.number().optional(),
    numberUnavailable: z.number().optional(),
    numberMisscheduled: z.number().optional(),
    updatedNumberScheduled: z.number().optional(),
    conditions: Conditions,
  }).optional(),
});
/** A DaemonSet. */
export type DaemonSet = z.infer<typeof DaemonSetView>;

/** networkingv1.IPBlock. */
export const IPBlockView = z.looseObject({
  cidr: z.string().optional(),
  except: z.array(z.string()).nullish(),
});
/** An ipBlock. */
export type IPBlock = z.infer<typeof IPBlockView>;

/** networkingv1.NetworkPolicyPeer. */
export const NetworkPolicyPeerView = z.looseObject({
  ipBlock: IPBlockView.nullish(),
  namespaceSelector: LabelSelectorView.nullish(),
  podSelector: LabelSelectorView.nullish(),
});
/** A NetworkPolicy peer. */
export type NetworkPolicyPeer = z.infer<typeof NetworkPolicyPeerView>;

/** networkingv1.NetworkPolicyPort (`port` is a number or a named port). */
export const NetworkPolicyPortView = z.looseObject({
  protocol: z.string().optional(),
  port: IntOrString.optional(),
  endPort: z.number().optional(),
});
/** A NetworkPolicy port. */
export type NetworkPolicyPort = z.infer<typeof NetworkPolicyPortView>;

/** networkingv1.NetworkPolicyIngressRule. */
export const NetworkPolicyIngressRuleView = z.looseObject({
  from: z.array(NetworkPolicyPeerView).nullish(),
  ports: z.array(NetworkPolicyPortView).nullish(),
});
/** A NetworkPolicy ingress rule. */
export type NetworkPolicyIngressRule = z.infer<typeof NetworkPolicyIngressRuleView>;

/** networkingv1.NetworkPolicyEgressRule. */
export const NetworkPolicyEgressRuleView = z.looseObject({
  to: z.array(NetworkPolicyPeerView).nullish(),
  ports: z.array(NetworkPolicyPortView).nullish(),
});
/** A NetworkPolicy egress rule. */
export type NetworkPolicyEgressRule = z.infer<typeof NetworkPolicyEgressRuleView>;

/** networkingv1.NetworkPolicy. */
export const NetworkPolicyView = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    podSelector: LabelSelectorView.optional(),
    policyTypes: z.array(z.string()).nullish(),
    ingress: z.array(NetworkPolicyIngressRuleView).nullish(),
    egress: z.array(NetworkPolicyEgressRuleView).nullish(),
  }).optional(),
});
/** A NetworkPolicy. */
export type NetworkPolicy = z.infer<typeof NetworkPolicyView>;

/** corev1.Event (core events and events.k8s.io ones seen through core v1). */
export const EventView = z.looseObject({
  ...ObjectEnvelope,
  involvedObject: ObjectReferenceView.optional(),
  type: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  count: z.number().optional(),
  firstTimestamp: Timestamp,
  lastTimestamp: Timestamp,
  eventTime: Timestamp,
  series: z.looseObject({ count: z.number().optional(), lastObservedTime: Timestamp }).nullish(),
  source: z.looseObject({ component: z.string().optional(), host: z.string().optional() }).optional(),
  reportingComponent: z.string().optional(),
  reportingInstance: z.string().optional(),
});
/** A (Warning) Event. */
export type Event = z.infer<typeof EventView>;
