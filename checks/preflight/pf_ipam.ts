/**
 * PF-IPAM: the address plan of both sides — pod, service, external and internal CIDRs, each with
 * where it came from — and what each cluster's IPAM will do with the other's pod and external
 * CIDRs: keep them (no overlap with its own networks) or remap them into a free block of its
 * `ipam.pools` of the same size (`pkg/ipam`, Configuration remapping). Fails when a pool has no room
 * for a remap, or when a CIDR kept as it is lands on the other cluster's node addresses (Liqo does
 * not know node networks unless they are reserved, so nothing remaps it).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { cidrSize, contains, formatIPv4, overlaps, parseCidr } from "../../probes/cidr.ts";
import { fix, liqoctl, step } from "../remediation.ts";
import { type AddressPlan, addressPlan, type Sourced } from "./_plan.ts";
import { named, noProvider, notInstalled, type Side, sidesOf } from "./_shared.ts";

const known = (s: Sourced | { unknown: string }): s is Sourced => "cidrs" in s;

/** The networks a cluster's IPAM already holds (a remap must avoid them). */
function used(plan: AddressPlan): string[] {
  return [
    ...(known(plan.pod) ? plan.pod.cidrs : []),
    ...(known(plan.service) ? plan.service.cidrs : []),
    ...plan.external.cidrs,
    ...plan.internal.cidrs,
    ...plan.reserved.flatMap((r) => r.cidrs),
    ...plan.peers.flatMap((p) => p.cidrs),
  ];
}

/** The first block of `prefix` in `pools` that overlaps nothing in `taken`, or null (none left). */
export function firstFree(pools: readonly string[], prefix: number, taken: readonly string[]): string | null {
  for (const p of pools) {
    const pool = parseCidr(p);
    if (!pool || pool.prefix > prefix) continue;
    const step = 2 ** (32 - prefix);
    const end = pool.base + cidrSize(pool);
    // Bounded: at most 2^16 candidates per pool (a /8 pool cut into /24s).
    for (let b = pool.base, n = 0; b < end && n < 65_536; b += step, n++) {
      const cand = `${formatIPv4(b >>> 0)}/${prefix}`;
      if (!taken.some((t) => overlaps(t, cand))) return cand;
    }
  }
  return null;
}

function run(ctx: CheckContext): Outcome {
  const sides = sidesOf(ctx);
  if (typeof sides === "string") return noProvider(sides);
  const plans = sides.map((s) => addressPlan(s.view));
  const evidence: string[] = [];
  const fails: string[] = [];
  const warns: string[] = [];
  const unknowns: string[] = [];
  const remaps: string[] = [];
  const show = (s: Sourced | { unknown: string }) =>
    known(s) ? `${s.cidrs.join(",")} (${s.from})` : `unknown (${s.unknown})`;
  sides.forEach((side, i) => {
    const p = plans[i];
    evidence.push(
      `${named(side)}: pod ${show(p.pod)}; service ${show(p.service)}; external ${
        show(p.external)
      }; internal ${show(p.internal)}${
        p.reserved.length ? `; reserved ${p.reserved.map((r) => r.cidrs.join(",")).join(", ")}` : ""
      }; pools ${p.pools ? show(p.pools) : `skipped: ${notInstalled(side.view)}`}`,
    );
    for (const k of ["pod", "service"] as const) {
      const s = p[k];
      if (!known(s)) unknowns.push(`${named(side)}: ${k} CIDR unknown (${s.unknown})`);
    }
  });
  // What each cluster (X) does with the other's (R) pod and external CIDRs.
  sides.forEach((x: Side, i) => {
    const r = sides[1 - i];
    const px = plans[i], pr = plans[1 - i];
    const taken = used(px);
    const incoming: { what: string; cidrs: string[] }[] = [
      { what: "pod CIDR", cidrs: known(pr.pod) ? pr.pod.cidrs : [] },
      { what: "external CIDR", cidrs: pr.external.cidrs },
    ];
    for (const inc of incoming) {
      for (const c of inc.cidrs) {
        const parsed = parseCidr(c);
        if (!parsed) continue;
        const hit = taken.filter((t) => overlaps(t, c));
        if (hit.length === 0) {
          const onNodes = px.nodes.filter((n) => contains(c, n.address));
          if (onNodes.length) {
            fails.push(
              `${r.view.name}'s ${inc.what} ${c} is kept as is on ${
                named(x)
              } but contains its node address(es) ` +
                `${
                  onNodes.slice(0, 3).map((n) => `${n.node} ${n.address}`).join(", ")
                }: traffic to them would ` +
                "enter the tunnel",
            );
          }
          taken.push(c);
          continue;
        }
        const why = `collides with ${hit.join(", ")}`;
        if (!px.pools) {
          remaps.push(
            `${named(x)} will remap ${r.view.name}'s ${inc.what} ${c} (${why}) once Liqo is installed`,
          );
          continue;
        }
        const block = firstFree(px.pools.cidrs, parsed.prefix, taken);
        if (!block) {
          fails.push(
            `${named(x)} must remap ${r.view.name}'s ${inc.what} ${c} (${why}) but its pools ` +
              `${px.pools.cidrs.join(",")} have no free /${parsed.prefix} left`,
          );
          continue;
        }
        taken.push(block);
        remaps.push(`${named(x)} will remap ${r.view.name}'s ${inc.what} ${c} (${why}), e.g. to ${block}`);
        const onNodes = px.nodes.filter((n) => contains(block, n.address));
        if (onNodes.length) {
          warns.push(
            `the remap of ${r.view.name}'s ${inc.what} on ${named(x)} may land on its node address(es) ` +
              `${onNodes.slice(0, 3).map((n) => `${n.node} ${n.address}`).join(", ")} (not reserved)`,
          );
        }
      }
    }
  });
  const all = [...fails, ...warns, ...remaps, ...unknowns, ...evidence];
  const reserve = fix(
    "Reserve the node networks (and any other network in use) so IPAM keeps remaps off them, or widen ipam.pools:",
    step(liqoctl("local", "install", "<provider>", "--reserved-subnets", "<node subnet>")),
  );
  if (fails.length) return { status: "fail", summary: fails.join("; "), evidence: all, remediation: reserve };
  if (unknowns.length) {
    return { status: "unknown", summary: unknowns.join("; "), evidence: [...warns, ...remaps, ...evidence] };
  }
  if (warns.length) return { status: "warn", summary: warns.join("; "), evidence: all, remediation: reserve };
  return {
    status: "pass",
    summary: remaps.length
      ? `the address plans fit: ${remaps.length} CIDR(s) will be remapped, with room in the pools`
      : "the address plans fit: no CIDR overlaps, nothing to remap",
    evidence: [...remaps, ...evidence],
  };
}

export const PF_IPAM: CheckDef = {
  id: "PF-IPAM",
  title: "Address plans fit: remaps have room, none lands on nodes",
  layer: "preflight",
  needs: ["PF-ID"],
  runsIfUnknown: ["PF-ID"],
  scope: "dual",
  perPeer: false,
  reads: ["nodes"],
  optionalReads: ["networks", "deployments", "configmaps", "pods"],
  readsIn: { configmaps: ["cni"], pods: ["cni"] },
  explain: {
    reads:
      "Each side's pod, service, external, internal and reserved CIDRs — Liqo's Networks where installed, else " +
      "kube-system/kubeadm-config, the kube-proxy ConfigMap's clusterCIDR, the kube-apiserver's " +
      "--service-cluster-ip-range, the nodes' podCIDRs (each named in the evidence) — the liqo-ipam --pools, and " +
      "the nodes' addresses.",
    decides:
      "lists what each side will remap (the other's pod or external CIDR overlapping its own networks); fail " +
      "when its pools have no free block of that size, or when a CIDR kept as is contains the other side's node " +
      "addresses; warn when a remap may land on unreserved node addresses; unknown when a pod or service CIDR " +
      "cannot be found; pools are not judged where Liqo is not installed.",
    fixes:
      "Reserve the node networks (liqoctl install --reserved-subnets / Helm ipam.reservedSubnets) or widen " +
      "ipam.pools.",
  },
  hops: [],
  run,
};
