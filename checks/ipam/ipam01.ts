/**
 * IPAM-01 (dual): each side's Configuration for the other declares the other cluster's real pod
 * and external CIDRs (its Networks' status.cidr): a mismatch is a stale Configuration after a
 * reinstall (Liqo's `apis/networking/v1beta1/configuration_types.go`, `pkg/utils/ipam/networks.go`).
 */
import { fix, kubectl, liqoctl, pipe } from "../remediation.ts";
import type { CheckContext, CheckDef, ClusterView, Outcome } from "../types.ts";
import { parseCidr } from "../../probes/cidr.ts";
import { localCidrs, peerConfiguration, strList } from "../../liqo/ipam.ts";
import { ipamKindMissing, show } from "./shared.ts";

const sameSet = (a: string[], b: string[]): boolean => {
  const norm = (l: string[]) => [...new Set(l.map((c) => parseCidr(c)?.text ?? c))].sort().join(",");
  return norm(a) === norm(b);
};

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

function run(ctx: CheckContext): Outcome {
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
    remediation: stale.flatMap((s) => {
      const on = (v: typeof s.other) => (v === ctx.cluster ? "local" : "remote");
      return fix(
        `on ${s.other.name}: print its current Configuration and apply it on ${s.holder.name}:`,
        pipe(liqoctl(on(s.other), "generate", "configuration"), kubectl(on(s.holder), "apply", "-f", "-")),
        "or re-run the network setup: liqoctl network reset / liqoctl network connect (or unpeer + peer)",
      );
    }),
  };
}

export const IPAM_01: CheckDef = {
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
  hops: ["remote-pod"],
  run,
};
