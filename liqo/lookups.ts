/**
 * Lookups over an inventory that follow how Liqo itself finds its objects: by label
 * (`liqo.io/remote-cluster-id`), never by assumed names (Liqo's `pkg/utils/getters/k8sGetters.go`).
 */
import type { KindId } from "../kube/kinds.ts";
import { formatAge } from "../probes/duration.ts";

export { formatAge } from "../probes/duration.ts";
import type { Objects, ViewOf } from "./views/mod.ts";
import type { Condition, ObjectMeta } from "./views/meta.ts";
import type { Deployment, Node, Pod } from "./views/core.ts";
import type { Connection, GatewayClient, GatewayServer } from "./views/networking.ts";
import type { ForeignCluster } from "./views/peering.ts";
import { containerArgs } from "./args.ts";
import {
  GATEWAY_LABELS,
  REMOTE_ID_LABEL,
  TENANT_NAMESPACE_LABEL,
  VIRTUAL_KUBELET_LABEL,
  VIRTUAL_NODE_LABEL,
  VIRTUAL_NODE_NAME_LABEL,
  VIRTUAL_NODE_TYPE,
} from "./names.ts";

/** Anything with object metadata (every view). */
export interface Named {
  readonly metadata: ObjectMeta;
}

/** Anything whose status may carry conditions (of its own condition shape `C`). */
export interface Conditioned<C> {
  readonly status?: { readonly conditions?: readonly C[] | null } | null;
}

// The names are spelled in names.ts; these stay importable from here, where the lookups use them.
export { GATEWAY_LABELS, REMOTE_ID_LABEL, VIRTUAL_KUBELET_LABEL, VIRTUAL_NODE_LABEL } from "./names.ts";

/** A peer's gateway as seen on one cluster. */
export interface GatewayRef {
  /** "server" when the local cluster hosts the GatewayServer, else "client". */
  role: "server" | "client";
  /** The GatewayServer or GatewayClient object. */
  object: GatewayServer | GatewayClient;
  name: string;
  namespace: string;
  /** Deployment / Service / Secret / Connection name: `gw-<name>`. */
  workloadName: string;
}

/** The cluster ID from `liqo-clusterid-configmap` (label app.kubernetes.io/name=clusterid-configmap). */
export function clusterIdOf(inv: Objects): string | null {
  const cms = inv.tryItems("configmaps") ?? [];
  const cm = cms.find((c) => c.metadata.labels?.["app.kubernetes.io/name"] === "clusterid-configmap") ??
    cms.find((c) => c.metadata.name === "liqo-clusterid-configmap");
  const id = cm?.data?.CLUSTER_ID;
  return typeof id === "string" && id !== "" ? id : null;
}

/**
 * The Liqo controller-manager Deployment, found by its labels as liqoctl finds it
 * (`pkg/utils/getters/k8sGetters.go` `GetLiqoVersion`, `pkg/utils/labels/labelSelectors.go`).
 */
export function controllerManager(inv: Objects): Deployment | null {
  const deps = inv.tryItems("deployments") ?? [];
  return deps.find((d) =>
    d.metadata.labels?.["app.kubernetes.io/name"] === "controller-manager" &&
    d.metadata.labels?.["app.kubernetes.io/component"] === "controller-manager"
  ) ?? deps.find((d) => d.metadata.name === "liqo-controller-manager") ?? null;
}

/** The namespace Liqo is installed in, if any. */
export function liqoNamespaceOf(inv: Objects): string | null {
  return controllerManager(inv)?.metadata.namespace ?? null;
}

/**
 * Why Liqo's installation could not be looked for, or null (found, or looked for and absent): the
 * controller-manager Deployment names Liqo's namespace and version, so with Deployments unreadable
 * "Liqo not found" would be a guess. Names the kind and the status.
 */
export function liqoInstallationUnreadable(inv: Objects): string | null {
  if (controllerManager(inv)) return null;
  const s = inv.state("deployments");
  if (s.state === "ok") return null;
  if (s.state === "not-listed") return "deployments not read";
  const status = s.state === "forbidden"
    ? "forbidden (403)"
    : s.state === "missing"
    ? "not found (404)"
    : "failed";
  return `deployments ${status}: ${s.message}`;
}

/** Liqo version: the controller-manager container image tag, else `app.kubernetes.io/version`. */
export function liqoVersionOf(inv: Objects): string | null {
  const cm = controllerManager(inv);
  if (!cm) return null;
  const containers = cm.spec?.template?.spec?.containers ?? [];
  const c = containers.find((x) => x.name === "controller-manager") ?? containers[0];
  return imageTag(c?.image) ?? cm.metadata.labels?.["app.kubernetes.io/version"] ?? null;
}

/** Objects of a kind that concern a peer (by the remote-cluster-id label). */
export function peerObjects<K extends KindId>(inv: Objects, kind: K, peerId: string): ViewOf<K>[] {
  return inv.withLabel(kind, REMOTE_ID_LABEL, peerId);
}

/** The tenant namespace for a peer: FC status, else the namespace labelled for it. */
export function tenantNamespaceOf(inv: Objects, fc: ForeignCluster): string | null {
  const fromStatus = fc.status?.tenantNamespace?.local;
  if (typeof fromStatus === "string" && fromStatus) return fromStatus;
  const id = fc.spec?.clusterID ?? fc.metadata.name;
  const ns = (inv.tryItems("namespaces") ?? []).find((n) =>
    n.metadata.labels?.[TENANT_NAMESPACE_LABEL] === "true" && n.metadata.labels?.[REMOTE_ID_LABEL] === id
  );
  return ns?.metadata.name ?? null;
}

/**
 * The peer's gateway on this cluster (server or client), by label. Throws KindUnavailableError when
 * either kind could not be read.
 */
export function gatewayOf(inv: Objects, peerId: string): GatewayRef | null {
  // Both kinds must be readable: "no gateway" must never stand for "could not look".
  const server = inv.items("gatewayservers").find((g) => g.metadata.labels?.[REMOTE_ID_LABEL] === peerId);
  const client = inv.items("gatewayclients").find((g) => g.metadata.labels?.[REMOTE_ID_LABEL] === peerId);
  const object = server ?? client;
  if (!object) return null;
  return {
    role: server ? "server" : "client",
    object,
    name: object.metadata.name,
    namespace: object.metadata.namespace ?? "",
    workloadName: `gw-${object.metadata.name}`,
  };
}

/** Gateway pods of a gateway (all replicas), by the template labels. */
export function gatewayPods(inv: Objects, gw: GatewayRef): Pod[] {
  return inv.withLabel("pods", GATEWAY_LABELS.name, gw.name).filter((p) =>
    p.metadata.namespace === gw.namespace &&
    p.metadata.labels?.[GATEWAY_LABELS.component] === "gateway"
  );
}

/** The active gateway pod (label networking.liqo.io/active=true, running), if any. */
export function activeGatewayPod(inv: Objects, gw: GatewayRef): Pod | null {
  const pods = gatewayPods(inv, gw).filter((p) => !p.metadata.deletionTimestamp);
  return pods.find((p) =>
    p.metadata.labels?.[GATEWAY_LABELS.active] === "true" && p.status?.phase === "Running"
  ) ??
    pods.find((p) => p.status?.phase === "Running") ?? null;
}

/**
 * Every gateway pod that carries `networking.liqo.io/active=true`, those being deleted included: a pod
 * stuck Terminating on a lost node cannot drop the label, and Liqo's controllers before v1.2.0 counted it
 * (`pkg/liqo-controller-manager/networking/external-network/wireguard/utils.go` listActiveGatewayPod,
 * liqotech/liqo 00322dfc5, filters Running pods without a deletion timestamp).
 */
export function activeLabelledGatewayPods(inv: Objects, gw: GatewayRef): Pod[] {
  return gatewayPods(inv, gw).filter((p) => p.metadata.labels?.[GATEWAY_LABELS.active] === "true");
}

/** The peer's Connection on a cluster: by label in the gateway namespace, preferring name gw-<name>. */
export function connectionOf(
  inv: Objects,
  gw: GatewayRef,
  peerId: string,
): Connection | undefined {
  const conns = inv.items("connections").filter((c) =>
    c.metadata.namespace === gw.namespace && c.metadata.labels?.[REMOTE_ID_LABEL] === peerId
  );
  return conns.find((c) => c.metadata.name === gw.workloadName) ?? conns[0];
}

/** True for Liqo virtual nodes. */
export function isVirtualNode(node: Named): boolean {
  return node.metadata.labels?.[VIRTUAL_NODE_LABEL] === VIRTUAL_NODE_TYPE;
}

/** A condition of an object by type (status.conditions[]). */
export function conditionOf<C extends Pick<Condition, "type">>(
  obj: Conditioned<C> | null | undefined,
  type: string,
): C | undefined {
  return obj?.status?.conditions?.find((c) => c?.type === type);
}

/** True when a Node's Ready condition is True. */
export function nodeReady(node: Node): boolean {
  return conditionOf(node, "Ready")?.status === "True";
}

/** Milliseconds since an RFC 3339 timestamp, or null if absent/invalid. */
export function ageMs(now: Date, ts: unknown): number | null {
  if (typeof ts !== "string") return null;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? null : now.getTime() - t;
}

/** One container's state, restarts and last termination, for evidence lines. */
export interface ContainerSummary {
  name: string;
  ready: boolean;
  restarts: number;
  /** "running", "waiting: CrashLoopBackOff", "terminated: Error". */
  state: string;
  /** Last termination reason and message (e.g. the kernel-version refusal), if any. */
  lastTermination: string | null;
}

/** Summaries of a pod's containers (init containers excluded). */
export function containerSummaries(pod: Pod): ContainerSummary[] {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.map((s) => {
    const st = s.state ?? {};
    const state = st.running
      ? "running"
      : st.waiting
      ? `waiting: ${st.waiting.reason ?? "?"}`
      : st.terminated
      ? `terminated: ${st.terminated.reason ?? "?"}`
      : "unknown";
    const term = s.lastState?.terminated ?? st.terminated;
    const waitingMsg = st.waiting?.message;
    const lastTermination = term
      ? `${term.reason ?? "terminated"} (exit ${term.exitCode ?? "?"})${
        term.message ? `: ${String(term.message).trim().split("\n").slice(-1)[0]}` : ""
      }`
      : waitingMsg
      ? String(waitingMsg)
      : null;
    return {
      name: String(s.name ?? "?"),
      ready: s.ready === true,
      restarts: s.restartCount ?? 0,
      state,
      lastTermination,
    };
  });
}

/** "namespace/name" of an object. */
export function ref(o: Named): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

/** Value of a `--flag=value` argument of the controller-manager container, or null when absent. */
export function controllerManagerArg(inv: Objects, flag: string): string | null {
  const spec = controllerManager(inv)?.spec?.template?.spec;
  const name = spec?.containers?.find((x) => x?.name === "controller-manager")?.name ??
    spec?.containers?.[0]?.name;
  return name ? containerArgs(spec, name).get(flag.replace(/^--/, "")) ?? null : null;
}

/**
 * False only when the controller-manager runs with `--networking-enabled=false`
 * (`deployments/liqo/templates/liqo-controller-manager-deployment.yaml`).
 */
export function networkingEnabled(inv: Objects): boolean {
  return controllerManagerArg(inv, "networking-enabled") !== "false";
}

/** Image tag of a container image reference ("ghcr.io/x/y:v1.2.0" → "v1.2.0"), null for digests/no tag. */
export function imageTag(image: unknown): string | null {
  if (typeof image !== "string" || image.includes("@")) return null;
  const colon = image.lastIndexOf(":");
  return colon > image.lastIndexOf("/") ? image.slice(colon + 1) : null;
}

/** Longest event message shown in evidence; longer ones are cut with "…". */
const EVENT_MESSAGE_MAX = 400;

/**
 * Warning events of one object (involvedObject kind/namespace/name), newest first, as evidence lines:
 * `Warning SyncLoadBalancerFailed (x12, last 2m0s ago): Error syncing load balancer: …`. Handles both
 * core events (count, lastTimestamp) and events.k8s.io ones seen through core v1 (series, eventTime).
 * Events are optional evidence: when they could not be read, the one line says so (asked through
 * `readable`, so the check still judges on its other inputs).
 */
export function warningEventsFor(
  inv: Objects,
  kind: string,
  namespace: string | null | undefined,
  name: string,
  now: Date,
  limit = 3,
): string[] {
  const read = inv.readable("events");
  if (!read.ok) return inv.state("events").state === "not-listed" ? [] : [`events not read (${read.reason})`];
  const events = read.items;
  const ns = namespace ?? "";
  const mine = events.filter((e) => {
    const io = e?.involvedObject;
    if (!io || io.kind !== kind || io.name !== name || (io.namespace ?? "") !== ns) return false;
    return typeof e.type !== "string" || e.type === "" || e.type === "Warning";
  }).map((e) => {
    const last = [e.lastTimestamp, e.series?.lastObservedTime, e.eventTime, e.metadata?.creationTimestamp]
      .find((t) => typeof t === "string" && !Number.isNaN(Date.parse(t))) as string | undefined;
    return { e, at: last ? Date.parse(last) : null, last };
  });
  mine.sort((a, b) => (b.at ?? -Infinity) - (a.at ?? -Infinity));
  return mine.slice(0, Math.max(0, limit)).map(({ e, last }) => {
    const count = typeof e.count === "number" && e.count > 0
      ? e.count
      : typeof e.series?.count === "number" && e.series.count > 0
      ? e.series.count
      : null;
    const parts: string[] = [];
    if (count !== null && count > 1) parts.push(`x${count}`);
    if (last) parts.push(`last ${formatAge(ageMs(now, last))} ago`);
    let message = typeof e.message === "string" ? e.message.replace(/\s+/g, " ").trim() : "";
    if (message.length > EVENT_MESSAGE_MAX) message = `${message.slice(0, EVENT_MESSAGE_MAX - 1)}…`;
    const reason = typeof e.reason === "string" && e.reason ? e.reason : "(no reason)";
    return `Warning ${reason}${parts.length ? ` (${parts.join(", ")})` : ""}${message ? `: ${message}` : ""}`;
  });
}

/** Taint the node lifecycle controller puts on a node whose kubelet stopped posting status. */
export const UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
/** Taint the node lifecycle controller puts on a node whose Ready condition is False. */
export const NOT_READY_TAINT = "node.kubernetes.io/not-ready";

/** Why a node is down, when it is: its Ready condition is not True, or it carries the unreachable taint. */
export interface NodeDown {
  name: string;
  /** "Unknown" (kubelet stopped posting status), "False", or "missing" (no Ready condition). */
  readyStatus: string;
  /** One phrase: "kubelet stopped posting status", "KubeletNotReady: container runtime is down". */
  why: string;
  /** When the Ready condition last changed (the node has been down since then), if known. */
  since: string | null;
  /** The node.kubernetes.io/unreachable or not-ready taints it carries ("key:Effect"). */
  taints: string[];
}

/** The node's down state (Ready not True, or the unreachable taint), or null when it is Ready. */
export function nodeDown(node: Node): NodeDown | null {
  const ready = conditionOf(node, "Ready");
  const taints = (node.spec?.taints ?? [])
    .filter((t) => t?.key === UNREACHABLE_TAINT || t?.key === NOT_READY_TAINT)
    .map((t) => `${t.key}:${t.effect ?? ""}`);
  const unreachable = taints.some((t) => t.startsWith(UNREACHABLE_TAINT));
  if (ready?.status === "True" && !unreachable) return null;
  const status = ready?.status ?? "missing";
  const message = typeof ready?.message === "string" ? ready.message.trim().replace(/\.$/, "") : "";
  const why = status === "Unknown" || (unreachable && status === "True")
    ? "kubelet stopped posting status"
    : status === "missing"
    ? "no Ready condition"
    : `${ready?.reason ?? "NotReady"}${
      message ? `: ${message.length > 160 ? `${message.slice(0, 159)}…` : message}` : ""
    }`;
  return {
    name: node.metadata.name,
    readyStatus: status,
    why,
    since: typeof ready?.lastTransitionTime === "string" ? ready.lastTransitionTime : null,
    taints,
  };
}

/** "NotReady for 7m0s (kubelet stopped posting status)" — how long from the Ready condition's lastTransitionTime. */
export function nodeDownText(down: NodeDown, now: Date): string {
  const age = ageMs(now, down.since);
  return `NotReady${age !== null ? ` for ${formatAge(age)}` : ""} (${down.why})`;
}

/** The down state of the node a pod runs on (by `spec.nodeName`), when nodes are readable and it is down. */
export function podNodeDown(inv: Objects, pod: Pod): NodeDown | null {
  const name = pod.spec?.nodeName;
  if (!name) return null;
  const node = (inv.tryItems("nodes") ?? []).find((n) => n.metadata.name === name);
  return node ? nodeDown(node) : null;
}

/**
 * What Liqo component a pod is, or null for other pods: a gateway pod (`gateway gw-<name>`), a pod of
 * the Liqo namespace (`liqo-<app.kubernetes.io/name>`: controller-manager, ipam, proxy, webhook,
 * crd-replicator, metric-agent, fabric), or a virtual-kubelet pod (`virtual-kubelet vk-<node>`).
 */
export function liqoComponentOf(pod: Pod, liqoNs: string | null): string | null {
  const labels = pod.metadata.labels ?? {};
  if (labels[GATEWAY_LABELS.component] === "gateway") {
    return `gateway gw-${labels[GATEWAY_LABELS.name] ?? pod.metadata.name}`;
  }
  if (labels[VIRTUAL_KUBELET_LABEL] === "virtual-kubelet") {
    return `virtual-kubelet${
      labels[VIRTUAL_NODE_NAME_LABEL] ? ` vk-${labels[VIRTUAL_NODE_NAME_LABEL]}` : ""
    }`;
  }
  if (liqoNs !== null && pod.metadata.namespace === liqoNs) {
    const app = labels["app.kubernetes.io/name"];
    return app ? `liqo-${app}` : pod.metadata.name;
  }
  return null;
}
