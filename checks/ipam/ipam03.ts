/**
 * IPAM-03: the peer's Configuration exists and is configured at its generation, its remapped CIDRs
 * and per-peer Networks are allocated, and CIDRs overlapping local ones are actually remapped
 * (Liqo's `pkg/liqo-controller-manager/networking/external-network/configuration/network.go`,
 * `docs/advanced/external-ip-remapping.md`).
 */
import {
  andThen,
  fix,
  kubectl,
  kubectlIn,
  liqoctl,
  pipe,
  type RemediationStep,
  remoteKubeconfig,
  shell,
  step,
} from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Configuration } from "../../liqo/views/networking.ts";
import { ageMs, conditionOf, formatAge, peerObjects, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { overlaps, parseCidr } from "../../probes/cidr.ts";
import {
  CIDR_TYPE_LABEL,
  configurationConfigured,
  localCidrs,
  peerConfiguration,
  remappedCidrs,
  strList,
} from "../../liqo/ipam.ts";
import { networkingDisabled } from "../common/gateway.ts";
import { ipamKindMissing, show } from "./shared.ts";

function overlapNotRemapped(ctx: CheckContext, cfg: Configuration): string[] {
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

function notRemappedFix(cfg: Configuration, peerId: string, ipamNs: string): RemediationStep[] {
  return fix(
    step(
      kubectlIn(
        "local",
        cfg.metadata.namespace ?? "",
        "get",
        "networks",
        "-l",
        `${REMOTE_ID_LABEL}=${peerId}`,
        "-o",
        "yaml",
      ),
      "not-remapped label? external IPAM?",
    ),
    kubectlIn("local", ipamNs, "logs", "deploy/liqo-ipam"),
    "then recreate the peering's networking so IPAM remaps the overlapping CIDR:",
    andThen(
      liqoctl("local", "network", "reset", remoteKubeconfig("remote")),
      liqoctl("local", "network", "connect", "..."),
    ),
  );
}

function run(ctx: CheckContext): Outcome {
  const peer = ctx.peer!;
  const { inv, liqoNamespace } = ctx.cluster;
  const notServed = ipamKindMissing([ctx.cluster], ["networks"]);
  if (notServed) return notServed;
  const cfg = peerConfiguration(inv, peer.clusterId);
  if (!cfg) {
    if (networkingDisabled(ctx.peer?.foreignCluster)) {
      return { status: "skip", summary: "networking module disabled for this peer" };
    }
    return {
      status: "fail",
      summary: `no Configuration for peer ${peer.clusterId}`,
      evidence: [`no Configuration labelled ${REMOTE_ID_LABEL}=${peer.clusterId}`],
      remediation: fix(
        "Configurations are written by liqoctl on both clusters (never replicated):",
        liqoctl("local", "network", "connect", remoteKubeconfig("remote")),
        `or print ${peer.clusterId}'s and apply it here:`,
        pipe(liqoctl("remote", "generate", "configuration"), kubectl("local", "apply", "-f", "-")),
      ),
    };
  }
  const name = `${cfg.metadata.namespace}/${cfg.metadata.name}`;
  const cfgNs = cfg.metadata.namespace ?? "";
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
    remediation: summary.startsWith("overlapping") ? notRemappedFix(cfg, peer.clusterId, ipamNs) : fix(
      kubectlIn("local", cfgNs, "get", "configuration", cfg.metadata.name, "-o", "yaml"),
      kubectlIn("local", cfgNs, "get", "networks", "-l", `${REMOTE_ID_LABEL}=${peer.clusterId}`),
      "per-peer Networks without status.cidr: liqo-ipam unreachable (--ipam-server) or pool exhausted / conflict",
      kubectlIn("local", ipamNs, "logs", "deploy/liqo-ipam"),
      pipe(
        kubectlIn("local", ipamNs, "logs", "deploy/liqo-controller-manager"),
        shell("grep", "-i", "-e", "configuration", "-e", "network"),
      ),
    ),
  };
}

export const IPAM_03: CheckDef = {
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
  hops: ["remote-pod"],
  run,
};
