/**
 * Liqo's resource reflection between the fake clusters of one scenario: what the consumer's
 * virtual kubelet and the provider's Liqo controllers do once a namespace is offloaded to a peer
 * that the scenario also serves. Level-triggered, like a controller: after any commit in any
 * attached cluster, one (debounced) reconcile computes what the providers must hold from the
 * consumers' state and applies the difference, and reflects the remote pods' status back.
 *
 * What Liqo does (github.com/liqotech/liqo; FACTS §2.11, §3), and its stand-in here:
 * - NamespaceOffloading Ready (`status.remoteNamespaceName`, per-peer conditions) → the provider
 *   gets that namespace, labelled `liqo.io/remote-cluster-id=<consumer>` and annotated
 *   `liqo.io/managed-by-namespace-map` / `liqo.io/original-name`
 *   (`namespacemap-controller/enforcement.go`). No consumer namespace label is copied.
 * - A pod bound to the peer's virtual node → a pod of the same name in the remote namespace
 *   (`forge/pods.go` RemoteShadowPod; the ShadowPod step is folded in: the provider pod carries
 *   `liqo.io/managed-by: shadowpod`), local labels + `offloading.liqo.io/origin|destination`
 *   (`forge/meta.go`), without the node binding, the virtual-node toleration and the node
 *   affinity, with the anti-affinity of `liqo.io/anti-affinity-preset` (hard: required, soft:
 *   preferred, on `kubernetes.io/hostname` over the labels named by `liqo.io/anti-affinity-labels`).
 *   The provider's stub scheduler places it and its stub kubelet gives it a provider pod IP; the
 *   consumer pod's status mirrors the remote one with `podIP` translated through the consumer's
 *   Configuration for the peer (`reflection/workload/podns.go` MapPodIP) and `hostIP` = the
 *   virtual node's InternalIP.
 * - A Service → the same name in the remote namespace, type/selector/ports kept, a provider
 *   ClusterIP, origin/destination labels (`forge/services.go`); the provider's own EndpointSlice
 *   controller then makes the slice of the remote pods it selects.
 * - An EndpointSlice of a reflected Service → the same name, endpoints not on that peer's virtual
 *   node, addresses translated with the provider's Configuration for the consumer, `nodeName` =
 *   consumer cluster ID, `targetRef.kind: RemotePod`, labels local + `endpointslice.kubernetes.io/
 *   managed-by: endpointslice.reflection.liqo.io` + origin/destination + `liqo.io/managed-by:
 *   shadowendpointslice` (`forge/endpointslices.go`, shadowendpointslice controller; the
 *   ShadowEndpointSlice step is folded in). Readiness is copied (the fake peering is Established).
 * - Offloading gone or Terminating (or the consumer namespace deleted) → the remote namespace is
 *   deleted (Terminating, then purged by the provider); the NamespaceOffloading's finalizer, and so
 *   the consumer namespace, waits until it is gone (lifecycle.ts offload hooks).
 *
 * The provider pod's node and IP are the ONE truth of where an offloaded pod runs: the network
 * model reads them back (nettopo.ts twinPodOf).
 */
import { field, type K8sObject } from "./object.ts";
import { isVirtualNode } from "./scheduler.ts";
import { type LifecycleController, nowStamp } from "./lifecycle.ts";
import { allocateClusterIP, type WriteContext as AnyWriteContext } from "./writes.ts";

/** A cluster's write context with its lifecycle controller (the reflection drives its hooks). */
type WriteContext = AnyWriteContext<LifecycleController>;
import { configurationFor, REFLECTION_LABELS, toPeerView, twinPodOf } from "./nettopo.ts";

const POD = "/v1/pods";
const NAMESPACE = "/v1/namespaces";
const NODE = "/v1/nodes";
const SERVICE = "/v1/services";
const ENDPOINTSLICE = "discovery.k8s.io/endpointslices";
const OFFLOADING = "offloading.liqo.io/namespaceoffloadings";

/** Liqo's label/annotation keys used by the reflection (`pkg/consts`). */
export const LIQO_KEYS = {
  remoteClusterId: "liqo.io/remote-cluster-id",
  managedByNamespaceMap: "liqo.io/managed-by-namespace-map",
  originalName: "liqo.io/original-name",
  antiAffinityPreset: "liqo.io/anti-affinity-preset",
  antiAffinityLabels: "liqo.io/anti-affinity-labels",
  skipReflection: "liqo.io/skip-reflection",
  virtualNodeToleration: "virtual-node.liqo.io/not-allowed",
  sliceManagedBy: "endpointslice.kubernetes.io/managed-by",
  sliceReflected: "endpointslice.reflection.liqo.io",
  serviceName: "kubernetes.io/service-name",
} as const;

/** Pause between a change and the reconcile it triggers (coalesces bursts of commits). */
export const RECONCILE_DELAY_MS = 5;

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Everything the cluster's raw state says, with kinds (what nettopo's helpers read). */
function stateOf(ctx: WriteContext): K8sObject[] {
  return ctx.store.objects();
}

interface Pairing {
  consumer: string;
  consumerId: string;
  provider: string;
  providerId: string;
  /** The consumer namespace and its twin on the provider. */
  namespace: string;
  remoteNamespace: string;
}

/** The reflection shared by every fake cluster of a scenario (FakeClusterConfig.reflection). */
export class LiqoReflection {
  readonly #clusters = new Map<string, WriteContext>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #running = false;
  #again = false;

  /** Registers a cluster's write context; its lifecycle learns which offloaded pods run elsewhere. */
  attach(name: string, ctx: WriteContext): void {
    this.#clusters.set(name, ctx);
    ctx.lifecycle.setOffloadHooks({
      runsRemotely: (peer) => this.#clusterById(peer) !== null,
      remotePending: (offloading) => this.#remotePending(name, offloading),
    });
    this.changed();
  }

  /** Forgets a cluster (its server closed); stops when none is left. */
  detach(name: string): void {
    this.#clusters.delete(name);
    if (this.#clusters.size === 0 && this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  /** Something changed in an attached cluster: reconcile soon. */
  changed(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer !== null || this.#clusters.size < 2) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.reconcile();
    }, RECONCILE_DELAY_MS);
  }

  #clusterById(id: string): string | null {
    for (const [name, ctx] of this.#clusters) if (ctx.store.localClusterId() === id) return name;
    return null;
  }

  /** True while a provider still holds a namespace this offloading created there. */
  #remotePending(consumer: string, offloading: K8sObject): boolean {
    const remoteNs = field(offloading.status, "remoteNamespaceName");
    if (typeof remoteNs !== "string") return false;
    const consumerId = this.#clusters.get(consumer)?.store.localClusterId();
    for (const peer of Object.keys(rec(field(offloading.status, "remoteNamespacesConditions")))) {
      const provider = this.#clusterById(peer);
      if (provider === null) continue;
      const ns = this.#clusters.get(provider)!.store.get(NAMESPACE, undefined, remoteNs);
      if (ns && ns.metadata.labels?.[LIQO_KEYS.remoteClusterId] === consumerId) return true;
    }
    return false;
  }

  /** The offloaded namespaces each provider must hold now. */
  #pairings(): Pairing[] {
    const out: Pairing[] = [];
    for (const [consumer, ctx] of this.#clusters) {
      const consumerId = ctx.store.localClusterId();
      if (!consumerId) continue;
      for (const off of ctx.store.list(OFFLOADING)) {
        const status = rec(off.status);
        const remoteNamespace = status.remoteNamespaceName;
        if (off.metadata.deletionTimestamp || status.offloadingPhase !== "Ready") continue;
        if (typeof remoteNamespace !== "string" || !off.metadata.namespace) continue;
        const nsObj = ctx.store.get(NAMESPACE, undefined, off.metadata.namespace);
        if (!nsObj || nsObj.metadata.deletionTimestamp) continue;
        for (const [peer, conds] of Object.entries(rec(status.remoteNamespacesConditions))) {
          const ready = arr(conds).map(rec).some((c) => c.type === "Ready" && c.status === "True");
          const provider = this.#clusterById(peer);
          if (!ready || provider === null || provider === consumer) continue;
          out.push({
            consumer,
            consumerId,
            provider,
            providerId: peer,
            namespace: off.metadata.namespace,
            remoteNamespace,
          });
        }
      }
    }
    return out;
  }

  /** One pass: bring every provider in line with its consumers, and consumers' pods with their twins. */
  reconcile(): void {
    if (this.#clusters.size < 2) return;
    this.#running = true;
    try {
      const pairings = this.#pairings();
      for (const p of pairings) this.#reflect(p);
      this.#removeStale(pairings);
    } finally {
      this.#running = false;
    }
    if (this.#again) {
      this.#again = false;
      this.changed();
    }
  }

  #reflect(p: Pairing): void {
    const c = this.#clusters.get(p.consumer)!;
    const prov = this.#clusters.get(p.provider)!;
    this.#ensureNamespace(p, prov);
    const remoteNs = prov.store.get(NAMESPACE, undefined, p.remoteNamespace);
    if (!remoteNs || remoteNs.metadata.deletionTimestamp) return;
    const meta = (o: K8sObject): K8sObject["metadata"] => ({
      name: o.metadata.name,
      namespace: p.remoteNamespace,
      labels: {
        ...o.metadata.labels,
        [REFLECTION_LABELS.origin]: p.consumerId,
        [REFLECTION_LABELS.destination]: p.providerId,
      },
      ...(o.metadata.annotations ? { annotations: { ...o.metadata.annotations } } : {}),
      uid: crypto.randomUUID(),
      creationTimestamp: nowStamp(),
    });

    // Pods bound to this peer's virtual node(s).
    const virtualNodes = new Set(
      c.store.list(NODE).filter((n) =>
        isVirtualNode(n) && n.metadata.labels?.[LIQO_KEYS.remoteClusterId] === p.providerId
      ).map((n) => n.metadata.name),
    );
    const offloaded = c.store.list(POD).filter((o) =>
      o.metadata.namespace === p.namespace && !o.metadata.deletionTimestamp &&
      virtualNodes.has(String(field(o.spec, "nodeName") ?? ""))
    );
    for (const pod of offloaded) {
      if (!prov.store.get(POD, p.remoteNamespace, pod.metadata.name)) {
        const twin = remotePod(pod, meta(pod));
        prov.lifecycle.created(POD, prov.store.insert(POD, twin));
      }
    }
    const providerState = stateOf(prov);
    const consumerState = stateOf(c);
    for (const pod of offloaded) {
      const twin = twinPodOf(providerState, consumerState, pod, p.consumerId);
      if (twin) this.#mirrorStatus(c, p, pod, twin, consumerState);
    }

    // Services and their EndpointSlices.
    const services = c.store.list(SERVICE).filter((s) =>
      s.metadata.namespace === p.namespace && s.metadata.annotations?.[LIQO_KEYS.skipReflection] !== "true"
    );
    for (const svc of services) {
      if (prov.store.get(SERVICE, p.remoteNamespace, svc.metadata.name)) continue;
      const spec = rec(svc.spec);
      const body: K8sObject = {
        apiVersion: "v1",
        kind: "Service",
        metadata: meta(svc),
        spec: {
          type: spec.type ?? "ClusterIP",
          ...(spec.selector ? { selector: structuredClone(spec.selector) } : {}),
          ports: structuredClone(arr(spec.ports)),
          ...(spec.clusterIP === "None" ? { clusterIP: "None" } : (() => {
            const ip = allocateClusterIP(prov);
            return ip ? { clusterIP: ip, clusterIPs: [ip] } : {};
          })()),
          sessionAffinity: spec.sessionAffinity ?? "None",
          ipFamilies: ["IPv4"],
          ipFamilyPolicy: "SingleStack",
          internalTrafficPolicy: "Cluster",
        },
        status: { loadBalancer: {} },
      };
      prov.lifecycle.created(SERVICE, prov.store.insert(SERVICE, body));
    }
    const reflected = new Set(services.map((s) => s.metadata.name));
    const cfg = configurationFor(providerState, p.consumerId);
    for (const slice of c.store.list(ENDPOINTSLICE)) {
      const svcName = slice.metadata.labels?.[LIQO_KEYS.serviceName];
      if (slice.metadata.namespace !== p.namespace || !svcName || !reflected.has(svcName)) continue;
      if (slice.metadata.labels?.[LIQO_KEYS.sliceManagedBy] === LIQO_KEYS.sliceReflected) continue;
      const endpoints = arr(slice.endpoints).map(rec).filter((ep) =>
        !virtualNodes.has(String(ep.nodeName ?? ""))
      ).map((ep) => ({
        addresses: arr(ep.addresses).map((a) => toPeerView(cfg, String(a)) ?? String(a)),
        conditions: structuredClone(ep.conditions ?? {}),
        nodeName: p.consumerId,
        targetRef: {
          kind: "RemotePod",
          namespace: p.remoteNamespace,
          name: String(rec(ep.targetRef).name ?? ""),
        },
      }));
      const m = meta(slice);
      const want = {
        labels: {
          ...m.labels,
          [LIQO_KEYS.sliceManagedBy]: LIQO_KEYS.sliceReflected,
          [REFLECTION_LABELS.managedBy]: "shadowendpointslice",
        },
        endpoints,
        ports: structuredClone(arr(slice.ports)),
      };
      const existing = prov.store.get(ENDPOINTSLICE, p.remoteNamespace, slice.metadata.name);
      if (existing) {
        const have = {
          labels: existing.metadata.labels,
          endpoints: existing.endpoints,
          ports: existing.ports,
        };
        if (!same(have, want)) {
          prov.store.update(ENDPOINTSLICE, p.remoteNamespace, slice.metadata.name, (o) => ({
            ...o,
            metadata: { ...o.metadata, labels: want.labels },
            endpoints: want.endpoints,
            ports: want.ports,
          }));
        }
        continue;
      }
      prov.store.insert(ENDPOINTSLICE, {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { ...m, labels: want.labels, generation: 1 },
        addressType: slice.addressType ?? "IPv4",
        endpoints: want.endpoints,
        ports: want.ports,
      });
    }
  }

  #ensureNamespace(p: Pairing, prov: WriteContext): void {
    if (prov.store.get(NAMESPACE, undefined, p.remoteNamespace)) return;
    const tenant =
      prov.store.list(NAMESPACE).find((n) =>
        n.metadata.labels?.["liqo.io/tenant-namespace"] === "true" &&
        n.metadata.labels?.[LIQO_KEYS.remoteClusterId] === p.consumerId
      )?.metadata.name ?? `liqo-tenant-${p.consumerId}`;
    prov.store.insert(NAMESPACE, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: p.remoteNamespace,
        labels: {
          "kubernetes.io/metadata.name": p.remoteNamespace,
          [LIQO_KEYS.remoteClusterId]: p.consumerId,
        },
        annotations: {
          [LIQO_KEYS.managedByNamespaceMap]: `${tenant}/${p.providerId}`,
          [LIQO_KEYS.originalName]: p.namespace,
        },
        uid: crypto.randomUUID(),
        creationTimestamp: nowStamp(),
      },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    });
  }

  /** The consumer pod shows the remote pod's status, its IP as the consumer reaches it. */
  #mirrorStatus(
    c: WriteContext,
    p: Pairing,
    pod: K8sObject,
    twin: K8sObject,
    consumerState: readonly K8sObject[],
  ): void {
    const ts = rec(twin.status);
    const cfg = configurationFor(consumerState, p.providerId);
    const remoteIP = typeof ts.podIP === "string" ? ts.podIP : null;
    const podIP = remoteIP === null ? null : toPeerView(cfg, remoteIP) ?? remoteIP;
    const node = c.store.get(NODE, undefined, String(field(pod.spec, "nodeName") ?? ""));
    const hostIP = arr(field(node?.status, "addresses")).map(rec).find((a) => a.type === "InternalIP")
      ?.address;
    const want: Record<string, unknown> = { ...structuredClone(ts) };
    delete want.nominatedNodeName;
    if (podIP !== null) {
      want.podIP = podIP;
      want.podIPs = [{ ip: podIP }];
    }
    if (typeof hostIP === "string" && ts.hostIP !== undefined) {
      want.hostIP = hostIP;
      want.hostIPs = [{ ip: hostIP }];
    }
    if (same(pod.status ?? {}, want)) return;
    c.store.update(POD, pod.metadata.namespace, pod.metadata.name, (o) => ({ ...o, status: want }));
    c.lifecycle.syncEndpointSlices(p.namespace);
  }

  /** Deletes what providers hold for consumers that no longer want it. */
  #removeStale(pairings: readonly Pairing[]): void {
    for (const [provider, prov] of this.#clusters) {
      const mine = pairings.filter((p) => p.provider === provider);
      for (const ns of prov.store.list(NAMESPACE)) {
        const origin = ns.metadata.labels?.[LIQO_KEYS.remoteClusterId];
        if (!origin || !ns.metadata.annotations?.[LIQO_KEYS.managedByNamespaceMap]) continue;
        const consumer = this.#clusterById(origin);
        if (consumer === null) continue;
        const pairing = mine.find((p) => p.remoteNamespace === ns.metadata.name && p.consumerId === origin);
        if (!pairing) {
          if (!ns.metadata.deletionTimestamp) {
            prov.store.update(NAMESPACE, undefined, ns.metadata.name, (o) => ({
              ...o,
              metadata: { ...o.metadata, deletionTimestamp: nowStamp() },
              status: { ...rec(o.status), phase: "Terminating" },
            }));
            prov.lifecycle.namespaceTerminating(ns.metadata.name);
          }
          continue;
        }
        this.#removeStaleIn(pairing, prov);
      }
    }
  }

  /** Inside a live remote namespace: pods, Services and slices whose consumer original is gone. */
  #removeStaleIn(p: Pairing, prov: WriteContext): void {
    const c = this.#clusters.get(p.consumer)!;
    const ofOrigin = (o: K8sObject) =>
      o.metadata.namespace === p.remoteNamespace &&
      o.metadata.labels?.[REFLECTION_LABELS.origin] === p.consumerId;
    for (const pod of prov.store.list(POD).filter(ofOrigin)) {
      const local = c.store.get(POD, p.namespace, pod.metadata.name);
      if (local && !local.metadata.deletionTimestamp) continue;
      prov.store.remove(POD, p.remoteNamespace, pod.metadata.name);
      prov.lifecycle.deleted(POD, pod);
    }
    for (const svc of prov.store.list(SERVICE).filter(ofOrigin)) {
      if (c.store.get(SERVICE, p.namespace, svc.metadata.name)) continue;
      prov.store.remove(SERVICE, p.remoteNamespace, svc.metadata.name);
      prov.lifecycle.deleted(SERVICE, svc);
    }
    for (const slice of prov.store.list(ENDPOINTSLICE).filter(ofOrigin)) {
      if (slice.metadata.labels?.[LIQO_KEYS.sliceManagedBy] !== LIQO_KEYS.sliceReflected) continue;
      if (c.store.get(ENDPOINTSLICE, p.namespace, slice.metadata.name)) continue;
      prov.store.remove(ENDPOINTSLICE, p.remoteNamespace, slice.metadata.name);
    }
  }
}

/**
 * The provider pod Liqo makes of an offloaded pod: same containers and security, no node binding,
 * no virtual-node toleration, no node affinity nor node selector on the virtual node's own labels
 * (they pinned the virtual node), the anti-affinity of
 * the `liqo.io/anti-affinity-preset` annotation; labels/annotations from `meta`.
 */
export function remotePod(local: K8sObject, meta: K8sObject["metadata"]): K8sObject {
  const spec = structuredClone(rec(local.spec));
  delete spec.nodeName;
  // Selectors of the virtual node itself mean nothing on the provider.
  const selector = { ...rec(spec.nodeSelector) };
  for (const k of ["kubernetes.io/hostname", "liqo.io/type", LIQO_KEYS.remoteClusterId]) delete selector[k];
  if (Object.keys(selector).length > 0) spec.nodeSelector = selector;
  else delete spec.nodeSelector;
  spec.tolerations = arr(spec.tolerations).filter((t) => rec(t).key !== LIQO_KEYS.virtualNodeToleration);
  if (arr(spec.tolerations).length === 0) delete spec.tolerations;
  const affinity = { ...rec(spec.affinity) };
  delete affinity.nodeAffinity;
  delete affinity.podAntiAffinity;
  const anti = antiAffinityOf(local);
  if (anti) affinity.podAntiAffinity = anti;
  if (Object.keys(affinity).length > 0) spec.affinity = affinity;
  else delete spec.affinity;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { ...meta, labels: { ...meta.labels, [REFLECTION_LABELS.managedBy]: "shadowpod" } },
    spec,
    status: { phase: "Pending", qosClass: field(local.status, "qosClass") ?? "Burstable" },
  };
}

/** The podAntiAffinity Liqo derives from the preset annotation (null without one). */
export function antiAffinityOf(local: K8sObject): Record<string, unknown> | null {
  const preset = local.metadata.annotations?.[LIQO_KEYS.antiAffinityPreset];
  if (preset !== "hard" && preset !== "soft") return null;
  const keys = local.metadata.annotations?.[LIQO_KEYS.antiAffinityLabels]?.split(",").map((k) => k.trim())
    .filter(Boolean);
  const labels = local.metadata.labels ?? {};
  const matchLabels = Object.fromEntries(
    Object.entries(labels).filter(([k]) => keys === undefined || keys.includes(k)),
  );
  const term = { labelSelector: { matchLabels }, topologyKey: "kubernetes.io/hostname" };
  return preset === "hard"
    ? { requiredDuringSchedulingIgnoredDuringExecution: [term] }
    : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] };
}
