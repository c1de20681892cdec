/**
 * REF-03: namespaces offloaded with the peer are: NamespaceOffloading phase and per-peer Ready
 * condition, NamespaceMap mappings (a CreationLoopBackOff is a remote namespace name collision,
 * Liqo's `pkg/liqo-controller-manager/offloading/namespacemap-controller/`).
 */
import { fix, type FixPart, kubectl, kubectlIn, pipe, shell, unique } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { ageMs, formatAge, peerObjects } from "../../liqo/lookups.ts";

function run(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const inv = ctx.cluster.inv;
  const now = ctx.cluster.now;
  const nsos = inv.items("namespaceoffloadings").filter((n) => n.metadata.name === "offloading");
  const maps = peerObjects(inv, "namespacemaps", peerId);
  if (nsos.length === 0 && maps.length === 0) {
    return { status: "skip", summary: `no namespace offloaded with ${peerId}` };
  }
  // A NamespaceOffloading selects clusters; one that never concerned this peer says nothing about it.
  const concerned = nsos.some((n) => n.status?.remoteNamespacesConditions?.[peerId] !== undefined);
  if (
    maps.length === 0 && !concerned && ctx.peer!.foreignCluster?.status?.modules?.offloading?.enabled !== true
  ) {
    return { status: "skip", summary: `offloading not enabled with ${peerId}` };
  }
  const fails: string[] = [];
  const warns: string[] = [];
  const evidence: string[] = [];
  const fixes: FixPart[] = [];
  for (const nso of nsos) {
    const ns = nso.metadata.namespace;
    const phase = nso.status?.offloadingPhase;
    const conds = nso.status?.remoteNamespacesConditions?.[peerId] ?? [];
    const readyC = conds.find((c) => c?.type === "Ready");
    evidence.push(
      `NamespaceOffloading ${ns}/offloading: phase ${phase ?? "?"}, strategy ${
        nso.spec?.namespaceMappingStrategy ?? "DefaultName"
      }, remote ${nso.status?.remoteNamespaceName ?? "?"}${
        readyC ? `, ${peerId} Ready=${readyC.status} (${readyC.reason ?? ""})` : ""
      }`,
    );
    if (readyC?.status === "False") {
      fails.push(
        `namespace ${ns} not offloaded to ${peerId}: ${readyC.reason ?? "Ready=False"}${
          readyC.message ? ` — ${readyC.message}` : ""
        }`,
      );
      fixes.push(kubectlIn("local", ns ?? "", "get", "namespaceoffloading", "offloading", "-o", "yaml"));
    } else if (phase === "SomeFailed" || phase === "AllFailed") {
      if (conds.length || Object.keys(nso.status?.remoteNamespacesConditions ?? {}).length === 0) {
        fails.push(`NamespaceOffloading ${ns}/offloading phase ${phase}`);
        fixes.push(kubectlIn("local", ns ?? "", "get", "namespaceoffloading", "offloading", "-o", "yaml"));
      }
    } else if (phase === "InProgress") {
      const age = ageMs(now, nso.metadata.creationTimestamp) ?? 0;
      if (age > 5 * 60_000) {
        warns.push(`NamespaceOffloading ${ns}/offloading InProgress for ${formatAge(age)}`);
      }
    }
  }
  for (const m of maps) {
    const cur = m.status?.currentMapping ?? {};
    for (const [local, v] of Object.entries(cur)) {
      evidence.push(
        `NamespaceMap ${m.metadata.namespace}/${m.metadata.name}: ${local} → ${v?.remoteNamespace ?? "?"} ${
          v?.phase ?? "?"
        }`,
      );
      if (v?.phase === "CreationLoopBackOff") {
        fails.push(
          `remote namespace ${
            v.remoteNamespace ?? "?"
          } for ${local} cannot be created on ${peerId} (CreationLoopBackOff): a namespace with that name already exists there (EnforceSameName collision?)`,
        );
        fixes.push(
          `on ${peerId}: is ${v.remoteNamespace} owned by someone else? (no annotation liqo.io/managed-by-namespace-map)`,
          kubectl("remote", "get", "namespace", v.remoteNamespace ?? "?", "-o", "yaml"),
          "use another mapping strategy, or remove/rename the colliding namespace:",
          kubectlIn(
            "local",
            local,
            ...["patch", "namespaceoffloading", "offloading", "--type=merge", "-p"],
            `{"spec":{"namespaceMappingStrategy":"DefaultName"}}`,
          ),
        );
      }
    }
  }
  if (fails.length) {
    const collision = fails.find((f) => f.includes("CreationLoopBackOff): a namespace"));
    return {
      status: "fail",
      summary: collision ?? fails[0],
      evidence: [...evidence, ...fails],
      remediation: unique(fix(...fixes)),
    };
  }
  if (warns.length) {
    return {
      status: "warn",
      summary: warns[0],
      evidence: [...evidence, ...warns],
      remediation: fix(
        pipe(
          kubectlIn("local", ctx.cluster.liqoNamespace ?? "liqo", "logs", "deploy/liqo-controller-manager"),
          shell("grep", "-i", "offloading"),
        ),
      ),
    };
  }
  return { status: "pass", summary: `namespace offloading with ${peerId} healthy`, evidence };
}

export const REF_03: CheckDef = {
  id: "REF-03",
  title: "Namespace offloading",
  layer: "reflection",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: ["namespaceoffloadings", "namespacemaps"],
  explain: {
    reads:
      "NamespaceOffloadings (name offloading): offloadingPhase and remoteNamespacesConditions[<peer>]; " +
      "NamespaceMaps of the peer: status.currentMapping phases.",
    decides:
      "fail on SomeFailed/AllFailed, a Ready=False condition for the peer or a CreationLoopBackOff mapping " +
      "(remote namespace name collision); warn on InProgress older than 5 min; skip when nothing is offloaded.",
    fixes: "Remove or rename the colliding remote namespace, or switch the mapping strategy.",
  },
  hops: ["remote-pod"],
  run,
};
