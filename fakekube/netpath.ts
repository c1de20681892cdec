/**
 * The physics of the fake data plane: where a packet from a pod to an address goes, which hops it
 * crosses and where a fault of the {@link NetworkModel} stops it. Every packet that reaches a
 * capture point (a gateway's Geneve interface towards a node, a gateway's `liqo-tunnel`) is logged
 * with the addresses it carried there, so the fake tcpdump shows exactly what crossed.
 */
import type { K8sObject } from "./object.ts";
import type { Hop, NetworkModel } from "./netmodel.ts";
import {
  clusterIdOf,
  clusterIpOf,
  configurationFor,
  consumerNamespaceOf,
  fromPeerView,
  gatewayFabricIp,
  gatewayMtu,
  gatewayPod,
  geneveIface,
  isLivePod,
  loadBalancerIps,
  netexecPorts,
  nodeAddressesOf,
  podByIp,
  REFLECTION_LABELS,
  remoteNamespaceOf,
  selects,
  serviceNameParts,
  toPeerView,
  TUNNEL_IFACE,
  twinPodOf,
  udpPortsOf,
  virtualNodePeer,
} from "./nettopo.ts";

/** The managed-by value of the EndpointSlices Liqo reflects (`pkg/virtualKubelet/forge/endpointslices.go`). */
const REFLECTED_SLICE_MANAGER = "endpointslice.reflection.liqo.io";

/** A packet's transport. */
export type Proto = "tcp" | "udp" | "icmp";

/** One attached cluster. */
interface Attached {
  name: string;
  state: () => readonly K8sObject[];
}

/** A pod as a network endpoint: the network it sits in and its address there. */
export interface Endpoint {
  /** Network (cluster) name: the attached scenario cluster, or the peer cluster ID when not attached. */
  net: string;
  /** Liqo cluster ID of that network, when known. */
  clusterId: string | null;
  /** The node it runs on (offloaded pods: the provider node per `offload.remoteNodes`, else the virtual node). */
  node: string;
  /** Its own IP in its network. */
  ip: string;
  /** Its pod object (in the cluster it is served by). */
  pod: K8sObject;
  /** The attached cluster whose API serves the pod object. */
  servedBy: string;
}

/** A packet seen at a capture point. */
export interface SeenPacket {
  /** ms since the epoch. */
  time: number;
  /** Attached cluster of the gateway pod that saw it. */
  cluster: string;
  /** "namespace/name" of that gateway pod. */
  pod: string;
  iface: string;
  proto: Proto;
  src: string;
  sport: number;
  dst: string;
  dport: number;
  payload: string;
}

/** The outcome of one packet's walk. */
export interface Walk {
  delivered: boolean;
  /** Where it was dropped; null when delivered. */
  dropAt: Hop | null;
}

/** A packet to send: from `src` (original sender) to `dst` (final receiver). */
export interface Packet {
  src: Endpoint;
  dst: Endpoint;
  proto: Proto;
  sport: number;
  dport: number;
  payload: string;
  /** IP packet size in bytes (for MTU); default small. */
  size?: number;
  /** The address the sender put as destination (how its cluster names the receiver). */
  dialed: string;
  /** The source address the receiver sees (after NAT). */
  seenSrc: string;
  /** True for an answer travelling back (NAT reversed, flaky counters untouched). */
  reply?: boolean;
  /** A second copy of a packet (duplicated on the way): not counted as an attempt. */
  copy?: boolean;
  /** Lost on the way by the path's quality (PROBE-UDP loss), at this hop. */
  lostAt?: Hop;
}

/** Where a destination address leads from a source endpoint. */
export type Target =
  | { kind: "pod"; dst: Endpoint }
  | { kind: "service"; net: string; svc: K8sObject; backends: Endpoint[]; clusterIp: string }
  | { kind: "none" };

const MAX_LOG = 20000;

/** Linux's `net.ipv4.route.mtu_expires` default: a learnt path MTU is kept 10 minutes. */
export const PMTU_EXPIRES_MS = 600_000;

/** Where a WAN address leads: the cluster, the Service and how it was reached; or an address nobody routes. */
export type WanTarget =
  | {
    kind: "service";
    cluster: string;
    svc: K8sObject;
    targetPort: number;
    via: "LoadBalancer" | "NodePort" | "PortMapping";
  }
  | { kind: "unrouted"; cluster: string; why: string };

/** What one WAN datagram met: an answer, a timeout or an ICMP refusal. */
export interface WanDial {
  outcome: "answer" | "timeout" | "refused";
  answer: string | null;
}

/** The shared data plane of one scenario. */
export class Network {
  readonly model: NetworkModel;
  readonly #clusters = new Map<string, Attached>();
  readonly #log: SeenPacket[] = [];
  readonly #attempts = new Map<string, number>();
  readonly #pmtu = new Map<string, { mtu: number; expires: number }>();
  #port = 40000;
  readonly #lbDropsUdp = new Set<string>();

  constructor(model: NetworkModel) {
    this.model = model;
  }

  /** Records what a cluster's controllers do to the data plane (its LoadBalancer drops UDP). */
  configure(name: string, opts: { loadBalancerDropsUdp: boolean }): void {
    if (opts.loadBalancerDropsUdp) this.#lbDropsUdp.add(name);
    else this.#lbDropsUdp.delete(name);
  }

  /** True when `ref` (a scenario cluster name or Liqo cluster ID; undefined = any) names `cluster`. */
  #isCluster(ref: string | undefined, cluster: string): boolean {
    return ref === undefined || ref === cluster || clusterIdOf(this.objects(cluster)) === ref;
  }

  /** Where `address:port` (UDP) leads from a pod of `from` across the WAN, or null when it is no WAN address. */
  wanTarget(from: string, address: string, port: number): WanTarget | null {
    const wan = this.model.wan;
    for (const c of this.#clusters.values()) {
      if (c.name === from) continue;
      const objects = c.state();
      const services = objects.filter((o) => o.kind === "Service");
      for (const svc of services) {
        if (!loadBalancerIps(svc).includes(address)) continue;
        const p = udpPortsOf(svc).find((x) => x.port === port);
        if (p) {
          return { kind: "service", cluster: c.name, svc, targetPort: p.targetPort, via: "LoadBalancer" };
        }
        return { kind: "unrouted", cluster: c.name, why: "no such port on the load balancer" };
      }
      const byNodePort = (nodePort: number) =>
        services.flatMap((svc) =>
          udpPortsOf(svc).filter((x) => x.nodePort === nodePort).map((x) => ({
            svc,
            targetPort: x.targetPort,
          }))
        )[0] ?? null;
      for (const m of wan.portMappings) {
        if (m.address !== address || m.port !== port || !this.#isCluster(m.cluster, c.name)) continue;
        const hit = byNodePort(m.nodePort);
        return hit
          ? { kind: "service", cluster: c.name, ...hit, via: "PortMapping" }
          : { kind: "unrouted", cluster: c.name, why: `nothing listens on NodePort ${m.nodePort}` };
      }
      const node = objects.find((o) =>
        o.kind === "Node" &&
        (nodeAddressesOf(o, "ExternalIP").includes(address) ||
          nodeAddressesOf(o, "InternalIP").includes(address))
      );
      if (!node) continue;
      if (!nodeAddressesOf(node, "ExternalIP").includes(address) && !wan.internalRoutable) {
        return { kind: "unrouted", cluster: c.name, why: `${address} is a private address of ${c.name}` };
      }
      const hit = byNodePort(port);
      // A node with nothing on that port: kube-proxy has no rule, the node's stack answers ICMP.
      return hit
        ? { kind: "service", cluster: c.name, ...hit, via: "NodePort" }
        : { kind: "unrouted", cluster: c.name, why: "closed" };
    }
    return null;
  }

  /** The source address a pod of `cluster` on `node` leaves with across the WAN (SNAT). */
  wanEgress(cluster: string, node: string): string {
    const own = this.model.wan.egress[cluster] ??
      Object.entries(this.model.wan.egress).find(([k]) => this.#isCluster(k, cluster))?.[1];
    if (own) return own;
    const n = this.objects(cluster).find((o) => o.kind === "Node" && o.metadata.name === node);
    return (n ? nodeAddressesOf(n, "ExternalIP")[0] ?? nodeAddressesOf(n, "InternalIP")[0] : undefined) ??
      "0.0.0.0";
  }

  /**
   * One UDP datagram of `size` bytes (IP packet) from `src` to a WAN address, through the firewall,
   * the LoadBalancer's UDP support, the path MTU and the Service to an echo pod. Null when the
   * address is not a WAN address (the Liqo data plane answers instead).
   */
  wanDial(
    src: Endpoint,
    address: string,
    port: number,
    request: string,
    size: number,
    sport: number,
  ): WanDial | null {
    const t = this.wanTarget(src.net, address, port);
    if (t === null) return null;
    if (t.kind === "unrouted") return { outcome: t.why === "closed" ? "refused" : "timeout", answer: null };
    const wan = this.model.wan;
    const blocked = wan.firewall.some((f) =>
      f.protocol === "udp" && this.#isCluster(f.from, src.net) && this.#isCluster(f.to, t.cluster) &&
      inPorts(f.ports, port)
    );
    if (blocked) return { outcome: "timeout", answer: null };
    if (t.via === "LoadBalancer" && this.#lbDropsUdp.has(t.cluster)) {
      return { outcome: "timeout", answer: null };
    }
    if (size > wan.mtu) return { outcome: "timeout", answer: null };
    const backends = this.objects(t.cluster).filter((o) => isLivePod(o) && selects(t.svc, o));
    // A Service without endpoints: kube-proxy rejects with ICMP port unreachable.
    if (backends.length === 0) return { outcome: "refused", answer: null };
    const pod = backends[0];
    if (netexecPorts(pod)?.udp !== t.targetPort) return { outcome: "refused", answer: null };
    const text = request.trim().toLowerCase();
    const seen = this.wanEgress(src.net, src.node);
    const answer = text === "hostname"
      ? pod.metadata.name
      : text.startsWith("echo ")
      ? text.slice(5)
      : text === "clientip"
      ? `${seen}:${sport}`
      : null;
    // The answer is as large as the request (less "echo "): it crosses the same MTU.
    return answer === null ? { outcome: "timeout", answer: null } : { outcome: "answer", answer };
  }

  /** Registers a cluster's live objects. */
  attach(name: string, state: () => readonly K8sObject[]): void {
    this.#clusters.set(name, { name, state });
  }

  /** The live objects of an attached cluster ([] when unknown). */
  objects(name: string): readonly K8sObject[] {
    return this.#clusters.get(name)?.state() ?? [];
  }

  /** The attached cluster whose Liqo cluster ID is `id`, or null. */
  clusterById(id: string): string | null {
    for (const c of this.#clusters.values()) if (clusterIdOf(c.state()) === id) return c.name;
    return null;
  }

  /** A fresh ephemeral source port. */
  ephemeralPort(): number {
    this.#port = this.#port >= 60999 ? 40000 : this.#port + 1;
    return this.#port;
  }

  /** Packets seen at a capture point between two times (inclusive), oldest first. */
  captured(cluster: string, pod: string, iface: string, from: number, to: number): SeenPacket[] {
    return this.#log.filter((p) =>
      p.cluster === cluster && p.pod === pod && p.iface === iface && p.time >= from && p.time <= to
    );
  }

  /** The endpoint of a pod served by `cluster` (offloaded pods sit in the peer's network). */
  endpointOf(cluster: string, pod: K8sObject): Endpoint | null {
    const ip = (pod.status as { podIP?: unknown } | undefined)?.podIP;
    if (typeof ip !== "string") return null;
    const objects = this.objects(cluster);
    const node = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
    const nodeName = typeof node === "string" ? node : "";
    const peer = nodeName ? virtualNodePeer(objects, nodeName) : null;
    if (peer === null) {
      return { net: cluster, clusterId: clusterIdOf(objects), node: nodeName, ip, pod, servedBy: cluster };
    }
    const peerName = this.clusterById(peer);
    // A served provider runs the pod (reflection.ts): its node and IP are the truth.
    const twin = peerName === null
      ? null
      : twinPodOf(this.objects(peerName), objects, pod, clusterIdOf(objects));
    const twinIP = (twin?.status as { podIP?: unknown } | undefined)?.podIP;
    const twinNode = (twin?.spec as { nodeName?: unknown } | undefined)?.nodeName;
    if (peerName !== null && typeof twinIP === "string" && typeof twinNode === "string") {
      return { net: peerName, clusterId: peer, node: twinNode, ip: twinIP, pod, servedBy: cluster };
    }
    const own = fromPeerView(configurationFor(objects, peer), ip) ?? ip;
    return {
      net: peerName ?? peer,
      clusterId: peer,
      node: this.#offloadNode(cluster, pod, nodeName),
      ip: own,
      pod,
      servedBy: cluster,
    };
  }

  /** Where an offloaded pod runs when its provider is not served: `offload.remoteNodes`, round robin. */
  #offloadNode(cluster: string, pod: K8sObject, virtualNode: string): string {
    const nodes = this.model.offload.remoteNodes;
    if (nodes.length === 0) return virtualNode;
    // Round robin over the offloaded pods of the same namespace (one probe run), by name.
    const peers = this.objects(cluster).filter((o) =>
      isLivePod(o) && o.metadata.namespace === pod.metadata.namespace &&
      (o.spec as { nodeName?: string } | undefined)?.nodeName === virtualNode
    ).map((o) => o.metadata.name).sort();
    const i = peers.indexOf(pod.metadata.name);
    return nodes[(i < 0 ? 0 : i) % nodes.length];
  }

  /** Every endpoint living in network `net` (pods of the attached cluster, and pods offloaded there). */
  #endpointsIn(net: string): Endpoint[] {
    const out: Endpoint[] = [];
    for (const c of this.#clusters.values()) {
      for (const o of c.state()) {
        if (!isLivePod(o)) continue;
        const ep = this.endpointOf(c.name, o);
        if (ep && ep.net === net) out.push(ep);
      }
    }
    return out;
  }

  /** The Liqo cluster ID of a network. */
  #idOf(net: string): string | null {
    return this.#clusters.has(net) ? clusterIdOf(this.objects(net)) : net;
  }

  /** Where `addr` leads from `src`. */
  resolve(src: Endpoint, addr: string): Target {
    const attached = this.#clusters.has(src.net);
    // The source network's own pods (not offloaded ones: those sit elsewhere).
    const local = this.#endpointsIn(src.net).find((e) => e.ip === addr && e.servedBy === src.net);
    if (local) return { kind: "pod", dst: local };
    const svc = this.#serviceByIp(src, addr);
    if (svc) return svc;
    // A peer's pod, addressed through the Configuration of the source's cluster for that peer.
    const objects = attached ? this.objects(src.net) : this.objects(src.servedBy);
    if (attached) {
      for (const o of objects) {
        if (o.kind !== "Configuration") continue;
        const peer = o.metadata.labels?.["liqo.io/remote-cluster-id"];
        if (!peer) continue;
        const own = fromPeerView(o, addr);
        if (own === null) continue;
        const peerNet = this.clusterById(peer) ?? peer;
        const hit = this.#endpointsIn(peerNet).find((e) => e.ip === own);
        if (hit) return { kind: "pod", dst: hit };
      }
      // Offloaded pods: the consumer addresses them by their (remapped) pod IP.
      const off = podByIp(objects, addr);
      if (off) {
        const ep = this.endpointOf(src.net, off);
        if (ep) return { kind: "pod", dst: ep };
      }
      return { kind: "none" };
    }
    // Source offloaded into a network we do not serve: consumer pods by their consumer IP.
    const consumerPod = podByIp(this.objects(src.servedBy), addr);
    if (consumerPod) {
      const ep = this.endpointOf(src.servedBy, consumerPod);
      if (ep) return { kind: "pod", dst: ep };
    }
    const same = this.#endpointsIn(src.net).find((e) => e.ip === addr);
    return same ? { kind: "pod", dst: same } : { kind: "none" };
  }

  /** The Services visible from `src`'s network with the ClusterIP they have there. */
  #services(src: Endpoint): { svc: K8sObject; ns: string; clusterIp: string; served: string }[] {
    const out: { svc: K8sObject; ns: string; clusterIp: string; served: string }[] = [];
    if (this.#clusters.has(src.net)) {
      for (const o of this.objects(src.net)) {
        if (o.kind !== "Service") continue;
        const ip = clusterIpOf(o);
        if (ip) out.push({ svc: o, ns: o.metadata.namespace ?? "", clusterIp: ip, served: src.net });
      }
      return out;
    }
    // Provider not served: Liqo reflects the consumer's Services of offloaded namespaces.
    const consumer = this.objects(src.servedBy);
    for (const o of consumer) {
      if (o.kind !== "Service") continue;
      const ns = o.metadata.namespace ?? "";
      if (!consumer.some((x) => x.kind === "NamespaceOffloading" && x.metadata.namespace === ns)) continue;
      const ip = clusterIpOf(o, "reflected");
      if (ip) out.push({ svc: o, ns: remoteNamespaceOf(consumer, ns), clusterIp: ip, served: src.servedBy });
    }
    return out;
  }

  #backends(served: string, svc: K8sObject): Endpoint[] {
    const out: Endpoint[] = [];
    for (const o of this.objects(served)) {
      if (!isLivePod(o) || !selects(svc, o)) continue;
      const ep = this.endpointOf(served, o);
      if (ep) out.push(ep);
    }
    out.push(...this.#reflectedBackends(served, svc));
    return out.sort((a, b) => a.pod.metadata.name.localeCompare(b.pod.metadata.name));
  }

  /**
   * A Service Liqo reflected into `served` also reaches the consumer's own pods: the endpoints of
   * its reflected EndpointSlices (addresses as `served` reaches them, ready ones only).
   */
  #reflectedBackends(served: string, svc: K8sObject): Endpoint[] {
    const origin = svc.metadata.labels?.[REFLECTION_LABELS.origin];
    if (!origin) return [];
    const consumer = this.clusterById(origin);
    if (consumer === null) return [];
    const objects = this.objects(served);
    const cfg = configurationFor(objects, origin);
    const consumerObjects = this.objects(consumer);
    const out: Endpoint[] = [];
    for (const slice of objects) {
      if (slice.kind !== "EndpointSlice" || slice.metadata.namespace !== svc.metadata.namespace) continue;
      if (slice.metadata.labels?.["kubernetes.io/service-name"] !== svc.metadata.name) continue;
      if (slice.metadata.labels?.["endpointslice.kubernetes.io/managed-by"] !== REFLECTED_SLICE_MANAGER) {
        continue;
      }
      const endpoints =
        (slice as { endpoints?: { addresses?: string[]; conditions?: { ready?: boolean } }[] })
          .endpoints ?? [];
      for (const ep of endpoints) {
        if (ep.conditions?.ready === false) continue;
        for (const addr of ep.addresses ?? []) {
          const pod = podByIp(consumerObjects, fromPeerView(cfg, addr) ?? addr);
          const e = pod ? this.endpointOf(consumer, pod) : null;
          if (e && !out.some((x) => x.net === e.net && x.ip === e.ip)) out.push(e);
        }
      }
    }
    return out;
  }

  #serviceByIp(src: Endpoint, addr: string): Target | null {
    const s = this.#services(src).find((x) => x.clusterIp === addr);
    if (!s) return null;
    return {
      kind: "service",
      net: src.net,
      svc: s.svc,
      clusterIp: s.clusterIp,
      backends: this.#backends(s.served, s.svc),
    };
  }

  /**
   * DNS from `src`: the model's `dns` overrides, then Service names. Returns the address and the
   * canonical name, or null (not found).
   */
  lookup(src: Endpoint, name: string): { ip: string; fqdn: string } | null {
    const overrides = { ...this.model.dns[src.clusterId ?? ""], ...this.model.dns[src.net] };
    if (Object.hasOwn(overrides, name)) {
      const ip = overrides[name];
      return ip === null ? null : { ip, fqdn: name };
    }
    // An offloaded pod's namespace, where its DNS answers, is the provider's remote namespace.
    const podNs = this.#clusters.has(src.net) && src.servedBy === src.net
      ? src.pod.metadata.namespace ?? "default"
      : remoteNamespaceOf(this.objects(src.servedBy), src.pod.metadata.namespace ?? "default");
    const parts = serviceNameParts(name, podNs);
    if (!parts) return null;
    const s = this.#services(src).find((x) => x.svc.metadata.name === parts.svc && x.ns === parts.ns);
    if (!s) return null;
    return { ip: s.clusterIp, fqdn: `${parts.svc}.${parts.ns}.svc.cluster.local` };
  }

  /** True when a backend on this endpoint's node never answers Service traffic. */
  deadBackend(ep: Endpoint): boolean {
    return this.model.deadBackends.some((r) => matches(r, ep));
  }

  /** The address `from` must dial to reach `to` (its own IP, or remapped for a peer). */
  addressFor(from: Endpoint, to: Endpoint): string {
    if (from.net === to.net) return to.ip;
    if (to.servedBy !== to.net && to.servedBy === from.net) return (to.pod.status as { podIP: string }).podIP;
    const objects = this.#clusters.has(from.net) ? this.objects(from.net) : [];
    return toPeerView(configurationFor(objects, to.clusterId), to.ip) ?? to.ip;
  }

  /** The source address `to` sees for traffic from `from` (before NAT faults). */
  expectedSource(from: Endpoint, to: Endpoint): string {
    if (from.net === to.net) return from.ip;
    if (!this.#clusters.has(to.net)) {
      // Offloaded into an unserved provider: reverse of how the consumer names it.
      return from.ip;
    }
    return toPeerView(configurationFor(this.objects(to.net), from.clusterId), from.ip) ?? from.ip;
  }

  /**
   * The source address `to` actually sees for traffic from `from`, after the model's NAT faults;
   * `replies` = false when the answer cannot find its way back (an un-remapped source).
   */
  seenSource(from: Endpoint, to: Endpoint): { addr: string; replies: boolean } {
    const expected = this.expectedSource(from, to);
    if (from.net === to.net) return { addr: expected, replies: true };
    const nat = this.model.nat.find((n) => n.into === to.net || n.into === to.clusterId);
    if (!nat) return { addr: expected, replies: true };
    if (nat.source === "unmapped") return { addr: from.ip, replies: false };
    if (nat.source === "gateway") {
      const ip = this.#clusters.has(to.net) ? gatewayFabricIp(this.objects(to.net), from.clusterId) : null;
      return { addr: ip ?? expected, replies: true };
    }
    return { addr: nat.source, replies: true };
  }

  /** The gateway MTU of a network towards a peer. */
  gatewayMtu(net: string, peerId: string | null): number {
    return gatewayMtu(this.objects(net), peerId);
  }

  /**
   * Linux's path-MTU cache of one network namespace (`key`: the sending pod) toward `addr`: an ICMP
   * "frag needed" lowers the route's MTU for `net.ipv4.route.mtu_expires` (600 s), during which a
   * larger don't-fragment send fails locally with EMSGSIZE — iputils prints the cached value as
   * `local error: message too long, mtu=X`. `learnPathMtu` records one, `cachedPathMtu` reads it.
   */
  learnPathMtu(key: string, addr: string, mtu: number, now: number = Date.now()): void {
    this.#pmtu.set(`${key}|${addr}`, { mtu, expires: now + PMTU_EXPIRES_MS });
  }

  /** The cached path MTU toward `addr` from `key`'s namespace, null when none or expired. */
  cachedPathMtu(key: string, addr: string, now: number = Date.now()): number | null {
    const hit = this.#pmtu.get(`${key}|${addr}`);
    return hit && hit.expires > now ? hit.mtu : null;
  }

  /** The path MTU through the tunnel (interface MTU, model's tunnel limit, underlay − 60). */
  tunnelPathMtu(net: string, peerId: string | null): number {
    const iface = this.gatewayMtu(net, peerId);
    return Math.min(iface, this.model.mtu.tunnel ?? Infinity, this.model.mtu.underlay - 60);
  }

  /** Counts an attempt of a flaky pair; true when this attempt is one that fails. */
  #flakyFails(p: Packet): boolean {
    for (const [i, f] of this.model.flaky.entries()) {
      if (f.protocol && f.protocol !== p.proto) continue;
      if (f.from && !matches(f.from, p.src)) continue;
      if (f.to && !matches(f.to, p.dst)) continue;
      const key = `${i}|${p.src.net}/${p.src.ip}|${p.dst.net}/${p.dst.ip}|${p.proto}`;
      const n = (this.#attempts.get(key) ?? 0) + 1;
      this.#attempts.set(key, n);
      if (n <= f.failures) return true;
    }
    return false;
  }

  /** The hop where a fault stops `p`, or null. `last` is the path's final hop. */
  #dropHop(p: Packet, hops: readonly Hop[]): Hop | null {
    const last = hops[hops.length - 1];
    const cross = hops.length > 1;
    const found: Hop[] = [];
    if (cross) {
      if (this.model.geneveBroken.some((r) => matches(r, p.src))) found.push("node-geneve");
      if (this.model.udpBlockedUnderlay) found.push("underlay");
      const size = p.size ?? 64;
      if (size > this.model.mtu.underlay - 60 || (this.model.mtu.tunnel && size > this.model.mtu.tunnel)) {
        found.push("underlay");
      }
      if (this.model.blackholedNodes.some((r) => matches(r, p.dst))) found.push("remote-node");
      if (this.model.geneveBroken.some((r) => matches(r, p.dst))) found.push("remote-node");
    }
    for (const d of this.model.drops) {
      if (d.protocol && d.protocol !== p.proto) continue;
      if (d.from && !matches(d.from, p.src)) continue;
      if (d.to && !matches(d.to, p.dst)) continue;
      found.push(d.at && hops.includes(d.at) ? d.at : last);
    }
    if (!p.reply && !p.copy && this.#flakyFails(p)) found.push(last);
    if (p.lostAt) found.push(hops.includes(p.lostAt) ? p.lostAt : last);
    if (found.length === 0) return null;
    return hops.find((h) => found.includes(h)) ?? last;
  }

  /**
   * Walks `p` over its hops, logging it at every capture point it reaches, and says whether it
   * arrived. Same-network packets cross only the CNI.
   */
  send(p: Packet, now: number = Date.now()): Walk {
    if (p.src.net === p.dst.net) {
      const drop = this.#dropHop(p, ["cni"]);
      return { delivered: drop === null, dropAt: drop };
    }
    const hops: Hop[] = ["node-geneve", "local-gateway", "underlay", "remote-gateway", "remote-node"];
    const drop = this.#dropHop(p, hops);
    const reached = drop === null ? hops.length : hops.indexOf(drop);
    // Capture point after hop i (0..3), with the addresses the packet carries there.
    const srcObjs = this.#clusters.has(p.src.net) ? this.objects(p.src.net) : [];
    const dstObjs = this.#clusters.has(p.dst.net) ? this.objects(p.dst.net) : [];
    const srcGw = this.#clusters.has(p.src.net) ? gatewayPod(srcObjs, p.dst.clusterId) : null;
    const dstGw = this.#clusters.has(p.dst.net) ? gatewayPod(dstObjs, p.src.clusterId) : null;
    const points: { net: string; gw: K8sObject | null; iface: string | null; src: string; dst: string }[] = [
      { net: p.src.net, gw: srcGw, iface: geneveIface(srcObjs, p.src.node), src: p.src.ip, dst: p.dialed },
      { net: p.src.net, gw: srcGw, iface: TUNNEL_IFACE, src: p.src.ip, dst: p.dst.ip },
      { net: p.dst.net, gw: dstGw, iface: TUNNEL_IFACE, src: p.src.ip, dst: p.dst.ip },
      { net: p.dst.net, gw: dstGw, iface: geneveIface(dstObjs, p.dst.node), src: p.seenSrc, dst: p.dst.ip },
    ];
    for (let i = 0; i < Math.min(reached, points.length); i++) {
      const c = points[i];
      if (!c.gw || !c.iface) continue;
      this.#record({
        time: now,
        cluster: c.net,
        pod: `${c.gw.metadata.namespace}/${c.gw.metadata.name}`,
        iface: c.iface,
        proto: p.proto,
        src: c.src,
        sport: p.sport,
        dst: c.dst,
        dport: p.dport,
        payload: p.payload,
      });
    }
    return { delivered: drop === null, dropAt: drop };
  }

  #record(s: SeenPacket): void {
    this.#log.push(s);
    if (this.#log.length > MAX_LOG) this.#log.splice(0, this.#log.length - MAX_LOG);
  }

  /**
   * One request/answer exchange from `src` to `dst` addressed as `dialed`: the request walks
   * there, the answer (when `answer` gives one) walks back. Returns what happened.
   */
  exchange(
    src: Endpoint,
    dst: Endpoint,
    dialed: string,
    proto: Proto,
    dport: number,
    request: string,
    answer: (seen: string, sport: number) => string | null,
    opts: { size?: number; sport?: number; duplicate?: boolean; lostAt?: Hop } = {},
  ): { there: Walk; back: Walk | null; seenSrc: string; sport: number; reply: string | null } {
    const sport = opts.sport ?? this.ephemeralPort();
    const seen = this.seenSource(src, dst);
    const req: Packet = {
      src,
      dst,
      proto,
      sport,
      dport,
      payload: request,
      dialed,
      seenSrc: seen.addr,
      size: opts.size,
      lostAt: opts.lostAt,
    };
    const there = this.send(req);
    if (opts.duplicate && there.delivered) this.send({ ...req, copy: true });
    if (!there.delivered) return { there, back: null, seenSrc: seen.addr, sport, reply: null };
    const reply = answer(seen.addr, sport);
    if (reply === null) return { there, back: null, seenSrc: seen.addr, sport, reply: null };
    const back: Packet = {
      src: dst,
      dst: src,
      proto,
      sport: dport,
      dport: sport,
      payload: reply,
      dialed: seen.addr,
      seenSrc: dialed,
      reply: true,
    };
    let walk = this.send(back);
    if (opts.duplicate && walk.delivered) this.send({ ...back, copy: true });
    if (!seen.replies) walk = { delivered: false, dropAt: "remote-gateway" };
    return { there, back: walk, seenSrc: seen.addr, sport, reply };
  }

  /** The ports netexec listens on in `ep`'s pod, or null. */
  listening(ep: Endpoint): { http: number; udp: number } | null {
    return netexecPorts(ep.pod);
  }

  /** The name of the attached cluster serving `net`'s gateway objects, or null. */
  isAttached(net: string): boolean {
    return this.#clusters.has(net);
  }

  /** Consumer namespace for a provider namespace name (offload). */
  consumerNamespace(served: string, remoteNs: string): string | null {
    return consumerNamespaceOf(this.objects(served), remoteNs);
  }

  /** Liqo cluster ID of an attached network (or the network itself when it is a bare ID). */
  idOf(net: string): string | null {
    return this.#idOf(net);
  }
}

/** True when a fault ref ("cluster" or "cluster/node") names endpoint `ep`. */
export function matches(ref: string, ep: Endpoint): boolean {
  const [c, n] = ref.split("/");
  const clusterOk = c === ep.net || c === ep.clusterId;
  return clusterOk && (n === undefined || n === ep.node);
}

/** True when `port` is in a firewall rule's ports (a number, "a-b", or omitted = every port). */
function inPorts(ports: number | string | undefined, port: number): boolean {
  if (ports === undefined) return true;
  if (typeof ports === "number") return ports === port;
  const [a, b] = ports.split("-").map(Number);
  return port >= a && port <= b;
}
