/**
 * The manifests a probe run creates, and nothing else: the run namespace, one probe pod per node,
 * the Service over them, and (offload mode) the NamespaceOffloading and the pods sent to the peer.
 * Every pod passes Pod Security `restricted` as written (the run namespace enforces it, so a
 * template that drifts is rejected at the dry run, not in production), and every object carries
 * the run's labels so `probe --cleanup` finds leftovers by label alone.
 */
import type { K8sObject } from "../../kube/source.ts";
import { netexecArgs, PROBE_CONTAINER, PROBE_PORTS } from "../commands.ts";
import { PROBE_LABELS, probeNamespace, type RunKind, runNamespace, type Side } from "../model.ts";
import {
  NAMESPACE_OFFLOADING_API_VERSION,
  OFFLOADING_NAME,
  REMOTE_ID_LABEL,
  VIRTUAL_NODE_TAINT,
} from "../../liqo/names.ts";

/** Label that selects the probe pods of a run together with the run-id label. */
export const PROBE_COMPONENT = "probe";

/** Annotation on probe pods: the full name of the node the pod is meant for. */
export const NODE_ANNOTATION = "flyingfish.io/node";

/** Annotation on probe pods: which side of the peering the pod's network belongs to. */
export const SIDE_ANNOTATION = "flyingfish.io/side";

/** Name of the Service over a run's probe pods. */
export const PROBE_SERVICE = "ff-probe";

/** The `ping_group_range` that lets the probe's non-root user send ICMP echo (no NET_RAW). */
export const PING_GROUP_RANGE = "0 2147483647";

/** Unprivileged user and group of the probe container (`nobody`). */
export const PROBE_UID = 65534;

/** The labels on everything a run creates. */
export function runLabels(runId: string): Record<string, string> {
  return { [PROBE_LABELS.managedBy]: PROBE_LABELS.managedByValue, [PROBE_LABELS.runId]: runId };
}

/** The label selector of everything a run created. */
export function runSelector(runId: string): string {
  return `${PROBE_LABELS.managedBy}=${PROBE_LABELS.managedByValue},${PROBE_LABELS.runId}=${runId}`;
}

/** The label selector of a run's probe pods. */
export function probePodSelector(runId: string): string {
  return `${runSelector(runId)},${PROBE_LABELS.component}=${PROBE_COMPONENT}`;
}

/**
 * The run namespace `flyingfish-probe-<id>`: labelled for cleanup and enforcing Pod Security
 * `restricted` (the run proves its pods pass it), annotated with the time after which anyone may
 * remove it as a leftover.
 */
export function namespaceManifest(
  runId: string,
  expiresAt: Date | string,
  kind: RunKind = "probe",
): K8sObject {
  const expires = typeof expiresAt === "string"
    ? expiresAt
    : expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: runNamespace(runId, kind),
      labels: {
        ...runLabels(runId),
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/enforce-version": "latest",
      },
      annotations: { [PROBE_LABELS.expiresAt]: expires },
    },
  };
}

/** FNV-1a of a string as 6 hex digits: a short, stable disambiguator for truncated names. */
function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0").slice(0, 6);
}

/**
 * A DNS label of at most `max` characters made from `s`: lower case, `[a-z0-9-]`, no leading or
 * trailing dash. When `s` had to be cut, the end is a hash of the whole of `s`, so two long node
 * names that share a prefix still get different pod names.
 */
export function dnsLabel(s: string, max: number): string {
  const clean = s.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/-+/g, "-").replace(/^-+|-+$/g, "");
  if (clean.length <= max && clean.length > 0) return clean;
  const hash = shortHash(s);
  const head = clean.slice(0, Math.max(0, max - hash.length - 1)).replace(/-+$/g, "");
  return head ? `${head}-${hash}` : hash;
}

/** The name of the probe pod on `node`: `ff-probe-<node slug>`, at most 63 characters. */
export function probePodName(node: string): string {
  return `ff-probe-${dnsLabel(node, 63 - "ff-probe-".length)}`;
}

/** `value` when it is a valid label value, else a DNS-label slug of it (≤ 63 characters). */
function labelValue(value: string): string {
  return /^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/.test(value) ? value : dnsLabel(value, 63);
}

/** Inputs of one probe pod. */
export interface ProbePodInput {
  runId: string;
  /** Node name the pod must run on. */
  node: string;
  /** The node's `kubernetes.io/hostname` label, when it differs from its name. */
  hostname?: string;
  image: string;
  /** Taint keys tolerated (`--tolerate KEY`). */
  tolerate: readonly string[];
  side: Side;
}

/** Requests and limits of a probe container: netexec idles at a few MiB. */
const PROBE_RESOURCES = {
  requests: { cpu: "10m", memory: "16Mi" },
  limits: { cpu: "100m", memory: "64Mi" },
};

/** The part of a probe pod that does not depend on where it runs. */
function probePodBase(
  runId: string,
  name: string,
  image: string,
  labels: Record<string, string>,
  annotations: Record<string, string>,
  shape: { namespace?: string; args?: string[]; udpPort?: number } = {},
): K8sObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: shape.namespace ?? probeNamespace(runId),
      labels: { ...runLabels(runId), [PROBE_LABELS.component]: PROBE_COMPONENT, ...labels },
      annotations,
    },
    spec: {
      // A crash is a finding, not something to hide behind a restart.
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 1,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: PROBE_UID,
        runAsGroup: PROBE_UID,
        seccompProfile: { type: "RuntimeDefault" },
        // Unprivileged ICMP echo for every group (baseline-safe sysctl): ping without NET_RAW.
        sysctls: [{ name: "net.ipv4.ping_group_range", value: PING_GROUP_RANGE }],
      },
      containers: [{
        name: PROBE_CONTAINER,
        image,
        imagePullPolicy: "IfNotPresent",
        args: shape.args ?? netexecArgs(),
        ports: [
          { name: "http", containerPort: PROBE_PORTS.http, protocol: "TCP" },
          { name: "udp", containerPort: shape.udpPort ?? PROBE_PORTS.udp, protocol: "UDP" },
        ],
        // Ready means netexec answers, so the first probe never races its start.
        readinessProbe: {
          httpGet: { path: "/healthz", port: PROBE_PORTS.http },
          periodSeconds: 1,
          failureThreshold: 3,
        },
        resources: PROBE_RESOURCES,
        securityContext: {
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          runAsUser: PROBE_UID,
          seccompProfile: { type: "RuntimeDefault" },
        },
      }],
    },
  };
}

/** Required node affinity to one node by its `kubernetes.io/hostname` label (through the scheduler). */
function pinToNode(hostname: string): Record<string, unknown> {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{
          matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [hostname] }],
        }],
      },
    },
  };
}

/**
 * The probe pod for one node: agnhost netexec, Pod Security `restricted`, placed by required node
 * affinity (so an unschedulable node is reported by the scheduler, not hidden by `nodeName`),
 * tolerating only the taints named by `--tolerate`.
 */
export function probePodManifest(input: ProbePodInput): K8sObject {
  const pod = probePodBase(
    input.runId,
    probePodName(input.node),
    input.image,
    { [PROBE_LABELS.node]: labelValue(input.node) },
    { [NODE_ANNOTATION]: input.node, [SIDE_ANNOTATION]: input.side },
  );
  pod.spec.affinity = pinToNode(input.hostname ?? input.node);
  if (input.tolerate.length > 0) {
    pod.spec.tolerations = [...new Set(input.tolerate)].map((key) => ({ key, operator: "Exists" }));
  }
  return pod;
}

/**
 * How the pods offloaded to the peer are spread over its nodes (helper F's hook: labels,
 * annotations and pod anti-affinity the offloaded pods carry). Empty: no spreading asked.
 */
export interface OffloadSpread {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Merged into `spec.affinity` next to the node affinity to the virtual node. */
  podAntiAffinity?: Record<string, unknown>;
}

/** Inputs of one pod offloaded to the peer. */
export interface OffloadedPodInput {
  runId: string;
  image: string;
  /** The consumer's virtual node for the peer. */
  virtualNode: string;
  /** 0-based index among the offloaded pods (names them). */
  index: number;
  /** Spreading over the peer's nodes (see {@link OffloadSpread}). */
  spread?: OffloadSpread;
}

/** Label on offloaded probe pods: their index, so the matrix columns stay stable. */
export const OFFLOAD_INDEX_LABEL = "flyingfish.io/offload-index";

/**
 * A probe pod sent to the peer: required node affinity to the peer's virtual node (the run
 * namespace is offloaded to that peer only), tolerating the virtual-node taint as Liqo's webhook
 * would, plus the spreading of {@link OffloadSpread}.
 */
export function offloadedPodManifest(input: OffloadedPodInput): K8sObject {
  const name = `ff-probe-${dnsLabel(`${input.virtualNode}-${input.index}`, 63 - "ff-probe-".length)}`;
  const pod = probePodBase(
    input.runId,
    name,
    input.image,
    { [OFFLOAD_INDEX_LABEL]: String(input.index), ...input.spread?.labels },
    {
      [NODE_ANNOTATION]: input.virtualNode,
      [SIDE_ANNOTATION]: "remote",
      ...input.spread?.annotations,
    },
  );
  pod.spec.affinity = {
    ...pinToNode(input.virtualNode),
    ...(input.spread?.podAntiAffinity ? { podAntiAffinity: input.spread.podAntiAffinity } : {}),
  };
  pod.spec.tolerations = [{ key: VIRTUAL_NODE_TAINT, operator: "Exists", effect: "NoExecute" }];
  return pod;
}

/** The Service over a run's probe pods: TCP/HTTP `PROBE_PORTS.http`, port name `http`. */
export function serviceManifest(runId: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: PROBE_SERVICE, namespace: probeNamespace(runId), labels: runLabels(runId) },
    spec: {
      type: "ClusterIP",
      selector: { [PROBE_LABELS.runId]: runId, [PROBE_LABELS.component]: PROBE_COMPONENT },
      ports: [{ name: "http", port: PROBE_PORTS.http, targetPort: PROBE_PORTS.http, protocol: "TCP" }],
    },
  };
}

/**
 * The NamespaceOffloading that offloads the run namespace to `peer` only (cluster selector on the
 * virtual nodes' `liqo.io/remote-cluster-id`), with Liqo's default remote name and pods allowed on
 * both sides (local probe pods stay local).
 */
export function namespaceOffloadingManifest(peer: string, runId?: string): K8sObject {
  return {
    apiVersion: NAMESPACE_OFFLOADING_API_VERSION,
    kind: "NamespaceOffloading",
    metadata: {
      name: OFFLOADING_NAME,
      ...(runId === undefined ? {} : { namespace: probeNamespace(runId), labels: runLabels(runId) }),
    },
    spec: {
      namespaceMappingStrategy: "DefaultName",
      podOffloadingStrategy: "LocalAndRemote",
      clusterSelector: {
        nodeSelectorTerms: [{
          matchExpressions: [{ key: REMOTE_ID_LABEL, operator: "In", values: [peer] }],
        }],
      },
    },
  };
}

/** Where a preflight pod goes: the gateway template's placement, when known (else the scheduler's). */
export interface GatewayPlacement {
  nodeSelector?: Record<string, string>;
  tolerations?: readonly Record<string, unknown>[];
  affinity?: Record<string, unknown>;
}

/** The two pods of a preflight run in one cluster: the echo server and the client. */
export type PreflightRole = "echo" | "client";

/** Pod names of a preflight run (one of each per cluster). */
export const PREFLIGHT_PODS: Readonly<Record<PreflightRole, string>> = {
  echo: "ff-preflight-echo",
  client: "ff-preflight-client",
};

/** The throwaway Service in front of the echo pod. */
export const PREFLIGHT_SERVICE = "ff-preflight-gw";

/** Label on preflight pods: their role (the Service selects `echo`). */
export const PREFLIGHT_ROLE_LABEL = "flyingfish.io/preflight-role";

/** Inputs of one preflight pod. */
export interface PreflightPodInput {
  runId: string;
  role: PreflightRole;
  image: string;
  /** The UDP port netexec serves (the echo pod: the gateway port the Service forwards to). */
  udpPort: number;
  placement?: GatewayPlacement;
}

/**
 * A preflight pod: agnhost netexec like every probe pod (Pod Security `restricted`, no host
 * network: the pod network, as Liqo's gateway pods), in `flyingfish-preflight-<id>`, placed like
 * the gateway (the template's nodeSelector, tolerations and affinity when given; otherwise the
 * scheduler chooses, as for a gateway Deployment with the default template).
 */
export function preflightPodManifest(input: PreflightPodInput): K8sObject {
  const pod = probePodBase(
    input.runId,
    PREFLIGHT_PODS[input.role],
    input.image,
    { [PREFLIGHT_ROLE_LABEL]: input.role },
    {},
    {
      namespace: runNamespace(input.runId, "preflight"),
      args: ["netexec", `--http-port=${PROBE_PORTS.http}`, `--udp-port=${input.udpPort}`],
      udpPort: input.udpPort,
    },
  );
  const p = input.placement;
  if (p?.nodeSelector && Object.keys(p.nodeSelector).length > 0) {
    pod.spec.nodeSelector = { ...p.nodeSelector };
  }
  if (p?.tolerations && p.tolerations.length > 0) pod.spec.tolerations = p.tolerations.map((t) => ({ ...t }));
  if (p?.affinity && Object.keys(p.affinity).length > 0) pod.spec.affinity = { ...p.affinity };
  return pod;
}

/** Inputs of the throwaway gateway-like Service. */
export interface PreflightServiceInput {
  runId: string;
  type: "LoadBalancer" | "NodePort";
  /** The gateway port (`--gw-server-service-port`, Liqo's 51840). */
  port: number;
  /** A fixed NodePort (`--gw-server-service-nodeport`); absent: the API server picks one. */
  nodePort?: number;
}

/** The UDP Service of the would-be gateway server: the type and port `liqoctl peer` would create. */
export function preflightServiceManifest(input: PreflightServiceInput): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: PREFLIGHT_SERVICE,
      namespace: runNamespace(input.runId, "preflight"),
      labels: runLabels(input.runId),
    },
    spec: {
      type: input.type,
      selector: { [PROBE_LABELS.runId]: input.runId, [PREFLIGHT_ROLE_LABEL]: "echo" },
      ports: [{
        name: "wireguard",
        port: input.port,
        targetPort: input.port,
        protocol: "UDP",
        ...(input.nodePort ? { nodePort: input.nodePort } : {}),
      }],
    },
  };
}
