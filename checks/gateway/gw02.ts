/**
 * GW-02: the gateway server's Service exposes it to the peer (server side only): a LoadBalancer with
 * an ingress address, or a NodePort on nodes the peer can reach (public addresses, a private network
 * shared with the peer, or a NAT mapping the peer dials).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Service, ServicePort } from "../../liqo/views/core.ts";
import {
  activeGatewayPod,
  ageMs,
  formatAge,
  gatewayOf,
  type GatewayRef,
  isVirtualNode,
} from "../../liqo/lookups.ts";
import { contains, isPrivate, parseCidr, parseIPv4 } from "../../probes/cidr.ts";
import { endpointOf, preferredNodeAddress } from "../../liqo/endpoints.ts";
import { eventLines, gatewayService, serverOnly, servicePort } from "./shared.ts";
import { fix, kubectl, kubectlIn, liqoctl, pipe, remoteKubeconfig, shell, step } from "../remediation.ts";
import { peerReachProof, tunnelDownFact } from "../common/reach.ts";

interface NodeAddr {
  node: string;
  type: string;
  address: string;
}

function nodeAddresses(inv: CheckContext["cluster"]["inv"]): NodeAddr[] {
  const out: NodeAddr[] = [];
  for (const n of inv.items("nodes")) {
    if (isVirtualNode(n)) continue;
    for (const a of n.status?.addresses ?? []) {
      if (
        a.type && ["ExternalIP", "ExternalDNS", "InternalIP", "InternalDNS"].includes(a.type) && a.address
      ) {
        out.push({ node: n.metadata.name, type: a.type, address: String(a.address) });
      }
    }
  }
  return out;
}

/**
 * `liqoctl peer … <flags>`: peering runs on the consumer and names the provider with
 * `--remote-kubeconfig` (liqoctl's `peer` command, pkg/liqoctl/peer), whichever end this result was
 * observed on — pasted on the provider, it would start a reverse peering.
 */
function peerWith(...flags: string[]) {
  return liqoctl("consumer", "peer", remoteKubeconfig("provider"), ...flags);
}

async function run(ctx: CheckContext): Promise<Outcome> {
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
      remediation: fix(
        kubectlIn("local", gw.namespace, "get", "wggatewayserver", gw.name, "-o", "yaml"),
        pipe(
          kubectlIn("local", ctx.cluster.liqoNamespace ?? "liqo", "logs", "deploy/liqo-controller-manager"),
          shell("grep", gw.name),
        ),
      ),
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
  if (type === "LoadBalancer") return await lbExposure(ctx, gw, svc, evidence);
  if (type === "NodePort") return await nodePortExposure(ctx, gw, port, evidence);
  evidence.push(...eventLines(ctx, "Service", svc));
  return {
    status: "warn",
    summary:
      `gateway server Service ${svc.metadata.name} is ${type}: reachable only from inside the cluster network`,
    evidence,
    remediation: fix(
      "the peer must reach this endpoint over UDP; expose it with a LoadBalancer or NodePort:",
      step(peerWith("--gw-server-service-type", "LoadBalancer"), "or NodePort"),
    ),
  };
}

async function lbExposure(
  ctx: CheckContext,
  gw: GatewayRef,
  svc: Service,
  evidence: string[],
): Promise<Outcome> {
  const ingress = svc.status?.loadBalancer?.ingress ?? [];
  const addrs = ingress.map((i) => i?.ip ?? i?.hostname).filter((a): a is string => !!a);
  if (addrs.length > 0) {
    evidence.push(`LoadBalancer ingress: ${addrs.join(", ")}`);
    // An in-cluster load balancer (K3s ServiceLB/klipper-lb, MetalLB in L2 on the node network…) may
    // publish a node's own private InternalIP as the ingress: present, but unroutable from elsewhere.
    const nodes = nodeAddresses(ctx.cluster.inv);
    const onNodes = addrs.map((a) =>
      nodes.find((n) => n.type === "InternalIP" && n.address === a && parseIPv4(a) !== null && isPrivate(a))
    );
    if (onNodes.every((n) => n)) {
      const which = onNodes.map((n) => `${n!.address} (InternalIP of node ${n!.node})`).join(", ");
      return await unroutable(ctx, gw, evidence, {
        what: `LoadBalancer ${svc.metadata.name} ingress ${which}`,
        why: "an in-cluster load balancer (e.g. K3s ServiceLB) publishes the node's private InternalIP: " +
          "routable only from the node network",
        fixes: fix(
          "give the Service an address the peer can route to: a load balancer with external IPs " +
            "(e.g. MetalLB with a pool on a routed network, or the cloud's), or a NodePort on nodes with " +
            "an ExternalIP:",
          peerWith("--gw-server-service-type", "NodePort"),
          "or, behind NAT, port-map the UDP port and point the client at the public address (docs: advanced/nat.md):",
          peerWith("--gw-client-address", "<public IP>", "--gw-client-port", "<public port>"),
        ),
      });
    }
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
      remediation: fix(
        "this cloud load balancer cannot carry the gateway's UDP port: expose the gateway with a NodePort",
        `and open UDP ${np ?? "<nodePort>"} to the nodes in the cloud firewall / security group:`,
        peerWith("--gw-server-service-type", "NodePort"),
        "or keep a LoadBalancer of a kind that supports UDP (e.g. a network load balancer; see the provider's " +
          "Service annotations)",
        kubectlIn("local", gw.namespace, "describe", "svc", svc.metadata.name),
      ),
    };
  }
  return {
    status: "fail",
    summary:
      `LoadBalancer Service ${svc.metadata.name} stuck <pending>: no external address for the gateway server`,
    evidence,
    remediation: fix(
      step(
        kubectlIn("local", gw.namespace, "describe", "svc", svc.metadata.name),
        "events say why no address was assigned",
      ),
      "no LoadBalancer controller (bare metal, kind, k3s without servicelb): install one, e.g. MetalLB",
      `cloud load balancer without UDP support: use a NodePort and open UDP ${
        np ?? "<nodePort>"
      } in the firewall:`,
      peerWith("--gw-server-service-type", "NodePort"),
    ),
  };
}

/** An event line saying the load balancer refuses UDP (e.g. SyncLoadBalancerFailed on a TCP-only LB). */
function rejectsUdp(line: string): boolean {
  return /\bUDP\b/i.test(line) &&
    /not supported|unsupported|does not support|doesn't support|cannot|mixed protocol|invalid protocol/i
      .test(line);
}

async function nodePortExposure(
  ctx: CheckContext,
  gw: GatewayRef,
  port: ServicePort | undefined,
  evidence: string[],
): Promise<Outcome> {
  const np = port?.nodePort;
  const addrs = nodeAddresses(ctx.cluster.inv);
  for (const a of addrs) {
    const priv = parseIPv4(a.address) !== null ? (isPrivate(a.address) ? " (private)" : " (public)") : "";
    evidence.push(`node ${a.node}: ${a.type} ${a.address}${priv}`);
  }
  const active = activeGatewayPod(ctx.cluster.inv, gw);
  if (active?.spec?.nodeName) evidence.push(`active gateway pod on ${active.spec.nodeName}`);
  const reachable = addrs.filter(isExternal);
  // Liqo advertises the address of the node running the gateway, by type preference
  // (ExternalDNS > ExternalIP > InternalDNS > InternalIP > Hostname, pkg/utils/nodeUtils.go).
  const gwNode = ctx.cluster.inv.items("nodes").find((n) => n.metadata.name === active?.spec?.nodeName);
  const advertised = gwNode ? preferredNodeAddress(gwNode) : null;
  const advType = gwNode && advertised
    ? (gwNode.status?.addresses ?? []).find((a) => a?.address === advertised)?.type ?? "?"
    : null;
  if (gwNode && advertised && advType) {
    evidence.push(`Liqo advertises ${advType} ${advertised} of ${gwNode.metadata.name} (the gateway's node)`);
    const adv: NodeAddr = { node: gwNode.metadata.name, type: advType, address: advertised };
    if (!isExternal(adv) && advType === "InternalDNS") {
      return await unroutable(ctx, gw, evidence, {
        what: `NodePort ${
          np ?? "?"
        } advertised as InternalDNS name ${advertised} of node ${gwNode.metadata.name}`,
        why:
          "Liqo prefers a node's InternalDNS over its InternalIP; a cloud-internal name the peer cannot resolve",
        fixes: nodeFixes(np, gwNode.metadata.name),
      });
    }
    if (!isExternal(adv) && reachable.length > 0) {
      const others = [...new Set(reachable.map((a) => a.node))].join(", ");
      return await unroutable(ctx, gw, evidence, {
        what:
          `NodePort ${np ?? "?"}: the gateway runs on node ${gwNode.metadata.name}, which has no external ` +
          `address (advertised ${advType} ${advertised}), while ${others} ${
            reachable.length > 1 ? "have" : "has"
          } one`,
        why: "Liqo advertises the gateway node's own address",
        fixes: nodeFixes(np, gwNode.metadata.name, others),
      });
    }
  }
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
  return await unroutable(ctx, gw, evidence, {
    what: `NodePort ${np ?? "?"}: all node addresses are private`,
    why: "the peer must reach one of them: it works only if the peer is on the same private network",
    fixes: fix(
      `if the peer is elsewhere: expose the server with a LoadBalancer, or port-map UDP ${
        np ?? "<nodePort>"
      } on your NAT`,
      "and point the client at the public address (docs: advanced/nat.md):",
      peerWith(
        "--gw-server-service-type",
        "NodePort",
        "--gw-server-service-nodeport",
        String(np ?? "<port>"),
        "--gw-client-address",
        "<public IP>",
        "--gw-client-port",
        "<public port>",
      ),
    ),
  });
}

/** An address the peer can route to from elsewhere: ExternalDNS, or a public IP of any type. */
function isExternal(a: NodeAddr): boolean {
  return a.type === "ExternalDNS" || (parseIPv4(a.address) !== null && !isPrivate(a.address));
}

function nodeFixes(np: number | undefined, node: string, others?: string) {
  return fix(
    kubectl("local", "get", "nodes", "-o", "wide"),
    others
      ? `schedule the gateway server on a node with an external address (${others}): a nodeSelector or ` +
        `affinity in the WgGatewayServerTemplate's pod template, or give ${node} an ExternalIP`
      : `give ${node} an ExternalIP/ExternalDNS address (cloud controller), or expose the gateway with a LoadBalancer:`,
    !others && peerWith("--gw-server-service-type", "LoadBalancer"),
    `behind NAT: port-map UDP ${np ?? "<nodePort>"} and point the client at it (docs: advanced/nat.md):`,
    peerWith("--gw-client-address", "<public IP>", "--gw-client-port", String(np ?? "<nodePort>")),
  );
}

/**
 * An advertised address that is present but not routable from elsewhere: healthy when the peer
 * provably reaches it (tunnel up here or on the other side) or shares the private network; a fail
 * when the tunnel is down; a warning when nothing tells.
 */
async function unroutable(
  ctx: CheckContext,
  gw: GatewayRef,
  evidence: string[],
  f: { what: string; why: string; fixes: ReturnType<typeof fix> },
): Promise<Outcome> {
  const peerId = ctx.peer?.clusterId ?? "";
  const proof = await peerReachProof(ctx, gw, peerId);
  if (proof) {
    evidence.push(`the peer reaches it: ${proof}`);
    return {
      status: "pass",
      summary: `${f.what}, but the peer provably reaches it (tunnel up)`,
      evidence,
    };
  }
  const samenet = sharedPrivateNetwork(ctx, nodeAddresses(ctx.cluster.inv));
  if (samenet) {
    evidence.push(samenet);
    return { status: "pass", summary: `${f.what}: on a private network shared with the peer`, evidence };
  }
  const down = tunnelDownFact(ctx, gw, peerId);
  if (down) evidence.push(down);
  return {
    status: down ? "fail" : "warn",
    summary: `${f.what}: ${f.why}`,
    evidence,
    remediation: f.fixes,
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

export const GW_02: CheckDef = {
  id: "GW-02",
  title: "Gateway server Service exposed",
  layer: "gateway",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["gatewayservers", "gatewayclients", "services", "nodes"],
  optionalReads: ["pods", "events", "connections", "deployments"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads:
      "The gateway server Service (labels networking.liqo.io/component=gateway, gateway-name, else name " +
      "gw-<name>), its type, ports and status.loadBalancer; for NodePort the non-virtual nodes' addresses; " +
      "when readable, the Service's Warning events (e.g. SyncLoadBalancerFailed). Whether the peer provably " +
      "reaches a private address: the peer's Connection and the gateway's `wg show` handshake, on this " +
      "cluster and, in dual mode, on the other one.",
    decides:
      "Server side only (skip on the client side). pass: LoadBalancer with an ingress address, or NodePort " +
      "on nodes with a public address. fail: Service missing, LoadBalancer <pending> (with the UDP hint " +
      "when its events say the load balancer does not support UDP). warn: NodePort with only " +
      "private node addresses (unless, in dual mode, the peer's nodes share the private /16 or the " +
      "peer dials a public NAT address instead — GW-04 judges that), ClusterIP. An address that is present " +
      "but not routable from elsewhere — a LoadBalancer ingress that is a node's private InternalIP (K3s " +
      "ServiceLB, in-cluster LBs), a NodePort advertised by its InternalDNS name (Liqo prefers ExternalDNS > " +
      "ExternalIP > InternalDNS > InternalIP > Hostname of the gateway's node, pkg/utils/nodeUtils.go), or a " +
      "gateway on a node without an external address while other nodes have one — fails when the peer's " +
      "Connection says the tunnel is down, warns when nothing tells, and passes (the evidence saying why) " +
      "when the peer provably reaches it: a fresh handshake or Connected status here or on the other side, " +
      "or a private network shared with the peer.",
    fixes: "Install a LoadBalancer controller (e.g. MetalLB), or use a NodePort (--gw-server-service-type " +
      "NodePort) plus a firewall rule for UDP; behind NAT port-map and use --gw-client-address/--gw-client-port.",
  },
  hops: ["gateway"],
  hubReads: ["wireguard"],
  run,
};
