/**
 * FC-01: the ForeignCluster's enabled modules report healthy conditions; an unhealthy authentication
 * condition fails here, networking/offloading ones point at the check that judges the objects
 * behind them (Liqo's `pkg/liqo-controller-manager/core/foreigncluster-controller/status.go`, `conditions.go`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { ageMs, formatAge, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import type { Condition } from "../../liqo/views/meta.ts";
import { describeCondition, liqoNs, peerId, tenantNs } from "./shared.ts";
import {
  fix,
  kubectlIn,
  liqoctl,
  pipe,
  type RemediationStep,
  remoteKubeconfig,
  shell,
  step,
  unique,
} from "../remediation.ts";

const HEALTHY = new Set(["Ready", "Established"]);

/** Which check judges what a networking/offloading FC condition summarises. */
const POINTERS: Readonly<Record<string, string>> = {
  NetworkConfigurationStatus: "IPAM-03",
  NetworkGatewayPresence: "GW-01",
  NetworkGatewayServerStatus: "GW-01",
  NetworkGatewayClientStatus: "GW-01",
  NetworkConnectionStatus: "TUN-01",
  OffloadingVirtualNodeStatus: "REF-02",
  OffloadingNodeStatus: "REF-02",
};

interface ModuleFinding {
  module: string;
  condition: Condition;
}

function authRemediation(ctx: CheckContext, type: string | undefined): RemediationStep[] {
  const ns = tenantNs(ctx), id = peerId(ctx), lns = liqoNs(ctx);
  const logs = kubectlIn("local", lns, "logs", "deploy/liqo-controller-manager");
  // The peering is (re-)authenticated from the consumer, naming the provider (liqoctl peer).
  const peer = liqoctl("consumer", "peer", remoteKubeconfig("provider"));
  if (type === "AuthTenantStatus") {
    return fix(
      step(
        kubectlIn("local", ns, "get", "tenant", "-l", `${REMOTE_ID_LABEL}=${id}`, "-o", "yaml"),
        "needs status.tenantNamespace and status.authParams",
      ),
      pipe(logs, shell("grep", "-i", "tenant")),
      step(peer, `From the consumer ${id} (re-sends keys, CSR and signature):`),
    );
  }
  return fix(
    step(
      kubectlIn("local", ns, "get", "identities", "-l", `${REMOTE_ID_LABEL}=${id}`, "-o", "wide"),
      "needs status.kubeconfigSecretRef",
    ),
    pipe(logs, shell("grep", "-i", "identity")),
    step(peer, "Re-run the authentication:"),
  );
}

/**
 * A peer whose cluster ID is the local one: Liqo keys everything per peer by cluster ID (tenant
 * namespace `liqo-tenant-<id>`, the remote-cluster-id label), and nothing refuses the collision
 * (`pkg/liqo-controller-manager/core/foreigncluster-controller/foreigncluster_controller.go` leaves it
 * a TODO). liqoctl defaults the ID to the cloud cluster's name (`pkg/liqoctl/install/eks/provider.go`,
 * `aks/provider.go`, `gke/provider.go`), so two regions' clusters of the same name collide.
 */
function sameIdentity(ctx: CheckContext): Outcome | null {
  const local = ctx.cluster.clusterId;
  const id = ctx.peer?.clusterId;
  if (!local || !id || local !== id) return null;
  const lns = liqoNs(ctx);
  return {
    status: "fail",
    summary: `peer cluster ID ${id} equals the local cluster ID: two clusters share one identity, and ` +
      "Liqo cannot tell their per-peer objects apart",
    evidence: [
      `ForeignCluster ${ctx.peer?.foreignCluster.metadata.name}: spec.clusterID ${id}`,
      `${lns}/liqo-clusterid-configmap: CLUSTER_ID ${local}`,
      "liqoctl install defaults the cluster ID to the cloud cluster name (EKS/AKS/GKE): clusters of the " +
      "same name in two regions collide",
    ],
    remediation: fix(
      "unpeer, reinstall one of the two clusters with a unique ID, then peer again:",
      liqoctl("consumer", "unpeer", remoteKubeconfig("provider")),
      step(
        liqoctl("local", "install", "--cluster-id", "<unique id>"),
        "on one of the two clusters (e.g. name plus region)",
      ),
      liqoctl("consumer", "peer", remoteKubeconfig("provider")),
    ),
  };
}

function run(ctx: CheckContext): Outcome {
  const collision = sameIdentity(ctx);
  if (collision) return collision;
  const fc = ctx.peer?.foreignCluster;
  const now = ctx.cluster.now;
  const modules = fc?.status?.modules;
  if (!modules || typeof modules !== "object") {
    return {
      status: "unknown",
      summary: "ForeignCluster has no module status yet (is the controller-manager reconciling it?)",
      evidence: [`ForeignCluster ${fc?.metadata?.name ?? peerId(ctx)}: status.modules absent`],
    };
  }
  const peeringAge = ageMs(now, fc.metadata?.creationTimestamp);
  const evidence = [`peering age ${formatAge(peeringAge)}, role ${fc.status?.role ?? "Unknown"}`];
  const authBad: ModuleFinding[] = [];
  const otherBad: ModuleFinding[] = [];
  for (const module of ["authentication", "networking", "offloading"] as const) {
    const m = modules[module];
    if (!m?.enabled) {
      evidence.push(`${module}: disabled`);
      continue;
    }
    const conds = m.conditions ?? [];
    if (conds.length === 0) evidence.push(`${module}: enabled, no conditions yet`);
    for (const c of conds) {
      evidence.push(`${module}: ${describeCondition(c, now)}`);
      if (HEALTHY.has(c.status ?? "")) continue;
      (module === "authentication" ? authBad : otherBad).push({ module, condition: c });
    }
  }
  if (authBad.length > 0) {
    const c = authBad[0].condition;
    return {
      status: "fail",
      summary: `authentication module unhealthy: ${describeCondition(c, now)}${
        c?.message ? `: ${c.message}` : ""
      }`,
      evidence,
      remediation: unique(authBad.flatMap((f) => authRemediation(ctx, f.condition?.type))),
    };
  }
  if (otherBad.length > 0) {
    const pointers = otherBad.map((f) =>
      `${describeCondition(f.condition, now)} → see ${
        POINTERS[f.condition.type ?? ""] ?? "the " + f.module + " checks"
      }`
    );
    return {
      status: "warn",
      summary: pointers.join("; "),
      evidence,
      remediation: fix(
        "These conditions summarise later layers; the named checks examine the objects directly " +
          "and give the diagnosis.",
        liqoctl("local", "info", "peer", peerId(ctx)),
      ),
    };
  }
  return {
    status: "pass",
    summary: "all enabled ForeignCluster modules healthy",
    evidence,
  };
}

export const FC_01: CheckDef = {
  id: "FC-01",
  title: "ForeignCluster module conditions",
  layer: "controlplane",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["foreignclusters"],
  explain: {
    reads: "ForeignCluster status.modules.{authentication,networking,offloading}: enabled, each condition " +
      "with status, reason and lastTransitionTime, compared with the ForeignCluster's age.",
    decides: "fail first when the peer's cluster ID equals the local one (liqo-clusterid-configmap): " +
      "liqoctl defaults the ID to the cloud cluster name, so same-named clusters in two regions collide; " +
      "fail when an authentication condition is not Ready/Established (this layer's business); warn " +
      "when a networking or offloading condition is unhealthy, naming the check that judges the underlying " +
      "objects (e.g. NetworkConnectionStatus → TUN-01); unknown without module status; pass otherwise.",
    fixes:
      "For authentication: inspect the Identity (consumer) or Tenant (provider) and re-run liqoctl peer. " +
      "For the others: follow the named check. A cluster ID collision: unpeer, reinstall one cluster with " +
      "liqoctl install --cluster-id <unique id>, peer again.",
  },
  hops: [],
  run,
};
