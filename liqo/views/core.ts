/**
 * Typed views of the built-in kinds FlyingFish reads: Node, Namespace, Pod, Service, ConfigMap,
 * Secret, EndpointSlice, Deployment, DaemonSet, NetworkPolicy, Event.
 */
import { z } from "zod";
import {
  type Condition,
  Conditions,
  IntOrString,
  type KubeObject,
  type LabelSelector,
  LabelSelectorView,
  ObjectEnvelope,
  type ObjectReference,
  ObjectReferenceView,
  type PodSpec,
  PodSpecView,
  type PodTemplateSpec,
  PodTemplateSpecView,
  ResourceList,
  StringMap,
  type Taint,
  TaintView,
  Timestamp,
} from "./meta.ts";

/** A node address. */
export interface NodeAddress {
  type?: string;
  address?: string;
  [k: string]: unknown;
}
/** corev1.NodeAddress. */
export const NodeAddressView: z.ZodType<NodeAddress> = z.looseObject({
  type: z.string().optional(),
  address: z.string().optional(),
});

/** A Node. */
export interface Node extends KubeObject {
  spec?: {
    taints?: Taint[] | null;
    providerID?: string;
    podCIDR?: string;
    podCIDRs?: string[] | null;
    unschedulable?: boolean;
    [k: string]: unknown;
  };
  status?: {
    addresses?: NodeAddress[] | null;
    conditions?: Condition[] | null;
    capacity?: ResourceList;
    allocatable?: ResourceList;
    nodeInfo?: {
      kernelVersion?: string;
      osImage?: string;
      kubeletVersion?: string;
      kubeProxyVersion?: string;
      containerRuntimeVersion?: string;
      architecture?: string;
      operatingSystem?: string;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
}
/** corev1.Node. */
export const NodeView: z.ZodType<Node> = z.looseObject({
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

/** A Namespace. */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] | null; [k: string]: unknown };
  status?: { phase?: string; conditions?: Condition[] | null; [k: string]: unknown };
}
/** corev1.Namespace. */
export const NamespaceView: z.ZodType<Namespace> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({ finalizers: z.array(z.string()).nullish() }).optional(),
  status: z.looseObject({ phase: z.string().optional(), conditions: Conditions }).optional(),
});

/** A container state. */
export interface ContainerState {
  running?: { startedAt?: string | null; [k: string]: unknown } | null;
  waiting?: { reason?: string; message?: string; [k: string]: unknown } | null;
  terminated?: {
    exitCode?: number;
    signal?: number;
    reason?: string;
    message?: string;
    startedAt?: string | null;
    finishedAt?: string | null;
    [k: string]: unknown;
  } | null;
  [k: string]: unknown;
}
/** corev1.ContainerState (one of running / waiting / terminated). */
export const ContainerStateView: z.ZodType<ContainerState> = z.looseObject({
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

/** A container status. */
export interface ContainerStatus {
  name?: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  image?: string;
  imageID?: string;
  containerID?: string;
  state?: ContainerState;
  lastState?: ContainerState;
  [k: string]: unknown;
}
/** corev1.ContainerStatus. */
export const ContainerStatusView: z.ZodType<ContainerStatus> = z.looseObject({
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

/** A Pod. */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    podIP?: string;
    podIPs?: { ip?: string; [k: string]: unknown }[] | null;
    hostIP?: string;
    startTime?: string | null;
    conditions?: Condition[] | null;
    containerStatuses?: ContainerStatus[] | null;
    initContainerStatuses?: ContainerStatus[] | null;
    [k: string]: unknown;
  };
}
/** corev1.Pod. */
export const PodView: z.ZodType<Pod> = z.looseObject({
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

/** A Service port. */
export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: IntOrString;
  nodePort?: number;
  appProtocol?: string;
  [k: string]: unknown;
}
/** corev1.ServicePort. */
export const ServicePortView: z.ZodType<ServicePort> = z.looseObject({
  name: z.string().optional(),
  protocol: z.string().optional(),
  port: z.number().optional(),
  targetPort: IntOrString.optional(),
  nodePort: z.number().optional(),
  appProtocol: z.string().optional(),
});

/** A load-balancer ingress point. */
export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: string;
  [k: string]: unknown;
}
/** corev1.LoadBalancerIngress. */
export const LoadBalancerIngressView: z.ZodType<LoadBalancerIngress> = z.looseObject({
  ip: z.string().optional(),
  hostname: z.string().optional(),
  ipMode: z.string().optional(),
});

/** A Service. */
export interface Service extends KubeObject {
  spec?: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[] | null;
    ports?: ServicePort[] | null;
    selector?: StringMap | null;
    externalIPs?: string[] | null;
    loadBalancerIP?: string;
    loadBalancerClass?: string;
    externalTrafficPolicy?: string;
    [k: string]: unknown;
  };
  status?: {
    loadBalancer?: { ingress?: LoadBalancerIngress[] | null; [k: string]: unknown };
    conditions?: Condition[] | null;
    [k: string]: unknown;
  };
}
/** corev1.Service. */
export const ServiceView: z.ZodType<Service> = z.looseObject({
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

/** A ConfigMap. */
export interface ConfigMap extends KubeObject {
  data?: StringMap | null;
  binaryData?: StringMap | null;
}
/** corev1.ConfigMap. */
export const ConfigMapView: z.ZodType<ConfigMap> = z.looseObject({
  ...ObjectEnvelope,
  data: StringMap.nullish(),
  binaryData: StringMap.nullish(),
});

/** A (reduced) Secret. */
export interface Secret extends KubeObject {
  type?: string;
  data?: { publicKey?: string; [k: string]: unknown } | null;
}
/**
 * corev1.Secret as held by the inventory: reduced on read (kube/live/source.ts `sanitizeObject`) to the
 * public `publicKey` data key (still base64 in a live read); removed keys are listed in the
 * `flyingfish.io/redacted-keys` annotation and `stringData` is gone.
 */
export const SecretView: z.ZodType<Secret> = z.looseObject({
  ...ObjectEnvelope,
  type: z.string().optional(),
  data: z.looseObject({ publicKey: z.string().optional() }).nullish(),
});

/** An EndpointSlice endpoint. */
export interface Endpoint {
  addresses?: string[] | null;
  conditions?: {
    ready?: boolean | null;
    serving?: boolean | null;
    terminating?: boolean | null;
    [k: string]: unknown;
  };
  hostname?: string;
  nodeName?: string;
  zone?: string;
  targetRef?: ObjectReference;
  [k: string]: unknown;
}
/** discoveryv1.Endpoint (also the ShadowEndpointSlice template's endpoints). */
export const EndpointView: z.ZodType<Endpoint> = z.looseObject({
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

/** An EndpointSlice port. */
export interface EndpointPort {
  name?: string | null;
  port?: number | null;
  protocol?: string | null;
  appProtocol?: string | null;
  [k: string]: unknown;
}
/** discoveryv1.EndpointPort. */
export const EndpointPortView: z.ZodType<EndpointPort> = z.looseObject({
  name: z.string().nullish(),
  port: z.number().nullish(),
  protocol: z.string().nullish(),
  appProtocol: z.string().nullish(),
});

/** An EndpointSlice. */
export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: Endpoint[] | null;
  ports?: EndpointPort[] | null;
}
/** discoveryv1.EndpointSlice (`endpoints` and `ports` are null when empty). */
export const EndpointSliceView: z.ZodType<EndpointSlice> = z.looseObject({
  ...ObjectEnvelope,
  addressType: z.string().optional(),
  endpoints: z.array(EndpointView).nullish(),
  ports: z.array(EndpointPortView).nullish(),
});

/** A Deployment. */
export interface Deployment extends KubeObject {
  spec?: {
    replicas?: number;
    selector?: LabelSelector;
    template?: PodTemplateSpec;
    [k: string]: unknown;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    updatedReplicas?: number;
    conditions?: Condition[] | null;
    [k: string]: unknown;
  };
}
/** appsv1.Deployment. */
export const DeploymentView: z.ZodType<Deployment> = z.looseObject({
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

/** A DaemonSet. */
export interface DaemonSet extends KubeObject {
  spec?: { selector?: LabelSelector; template?: PodTemplateSpec; [k: string]: unknown };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    currentNumberScheduled?: number;
    numberReady?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
    numberMisscheduled?: number;
    updatedNumberScheduled?: number;
    conditions?: Condition[] | null;
    [k: string]: unknown;
  };
}
/** appsv1.DaemonSet. */
export const DaemonSetView: z.ZodType<DaemonSet> = z.looseObject({
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

/** An ipBlock. */
export interface IPBlock {
  cidr?: string;
  except?: string[] | null;
  [k: string]: unknown;
}
/** networkingv1.IPBlock. */
export const IPBlockView: z.ZodType<IPBlock> = z.looseObject({
  cidr: z.string().optional(),
  except: z.array(z.string()).nullish(),
});

/** A NetworkPolicy peer. */
export interface NetworkPolicyPeer {
  ipBlock?: IPBlock | null;
  namespaceSelector?: LabelSelector | null;
  podSelector?: LabelSelector | null;
  [k: string]: unknown;
}
/** networkingv1.NetworkPolicyPeer. */
export const NetworkPolicyPeerView: z.ZodType<NetworkPolicyPeer> = z.looseObject({
  ipBlock: IPBlockView.nullish(),
  namespaceSelector: LabelSelectorView.nullish(),
  podSelector: LabelSelectorView.nullish(),
});

/** A NetworkPolicy port. */
export interface NetworkPolicyPort {
  protocol?: string;
  port?: IntOrString;
  endPort?: number;
  [k: string]: unknown;
}
/** networkingv1.NetworkPolicyPort (`port` is a number or a named port). */
export const NetworkPolicyPortView: z.ZodType<NetworkPolicyPort> = z.looseObject({
  protocol: z.string().optional(),
  port: IntOrString.optional(),
  endPort: z.number().optional(),
});

/** A NetworkPolicy ingress rule. */
export interface NetworkPolicyIngressRule {
  from?: NetworkPolicyPeer[] | null;
  ports?: NetworkPolicyPort[] | null;
  [k: string]: unknown;
}
/** networkingv1.NetworkPolicyIngressRule. */
export const NetworkPolicyIngressRuleView: z.ZodType<NetworkPolicyIngressRule> = z.looseObject({
  from: z.array(NetworkPolicyPeerView).nullish(),
  ports: z.array(NetworkPolicyPortView).nullish(),
});

/** A NetworkPolicy egress rule. */
export interface NetworkPolicyEgressRule {
  to?: NetworkPolicyPeer[] | null;
  ports?: NetworkPolicyPort[] | null;
  [k: string]: unknown;
}
/** networkingv1.NetworkPolicyEgressRule. */
export const NetworkPolicyEgressRuleView: z.ZodType<NetworkPolicyEgressRule> = z.looseObject({
  to: z.array(NetworkPolicyPeerView).nullish(),
  ports: z.array(NetworkPolicyPortView).nullish(),
});

/** A NetworkPolicy. */
export interface NetworkPolicy extends KubeObject {
  spec?: {
    podSelector?: LabelSelector;
    policyTypes?: string[] | null;
    ingress?: NetworkPolicyIngressRule[] | null;
    egress?: NetworkPolicyEgressRule[] | null;
    [k: string]: unknown;
  };
}
/** networkingv1.NetworkPolicy. */
export const NetworkPolicyView: z.ZodType<NetworkPolicy> = z.looseObject({
  ...ObjectEnvelope,
  spec: z.looseObject({
    podSelector: LabelSelectorView.optional(),
    policyTypes: z.array(z.string()).nullish(),
    ingress: z.array(NetworkPolicyIngressRuleView).nullish(),
    egress: z.array(NetworkPolicyEgressRuleView).nullish(),
  }).optional(),
});

/** A (Warning) Event. */
export interface Event extends KubeObject {
  involvedObject?: ObjectReference;
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string | null; [k: string]: unknown } | null;
  source?: { component?: string; host?: string; [k: string]: unknown };
  reportingComponent?: string;
  reportingInstance?: string;
}
/** corev1.Event (core events and events.k8s.io ones seen through core v1). */
export const EventView: z.ZodType<Event> = z.looseObject({
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
