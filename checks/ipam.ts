/**
 * IPAM layer: Configurations truthful across clusters (IPAM-01), remapped CIDRs that collide with
 * something local (IPAM-02), remapping actually done when the CIDRs overlap (IPAM-03) and IP objects
 * allocated (IPAM-04). FACTS §2.2, §2.9, §7 D12, D14.
 */
import type { CheckContext, CheckDef, ClusterView, Outcome } from "./types.ts";
import type { Inventory } from "../kube/inventory.ts";
import type { K8sObject } from "../kube/source.ts";
import {
  ageMs,
  conditionOf,
  formatAge,
  isVirtualNode,
  peerObjects,
  REMOTE_ID_LABEL,
} from "../liqo/lookups.ts";
import { contains, overlaps, parseCidr } from "../probes/cidr.ts";
import {
  CIDR_TYPE_LABEL,
  configurationConfigured,
  localCidrs,
  localNetworks,
  type NamedCidr,
  peerConfiguration,
  remappedCidrs,
  strList,
} from "../liqo/ipam.ts";

const sameSet = (a: string[], b: string[]): boolean => {
  const norm = (l: string[]) => [...new Set(l.map((c) => parseCidr(c)?.text ?? c))].sort().join(",");
  return norm(a) === norm(b);
};

const show = (l: string[]): string => (l.length ? l.join(", ") : "(none)");

/**
 * Skip outcome when an ipam.liqo.io kind is not served on one of `views` (its CRD is not installed:
 * the inventory reads it as an empty list, which must not pass for "nothing to compare"). ENV-03
 * reports the missing CRDs.
 */
function ipamKindMissing(views: ClusterView[], kinds: ("networks" | "ips")[]): Outcome | null {
  const lacking = views.flatMap((v) =>
    kinds.filter((k) => v.inv.state(k).state === "missing").map((k) =>
      `${k}.ipam.liqo.io not served on ${v.name}`
    )
  );
  if (lacking.length === 0) return null;
  return {
    status: "skip",
    summary: `${lacking[0]} (ipam.liqo.io CRDs missing, see ENV-03)`,
    evidence: lacking,
  };
}

function networkingDisabled(ctx: CheckContext): boolean {
  return ctx.peer?.foreignCluster?.status?.modules?.networking?.enabled === false;
}

// ------------------------------------------------------------------------------------------------
// IPAM-01

function compareSide(
  holder: ClusterView,
  peerId: string,
  other: ClusterView,
): { ok: boolean; lines: string[]; problems: string[] } {
  const cfg = peerConfiguration(holder.inv, peerId);
  if (!cfg) return { ok: false, lines: [], problems: [`${holder.name}: no Configuration for ${peerId}`] };
  const where = `${holder.name}: Configuration ${cfg.metadata.namespace}/${cfg.metadata.name}`;
  const problems: string[] = [];
  const lines: string[] = [];
  for (const [kind, type] of [["pod", "pod-cidr"], ["external", "external-cidr"]] as const) {
    const declared = strList(cfg.spec?.remote?.cidr?.[kind]);
    const actual = localCidrs(other.inv, type, other.liqoNamespace);
    const line = `${where} spec.remote.cidr.${kind} = ${show(declared)}; ${other.name}'s ${type} Network = ${
      show(actual)
    }`;
    lines.push(line);
    if (actual.length === 0) continue; // honest: nothing to compare with
    if (!sameSet(declared, actual)) problems.push(line);
  }
  return { ok: problems.length === 0, lines, problems };
}

function runIpam01(ctx: CheckContext): Outcome {
  const remote = ctx.remote;
  const peer = ctx.peer;
  if (!remote || !peer || !ctx.remotePeer) {
    return { status: "skip", summary: "needs both clusters of the peering" };
  }
  const notServed = ipamKindMissing([ctx.cluster, remote], ["networks"]);
  if (notServed) return notServed;
  const localId = ctx.remotePeer.clusterId;
  const a = compareSide(ctx.cluster, peer.clusterId, remote);
  const b = compareSide(remote, localId, ctx.cluster);
  const missing = [...a.problems, ...b.problems].filter((p) => p.includes("no Configuration"));
  if (missing.length) {
    return { status: "skip", summary: `${missing.join("; ")} (IPAM-03 reports it)`, evidence: missing };
  }
  const problems = [...a.problems, ...b.problems];
  const noData = [ctx.cluster, remote].filter((v) =>
    localCidrs(v.inv, "pod-cidr", v.liqoNamespace).length === 0
  );
  if (problems.length === 0 && noData.length) {
    return {
      status: "unknown",
      summary: `no pod-cidr Network with status.cidr on ${noData.map((v) => v.name).join(", ")}`,
      evidence: [...a.lines, ...b.lines],
    };
  }
  if (problems.length === 0) {
    return { status: "pass", summary: "both Configurations match the other cluster's CIDRs", evidence: [] };
  }
  const stale = [
    ...(a.problems.length ? [{ holder: ctx.cluster, peerId: peer.clusterId, other: remote }] : []),
    ...(b.problems.length ? [{ holder: remote, peerId: localId, other: ctx.cluster }] : []),
  ];
  return {
    status: "fail",
    summary: `stale Configuration after a reinstall: ${
      stale.map((s) => `${s.holder.name}'s Configuration for ${s.peerId}`).join(" and ")
    } does not match the real CIDRs`,
    evidence: problems,
    remediation: stale.map((s) =>
      `# on ${s.other.name}: print its current Configuration and apply it on ${s.holder.name}\n` +
      `liqoctl generate configuration --context ${s.other.context} > ${s.other.name}-configuration.yaml\n` +
      `kubectl --context ${s.holder.context} apply -f ${s.other.name}-configuration.yaml\n` +
      `# or re-run the network setup: liqoctl network reset / liqoctl network connect (or unpeer + peer)`
    ).join("\n"),
  };
}

// ------------------------------------------------------------------------------------------------
// IPAM-02

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

function nodeAddresses(inv: Inventory): { node: string; type: string; ip: string }[] {
  return inv.items("nodes").filter((n) => !isVirtualNode(n)).flatMap((n) =>
    // deno-lint-ignore no-explicit-any
    ((n.status?.addresses as any[] | undefined) ?? [])
      .filter((a) => (a?.type === "InternalIP" || a?.type === "ExternalIP") && typeof a.address === "string")
      .map((a) => ({ node: n.metadata.name, type: a.type as string, ip: a.address as string }))
  );
}

function runIpam02(ctx: CheckContext): Outcome {
  const peer = ctx.peer!;
  if (networkingDisabled(ctx)) return { status: "skip", summary: "networking module disabled for this peer" };
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
    remediation: [
      `# Reserve the subnets used locally so Liqo's IPAM never remaps a peer onto them (FACTS §7 D12):`,
      `liqoctl install ... --reserved-subnets ${
        [...subnets].join(",")
      }   # node subnets: use your real prefix`,
      `#   or Helm value ipam.reservedSubnets (then helm upgrade), and redo the peering's networking:`,
      `liqoctl network reset --remote-kubeconfig <${peer.clusterId} kubeconfig> && liqoctl network connect ...`,
    ].join("\n"),
  };
}

// ------------------------------------------------------------------------------------------------
// IPAM-03

function overlapNotRemapped(ctx: CheckContext, cfg: K8sObject): string[] {
  const { inv, liqoNamespace } = ctx.cluster;
  const local = [
    ...localCidrs(inv, "pod-cidr", liqoNamespace).map((c) => ({ what: "local pod CIDR", cidr: c })),
    ...localCidrs(inv, "external-cidr", liqoNamespace).map((c) => ({ what: "local external CIDR", cidr: c })),
  ];
  const out: string[] = [];
  for (const kind of ["pod", "external"] as const) {
    const spec = strList(cfg.spec?.remote?.cidr?.[kind]);
    const status = strList(cfg.status?.remote?.cidr?.[kind]);
    const real = ctx.remote && ctx.remote.clusterId === ctx.peer?.clusterId
      ? localCidrs(ctx.remote.inv, `${kind}-cidr`, ctx.remote.liqoNamespace)
      : [];
    spec.forEach((s, i) => {
      const st = status[i];
      if (st === undefined || (parseCidr(st)?.text ?? st) !== (parseCidr(s)?.text ?? s)) return;
      for (const l of local) {
        if (overlaps(s, l.cidr)) {
          out.push(`peer ${kind} CIDR ${s} overlaps ${l.what} ${l.cidr} but status = spec (${st})`);
        }
      }
    });
    // Dual mode: the peer's real CIDRs (its Networks) used without remapping.
    const norm = (c: string) => parseCidr(c)?.text ?? c;
    for (const rc of real) {
      if (!status.some((st) => norm(st) === norm(rc))) continue;
      for (const l of local) {
        if (overlaps(rc, l.cidr)) {
          out.push(
            `peer's real ${kind} CIDR ${rc} overlaps ${l.what} ${l.cidr} but is used without remapping`,
          );
        }
      }
    }
  }
  return [...new Set(out)];
}

function notRemappedFix(cfg: K8sObject, peerId: string, ipamNs: string): string {
  return [
    `kubectl -n ${cfg.metadata.namespace} get networks -l ${REMOTE_ID_LABEL}=${peerId} -o yaml   # not-remapped label? external IPAM?`,
    `kubectl -n ${ipamNs} logs deploy/liqo-ipam`,
    `# then recreate the peering's networking so IPAM remaps the overlapping CIDR:`,
    `liqoctl network reset --remote-kubeconfig <${peerId} kubeconfig> && liqoctl network connect ...`,
  ].join("\n");
}

function runIpam03(ctx: CheckContext): Outcome {
  const peer = ctx.peer!;
  const { inv, liqoNamespace } = ctx.cluster;
  const notServed = ipamKindMissing([ctx.cluster], ["networks"]);
  if (notServed) return notServed;
  const cfg = peerConfiguration(inv, peer.clusterId);
  if (!cfg) {
    if (networkingDisabled(ctx)) {
      return { status: "skip", summary: "networking module disabled for this peer" };
    }
    return {
      status: "fail",
      summary: `no Configuration for peer ${peer.clusterId}`,
      evidence: [`no Configuration labelled ${REMOTE_ID_LABEL}=${peer.clusterId}`],
      remediation: `# Configurations are written by liqoctl on both clusters (never replicated):\n` +
        `liqoctl network connect --remote-kubeconfig <${peer.clusterId} kubeconfig>\n` +
        `# or on ${peer.clusterId}: liqoctl generate configuration | kubectl apply -f - (here)`,
    };
  }
  const name = `${cfg.metadata.namespace}/${cfg.metadata.name}`;
  const problems: string[] = [];
  const evidence: string[] = [];
  const cond = conditionOf(cfg, "NetworkCIDRsConfigured");
  if (!configurationConfigured(cfg)) {
    if (cond) {
      const stale = cond.status === "True";
      problems.push(
        stale
          ? `Configuration ${name}: NetworkCIDRsConfigured=True but observedGeneration ${cond.observedGeneration} ≠ generation ${cfg.metadata.generation}`
          : `Configuration ${name}: NetworkCIDRsConfigured=${cond.status} (${cond.reason ?? "no reason"}${
            cond.message ? `: ${cond.message}` : ""
          }) since ${formatAge(ageMs(ctx.cluster.now, cond.lastTransitionTime))}`,
      );
    } else {
      problems.push(
        `Configuration ${name}: no NetworkCIDRsConfigured condition (nor legacy configured label)`,
      );
    }
  }
  const r = remappedCidrs(cfg);
  const specPod = strList(cfg.spec?.remote?.cidr?.pod);
  const specExt = strList(cfg.spec?.remote?.cidr?.external);
  evidence.push(
    `Configuration ${name}: spec.remote.cidr pod=${show(specPod)} external=${show(specExt)}; ` +
      `status.remote.cidr pod=${show(r.pod)} external=${show(r.external)}`,
  );
  if (r.pod.length === 0 || r.external.length === 0) {
    problems.push(
      `Configuration ${name}: status.remote.cidr ${r.pod.length === 0 ? "pod" : "external"} missing`,
    );
  }
  const pending = peerObjects(inv, "networks", peer.clusterId)
    .filter((n) =>
      n.metadata.labels?.[CIDR_TYPE_LABEL] !== undefined && strList(n.status?.cidr).length === 0
    );
  for (const n of pending) {
    problems.push(
      `Network ${n.metadata.namespace}/${n.metadata.name} (${n.metadata.labels?.[CIDR_TYPE_LABEL]} ${
        n.spec?.cidr ?? "?"
      }) has no status.cidr (age ${formatAge(ageMs(ctx.cluster.now, n.metadata.creationTimestamp))})`,
    );
  }
  const notRemapped = overlapNotRemapped(ctx, cfg);
  problems.push(...notRemapped);
  if (problems.length === 0) {
    return {
      status: "pass",
      summary: `Configuration ${name} configured; remapped pod ${show(r.pod)}`,
      evidence,
    };
  }
  const ipamNs = liqoNamespace ?? "liqo";
  const summary = notRemapped.length && problems.length === notRemapped.length
    ? `overlapping CIDRs of ${peer.clusterId} not remapped: ${notRemapped[0]}`
    : `Configuration for ${peer.clusterId} not configured: ${problems[0]}`;
  return {
    status: "fail",
    summary,
    evidence: [...evidence, ...problems],
    remediation: summary.startsWith("overlapping") ? notRemappedFix(cfg, peer.clusterId, ipamNs) : [
      `kubectl -n ${cfg.metadata.namespace} get configuration ${cfg.metadata.name} -o yaml`,
      `kubectl -n ${cfg.metadata.namespace} get networks -l ${REMOTE_ID_LABEL}=${peer.clusterId}`,
      `# per-peer Networks without status.cidr: liqo-ipam unreachable (--ipam-server) or pool exhausted / conflict`,
      `kubectl -n ${ipamNs} logs deploy/liqo-ipam`,
      `kubectl -n ${ipamNs} logs deploy/liqo-controller-manager | grep -i -e configuration -e network`,
    ].join("\n"),
  };
}

// ------------------------------------------------------------------------------------------------
// IPAM-04

function ipNetwork(
  inv: Inventory,
  ip: K8sObject,
  liqoNs: string | null,
): { ref: string; net: K8sObject | null } {
  const nr = ip.spec?.networkRef;
  if (nr?.name) {
    const ns = nr.namespace ?? ip.metadata.namespace;
    const net = inv.items("networks").find((n) => n.metadata.name === nr.name && n.metadata.namespace === ns);
    return { ref: `${ns}/${nr.name}`, net: net ?? null };
  }
  const ext = localNetworks(inv, "external-cidr", liqoNs)[0] ?? null;
  return {
    ref: ext
      ? `${ext.metadata.namespace}/${ext.metadata.name} (default external-cidr)`
      : "external-cidr (default)",
    net: ext,
  };
}

function runIpam04(ctx: CheckContext): Outcome {
  const { inv, liqoNamespace, now } = ctx.cluster;
  const notServed = ipamKindMissing([ctx.cluster], ["ips", "networks"]);
  if (notServed) return notServed;
  const ips = inv.items("ips");
  if (ips.length === 0) return { status: "pass", summary: "no IP objects", evidence: [] };
  const pending = ips.filter((ip) => !ip.status?.ip || !ip.status?.cidr);
  if (pending.length === 0) {
    return { status: "pass", summary: `${ips.length} IP objects allocated`, evidence: [] };
  }
  const evidence = pending.map((ip) => {
    const { ref, net } = ipNetwork(inv, ip, liqoNamespace);
    const netState = net
      ? (net.status?.cidr ? `has status.cidr ${net.status.cidr}` : "has NO status.cidr")
      : "not found";
    return `IP ${ip.metadata.namespace}/${ip.metadata.name} (spec.ip ${ip.spec?.ip ?? "?"}): status.ip ${
      ip.status?.ip ?? "missing"
    }, status.cidr ${ip.status?.cidr ?? "missing"}, age ${
      formatAge(ageMs(now, ip.metadata.creationTimestamp))
    }; Network ${ref} ${netState}`;
  });
  const young = pending.every((ip) => (ageMs(now, ip.metadata.creationTimestamp) ?? Infinity) < 30_000);
  const ns = liqoNamespace ?? "liqo";
  return {
    status: young ? "warn" : "fail",
    summary: `${pending.length} IP object(s) not allocated: ${
      pending.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).join(", ")
    }`,
    evidence,
    remediation: [
      ...pending.slice(0, 3).map((p) =>
        `kubectl -n ${p.metadata.namespace} get ip ${p.metadata.name} -o yaml`
      ),
      `kubectl -n ${ns} get networks -o wide`,
      `kubectl -n ${ns} logs deploy/liqo-ipam`,
      `kubectl -n ${ns} logs deploy/liqo-controller-manager | grep -i "ip"`,
    ].join("\n"),
  };
}

/** IPAM checks. */
export const IPAM_CHECKS: readonly CheckDef[] = [
  {
    id: "IPAM-01",
    title: "Configurations match the other cluster's CIDRs",
    layer: "ipam",
    needs: ["IPAM-03"],
    scope: "dual",
    perPeer: true,
    reads: ["configurations", "networks"],
    explain: {
      reads:
        "Each side's Configuration for the other (label liqo.io/remote-cluster-id) spec.remote.cidr.{pod,external}, " +
        "and the other cluster's Networks labelled ipam.liqo.io/network-type=pod-cidr / external-cidr (status.cidr).",
      decides:
        "fail when a Configuration declares CIDRs the other cluster no longer has (stale after a reinstall); " +
        "skip when a Configuration is missing (IPAM-03 reports it) or Networks are not served (ENV-03).",
      fixes:
        "Regenerate the Configuration on the other cluster (liqoctl generate configuration) and apply it, or " +
        "redo the networking (liqoctl network reset + connect).",
    },
    run: runIpam01,
  },
  {
    id: "IPAM-03",
    title: "Remapping done when needed",
    layer: "ipam",
    needs: [],
    scope: "single",
    perPeer: true,
    reads: ["configurations", "networks"],
    explain: {
      reads:
        "The peer's Configuration (condition NetworkCIDRsConfigured and observedGeneration, or the v1.0/1.1 label " +
        "configuration.liqo.io/configured), spec/status.remote.cidr, the local pod/external Networks, the per-peer " +
        "Networks (configuration.liqo.io/cidr-type) and, in dual mode, the peer's own Networks.",
      decides:
        "fail when there is no Configuration, it is not configured at its generation, status.remote.cidr is " +
        "missing, a per-peer Network has no status.cidr, or an overlapping CIDR is used without remapping;" +
        " skip when Networks are not served (ipam.liqo.io CRDs missing: ENV-03).",
      fixes:
        "Look at liqo-ipam and controller-manager logs (unreachable IPAM, exhausted pool); re-create the " +
        "Configuration with liqoctl.",
    },
    run: runIpam03,
  },
  {
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
        "fail printing each colliding pair (a remapped CIDR containing a node address is FACTS §7 D12); " +
        "skip when Networks are not served (ipam.liqo.io CRDs missing: ENV-03).",
      fixes:
        "Reserve the local subnets (liqoctl install --reserved-subnets / Helm ipam.reservedSubnets) and redo " +
        "the peering's networking so IPAM picks another range.",
    },
    run: runIpam02,
  },
  {
    id: "IPAM-04",
    title: "IP objects allocated",
    layer: "ipam",
    needs: [],
    scope: "single",
    perPeer: false,
    reads: ["ips", "networks"],
    explain: {
      reads: "Every IP object (api-server, api-server-proxy, <cfg>-unknown-source, one per offloaded pod): " +
        "status.ip and status.cidr; the Network it references (spec.networkRef, default the external-cidr Network). " +
        "Cluster-wide: the per-peer unknown-source IPs are listed by name.",
      decides:
        "fail listing unallocated IPs with their Network and whether it has status.cidr; warn when all of " +
        "them are younger than 30 s; skip when IPs or Networks are not served (ipam.liqo.io CRDs missing: ENV-03).",
      fixes:
        "Check liqo-ipam and the referenced Network; a Network without status.cidr keeps its IPs pending.",
    },
    run: runIpam04,
  },
];
