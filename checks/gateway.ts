/**
 * GATEWAY EXPOSURE layer (GW-01…GW-06): the per-peer gateway workload, how the gateway server is
 * exposed (Service), what it advertises (GatewayServer.status.endpoint), what the client dials, a UDP
 * probe of the endpoint, and the gateway's stability. Field paths follow FACTS §2.3, §2.4, §4.2, §8.3.
 */
import type { CheckContext, CheckDef, Outcome } from "./types.ts";
import type { K8sObject } from "../kube/source.ts";
import {
  activeGatewayPod,
  ageMs,
  conditionOf,
  containerSummaries,
  formatAge,
  GATEWAY_LABELS,
  gatewayOf,
  gatewayPods,
  type GatewayRef,
  isVirtualNode,
  liqoNamespaceOf,
  nodeReady,
  REMOTE_ID_LABEL,
  warningEventsFor,
} from "../liqo/lookups.ts";
import { contains, isPrivate, parseCidr, parseIPv4 } from "../probes/cidr.ts";
import { PRECISE_UDP_UNAVAILABLE } from "../probes/udp.ts";
import { containerArgs } from "../liqo/args.ts";
import { type Endpoint, endpointOf, formatEndpoint, preferredNodeAddress } from "../liqo/endpoints.ts";
import {
  gatewayDeployment,
  type GatewayLookup,
  lookupGateway,
  networkingDisabled,
} from "./common/gateway.ts";

/** The three containers of a gateway pod (FACTS §4.2). */
export const GATEWAY_CONTAINERS: readonly string[] = ["gateway", "wireguard", "geneve"];

/** A restart whose termination finished less than this long ago is "recent" (GW-01). */
const RECENT_RESTART_MS = 60 * 60 * 1000;
/** GW-06 warns from this many restarts of one container. */
const REPEATED_RESTARTS = 3;
/** GW-06: terminations younger than this count as recent. */
const RECENT_TERMINATION_MS = 24 * 60 * 60 * 1000;
/** GW-06: a pod younger than this, created well after the peering, was recreated lately. */
const RECREATED_WINDOW_MS = 30 * 60 * 1000;
/** GW-06: slack between peering creation and the first gateway pod. */
const RECREATED_SLACK_MS = 10 * 60 * 1000;

/** `kubectl -n <ns>` prefix. */
function k(ns: string): string {
  return `kubectl -n ${ns}`;
}

// ---------------------------------------------------------------------------------------------
// GW-01 gateway workload

function gw01(ctx: CheckContext): Outcome {
  if (!ctx.peer) return { status: "unknown", summary: "no peer given to a per-peer check" };
  const peerId = ctx.peer.clusterId;
  const gw = gatewayOf(ctx.cluster.inv, peerId);
  if (!gw) return noGateway(ctx, peerId);
  const evidence: string[] = [
    `${gw.role === "server" ? "GatewayServer" : "GatewayClient"} ${gw.namespace}/${gw.name}`,
  ];
  const dep = gatewayDeployment(ctx, gw);
  const logs = `${k(gw.namespace)} logs deploy/${gw.workloadName} -c wireguard --previous`;
  if (!dep) {
    return {
      status: "fail",
      summary: `gateway Deployment ${gw.namespace}/${gw.workloadName} is missing`,
      evidence: [...evidence, `no Deployment ${gw.workloadName} in ${gw.namespace}`],
      remediation:
        `${k(gw.namespace)} get wg${
          gw.role === "server" ? "gatewayserver" : "gatewayclient"
        } ${gw.name} -o yaml\n` +
        `kubectl -n ${
          ctx.cluster.liqoNamespace ?? "liqo"
        } logs deploy/liqo-controller-manager | grep ${gw.name}`,
    };
  }
  const desired = typeof dep.spec?.replicas === "number" ? dep.spec.replicas : 1;
  const ready = dep.status?.readyReplicas ?? 0;
  evidence.push(`Deployment ${gw.workloadName}: ${ready}/${desired} ready`);
  if (desired === 0) {
    return {
      status: "fail",
      summary: `gateway Deployment ${gw.workloadName} is scaled to 0 replicas`,
      evidence,
      remediation: `${k(gw.namespace)} scale deploy/${gw.workloadName} --replicas=1`,
    };
  }
  const pods = gatewayPods(ctx.cluster.inv, gw).filter((p) => !p.metadata.deletionTimestamp);
  const passEvidence = [...evidence, ...pods.flatMap((p) => podEvidence(ctx, p))];
  // Warning events explain a finding (FailedScheduling, BackOff…); a passing result stays as it was.
  for (const p of pods) evidence.push(...podEvidence(ctx, p), ...eventLines(ctx, "Pod", p));
  if (pods.length === 0) {
    evidence.push(...eventLines(ctx, "Deployment", dep));
    return {
      status: "fail",
      summary: `no pod for gateway Deployment ${gw.workloadName} (${ready}/${desired} ready)`,
      evidence,
      remediation: `${k(gw.namespace)} describe deploy/${gw.workloadName}\n` +
        `${k(gw.namespace)} get events --field-selector involvedObject.kind=ReplicaSet`,
    };
  }
  const active = activeGatewayPod(ctx.cluster.inv, gw);
  if (!active) {
    const p = pods[0];
    return {
      status: "fail",
      summary: `gateway pod ${p.metadata.name} is not running (${podPhaseText(p)})`,
      evidence,
      remediation: `${k(gw.namespace)} describe pod ${p.metadata.name}\n${logs}`,
    };
  }
  const summaries = containerSummaries(active);
  const down = GATEWAY_CONTAINERS.filter((c) => summaries.find((s) => s.name === c)?.state !== "running");
  if (down.length > 0) {
    const first = summaries.find((s) => s.name === down[0]);
    const why = first
      ? `${first.state}${first.lastTermination ? ` — ${first.lastTermination}` : ""}`
      : "no status";
    return {
      status: "fail",
      summary: `gateway pod ${active.metadata.name}: container ${down.join(", ")} not running (${why})`,
      evidence,
      remediation: `${k(gw.namespace)} logs ${active.metadata.name} -c ${down[0]} --previous\n` +
        `${k(gw.namespace)} describe pod ${active.metadata.name}` + kernelHint(first?.lastTermination ?? ""),
    };
  }
  const recent = recentRestarts(ctx, active);
  if (recent.length > 0) {
    return {
      status: "warn",
      summary: `gateway pod ${active.metadata.name} running, but ${
        recent.join(", ")
      } restarted within the last hour`,
      evidence,
      remediation: `${k(gw.namespace)} logs ${active.metadata.name} -c ${recent[0]} --previous`,
    };
  }
  if (ready < desired) {
    return {
      status: "warn",
      summary: `gateway ${active.metadata.name} running, but only ${ready}/${desired} replicas ready`,
      evidence,
      remediation: `${k(gw.namespace)} describe deploy/${gw.workloadName}`,
    };
  }
  return {
    status: "pass",
    summary: `gateway pod ${active.metadata.name} running (gateway, wireguard, geneve)`,
    evidence: passEvidence,
  };
}

/** Warning events of an object as indented evidence lines (none when events are unreadable). */
function eventLines(ctx: CheckContext, kind: string, o: K8sObject): string[] {
  return warningEventsFor(ctx.cluster.inv, kind, o.metadata.namespace, o.metadata.name, ctx.cluster.now)
    .map((l) => `  event: ${l}`);
}

function noGateway(ctx: CheckContext, peerId: string): Outcome {
  if (networkingDisabled(ctx.peer?.foreignCluster)) {
    return { status: "skip", summary: "networking not enabled for this peer" };
  }
  const ns = ctx.peer?.tenantNamespace ?? `liqo-tenant-${peerId}`;
  return {
    status: "fail",
    summary:
      `no gateway for peer ${peerId}: neither a GatewayServer nor a GatewayClient labelled ${REMOTE_ID_LABEL}=${peerId}`,
    evidence: [
      `ForeignCluster ${peerId}: networking module ${
        ctx.peer?.foreignCluster?.status?.modules?.networking?.enabled === true ? "enabled" : "state unknown"
      }`,
      `no GatewayServer/GatewayClient with ${REMOTE_ID_LABEL}=${peerId} on ${ctx.cluster.name}`,
    ],
    remediation: `kubectl get gatewayservers,gatewayclients -A --show-labels\n` +
      `# re-create the network between the clusters (run on the consumer):\n` +
      `liqoctl network connect --remote-kubeconfig <peer kubeconfig>   # or: liqoctl peer …\n` +
      `${k(ns)} get events`,
  };
}

function podPhaseText(p: K8sObject): string {
  const phase = p.status?.phase ?? "unknown phase";
  const sched = conditionOf(p, "PodScheduled");
  if (sched?.status === "False") return `${phase}, ${sched.reason ?? "not scheduled"}`;
  const waiting = containerSummaries(p).find((s) => s.state.startsWith("waiting"));
  return waiting ? `${phase}, ${waiting.name} ${waiting.state}` : phase;
}

function podEvidence(ctx: CheckContext, p: K8sObject): string[] {
  const node = p.spec?.nodeName ? ` on ${p.spec.nodeName}` : "";
  const active = p.metadata.labels?.[GATEWAY_LABELS.active] === "true" ? ", active" : "";
  const out = [
    `pod ${p.metadata.name}: ${p.status?.phase ?? "unknown phase"}${node}${active}, age ${
      formatAge(ageMs(ctx.cluster.now, p.metadata.creationTimestamp))
    }`,
  ];
  const sched = conditionOf(p, "PodScheduled");
  if (sched?.status === "False") {
    out.push(`  PodScheduled=False ${sched.reason ?? ""}: ${sched.message ?? ""}`.trimEnd());
  }
  for (const s of containerSummaries(p)) {
    out.push(
      `  ${s.name}: ${s.state}, restarts ${s.restarts}${
        s.lastTermination ? `, last: ${s.lastTermination}` : ""
      }`,
    );
  }
  return out;
}

function kernelHint(termination: string): string {
  return /kernel/i.test(termination)
    ? "\n# the node kernel is below 5.10: move the gateway to a newer node or upgrade the kernel (see ENV-05)"
    : "";
}

/** Containers of a pod whose last termination finished within the last hour. */
function recentRestarts(ctx: CheckContext, pod: K8sObject): string[] {
  // deno-lint-ignore no-explicit-any
  const statuses: any[] = pod.status?.containerStatuses ?? [];
  return statuses.filter((s) => {
    if (!(s?.restartCount > 0)) return false;
    const age = ageMs(ctx.cluster.now, s.lastState?.terminated?.finishedAt);
    return age !== null && age < RECENT_RESTART_MS;
  }).map((s) => String(s.name));
}

// ---------------------------------------------------------------------------------------------
// GW-02 server Service exposure

/** The gateway server Service: by template labels in the gateway namespace, else by name `gw-<name>`. */
export function gatewayService(ctx: CheckContext, gw: GatewayRef): K8sObject | undefined {
  const svcs = ctx.cluster.inv.items("services").filter((s) => s.metadata.namespace === gw.namespace);
  return svcs.find((s) =>
    s.metadata.labels?.[GATEWAY_LABELS.component] === "gateway" &&
    s.metadata.labels?.[GATEWAY_LABELS.name] === gw.name
  ) ?? svcs.find((s) => s.metadata.name === gw.workloadName);
}

/** The Service port of the gateway (matching GatewayServer spec.endpoint.port, else the first). */
// deno-lint-ignore no-explicit-any
export function servicePort(svc: K8sObject, gw: GatewayRef): any | undefined {
  // deno-lint-ignore no-explicit-any
  const ports: any[] = svc.spec?.ports ?? [];
  const want = gw.object.spec?.endpoint?.port;
  return ports.find((p) => p?.port === want) ?? ports.find((p) => p?.protocol === "UDP") ?? ports[0];
}

function serverOnly(ctx: CheckContext): GatewayLookup {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l;
  if (l.gw.role !== "server") {
    return { outcome: { status: "skip", summary: "the gateway server runs on the peer" } };
  }
  return l;
}

interface NodeAddr {
  node: string;
  type: string;
  address: string;
}

function nodeAddresses(inv: CheckContext["cluster"]["inv"]): NodeAddr[] {
  const out: NodeAddr[] = [];
  for (const n of inv.items("nodes")) {
    if (isVirtualNode(n)) continue;
    // deno-lint-ignore no-explicit-any
    for (const a of (n.status?.addresses ?? []) as any[]) {
      if (["ExternalIP", "ExternalDNS", "InternalIP", "InternalDNS"].includes(a?.type) && a?.address) {
        out.push({ node: n.metadata.name, type: a.type, address: String(a.address) });
      }
    }
  }
  return out;
}

function gw02(ctx: CheckContext): Outcome {
  const l = serverOnly(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const svc = gatewayService(ctx, gw);
  const wantType = gw.object.spec?.endpoint?.serviceType ?? "ClusterIP";
  if (!svc) {
    return {
      status: "fail",
      summary: `gateway server Service ${gw.namespace}/${gw.workloadName} is missing`,
      evidence: [
        `GatewayServer ${gw.name}: spec.endpoint.serviceType ${wantType}`,
        `no Service ${gw.workloadName}`,
      ],
      remediation: `${k(gw.namespace)} get wggatewayserver ${gw.name} -o yaml\n` +
        `kubectl -n ${
          ctx.cluster.liqoNamespace ?? "liqo"
        } logs deploy/liqo-controller-manager | grep ${gw.name}`,
    };
  }
  const type = svc.spec?.type ?? "ClusterIP";
  const port = servicePort(svc, gw);
  const name = `${gw.namespace}/${svc.metadata.name}`;
  const evidence = [
    `Service ${name}: type ${type}, port ${port?.port ?? "?"}/${port?.protocol ?? "?"}${
      port?.nodePort ? `, nodePort ${port.nodePort}` : ""
    }`,
  ];
  if (type !== wantType) evidence.push(`GatewayServer ${gw.name} asks for ${wantType}`);
  if (type === "LoadBalancer") return lbExposure(ctx, gw, svc, evidence);
  if (type === "NodePort") return nodePortExposure(ctx, gw, port, evidence);
  evidence.push(...eventLines(ctx, "Service", svc));
  return {
    status: "warn",
    summary:
      `gateway server Service ${svc.metadata.name} is ${type}: reachable only from inside the cluster network`,
    evidence,
    remediation:
      `# the peer must reach this endpoint over UDP; expose it with a LoadBalancer or NodePort:\n` +
      `liqoctl peer --remote-kubeconfig <kubeconfig> --gw-server-service-type LoadBalancer   # or NodePort`,
  };
}

function lbExposure(ctx: CheckContext, gw: GatewayRef, svc: K8sObject, evidence: string[]): Outcome {
  // deno-lint-ignore no-explicit-any
  const ingress: any[] = svc.status?.loadBalancer?.ingress ?? [];
  const addrs = ingress.map((i) => i?.ip ?? i?.hostname).filter((a) => a);
  if (addrs.length > 0) {
    evidence.push(`LoadBalancer ingress: ${addrs.join(", ")}`);
    return {
      status: "pass",
      summary: `LoadBalancer ${svc.metadata.name} exposed at ${addrs.join(", ")}`,
      evidence,
    };
  }
  evidence.push(
    `LoadBalancer ingress: <pending> (status.loadBalancer is empty), Service age ${
      formatAge(ageMs(ctx.cluster.now, svc.metadata.creationTimestamp))
    }`,
  );
  const np = servicePort(svc, gw)?.nodePort;
  const events = eventLines(ctx, "Service", svc);
  evidence.push(...events);
  if (events.some(rejectsUdp)) {
    return {
      status: "fail",
      summary:
        `LoadBalancer Service ${svc.metadata.name} stuck <pending>: the cloud load balancer does not ` +
        `support UDP, which the gateway needs (see the Service's events)`,
      evidence,
      remediation:
        `# this cloud load balancer cannot carry the gateway's UDP port: expose the gateway with a NodePort\n` +
        `# and open UDP ${np ?? "<nodePort>"} to the nodes in the cloud firewall / security group:\n` +
        `liqoctl peer --remote-kubeconfig <kubeconfig> --gw-server-service-type NodePort\n` +
        `# or keep a LoadBalancer of a kind that supports UDP (e.g. a network load balancer; see the provider's ` +
        `Service annotations)\n` +
        `${k(gw.namespace)} describe svc ${svc.metadata.name}`,
    };
  }
  return {
    status: "fail",
    summary:
      `LoadBalancer Service ${svc.metadata.name} stuck <pending>: no external address for the gateway server`,
    evidence,
    remediation:
      `${k(gw.namespace)} describe svc ${svc.metadata.name}   # events say why no address was assigned\n` +
      `# no LoadBalancer controller (bare metal, kind, k3s without servicelb): install one, e.g. MetalLB\n` +
      `# cloud load balancer without UDP support: use a NodePort and open UDP ${
        np ?? "<nodePort>"
      } in the firewall:\n` +
      `liqoctl peer --remote-kubeconfig <kubeconfig> --gw-server-service-type NodePort`,
  };
}

/** An event line saying the load balancer refuses UDP (e.g. SyncLoadBalancerFailed on a TCP-only LB). */
function rejectsUdp(line: string): boolean {
  return /\bUDP\b/i.test(line) &&
    /not supported|unsupported|does not support|doesn't support|cannot|mixed protocol|invalid protocol/i
      .test(line);
}

function nodePortExposure(
  ctx: CheckContext,
  gw: GatewayRef,
  // deno-lint-ignore no-explicit-any
  port: any,
  evidence: string[],
): Outcome {
  const np = port?.nodePort;
  const addrs = nodeAddresses(ctx.cluster.inv);
  for (const a of addrs) {
    const priv = parseIPv4(a.address) !== null ? (isPrivate(a.address) ? " (private)" : " (public)") : "";
    evidence.push(`node ${a.node}: ${a.type} ${a.address}${priv}`);
  }
  const active = activeGatewayPod(ctx.cluster.inv, gw);
  if (active?.spec?.nodeName) evidence.push(`active gateway pod on ${active.spec.nodeName}`);
  const reachable = addrs.filter((a) =>
    a.type.endsWith("DNS") || (parseIPv4(a.address) !== null && !isPrivate(a.address))
  );
  if (reachable.length > 0 || addrs.length === 0) {
    return {
      status: addrs.length === 0 ? "unknown" : "pass",
      summary: addrs.length === 0
        ? `NodePort ${np ?? "?"}: no node addresses found`
        : `NodePort ${np ?? "?"} on nodes with public addresses (${
          reachable.map((a) => a.address).join(", ")
        })`,
      evidence,
    };
  }
  const nat = peerDialsElsewhere(ctx, addrs);
  if (nat) {
    evidence.push(nat);
    return {
      status: "pass",
      summary: `NodePort ${np ?? "?"} on private node addresses, reached through a NAT mapping (see GW-04)`,
      evidence,
    };
  }
  const samenet = sharedPrivateNetwork(ctx, addrs);
  if (samenet) {
    evidence.push(samenet);
    return {
      status: "pass",
      summary: `NodePort ${np ?? "?"} on private node addresses shared with the peer`,
      evidence,
    };
  }
  return {
    status: "warn",
    summary: `NodePort ${np ?? "?"}: all node addresses are private — the peer must reach one of them: ` +
      `it works only if the peer is on the same private network`,
    evidence,
    remediation:
      `# if the peer is elsewhere: expose the server with a LoadBalancer, or port-map UDP ${
        np ?? "<nodePort>"
      } on your NAT\n` +
      `# and point the client at the public address (docs: advanced/nat.md):\n` +
      `liqoctl peer --remote-kubeconfig <kubeconfig> --gw-server-service-type NodePort --gw-server-service-nodeport ${
        np ?? "<port>"
      } --gw-client-address <public IP> --gw-client-port <public port>`,
  };
}

/** Dual mode: the peer's GatewayClient dials a public address that is none of our nodes (NAT override). */
function peerDialsElsewhere(ctx: CheckContext, local: NodeAddr[]): string | null {
  if (!ctx.remote || !ctx.remotePeer) return null;
  const client = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
  if (client?.role !== "client") return null;
  const addr = endpointOf(client.object.spec?.endpoint)?.addresses[0];
  if (!addr || local.some((a) => a.address === addr)) return null;
  if (parseIPv4(addr) !== null && isPrivate(addr)) return null;
  return `${ctx.remote.name} GatewayClient dials ${addr}:${
    client.object.spec?.endpoint?.port ?? "?"
  }, not a node address`;
}

/** Dual mode: a local private node address whose /16 also holds a node of the other cluster. */
function sharedPrivateNetwork(ctx: CheckContext, local: NodeAddr[]): string | null {
  if (!ctx.remote) return null;
  let remote: NodeAddr[];
  try {
    remote = nodeAddresses(ctx.remote.inv);
  } catch {
    return null;
  }
  for (const a of local) {
    const net = parseCidr(`${a.address}/16`);
    if (!net) continue;
    const r = remote.find((x) => contains(net, x.address));
    if (r) return `peer node ${r.node} (${r.address}) is on the same private network ${net.text}`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// GW-03 advertised endpoint = actual exposure

/** What GatewayServer.status.endpoint should say given the Service (FACTS §2.3). */
export function expectedServerEndpoint(
  ctx: CheckContext,
  gw: GatewayRef,
  svc: K8sObject,
): { endpoint: Endpoint; note: string } | { skip: string } {
  const type = svc.spec?.type ?? "ClusterIP";
  const port = servicePort(svc, gw);
  if (type === "LoadBalancer") {
    // deno-lint-ignore no-explicit-any
    const ingress: any[] = svc.status?.loadBalancer?.ingress ?? [];
    const addresses: string[] = [];
    for (const i of ingress) {
      if (i?.ip) addresses.push(String(i.ip));
      if (i?.hostname) addresses.push(String(i.hostname));
    }
    return { endpoint: { addresses, port: port?.port ?? null }, note: "LoadBalancer ingress + service port" };
  }
  if (type === "NodePort") {
    const active = activeGatewayPod(ctx.cluster.inv, gw);
    if (!active?.spec?.nodeName) {
      return { skip: "no running gateway pod, so no node address to advertise (see GW-01)" };
    }
    const node = ctx.cluster.inv.items("nodes").find((n) => n.metadata.name === active.spec.nodeName);
    const ready = node ? nodeReady(node) : false;
    const addr = node && ready ? preferredNodeAddress(node) ?? "" : "";
    return {
      endpoint: { addresses: [addr], port: port?.nodePort ?? null },
      note: `address of node ${active.spec.nodeName}${ready ? "" : ' (NotReady → "")'} + nodePort`,
    };
  }
  // deno-lint-ignore no-explicit-any
  const ips: string[] = ((svc.spec?.clusterIPs as any[] | undefined) ?? [svc.spec?.clusterIP]).filter((x) =>
    x
  )
    .map(String);
  return { endpoint: { addresses: ips, port: port?.port ?? null }, note: "ClusterIP + service port" };
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function gw03(ctx: CheckContext): Outcome {
  const l = serverOnly(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const svc = gatewayService(ctx, gw);
  if (!svc) return { status: "skip", summary: "no gateway server Service (see GW-02)" };
  const exp = expectedServerEndpoint(ctx, gw, svc);
  if ("skip" in exp) return { status: "skip", summary: exp.skip };
  const status = endpointOf(gw.object.status?.endpoint);
  const evidence = [
    `GatewayServer ${gw.namespace}/${gw.name} status.endpoint: ${formatEndpoint(status)}`,
    `Service ${svc.metadata.name} (${svc.spec?.type ?? "ClusterIP"}) → ${
      formatEndpoint(exp.endpoint)
    } (${exp.note})`,
  ];
  const wg = (ctx.cluster.inv.tryItems("wggatewayservers") ?? []).find((w) =>
    w.metadata.namespace === gw.namespace && w.metadata.name === gw.name
  );
  if (wg) {
    evidence.push(
      `WgGatewayServer ${gw.name} status.endpoint: ${formatEndpoint(endpointOf(wg.status?.endpoint))}`,
    );
  }
  const cm = `kubectl -n ${ctx.cluster.liqoNamespace ?? "liqo"}`;
  const refresh = `${cm} logs deploy/liqo-controller-manager | grep -i ${gw.name}\n` +
    `${cm} rollout restart deploy/liqo-controller-manager   # re-reconciles status.endpoint from the Service`;
  if (!status || status.addresses.length === 0) {
    return {
      status: "fail",
      summary: `GatewayServer ${gw.name} advertises no endpoint (status.endpoint missing)`,
      evidence,
      remediation: `${k(gw.namespace)} get gatewayserver ${gw.name} -o yaml\n${refresh}`,
    };
  }
  if (status.addresses[0] === "") {
    return {
      status: "fail",
      summary:
        `GatewayServer ${gw.name} advertises an empty address: the node running the gateway is NotReady`,
      evidence,
      remediation: `kubectl get nodes -o wide\n${k(gw.namespace)} get pods -o wide`,
    };
  }
  const addrOk = sameSet(status.addresses, exp.endpoint.addresses);
  const portOk = status.port === exp.endpoint.port;
  if (addrOk && portOk) {
    return {
      status: "pass",
      summary: `advertised endpoint ${formatEndpoint(status)} matches the Service`,
      evidence,
    };
  }
  const what = [!addrOk ? "address" : "", !portOk ? "port" : ""].filter((x) => x).join(" and ");
  return {
    status: "fail",
    summary: `GatewayServer ${gw.name} advertises a stale ${what}: ${
      formatEndpoint(status)
    }, the Service is at ${formatEndpoint(exp.endpoint)}`,
    evidence,
    remediation: `${refresh}\n# then make sure the peer's GatewayClient dials the new endpoint (GW-04)`,
  };
}

// ---------------------------------------------------------------------------------------------
// GW-04 the client dials the server (dual)

interface Side {
  cluster: string;
  inv: CheckContext["cluster"]["inv"];
  gw: GatewayRef;
}

/** Server and client side of a peering in dual mode, or an outcome. */
export function dualSides(ctx: CheckContext): { server: Side; client: Side } | { outcome: Outcome } {
  if (!ctx.peer || !ctx.remote || !ctx.remotePeer) {
    return { outcome: { status: "skip", summary: "needs --remote-kubeconfig" } };
  }
  const local = gatewayOf(ctx.cluster.inv, ctx.peer.clusterId);
  const remote = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
  if (!local || !remote) {
    const where = !local ? ctx.cluster.name : ctx.remote.name;
    return { outcome: { status: "skip", summary: `no gateway for this peering on ${where} (see GW-01)` } };
  }
  if (local.role === remote.role) {
    return {
      outcome: {
        status: "fail",
        summary: `both clusters host a Gateway${
          local.role === "server" ? "Server" : "Client"
        } for this peering`,
        evidence: [
          `${ctx.cluster.name}: ${local.role} ${local.namespace}/${local.name}`,
          `${ctx.remote.name}: ${remote.role} ${remote.namespace}/${remote.name}`,
        ],
        remediation:
          `liqoctl network reset --remote-kubeconfig <kubeconfig>\nliqoctl network connect --remote-kubeconfig <kubeconfig>`,
      },
    };
  }
  const a: Side = { cluster: ctx.cluster.name, inv: ctx.cluster.inv, gw: local };
  const b: Side = { cluster: ctx.remote.name, inv: ctx.remote.inv, gw: remote };
  return local.role === "server" ? { server: a, client: b } : { server: b, client: a };
}

function allPrivate(addresses: string[]): boolean {
  return addresses.length > 0 && addresses.every((a) => parseIPv4(a) !== null && isPrivate(a));
}

function gw04(ctx: CheckContext): Outcome {
  const s = dualSides(ctx);
  if ("outcome" in s) return s.outcome;
  const { server, client } = s;
  const srv = endpointOf(server.gw.object.status?.endpoint);
  if (!srv || srv.addresses.length === 0) {
    return { status: "skip", summary: "the server advertises no endpoint (see GW-03)" };
  }
  const spec = endpointOf(client.gw.object.spec?.endpoint);
  const dep = client.inv.get("deployments", client.gw.namespace, client.gw.workloadName);
  const args = containerArgs(dep?.spec?.template?.spec, "wireguard");
  const argAddr = args.get("endpoint-address") ?? null;
  const argPort = args.has("endpoint-port") ? Number(args.get("endpoint-port")) : null;
  const specAddr = spec?.addresses[0] ?? null;
  const specPort = spec?.port ?? null;
  const evidence = [
    `${client.cluster} GatewayClient → ${formatEndpoint(spec)} | ${server.cluster} GatewayServer ← ${
      formatEndpoint(srv)
    }`,
    `${client.cluster} Deployment ${client.gw.workloadName} wireguard args: --endpoint-address=${
      argAddr ?? "(absent)"
    } --endpoint-port=${argPort ?? "(absent)"}`,
  ];
  if (spec && spec.addresses.length > 1) evidence.push(`only addresses[0] (${specAddr}) is dialled`);
  const fixClient =
    `# on ${client.cluster} (the client), point the GatewayClient at the server's endpoint:\n` +
    `${
      k(client.gw.namespace)
    } patch gatewayclient ${client.gw.name} --type merge -p '{"spec":{"endpoint":{"addresses":["${
      srv.addresses[0]
    }"],"port":${srv.port}}}}'\n` +
    `# or re-run the peering: liqoctl network connect --remote-kubeconfig <kubeconfig> (or liqoctl peer)`;
  if (!spec || specAddr === null) {
    return {
      status: "fail",
      summary: `GatewayClient ${client.gw.name} has no endpoint`,
      evidence,
      remediation: fixClient,
    };
  }
  if (dep && (argAddr !== specAddr || (argPort !== null && argPort !== specPort))) {
    return {
      status: "fail",
      summary: `the running client gateway dials ${argAddr ?? "?"}:${
        argPort ?? "?"
      }, its GatewayClient says ${specAddr}:${specPort}`,
      evidence,
      remediation:
        `# on ${client.cluster}: the gateway Deployment was not re-rendered from the GatewayClient\n` +
        `${k(client.gw.namespace)} get wggatewayclient ${client.gw.name} -o yaml\n` +
        `kubectl -n ${
          liqoNamespaceOf(client.inv) ?? "liqo"
        } logs deploy/liqo-controller-manager | grep ${client.gw.name}`,
    };
  }
  if (srv.addresses.includes(specAddr) && specPort === srv.port) {
    return {
      status: "pass",
      summary: `client dials ${specAddr}:${specPort}, which the server advertises`,
      evidence,
    };
  }
  if (allPrivate(srv.addresses) && !srv.addresses.includes(specAddr)) {
    evidence.push(
      `server endpoint is private (${
        srv.addresses.join(", ")
      }): a client address override is expected behind NAT`,
    );
    return {
      status: "warn",
      summary:
        `client dials ${specAddr}:${specPort}, not the server's ${
          formatEndpoint(srv)
        }: looks like a deliberate NAT ` +
        `override (--gw-client-address/--gw-client-port) — make sure the NAT forwards it to the server`,
      evidence,
      remediation:
        `# verify the NAT maps UDP ${specAddr}:${specPort} → ${
          srv.addresses[0]
        }:${srv.port} (docs: advanced/nat.md)\n` +
        `# GW-05 probes ${specAddr}:${specPort} from this host; TUN-01/TUN-02 show whether the tunnel comes up`,
    };
  }
  return {
    status: "fail",
    summary: `client dials ${specAddr}:${specPort}, but the server advertises ${
      formatEndpoint(srv)
    }: stale client endpoint`,
    evidence,
    remediation: fixClient,
  };
}

// ---------------------------------------------------------------------------------------------
// GW-05 UDP probe

function gw05(ctx: CheckContext): Promise<Outcome> | Outcome {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const ep = gw.role === "server"
    ? endpointOf(gw.object.status?.endpoint)
    : endpointOf(gw.object.spec?.endpoint);
  const field = gw.role === "server" ? "GatewayServer status.endpoint" : "GatewayClient spec.endpoint";
  if (!ep || !ep.addresses[0] || ep.port === null) {
    return { status: "skip", summary: `no endpoint to probe (${field}: ${formatEndpoint(ep)})` };
  }
  if (!ctx.options.networkProbes) {
    return { status: "skip", summary: "network probes disabled (--no-network-probes)" };
  }
  if (ctx.cluster.isSnapshot) {
    return { status: "skip", summary: "not probed: snapshot (host-side probes are not replayed)" };
  }
  return probeUdp(ctx, ep.addresses[0], ep.port, field);
}

async function probeUdp(ctx: CheckContext, host: string, port: number, field: string): Promise<Outcome> {
  const r = await ctx.probes.udp(host, port);
  const evidence = [`${field}: ${host}:${port}`, `from this host: ${r.outcome} — ${r.detail}`];
  const nc = `nc -u -v ${host} ${port}`;
  switch (r.outcome) {
    case "reply":
      return { status: "pass", summary: `UDP ${host}:${port} answered from here`, evidence };
    case "refused":
      return {
        status: "fail",
        summary:
          `UDP ${host}:${port} refused (ICMP port unreachable): nothing listens there or a firewall rejects`,
        evidence,
        remediation: `# check the Service/port mapping and any firewall between here and ${host}\n${nc}`,
      };
    case "silence": {
      // --udp-precise may have fallen back to the default probe (no --allow-ffi): then ICMP was not watched.
      const precise = ctx.options.preciseUdp && !r.detail.includes(PRECISE_UDP_UNAVAILABLE);
      return {
        status: "unknown",
        summary: precise
          ? `no reply and no ICMP refusal from ${host}:${port} — WireGuard ignores unauthenticated packets, or a firewall drops silently`
          : `no reply from ${host}:${port} — normal for WireGuard, which ignores unauthenticated packets; ` +
            (ctx.options.preciseUdp
              ? "--udp-precise could not run (see evidence), so ICMP refusals were not seen"
              : "run with --udp-precise to detect ICMP refusals"),
        evidence,
      };
    }
    default:
      return { status: "unknown", summary: `UDP probe not possible: ${r.detail}`, evidence };
  }
}

// ---------------------------------------------------------------------------------------------
// GW-06 stability

function gw06(ctx: CheckContext): Outcome {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { status: "skip", summary: "no running gateway pod (see GW-01)" };
  const dep = gatewayDeployment(ctx, gw);
  const replicas = typeof dep?.spec?.replicas === "number" ? dep.spec.replicas : 1;
  const podAge = ageMs(ctx.cluster.now, pod.metadata.creationTimestamp);
  const fcCreated = ctx.peer?.foreignCluster?.metadata?.creationTimestamp;
  const peeringAge = ageMs(ctx.cluster.now, fcCreated);
  const evidence = [
    `pod ${pod.metadata.name}: age ${formatAge(podAge)}, peering ${formatAge(peeringAge)} old`,
    `replicas: ${replicas}${replicas === 1 ? " (single replica, Liqo's default: no failover)" : ""}`,
  ];
  const problems: string[] = [];
  // deno-lint-ignore no-explicit-any
  for (const s of (pod.status?.containerStatuses ?? []) as any[]) {
    const restarts = s?.restartCount ?? 0;
    const term = s?.lastState?.terminated;
    const termAge = ageMs(ctx.cluster.now, term?.finishedAt);
    const termText = term
      ? `, last terminated ${term.reason ?? "?"} (exit ${term.exitCode ?? "?"}) ${formatAge(termAge)} ago`
      : "";
    evidence.push(`${s?.name}: restarts ${restarts}${termText}`);
    if (restarts >= REPEATED_RESTARTS) problems.push(`${s?.name} restarted ${restarts} times`);
    else if (term && termAge !== null && termAge < RECENT_TERMINATION_MS && term.reason !== "Completed") {
      problems.push(`${s?.name} terminated ${term.reason ?? "?"} ${formatAge(termAge)} ago`);
    }
  }
  if (
    podAge !== null && peeringAge !== null && podAge < RECREATED_WINDOW_MS &&
    peeringAge - podAge > RECREATED_SLACK_MS
  ) {
    problems.push(`recreated ${formatAge(podAge)} ago, peering ${formatAge(peeringAge)} old`);
  }
  if (problems.length === 0) return { status: "pass", summary: "gateway stable", evidence };
  return {
    status: "warn",
    summary: `gateway ${pod.metadata.name} unstable: ${problems.join("; ")}`,
    evidence,
    remediation: `${k(gw.namespace)} describe pod ${pod.metadata.name}\n` +
      `${k(gw.namespace)} logs ${pod.metadata.name} -c wireguard --previous\n` +
      `${k(gw.namespace)} get events --sort-by=.lastTimestamp`,
  };
}

// ---------------------------------------------------------------------------------------------

/** The GATEWAY EXPOSURE layer checks, in catalog order. */
export const GATEWAY_CHECKS: readonly CheckDef[] = [
  {
    id: "GW-01",
    title: "Gateway workload running",
    layer: "gateway",
    needs: ["ENV-05"],
    scope: "single",
    perPeer: true,
    reads: ["gatewayservers", "gatewayclients", "deployments", "pods"],
    optionalReads: ["events"],
    explain: {
      reads:
        "GatewayServer/GatewayClient labelled liqo.io/remote-cluster-id=<peer>; Deployment gw-<name> and its " +
        "pods (labels networking.liqo.io/component=gateway, gateway-name=<name>) in the gateway namespace; " +
        "container states of gateway, wireguard, geneve; ForeignCluster status.modules.networking.enabled; " +
        "when readable, the Warning events of the gateway pods (shown with a failure or warning).",
      decides:
        "fail: no gateway object for a peer with networking enabled, Deployment missing or at 0 replicas, " +
        "no pod, pod not running (Pending/Unschedulable), a container not running (CrashLoopBackOff, last " +
        "termination shown). warn: a container restarted within the last hour, or fewer replicas ready than " +
        "desired. Gateway containers have no readiness probe, so Ready only means running. skip: networking " +
        "module disabled for this peer.",
      fixes:
        "Read the previous logs of the failing container (kubectl logs --previous), describe the pod for " +
        "scheduling problems, and re-create the network (liqoctl network connect / liqoctl peer) when the " +
        "gateway objects are gone.",
    },
    run: gw01,
  },
  {
    id: "GW-02",
    title: "Gateway server Service exposed",
    layer: "gateway",
    needs: [],
    scope: "single",
    perPeer: true,
    reads: ["gatewayservers", "gatewayclients", "services", "nodes"],
    optionalReads: ["pods", "events"],
    explain: {
      reads:
        "The gateway server Service (labels networking.liqo.io/component=gateway, gateway-name, else name " +
        "gw-<name>), its type, ports and status.loadBalancer; for NodePort the non-virtual nodes' addresses; " +
        "when readable, the Service's Warning events (e.g. SyncLoadBalancerFailed).",
      decides:
        "Server side only (skip on the client side). pass: LoadBalancer with an ingress address, or NodePort " +
        "on nodes with a public address. fail: Service missing, LoadBalancer <pending> (with the UDP hint " +
        "when its events say the load balancer does not support UDP). warn: NodePort with only " +
        "private node addresses (unless, in dual mode, the peer's nodes share the private /16 or the " +
        "peer dials a public NAT address instead — GW-04 judges that), ClusterIP.",
      fixes:
        "Install a LoadBalancer controller (e.g. MetalLB), or use a NodePort (--gw-server-service-type " +
        "NodePort) plus a firewall rule for UDP; behind NAT port-map and use --gw-client-address/--gw-client-port.",
    },
    run: gw02,
  },
  {
    id: "GW-03",
    title: "Advertised endpoint matches the exposure",
    layer: "gateway",
    needs: ["GW-02"],
    scope: "single",
    perPeer: true,
    reads: ["gatewayservers", "gatewayclients", "services", "nodes", "pods"],
    optionalReads: ["wggatewayservers"],
    explain: {
      reads:
        "GatewayServer status.endpoint {addresses, port}; the Service: LoadBalancer ingress IPs and hostnames " +
        "+ service port, NodePort the address of the node running the active gateway pod (ExternalDNS > " +
        'ExternalIP > InternalDNS > InternalIP > Hostname, "" when NotReady) + nodePort, ClusterIP the cluster IPs.',
      decides:
        "Server side only. fail: status.endpoint missing, an empty address (NotReady node), or addresses/port " +
        "that differ from what the Service exposes now (stale). skip: NodePort without a running gateway pod.",
      fixes:
        "The controller-manager rewrites status.endpoint from the Service: check its logs, restart it; then " +
        "update the peer's GatewayClient (GW-04).",
    },
    run: gw03,
  },
  {
    id: "GW-04",
    title: "Client dials the server's endpoint",
    layer: "gateway",
    needs: ["GW-03"],
    scope: "dual",
    perPeer: true,
    reads: ["gatewayservers", "gatewayclients", "deployments"],
    explain: {
      reads:
        "On the client cluster: GatewayClient spec.endpoint and the gateway Deployment's wireguard args " +
        "--endpoint-address/--endpoint-port; on the server cluster: GatewayServer status.endpoint. Only " +
        "addresses[0] is dialled.",
      decides:
        "pass: the dialled address is one of the server's addresses and the ports match. fail: the Deployment " +
        "args disagree with the GatewayClient, or the client dials something else while the server advertises a " +
        "public address (stale endpoint after the server's address changed). warn (deliberate NAT): the server " +
        "advertises only private addresses and the client, consistently configured, dials another address — " +
        "the documented --gw-client-address/--gw-client-port override (advanced/nat.md).",
      fixes:
        "Patch the GatewayClient endpoint to the server's status.endpoint or re-run liqoctl network connect / " +
        "liqoctl peer; for NAT, verify the port mapping.",
    },
    run: gw04,
  },
  {
    id: "GW-05",
    title: "Gateway endpoint answers UDP from here",
    layer: "gateway",
    needs: ["GW-03"],
    scope: "single",
    perPeer: true,
    reads: ["gatewayservers", "gatewayclients"],
    explain: {
      reads:
        "The endpoint the client dials (GatewayClient spec.endpoint addresses[0]:port on the client side, " +
        "GatewayServer status.endpoint on the server side); sends one UDP datagram from the tool's host.",
      decides:
        "pass on a reply; fail on an ICMP port-unreachable (refused); unknown on silence (WireGuard ignores " +
        "unauthenticated packets — ICMP refusals are only visible with --udp-precise) or when the probe cannot " +
        "run. skip with --no-network-probes.",
      fixes:
        "On a refusal check the Service/NodePort mapping and firewalls on the path to the endpoint; test by " +
        "hand with nc -u.",
    },
    run: gw05,
  },
  {
    id: "GW-06",
    title: "Gateway stability",
    layer: "gateway",
    needs: ["GW-01"],
    scope: "single",
    perPeer: true,
    reads: ["gatewayservers", "gatewayclients", "deployments", "pods"],
    explain: {
      reads: "The active gateway pod's container restart counts and last terminations, its age against the " +
        "ForeignCluster's age, the Deployment's replicas.",
      decides:
        `warn only: a container restarted ${REPEATED_RESTARTS}+ times, a termination (OOMKilled, Error) in the ` +
        "last 24 h, or a pod recreated in the last 30 min on a peering older than that. A single replica " +
        "(Liqo's default) is noted in the evidence, not warned about.",
      fixes:
        "Read the previous logs of the restarting container; raise memory limits on OOMKilled; consider " +
        "networking.gatewayTemplates.replicas > 1 for failover.",
    },
    run: gw06,
  },
];
