/**
 * IPAM-02: the CIDRs the peer is remapped to collide with nothing local: pod, service, internal,
 * external and reserved Networks, node addresses, other peers' remapped CIDRs (Liqo's
 * `deployments/liqo/templates/liqo-ipam-networks.yaml`; reserving local subnets: `docs/installation/install.md`).
 */
import { andThen, fix, liqoctl, remoteKubeconfig, step } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import { isVirtualNode, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { contains, overlaps, parseCidr } from "../../probes/cidr.ts";
import { localNetworks, type NamedCidr, peerConfiguration, remappedCidrs, strList } from "../../liqo/ipam.ts";
import { networkingDisabled } from "../common/gateway.ts";
import { ipamKindMissing, show } from "./shared.ts";

function localRanges(ctx: CheckContext): NamedCidr[] {
  const { inv, liqoNamespace } = ctx.cluster;
  const out: NamedCidr[] = [];
  for (const type of ["pod-cidr", "service-cidr", "internal-cidr", "external-cidr", "reserved"]) {
    for (const n of localNetworks(inv, type, liqoNamespace)) {
      for (const c of strList(n.status?.cidr)) {
        out.push({ what: `local ${type} (Network ${n.metadata.namespace}/${n.metadata.name})`, cidr: c });
      }
    }
  }
  return out;
}

function otherPeersRanges(ctx: CheckContext, peerId: string): NamedCidr[] {
  const out: NamedCidr[] = [];
  for (const cfg of ctx.cluster.inv.items("configurations")) {
    const id = cfg.metadata.labels?.[REMOTE_ID_LABEL];
    if (!id || id === peerId) continue;
    const r = remappedCidrs(cfg);
    for (const c of r.pod) out.push({ what: `remapped pod CIDR of peer ${id}`, cidr: c });
    for (const c of r.external) out.push({ what: `remapped external CIDR of peer ${id}`, cidr: c });
  }
  return out;
}

function nodeAddresses(inv: Objects): { node: string; type: string; ip: string }[] {
  return inv.items("nodes").filter((n) => !isVirtualNode(n)).flatMap((n) =>
    (n.status?.addresses ?? [])
      .filter((a) => (a?.type === "InternalIP" || a?.type === "ExternalIP") && typeof a.address === "string")
      .map((a) => ({ node: n.metadata.name, type: a.type as string, ip: a.address as string }))
  );
}

function run(ctx: CheckContext): Outcome {
  const peer = ctx.peer!;
  if (networkingDisabled(ctx.peer?.foreignCluster)) {
    return { status: "skip", summary: "networking module disabled for this peer" };
  }
  const cfg = peerConfiguration(ctx.cluster.inv, peer.clusterId);
  if (!cfg) return { status: "skip", summary: `no Configuration for ${peer.clusterId} (IPAM-03 reports it)` };
  const notServed = ipamKindMissing([ctx.cluster], ["networks"]);
  if (notServed) return notServed;
  const r = remappedCidrs(cfg);
  const mine: NamedCidr[] = [
    ...r.pod.map((c) => ({ what: "remapped pod CIDR", cidr: c })),
    ...r.external.map((c) => ({ what: "remapped external CIDR", cidr: c })),
  ];
  if (mine.length === 0) {
    return {
      status: "skip",
      summary: `Configuration ${cfg.metadata.name} has no status.remote.cidr (IPAM-03)`,
    };
  }
  const against = [...localRanges(ctx), ...otherPeersRanges(ctx, peer.clusterId)];
  const collisions: string[] = [];
  const subnets = new Set<string>();
  for (const m of mine) {
    for (const o of against) {
      if (overlaps(m.cidr, o.cidr)) {
        collisions.push(`${peer.clusterId} ${m.what} ${m.cidr} overlaps ${o.what} ${o.cidr}`);
        subnets.add(parseCidr(o.cidr)?.text ?? o.cidr);
      }
    }
    for (const a of nodeAddresses(ctx.cluster.inv)) {
      if (contains(m.cidr, a.ip)) {
        collisions.push(`${peer.clusterId} ${m.what} ${m.cidr} contains node ${a.node} ${a.type} ${a.ip}`);
        subnets.add(`${a.ip.split(".").slice(0, 3).join(".")}.0/24`);
      }
    }
  }
  const evidence = [
    `Configuration ${cfg.metadata.namespace}/${cfg.metadata.name}: status.remote.cidr.pod = ${
      show(r.pod)
    }, external = ${show(r.external)}`,
  ];
  if (collisions.length === 0) {
    return {
      status: "pass",
      summary: `remapped CIDRs ${mine.map((m) => m.cidr).join(", ")} collide with nothing local`,
      evidence,
    };
  }
  const nodeHit = collisions.some((c) => c.includes(" node "));
  return {
    status: "fail",
    summary: `${peer.clusterId}'s remapped CIDR collides with ${
      nodeHit ? "the node network" : "a local range"
    }: ${collisions[0]}`,
    evidence: [...evidence, ...collisions],
    remediation: fix(
      `Reserve the subnets used locally so Liqo's IPAM never remaps a peer onto them (FACTS §7 D12):`,
      step(
        liqoctl("local", "install", "...", "--reserved-subnets", [...subnets].join(",")),
        "node subnets: use your real prefix",
      ),
      "or Helm value ipam.reservedSubnets (then helm upgrade), and redo the peering's networking:",
      andThen(
        liqoctl("local", "network", "reset", remoteKubeconfig("remote")),
        liqoctl("local", "network", "connect", "..."),
      ),
    ),
  };
}

export const IPAM_02: CheckDef = {
  id: "IPAM-02",
  title: "Remapped CIDRs do not collide",
  layer: "ipam",
  needs: ["IPAM-03"],
  scope: "single",
  perPeer: true,
  reads: ["configurations", "networks", "nodes"],
  explain: {
    reads:
      "The peer's Configuration status.remote.cidr.{pod,external}; local Networks (pod, service, internal, " +
      "external, reserved) status.cidr; InternalIP/ExternalIP of every non-virtual node; other peers' remapped CIDRs.",
    decides:
      "fail printing each colliding pair (a remapped CIDR containing a node address is a documented failure: Liqo docs/installation/install.md); " +
      "skip when Networks are not served (ipam.liqo.io CRDs missing: ENV-03).",
    fixes:
      "Reserve the local subnets (liqoctl install --reserved-subnets / Helm ipam.reservedSubnets) and redo " +
      "the peering's networking so IPAM picks another range.",
  },
  hops: ["remote-pod"],
  run,
};
