/**
 * FAB-04: every RouteConfiguration and FirewallConfiguration concerning the peer is applied
 * (status.conditions[] Applied=True) by each current pod that must apply it: fabric pods and the
 * peer's active gateway pod, by the objects' category/subcategory/unique labels (Liqo's
 * `pkg/firewall/label.go`, `pkg/route/label.go`, `pkg/gateway/label.go`, `pkg/fabric/label.go`).
 */
import { kubectlIn, type RemediationStep, step, unique } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { Pod } from "../../liqo/views/core.ts";
import {
  activeGatewayPod,
  ageMs,
  formatAge,
  gatewayOf,
  type Named,
  REMOTE_ID_LABEL,
} from "../../liqo/lookups.ts";
import { fabricPods, noGatewaySkip } from "./shared.ts";
import { TENANT_NAMESPACE_LABEL } from "../../liqo/names.ts";

interface Applier {
  pod: Pod;
  kind: "fabric" | "gateway";
}

function labelOf(o: Named, kind: "route" | "firewall", key: string): string | undefined {
  return o.metadata.labels?.[`networking.liqo.io/${kind}-${key}`];
}

/** Tenant namespaces of other peers (objects there concern another peer). */
function otherTenantNamespaces(inv: Objects, peerId: string): Set<string> {
  return new Set(
    (inv.tryItems("namespaces") ?? []).filter((n) =>
      n.metadata.labels?.[TENANT_NAMESPACE_LABEL] === "true" &&
      n.metadata.labels?.[REMOTE_ID_LABEL] !== peerId
    ).map((n) => n.metadata.name),
  );
}

function requiredAppliers(
  o: Named,
  kind: "route" | "firewall",
  peerId: string,
  fabric: Pod[],
  gwPod: Pod | null,
): Applier[] | null {
  const category = labelOf(o, kind, "category");
  const sub = labelOf(o, kind, "subcategory");
  const unique = labelOf(o, kind, "unique");
  if (category === "fabric") {
    if (sub === "single-node" && unique) {
      return fabric.filter((p) => p.spec?.nodeName === unique).map((pod) => ({ pod, kind: "fabric" }));
    }
    return fabric.map((pod) => ({ pod, kind: "fabric" }));
  }
  if (category === "gateway") {
    if (!gwPod) return [];
    if (sub === "fabric-node" && unique) {
      return gwPod.spec?.nodeName === unique ? [{ pod: gwPod, kind: "gateway" }] : [];
    }
    if (unique && unique !== peerId) return null; // another peer's gateway object
    return [{ pod: gwPod, kind: "gateway" }];
  }
  return null;
}

function run(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const { inv, liqoNamespace, now } = ctx.cluster;
  const gw = gatewayOf(inv, peerId);
  if (!gw) return noGatewaySkip(ctx);
  const gwPod = activeGatewayPod(inv, gw);
  const fabric = fabricPods(inv, liqoNamespace).filter((p) => p.status?.phase === "Running");
  const others = otherTenantNamespaces(inv, peerId);
  const failures: string[] = [];
  const young: string[] = [];
  const logs: RemediationStep[] = [];
  let checked = 0;
  for (const kind of ["route", "firewall"] as const) {
    for (const o of inv.items(kind === "route" ? "routeconfigurations" : "firewallconfigurations")) {
      if (o.metadata.namespace && others.has(o.metadata.namespace)) continue;
      const appliers = requiredAppliers(o, kind, peerId, fabric, gwPod);
      if (!appliers) continue;
      const conds = o.status?.conditions ?? [];
      const label = `${
        kind === "route" ? "RouteConfiguration" : "FirewallConfiguration"
      } ${o.metadata.namespace}/${o.metadata.name}`;
      for (const a of appliers) {
        checked++;
        const c = conds.find((x) => x?.host === a.pod.metadata.name);
        if (c?.type === "Applied" && c.status === "True") continue;
        const podNs = a.pod.metadata.namespace ?? "";
        const logCmd = step(
          a.kind === "fabric"
            ? kubectlIn("local", podNs, "logs", a.pod.metadata.name)
            : kubectlIn("local", podNs, "logs", a.pod.metadata.name, "-c", "gateway"),
        );
        const age = Math.min(
          ageMs(now, o.metadata.creationTimestamp) ?? Infinity,
          ageMs(now, a.pod.status?.startTime ?? a.pod.metadata.creationTimestamp) ?? Infinity,
        );
        if (c?.status === "False") {
          failures.push(
            `${label}: Applied=False on ${a.pod.metadata.name} since ${
              formatAge(ageMs(now, c.lastTransitionTime))
            }`,
          );
          logs.push(logCmd);
        } else if (age < 30_000) {
          young.push(`${label}: no Applied entry yet for ${a.pod.metadata.name} (${formatAge(age)} old)`);
        } else {
          failures.push(
            `${label}: no Applied=True entry for ${a.pod.metadata.name}${
              c ? ` (entry type ${c.type || "''"} status ${c.status || "''"})` : ""
            }`,
          );
          logs.push(logCmd);
        }
      }
    }
  }
  const evidence = [
    `${fabric.length} running fabric pods, gateway pod ${
      gwPod?.metadata.name ?? "(none running)"
    }; ${checked} (object, pod) pairs checked`,
  ];
  if (failures.length) {
    return {
      status: "fail",
      summary: failures[0],
      evidence: [...evidence, ...failures, ...young],
      remediation: unique(logs),
    };
  }
  if (young.length) return { status: "warn", summary: young[0], evidence: [...evidence, ...young] };
  return { status: "pass", summary: `all Route/FirewallConfigurations applied by their pods`, evidence };
}

export const FAB_04: CheckDef = {
  id: "FAB-04",
  title: "Route and Firewall configurations applied",
  layer: "fabric",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["routeconfigurations", "firewallconfigurations", "pods"],
  readsIn: { pods: ["liqo", "gateways"] },
  optionalReads: ["namespaces", "gatewayservers", "gatewayclients"],
  explain: {
    reads: "RouteConfigurations and FirewallConfigurations with their category/subcategory/unique labels " +
      "(who applies which), status.conditions[] per host, current fabric pods and the peer's active gateway pod.",
    decides:
      "fail naming object and pod when a current pod that must apply an object has Applied=False or no " +
      "entry; warn when the object or pod is younger than 30 s; entries of deleted pods are ignored.",
    fixes: "Read the logs of the pod that failed (fabric pod, or the gateway container of the gateway pod).",
  },
  hops: ["node", "geneve"],
  run,
};
