/**
 * IPAM-04: every IP object (api-server, api-server-proxy, unknown-source, offloaded pods) has its
 * status.ip and status.cidr; a pending one is shown with the Network it waits on (Liqo's
 * `apis/ipam/v1alpha1/ip_types.go`, `pkg/liqo-controller-manager/ipam/ip-controller/ip_controller.go`).
 */
import { fix, kubectlIn, pipe, shell } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { IP, Network } from "../../liqo/views/ipam.ts";
import { ageMs, formatAge } from "../../liqo/lookups.ts";
import { localNetworks } from "../../liqo/ipam.ts";
import { ipamKindMissing } from "./shared.ts";

function ipNetwork(
  inv: Objects,
  ip: IP,
  liqoNs: string | null,
): { ref: string; net: Network | null } {
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

function run(ctx: CheckContext): Outcome {
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
    remediation: fix(
      ...pending.slice(0, 3).map((p) =>
        kubectlIn("local", p.metadata.namespace ?? "", "get", "ip", p.metadata.name, "-o", "yaml")
      ),
      kubectlIn("local", ns, "get", "networks", "-o", "wide"),
      kubectlIn("local", ns, "logs", "deploy/liqo-ipam"),
      pipe(kubectlIn("local", ns, "logs", "deploy/liqo-controller-manager"), shell("grep", "-i", "ip")),
    ),
  };
}

export const IPAM_04: CheckDef = {
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
    fixes: "Check liqo-ipam and the referenced Network; a Network without status.cidr keeps its IPs pending.",
  },
  hops: ["remote-pod"],
  run,
};
