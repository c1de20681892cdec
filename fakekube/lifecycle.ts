/**
 * What happens to objects over time in a fake cluster once something writes to it: the stub
 * scheduler binds new pods, a stub kubelet starts them (or fails to pull their image), the
 * namespace controller purges a Terminating namespace (or never does), Liqo's offloading
 * controller marks a NamespaceOffloading Ready, and the EndpointSlice controller follows the
 * Services created at runtime. Every step is one store commit: a MODIFIED/ADDED/DELETED event on
 * the open watches and a new resourceVersion, as a real cluster shows it.
 *
 * The knobs come from a scenario's `clusters.<name>.lifecycle` ({@link LifecycleSchema}).
 */
import { field, type K8sObject } from "./object.ts";
import { isVirtualNode, matchesNodeSelector, schedulePod } from "./scheduler.ts";
import type { ClusterStore } from "./writes.ts";
import { nextFree, nowStamp } from "./alloc.ts";
import type { Lifecycle } from "./lifecycle_schema.ts";

export { nextFree, nowStamp } from "./alloc.ts";
export {
  type Lifecycle,
  lifecycleDefaults,
  type LifecycleInput,
  LifecycleSchema,
} from "./lifecycle_schema.ts";

const POD = "/v1/pods";
const NAMESPACE = "/v1/namespaces";
const NODE = "/v1/nodes";
const OFFLOADING = "offloading.liqo.io/namespaceoffloadings";
const CONFIGURATION = "networking.liqo.io/configurations";
const ENDPOINTSLICE = "discovery.k8s.io/endpointslices";
/** The finalizer Liqo's NamespaceOffloading controller puts on every NamespaceOffloading. */
export const OFFLOADING_FINALIZER = "namespaceoffloading-controller.liqo.io/finalizer";

const CONTROL_PLANE_CONDITIONS = (now: string) => [
  {
    type: "NamespaceDeletionDiscoveryFailure",
    status: "False",
    lastTransitionTime: now,
    reason: "ResourcesDiscovered",
    message: "All resources successfully discovered",
  },
  {
    type: "NamespaceDeletionGroupVersionParsingFailure",
    status: "False",
    lastTransitionTime: now,
    reason: "ParsedGroupVersions",
    message: "All legacy kube types successfully parsed",
  },
  {
    type: "NamespaceDeletionContentFailure",
    status: "False",
    lastTransitionTime: now,
    reason: "ContentDeleted",
    message: "All content successfully deleted, may be waiting on finalization",
  },
];

const hex = (n: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};

const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];

/** The image digest reference a runtime reports for `image` (`repo@sha256:…`). */
function imageIdFor(image: string): string {
  const at = image.indexOf("@");
  if (at >= 0) return image;
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  const repo = colon > slash ? image.slice(0, colon) : image;
  let h = 0;
  for (const c of image) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `${repo}@sha256:${h.toString(16).padStart(8, "0").repeat(8)}`;
}

/** The kubelet's ErrImagePull message for a reference the registry does not have (containerd). */
export function imagePullMessage(image: string): string {
  return `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image ` +
    `"${image}": failed to resolve reference "${image}": ${image}: not found`;
}

/**
 * How the Liqo reflection (reflection.ts) takes over offloaded pods whose provider the scenario
 * serves: their status comes from the provider's pod, and a NamespaceOffloading's finalizer (so
 * its namespace) waits until the provider's remote namespace is gone.
 */
export interface OffloadHooks {
  /** True when pods offloaded to peer `peerId` run in a served provider (the reflection reports them). */
  runsRemotely(peerId: string): boolean;
  /** True while a provider still holds a remote namespace of this NamespaceOffloading. */
  remotePending(offloading: K8sObject): boolean;
}

/**
 * Drives the objects of one fake cluster through their lifecycle. All timers are cancelled by
 * {@link LifecycleController.stop} (the server's close).
 */
export class LifecycleController {
  readonly #store: ClusterStore;
  readonly #cfg: Lifecycle;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  /** "ns/name" of the Services created at runtime: the only ones whose EndpointSlices we manage. */
  readonly #services = new Set<string>();
  #stopped = false;
  #offload: OffloadHooks | null = null;

  /** A controller over `store` with knobs `cfg`. */
  constructor(store: ClusterStore, cfg: Lifecycle) {
    this.#store = store;
    this.#cfg = cfg;
  }

  /** Lets the Liqo reflection run this cluster's offloaded pods (reflection.ts). */
  setOffloadHooks(hooks: OffloadHooks | null): void {
    this.#offload = hooks;
  }

  /** Re-reads the pods of `ns` into the EndpointSlices of its runtime Services (a pod status changed). */
  syncEndpointSlices(ns: string): void {
    this.#syncEndpointSlices(ns);
  }

  /** Cancels every pending step. */
  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #after(ms: number, fn: () => void): void {
    if (this.#stopped) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      if (!this.#stopped) fn();
    }, ms);
    this.#timers.add(t);
  }

  /** Called after an object was created (stored). */
  created(resourceKey: string, obj: K8sObject): void {
    if (resourceKey === POD) {
      const nodeName = field(obj.spec, "nodeName");
      if (typeof nodeName === "string" && nodeName !== "") {
        this.#after(this.#cfg.startDelayMs, () => this.#start(obj.metadata.namespace!, obj.metadata.name));
      } else {
        this.#after(
          this.#cfg.scheduleDelayMs,
          () => this.#schedule(obj.metadata.namespace!, obj.metadata.name),
        );
      }
      this.#syncEndpointSlices(obj.metadata.namespace!);
    } else if (resourceKey === this.#store.resolve(OFFLOADING)) {
      this.#after(this.#cfg.offloadingReadyDelayMs, () => this.#offloadingReady(resourceKey, obj));
    } else if (resourceKey === "/v1/services") {
      this.#services.add(`${obj.metadata.namespace}/${obj.metadata.name}`);
      this.#syncEndpointSlices(obj.metadata.namespace!);
      if (field(obj.spec, "type") === "LoadBalancer") {
        this.#loadBalance(obj.metadata.namespace!, obj.metadata.name);
      }
    }
  }

  /**
   * The LoadBalancer controller: after `loadBalancer.delayMs`, the next free address of the pool in
   * `status.loadBalancer.ingress` (modes `assign` and `dropsUdp`); `pending` never answers.
   */
  #loadBalance(ns: string, name: string): void {
    const lb = this.#cfg.loadBalancer;
    if (lb.mode === "pending") return;
    this.#after(lb.delayMs, () => {
      const used = new Set(
        this.#store.list("/v1/services").flatMap((o) =>
          arr(rec(rec(o.status).loadBalancer).ingress).map((i) => String(rec(i).ip ?? ""))
        ),
      );
      const ip = lb.pool.find((a) => !used.has(a));
      if (!ip) return;
      this.#store.update("/v1/services", ns, name, (o) => ({
        ...o,
        status: { ...rec(o.status), loadBalancer: { ingress: [{ ip, ipMode: "VIP" }] } },
      }));
    });
  }

  /** Called after an object was removed (not for namespace purges). */
  deleted(resourceKey: string, obj: K8sObject): void {
    const ns = obj.metadata.namespace;
    if (resourceKey === POD && ns) this.#syncEndpointSlices(ns);
    if (resourceKey === "/v1/services" && ns) {
      this.#services.delete(`${ns}/${obj.metadata.name}`);
      // Garbage collection of the Service's EndpointSlices (owner references).
      for (const e of this.#store.list(ENDPOINTSLICE)) {
        if (
          e.metadata.namespace === ns &&
          e.metadata.labels?.["kubernetes.io/service-name"] === obj.metadata.name
        ) {
          this.#store.remove(ENDPOINTSLICE, ns, e.metadata.name);
        }
      }
    }
    if (resourceKey === this.#store.resolve(OFFLOADING) && ns) {
      // Liqo stops selecting the namespace for its pod webhook.
      this.#store.update(NAMESPACE, undefined, ns, (o) => {
        const labels = { ...o.metadata.labels };
        delete labels["liqo.io/scheduling-enabled"];
        return { ...o, metadata: { ...o.metadata, labels } };
      });
    }
  }

  /**
   * An object with finalizers was marked for deletion. Liqo's NamespaceOffloading controller goes
   * Terminating, removes the remote namespaces, then its finalizer (the object is gone); finalizers
   * nobody here owns stay forever, as on a real cluster whose controller is gone.
   */
  finalizing(resourceKey: string, obj: K8sObject): void {
    if (resourceKey !== this.#store.resolve(OFFLOADING)) return;
    const ns = obj.metadata.namespace!;
    const name = obj.metadata.name;
    this.#store.update(resourceKey, ns, name, (o) => ({
      ...o,
      status: { ...rec(o.status), offloadingPhase: "Terminating" },
    }));
    this.#finalizeOffloading(resourceKey, ns, name);
  }

  /** Liqo's finalizer goes once no provider holds the remote namespace any more. */
  #finalizeOffloading(resourceKey: string, ns: string, name: string): void {
    this.#after(this.#cfg.offloadingReadyDelayMs, () => {
      const current = this.#store.get(resourceKey, ns, name);
      if (current && this.#offload?.remotePending(current)) {
        this.#finalizeOffloading(resourceKey, ns, name);
        return;
      }
      const others = (current?.metadata.finalizers ?? []).filter((f) => f !== OFFLOADING_FINALIZER);
      if (!current) return;
      if (others.length > 0) {
        this.#store.update(
          resourceKey,
          ns,
          name,
          (o) => ({ ...o, metadata: { ...o.metadata, finalizers: others } }),
        );
        return;
      }
      this.#store.remove(resourceKey, ns, name);
      this.deleted(resourceKey, current);
    });
  }

  /**
   * A namespace was marked Terminating: purge it (and everything in it) after the delay, or, when
   * stuck, remove what has no finalizer and leave the namespace Terminating with the conditions a
   * real namespace controller writes.
   */
  namespaceTerminating(name: string): void {
    this.#after(this.#cfg.namespaceDeleteDelayMs, () => {
      if (!this.#cfg.namespaceStuck && this.#waitForOffloading(name)) {
        this.namespaceTerminating(name);
        return;
      }
      const remaining = this.#store.purgeNamespaceContent(name, { keepFinalized: this.#cfg.namespaceStuck });
      for (const k of [...this.#services]) if (k.startsWith(`${name}/`)) this.#services.delete(k);
      if (!this.#cfg.namespaceStuck) {
        this.#store.remove(NAMESPACE, undefined, name);
        return;
      }
      const now = nowStamp();
      const conditions: Record<string, unknown>[] = CONTROL_PLANE_CONDITIONS(now);
      if (remaining.length > 0) {
        const byResource = new Map<string, number>();
        const byFinalizer = new Map<string, number>();
        for (const { resource, object } of remaining) {
          byResource.set(resource, (byResource.get(resource) ?? 0) + 1);
          for (const f of object.metadata.finalizers ?? []) byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + 1);
        }
        conditions.push({
          type: "NamespaceContentRemaining",
          status: "True",
          lastTransitionTime: now,
          reason: "SomeResourcesRemain",
          message: `Some resources are remaining: ${
            [...byResource].sort().map(([r, n]) => `${r} has ${n} resource instances`).join(", ")
          }`,
        });
        conditions.push({
          type: "NamespaceFinalizersRemaining",
          status: "True",
          lastTransitionTime: now,
          reason: "SomeFinalizersRemain",
          message: `Some content in the namespace has finalizers remaining: ${
            [...byFinalizer].sort().map(([f, n]) => `${f} in ${n} resource instances`).join(", ")
          }`,
        });
      } else {
        // Nothing left inside: the classic cause is an aggregated API that cannot be discovered.
        conditions[0] = {
          type: "NamespaceDeletionDiscoveryFailure",
          status: "True",
          lastTransitionTime: now,
          reason: "DiscoveryFailed",
          message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of " +
            "server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
        };
      }
      this.#store.update(NAMESPACE, undefined, name, (o) => ({
        ...o,
        status: { ...rec(o.status), phase: "Terminating", conditions },
      }));
    });
  }

  /**
   * A NamespaceOffloading in the namespace whose remote namespaces still exist holds the purge (its
   * finalizer): the namespace controller deletes it first, then waits. True while it must wait.
   */
  #waitForOffloading(ns: string): boolean {
    const key = this.#store.resolve(OFFLOADING);
    if (key === null || this.#offload === null) return false;
    let wait = false;
    for (const o of this.#store.list(key)) {
      if (o.metadata.namespace !== ns || !(o.metadata.finalizers ?? []).includes(OFFLOADING_FINALIZER)) {
        continue;
      }
      if (!this.#offload.remotePending(o)) continue;
      wait = true;
      if (!o.metadata.deletionTimestamp) {
        const marked = this.#store.update(key, ns, o.metadata.name, (x) => ({
          ...x,
          metadata: { ...x.metadata, deletionTimestamp: nowStamp() },
        }));
        if (marked) this.finalizing(key, marked);
      }
    }
    return wait;
  }

  #schedule(ns: string, name: string): void {
    const pod = this.#store.get(POD, ns, name);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const nodes = this.#store.list(NODE);
    const load = new Map<string, number>();
    for (const p of this.#store.list(POD)) {
      const n = field(p.spec, "nodeName");
      if (typeof n === "string") load.set(n, (load.get(n) ?? 0) + 1);
    }
    const result = schedulePod(pod, nodes, {
      unschedulable: this.#cfg.unschedulable,
      load: (n) => load.get(n) ?? 0,
      pods: this.#store.list(POD),
    });
    const now = nowStamp();
    if (result.node === null) {
      this.#store.update(POD, ns, name, (o) => ({
        ...o,
        status: {
          ...rec(o.status),
          phase: "Pending",
          conditions: [{
            type: "PodScheduled",
            status: "False",
            lastProbeTime: null,
            lastTransitionTime: now,
            reason: "Unschedulable",
            message: result.message,
          }],
        },
      }));
      return;
    }
    const node = result.node;
    this.#store.update(POD, ns, name, (o) => ({
      ...o,
      spec: { ...rec(o.spec), nodeName: node },
      status: {
        ...rec(o.status),
        phase: "Pending",
        conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now }],
      },
    }));
    this.#after(this.#cfg.startDelayMs, () => this.#start(ns, name));
  }

  /** The pod IP for a pod on `node`, or null when it cannot get one (yet). */
  #podIP(pod: K8sObject, node: K8sObject | undefined): string | null {
    if (!node) return null;
    const used = new Set<string>();
    for (const p of this.#store.list(POD)) {
      const ip = field(p.status, "podIP");
      if (typeof ip === "string") used.add(ip);
    }
    if (field(pod.spec, "hostNetwork") === true) return hostIP(node);
    let cidr: string | null = null;
    if (isVirtualNode(node)) {
      cidr = this.#offloadedPodCidr(pod.metadata.namespace!, node);
    } else {
      const c = field(node.spec, "podCIDR");
      cidr = typeof c === "string" ? c : null;
    }
    if (cidr === null) return null;
    return nextFree(cidr, used);
  }

  /**
   * The consumer-side pod CIDR of the peer behind a virtual node: the remapped remote pod CIDR in the
   * consumer's Configuration for that peer. Null when the namespace has no Ready offloading or the
   * Configuration is missing: the pod waits.
   */
  #offloadedPodCidr(ns: string, node: K8sObject): string | null {
    const offloading = this.#store.list(OFFLOADING)
      .find((o) => o.metadata.namespace === ns);
    if (!offloading || field(offloading.status, "offloadingPhase") !== "Ready") return null;
    const peer = node.metadata.labels?.["liqo.io/remote-cluster-id"];
    if (!peer) return null;
    const cfg = this.#store.list(CONFIGURATION).find((c) =>
      c.metadata.labels?.["liqo.io/remote-cluster-id"] === peer || c.metadata.name === peer
    );
    const pod = arr(field(field(field(cfg?.status, "remote"), "cidr"), "pod"));
    return typeof pod[0] === "string" ? pod[0] : null;
  }

  #start(ns: string, name: string): void {
    const pod = this.#store.get(POD, ns, name);
    // Started already (a second trigger from the offloading), or gone.
    if (!pod || pod.metadata.deletionTimestamp || field(pod.status, "podIP") !== undefined) return;
    const nodeName = String(field(pod.spec, "nodeName") ?? "");
    const node = this.#store.get(NODE, undefined, nodeName);
    const peer = node && isVirtualNode(node)
      ? node.metadata.labels?.["liqo.io/remote-cluster-id"]
      : undefined;
    // A served provider runs it: the Liqo reflection mirrors the remote pod's status here.
    if (peer && this.#offload?.runsRemotely(peer)) return;
    const ip = this.#podIP(pod, node);
    if (ip === null) return; // an offloaded pod waits for its NamespaceOffloading (see #offloadingReady)
    const now = nowStamp();
    const containers = arr(rec(pod.spec).containers).map(rec);
    const failing = containers.filter((c) =>
      this.#cfg.imagePullFailures.some((f) => String(c.image ?? "").includes(f))
    );
    const host = node ? hostIP(node) : ip;
    const notReady = failing.length > 0;
    const unready = `containers with unready status: [${failing.map((c) => String(c.name)).join(" ")}]`;
    const cond = (type: string, ok: boolean): Record<string, unknown> =>
      ok ? { type, status: "True", lastProbeTime: null, lastTransitionTime: now } : {
        type,
        status: "False",
        lastProbeTime: null,
        lastTransitionTime: now,
        reason: "ContainersNotReady",
        message: unready,
      };
    const statuses = containers.map((c) => {
      const image = String(c.image ?? "");
      if (failing.includes(c)) {
        return {
          name: c.name,
          state: { waiting: { reason: "ErrImagePull", message: imagePullMessage(image) } },
          lastState: {},
          ready: false,
          restartCount: 0,
          image,
          imageID: "",
          started: false,
        };
      }
      return {
        name: c.name,
        state: { running: { startedAt: now } },
        lastState: {},
        ready: !notReady,
        restartCount: 0,
        image,
        imageID: imageIdFor(image),
        containerID: `containerd://${hex(32)}`,
        started: true,
      };
    });
    this.#store.update(POD, ns, name, (o) => ({
      ...o,
      status: {
        ...rec(o.status),
        phase: notReady ? "Pending" : "Running",
        conditions: [
          cond("PodReadyToStartContainers", true),
          cond("Initialized", true),
          cond("Ready", !notReady),
          cond("ContainersReady", !notReady),
          { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now },
        ],
        hostIP: host,
        hostIPs: [{ ip: host }],
        podIP: ip,
        podIPs: [{ ip }],
        startTime: now,
        containerStatuses: statuses,
      },
    }));
    this.#syncEndpointSlices(ns);
    if (notReady) this.#after(this.#cfg.backOffDelayMs, () => this.#backOff(ns, name));
  }

  #backOff(ns: string, name: string): void {
    this.#store.update(POD, ns, name, (o) => {
      const statuses = arr(field(o.status, "containerStatuses")).map(rec).map((s) => {
        const waiting = rec(rec(s.state).waiting);
        if (waiting.reason !== "ErrImagePull") return s;
        return {
          ...s,
          state: { waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "${s.image}"` } },
        };
      });
      return { ...o, status: { ...rec(o.status), containerStatuses: statuses } };
    });
  }

  #offloadingReady(resourceKey: string, created: K8sObject): void {
    const ns = created.metadata.namespace!;
    const current = this.#store.get(resourceKey, ns, created.metadata.name);
    if (!current || current.metadata.deletionTimestamp) return;
    const clusterId = this.#store.localClusterId() ?? "unknown";
    const spec = rec(current.spec);
    const strategy = String(spec.namespaceMappingStrategy ?? "DefaultName");
    const remoteName = strategy === "EnforceSameName"
      ? ns
      : strategy === "SelectedName" && typeof spec.remoteNamespaceName === "string"
      ? spec.remoteNamespaceName
      : `${ns}-${clusterId}`;
    const now = nowStamp();
    const peers = this.#store.list(NODE).filter((n) =>
      isVirtualNode(n) && matchesNodeSelector(spec.clusterSelector, n)
    )
      .map((n) => n.metadata.labels?.["liqo.io/remote-cluster-id"]).filter((p): p is string => !!p);
    const conditions: Record<string, unknown> = {};
    for (const p of [...new Set(peers)].sort()) {
      conditions[p] = [
        {
          type: "OffloadingRequired",
          status: "True",
          lastTransitionTime: now,
          reason: "ClusterSelected",
          message: "You have correctly selected this cluster for offloading",
        },
        {
          type: "Ready",
          status: "True",
          lastTransitionTime: now,
          reason: "NamespaceCreated",
          message: "Namespace correctly offloaded on this cluster",
        },
      ];
    }
    this.#store.update(resourceKey, ns, created.metadata.name, (o) => ({
      ...o,
      metadata: {
        ...o.metadata,
        finalizers: [...new Set([...(o.metadata.finalizers ?? []), OFFLOADING_FINALIZER])],
      },
      status: {
        observedGeneration: o.metadata.generation ?? 1,
        offloadingPhase: peers.length > 0 ? "Ready" : "NoClusterSelected",
        remoteNamespaceName: remoteName,
        remoteNamespacesConditions: conditions,
      },
    }));
    this.#store.update(NAMESPACE, undefined, ns, (o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { ...o.metadata.labels, "liqo.io/scheduling-enabled": "true" } },
    }));
    // Pods bound to a virtual node while the offloading was not Ready start now.
    for (const p of this.#store.list(POD)) {
      if (p.metadata.namespace !== ns || field(p.status, "podIP") !== undefined) continue;
      const n = field(p.spec, "nodeName");
      if (typeof n === "string" && n !== "") {
        this.#after(this.#cfg.startDelayMs, () => this.#start(ns, p.metadata.name));
      }
    }
  }

  /** Keeps one EndpointSlice per runtime-created Service of `ns` in line with its ready pods. */
  #syncEndpointSlices(ns: string): void {
    if (!this.#store.has(ENDPOINTSLICE)) return;
    for (const key of this.#services) {
      if (!key.startsWith(`${ns}/`)) continue;
      const svcName = key.slice(ns.length + 1);
      const svc = this.#store.get("/v1/services", ns, svcName);
      if (!svc) continue;
      const selector = rec(field(svc.spec, "selector"));
      const selects = (p: K8sObject): boolean =>
        Object.keys(selector).length > 0 &&
        Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v);
      const pods = this.#store.list(POD).filter((p) =>
        p.metadata.namespace === ns && selects(p) && typeof field(p.status, "podIP") === "string"
      );
      const endpoints = pods.map((p) => {
        const ready = arr(field(p.status, "conditions")).map(rec).some((c) =>
          c.type === "Ready" && c.status === "True"
        );
        return {
          addresses: [String(field(p.status, "podIP"))],
          conditions: { ready, serving: ready, terminating: false },
          nodeName: field(p.spec, "nodeName"),
          targetRef: { kind: "Pod", namespace: ns, name: p.metadata.name, uid: p.metadata.uid },
        };
      });
      const ports = arr(field(svc.spec, "ports")).map(rec).map((pt) => ({
        name: pt.name ?? "",
        port: typeof pt.targetPort === "number" ? pt.targetPort : pt.port,
        protocol: pt.protocol ?? "TCP",
      }));
      // Only the controller's own slice: Liqo's reflected slices carry the service-name label too.
      const existing = this.#store.list(ENDPOINTSLICE).find((e) =>
        e.metadata.namespace === ns && e.metadata.labels?.["kubernetes.io/service-name"] === svcName &&
        e.metadata.labels?.["endpointslice.kubernetes.io/managed-by"] === "endpointslice-controller.k8s.io"
      );
      const body: K8sObject = {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: existing?.metadata ?? {
          name: `${svcName}-${hex(3).slice(0, 5)}`,
          namespace: ns,
          uid: crypto.randomUUID(),
          creationTimestamp: nowStamp(),
          generation: 1,
          generateName: `${svcName}-`,
          labels: {
            ...svc.metadata.labels,
            "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
            "kubernetes.io/service-name": svcName,
          },
          ownerReferences: [{
            apiVersion: "v1",
            kind: "Service",
            name: svcName,
            uid: svc.metadata.uid,
            controller: true,
          }],
        },
        addressType: "IPv4",
        endpoints,
        ports,
      };
      if (existing) this.#store.update(ENDPOINTSLICE, ns, existing.metadata.name, () => body);
      else this.#store.insert(ENDPOINTSLICE, body);
    }
  }
}

function hostIP(node: K8sObject): string {
  const a = arr(field(node.status, "addresses")).map(rec).find((x) => x.type === "InternalIP");
  return typeof a?.address === "string" ? a.address : "";
}
