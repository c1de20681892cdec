/**
 * PF-ID: the two clusters are distinct — by Liqo cluster ID (the `CLUSTER_ID` of
 * liqo-clusterid-configmap) where Liqo is installed, else by API server and kubeconfig CA — and not
 * already peered with each other. liqoctl itself only refuses two identical REST configs
 * (`cmd/liqoctl/cmd/root.go`): two contexts of one cluster, or two clusters installed with the same
 * `--cluster-id`, get through it.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { clusterIdOf } from "../../liqo/lookups.ts";
import { fix, flyingfishOn, liqoctl, step } from "../remediation.ts";
import { liqoItems, named, noProvider, type Side, sidesOf, unreadable } from "./_shared.ts";

/** host:port of an API server URL. */
function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return u.port ? `${u.hostname}:${u.port}` : u.host;
  } catch {
    return url;
  }
}

/** The ForeignCluster a side holds for the other side's cluster ID, if any (null: unreadable). */
function peeredWith(side: Side, otherId: string | null): { found: string | null } | null {
  const fcs = liqoItems(side.view, "foreignclusters");
  if (fcs === null) return null;
  if (!otherId) return { found: null };
  const fc = fcs.find((f) => (f.spec?.clusterID ?? f.metadata.name) === otherId);
  return { found: fc ? fc.metadata.name : null };
}

/** The UID of kube-system: created with the cluster, the same through every kubeconfig that reaches it. */
function kubeSystemUid(side: Side): string | null {
  const ns = (side.view.inv.tryItems("namespaces") ?? []).find((n) => n.metadata.name === "kube-system");
  const uid = ns?.metadata.uid;
  return typeof uid === "string" && uid !== "" ? uid : null;
}

function run(ctx: CheckContext): Outcome {
  const sides = sidesOf(ctx);
  if (typeof sides === "string") return noProvider(sides);
  const [c, p] = sides;
  const ids = sides.map((s) => s.view.clusterId ?? clusterIdOf(s.view.inv));
  const uids = sides.map(kubeSystemUid);
  const evidence = sides.map((s, i) =>
    `${named(s)}: ${ids[i] ? `cluster ID ${ids[i]}` : "no Liqo cluster ID"}, API server ${
      hostOf(s.view.server)
    }, CA ${s.view.caFingerprint ?? "system roots"}${uids[i] ? `, kube-system UID ${uids[i]}` : ""}`
  );
  // One cluster: the same kube-system UID; without UIDs, the same API server and CA.
  const sameEndpoint = uids[0] && uids[1]
    ? uids[0] === uids[1]
    : hostOf(c.view.server) === hostOf(p.view.server) &&
      (c.view.caFingerprint ?? "") === (p.view.caFingerprint ?? "");
  if (ids[0] && ids[0] === ids[1]) {
    const twoClusters = !sameEndpoint;
    return {
      status: "fail",
      summary: twoClusters
        ? `two different clusters share the Liqo cluster ID ${ids[0]} (API servers ${
          hostOf(c.view.server)
        } and ${
          hostOf(p.view.server)
        }): Liqo names every peering object after the remote cluster ID, so they cannot peer`
        : `--kubeconfig/--context and --remote-kubeconfig/--remote-context reach the same cluster (${
          ids[0]
        }): ` +
          "a cluster cannot peer with itself",
      evidence,
      remediation: twoClusters
        ? fix(
          "Reinstall Liqo on one of them with a unique cluster ID (a DNS-1123 label), e.g.:",
          step(liqoctl("remote", "install", "<provider>", "--cluster-id", "<unique-id>")),
        )
        : fix("Point --remote-kubeconfig/--remote-context at the other cluster."),
    };
  }
  if (!ids[0] && !ids[1] && sameEndpoint) {
    return {
      status: "fail",
      summary: uids[0]
        ? `both kubeconfigs reach the same cluster (kube-system UID ${uids[0]}): one cluster, named twice`
        : `both kubeconfigs reach the same API server ${hostOf(c.view.server)} with the same CA: ` +
          "one cluster, named twice",
      evidence,
      remediation: fix("Point --remote-kubeconfig/--remote-context at the other cluster."),
    };
  }
  // Already peered: either side holds a ForeignCluster for the other's cluster ID.
  const links = [peeredWith(c, ids[1]), peeredWith(p, ids[0])];
  const peered = sides.flatMap((s, i) => {
    const l = links[i];
    return l?.found ? [`${named(s)}: ForeignCluster ${l.found} for ${ids[1 - i]}`] : [];
  });
  if (peered.length > 0) {
    return {
      status: "skip",
      skipKind: "not-applicable",
      summary:
        `${c.view.name} and ${p.view.name} are already peered: diagnose the peering with flyingfish check`,
      evidence: [...evidence, ...peered],
      remediation: fix(
        step(
          flyingfishOn("local", "check"),
          "Diagnose the existing peering (add --remote-kubeconfig for both ends):",
        ),
      ),
      facts: { preflightPeered: true },
    };
  }
  const unsure = sides.flatMap((s, i) =>
    links[i] === null && ids[1 - i] ? [unreadable(s.view, "foreignclusters")] : []
  );
  if (unsure.length > 0) {
    return {
      status: "unknown",
      summary: `the clusters are distinct, but whether they are already peered cannot be told: ${
        unsure.join("; ")
      }`,
      evidence,
    };
  }
  const how = ids[0] && ids[1]
    ? "cluster IDs differ"
    : uids[0] && uids[1]
    ? "kube-system UIDs differ"
    : "API servers or CAs differ";
  return { status: "pass", summary: `two distinct clusters (${how}), not peered with each other`, evidence };
}

export const PF_ID: CheckDef = {
  id: "PF-ID",
  title: "The two clusters are distinct and not yet peered",
  layer: "preflight",
  needs: [],
  scope: "dual",
  perPeer: false,
  reads: ["deployments"],
  optionalReads: ["configmaps", "foreignclusters", "namespaces"],
  readsIn: { configmaps: ["liqo"] },
  explain: {
    reads:
      "The Liqo cluster ID (CLUSTER_ID of liqo-clusterid-configmap) of each cluster, the API server and a " +
      "fingerprint of the kubeconfig's CA, and the ForeignClusters of each side.",
    decides: "fail when both reach one cluster, or two clusters share a cluster ID; skip pointing to " +
      "`flyingfish check` when either holds a ForeignCluster for the other (already peered); unknown when the " +
      "ForeignClusters cannot be read.",
    fixes:
      "Name the other cluster with --remote-kubeconfig/--remote-context, or reinstall Liqo on one side with " +
      "a unique --cluster-id.",
  },
  hops: [],
  run,
};
