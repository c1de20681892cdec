/**
 * REFLECTION layer: reflected EndpointSlices (REF-01), the virtual node (REF-02) and namespace
 * offloading (REF-03). FACTS §2.11, §7 D16–D18, §8.4.
 */
import type { CheckContext, CheckDef, Outcome } from "./types.ts";
import type { K8sObject } from "../kube/source.ts";
import {
  ageMs,
  conditionOf,
  formatAge,
  isVirtualNode,
  peerObjects,
  REMOTE_ID_LABEL,
} from "../liqo/lookups.ts";
import { contains } from "../probes/cidr.ts";
import { peerConfiguration, remappedCidrs } from "../liqo/ipam.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const ORIGIN_LABEL = "offloading.liqo.io/origin";
const MANAGED_BY = "liqo.io/managed-by";

function fcCondition(fc: K8sObject | null | undefined, module: string, type: string): Any {
  const list: Any[] = fc?.status?.modules?.[module]?.conditions ?? [];
  return list.find((c) => c?.type === type);
}

/** The peer's virtual Nodes (label liqo.io/type=virtual-node + remote-cluster-id). */
function virtualNodesOf(ctx: CheckContext, peerId: string): K8sObject[] {
  return ctx.cluster.inv.items("nodes").filter((n) =>
    isVirtualNode(n) && n.metadata.labels?.[REMOTE_ID_LABEL] === peerId
  );
}

// ------------------------------------------------------------------------------------------------
// REF-01

function consumerSide(
  ctx: CheckContext,
  peerId: string,
  cidrs: string[],
): { lines: string[]; bad: string[] } {
  const inv = ctx.cluster.inv;
  const vnodes = new Set(virtualNodesOf(ctx, peerId).map((n) => n.metadata.name));
  const lines: string[] = [];
  const bad: string[] = [];
  if (vnodes.size === 0) return { lines, bad };
  for (const s of inv.items("endpointslices")) {
    const eps: Any[] = ((s as Any).endpoints ?? []).filter((e: Any) => vnodes.has(e?.nodeName));
    if (eps.length === 0) continue;
    const where = `EndpointSlice ${s.metadata.namespace}/${s.metadata.name}`;
    for (const e of eps) {
      const addrs: string[] = e?.addresses ?? [];
      const target = e?.targetRef?.name ? ` (pod ${e.targetRef.name})` : "";
      if (addrs.length === 0) bad.push(`${where}: endpoint on ${e.nodeName}${target} has no address`);
      for (const a of addrs) {
        if (cidrs.length && !cidrs.some((c) => contains(c, a))) {
          bad.push(
            `${where}: ${a}${target} on ${e.nodeName} is outside ${peerId}'s remapped CIDRs ${
              cidrs.join(", ")
            }`,
          );
        } else lines.push(`${where}: ${a}${target} on ${e.nodeName}`);
      }
    }
  }
  return { lines, bad };
}

function providerSide(ctx: CheckContext, peerId: string, cidrs: string[]) {
  const inv = ctx.cluster.inv;
  const slices = inv.items("endpointslices").filter((s) =>
    s.metadata.labels?.[MANAGED_BY] === "shadowendpointslice" && s.metadata.labels?.[ORIGIN_LABEL] === peerId
  );
  const shadows = inv.tryItems("shadowendpointslices") ?? [];
  const lines: string[] = [];
  const bad: string[] = [];
  const notReady: string[] = [];
  const upstreamNotReady: string[] = [];
  for (const s of slices) {
    const where = `EndpointSlice ${s.metadata.namespace}/${s.metadata.name}`;
    const eps: Any[] = (s as Any).endpoints ?? [];
    if (eps.length === 0) lines.push(`${where}: no endpoints`);
    const shadow = shadows.find((x) =>
      x.metadata.namespace === s.metadata.namespace && x.metadata.name === s.metadata.name
    );
    const shadowEps: Any[] = shadow?.spec?.template?.endpoints ?? [];
    for (const e of eps) {
      const addrs: string[] = e?.addresses ?? [];
      const target = e?.targetRef?.name ? ` (${e.targetRef.name})` : "";
      if (addrs.length === 0) bad.push(`${where}: endpoint${target} has no address`);
      for (const a of addrs) {
        if (cidrs.length && !cidrs.some((c) => contains(c, a))) {
          bad.push(`${where}: ${a}${target} is outside ${peerId}'s remapped CIDRs ${cidrs.join(", ")}`);
        }
      }
      if (e?.conditions?.ready === false) {
        const up = shadowEps.find((x) => x?.targetRef?.name && x.targetRef.name === e?.targetRef?.name);
        const line = `${where}: ${addrs.join(",") || "?"}${target} ready:false`;
        if (up?.conditions?.ready === false) upstreamNotReady.push(`${line} (also not ready on ${peerId})`);
        else notReady.push(line);
      } else lines.push(`${where}: ${addrs.join(",")}${target} ready`);
    }
  }
  return { count: slices.length, lines, bad, notReady, upstreamNotReady };
}

function fcCauses(ctx: CheckContext, peerId: string): string[] {
  const fc = ctx.peer?.foreignCluster;
  const out: string[] = [];
  const net = fcCondition(fc, "networking", "NetworkConnectionStatus");
  if (fc?.status?.modules?.networking?.enabled !== false && net?.status !== "Established") {
    out.push(
      `ForeignCluster ${peerId}: NetworkConnectionStatus=${net?.status ?? "missing"}${
        net?.reason ? ` (${net.reason})` : ""
      } since ${formatAge(ageMs(ctx.cluster.now, net?.lastTransitionTime))}`,
    );
  }
  const api = ((fc?.status?.conditions ?? []) as Any[]).find((c) => c?.type === "APIServerStatus");
  if (api && api.status !== "Established") {
    out.push(
      `ForeignCluster ${peerId}: APIServerStatus=${api.status}${api.reason ? ` (${api.reason})` : ""}`,
    );
  }
  const conn = peerObjects(ctx.cluster.inv, "connections", peerId)[0];
  if (conn && out.length) {
    out.push(
      `Connection ${conn.metadata.namespace}/${conn.metadata.name}: ${
        conn.status?.value ?? "no status"
      }, latency ${conn.status?.latency?.value ?? "?"} at ${conn.status?.latency?.timestamp ?? "?"}${
        conn.status?.value === "Connected" ? " — the tunnel is up: the ForeignCluster condition is stale" : ""
      }`,
    );
  }
  return out;
}

function runRef01(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const inv = ctx.cluster.inv;
  const cfg = peerConfiguration(inv, peerId);
  const r = remappedCidrs(cfg);
  const cidrs = [...r.pod, ...r.external];
  const cons = consumerSide(ctx, peerId, cidrs);
  const prov = providerSide(ctx, peerId, cidrs);
  const ns = ctx.cluster.liqoNamespace ?? "liqo";
  if (prov.notReady.length) {
    const causes = fcCauses(ctx, peerId);
    return {
      status: "fail",
      summary: causes.length
        ? `reflected endpoints from ${peerId} forced ready:false: FC networking or API-server condition not Established`
        : `reflected endpoints from ${peerId} are ready:false although ${peerId}'s pods are ready`,
      evidence: [...prov.notReady, ...causes],
      remediation: [
        `kubectl get foreignclusters ${peerId} -o yaml`,
        `kubectl get connections -A -l ${REMOTE_ID_LABEL}=${peerId}`,
        `# the shadowendpointslice controller only re-evaluates on a ForeignCluster condition change:`,
        `kubectl -n ${ns} logs deploy/liqo-controller-manager | grep -i -e foreigncluster -e shadowendpointslice`,
        `kubectl -n ${ns} rollout restart deploy/liqo-controller-manager`,
      ].join("\n"),
    };
  }
  const bad = [...cons.bad, ...prov.bad];
  if (bad.length) {
    return {
      status: "fail",
      summary: `reflected endpoints of ${peerId} not addressable: ${bad[0]}`,
      evidence: [`remapped CIDRs of ${peerId}: ${cidrs.join(", ") || "(none)"}`, ...bad],
      remediation: `kubectl get endpointslices -A -o wide\nkubectl -n ${
        cfg?.metadata.namespace ?? "<tenant ns>"
      } get configuration -o wide\n# addresses outside the remapped CIDRs: the Configuration changed after reflection; restart the virtual kubelet:\nkubectl -n ${
        ctx.peer?.tenantNamespace ?? "<tenant ns>"
      } rollout restart deploy -l offloading.liqo.io/component=virtual-kubelet`,
    };
  }
  const total = cons.lines.length + prov.lines.length;
  if (total === 0 && prov.upstreamNotReady.length === 0) {
    return { status: "pass", summary: `nothing reflected with ${peerId}`, evidence: [] };
  }
  return {
    status: "pass",
    summary: `${total} reflected endpoint(s) with ${peerId} inside the remapped CIDRs`,
    evidence: [...cons.lines, ...prov.lines, ...prov.upstreamNotReady].slice(0, 20),
  };
}

// ------------------------------------------------------------------------------------------------
// REF-02

function runRef02(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const inv = ctx.cluster.inv;
  const vns = peerObjects(inv, "virtualnodes", peerId);
  const nodes = virtualNodesOf(ctx, peerId);
  if (vns.length === 0 && nodes.length === 0) {
    return {
      status: "skip",
      summary: `no VirtualNode for ${peerId} (provider side, or offloading not enabled)`,
    };
  }
  const problems: string[] = [];
  const evidence: string[] = [];
  const fixes: string[] = [];
  const now = ctx.cluster.now;
  for (const vn of vns) {
    const name = vn.metadata.name;
    const conds: Any[] = vn.status?.conditions ?? [];
    const badConds = conds.filter((c) => !["Running", "None"].includes(c?.status));
    evidence.push(
      `VirtualNode ${vn.metadata.namespace}/${name}: ${
        conds.map((c) => `${c.type}=${c.status}`).join(", ") || "no conditions"
      }`,
    );
    if (badConds.length) {
      problems.push(`VirtualNode ${name}: ${badConds.map((c) => `${c.type}=${c.status}`).join(", ")}`);
    }
    const dep = inv.items("deployments").find((d) =>
      d.metadata.namespace === vn.metadata.namespace &&
      d.metadata.labels?.["offloading.liqo.io/component"] === "virtual-kubelet" &&
      (d.metadata.labels?.["liqo.io/virtual-node"] === name || d.metadata.name === `vk-${name}`)
    );
    if (!dep) {
      problems.push(`virtual-kubelet Deployment vk-${name} not found in ${vn.metadata.namespace}`);
    } else {
      const ready = dep.status?.readyReplicas ?? 0;
      evidence.push(
        `Deployment ${dep.metadata.namespace}/${dep.metadata.name}: ready ${ready}/${
          dep.spec?.replicas ?? 1
        }`,
      );
      if (ready < 1) {
        problems.push(
          `virtual kubelet ${dep.metadata.name} not running (ready ${ready}/${dep.spec?.replicas ?? 1})`,
        );
        fixes.push(
          `kubectl -n ${dep.metadata.namespace} describe deploy ${dep.metadata.name}`,
          `kubectl -n ${dep.metadata.namespace} logs deploy/${dep.metadata.name}`,
        );
      }
    }
    if (vn.spec?.createNode !== false && !nodes.some((n) => n.metadata.name === name)) {
      problems.push(`virtual Node ${name} does not exist (createNode is true)`);
    }
  }
  for (const node of nodes) problems.push(...nodeProblems(ctx, node, evidence, now));
  if (problems.length === 0) {
    return {
      status: "pass",
      summary: `virtual node(s) ${
        nodes.map((n) => n.metadata.name).join(", ") || vns.map((v) => v.metadata.name).join(", ")
      } Ready`,
      evidence,
    };
  }
  const tn = ctx.peer?.tenantNamespace ?? vns[0]?.metadata.namespace ?? "<tenant ns>";
  fixes.push(
    `kubectl describe node ${nodes[0]?.metadata.name ?? vns[0]?.metadata.name}`,
    `kubectl -n ${tn} logs deploy/vk-${vns[0]?.metadata.name ?? peerId}`,
    `kubectl get foreignclusters ${peerId} -o yaml   # the virtual node follows NetworkConnectionStatus`,
  );
  return {
    status: "fail",
    summary: problems[0],
    evidence: [...evidence, ...problems],
    remediation: [...new Set(fixes)].join("\n"),
  };
}

function nodeProblems(ctx: CheckContext, node: K8sObject, evidence: string[], now: Date): string[] {
  const name = node.metadata.name;
  const out: string[] = [];
  const ready = conditionOf(node, "Ready");
  const net = conditionOf(node, "NetworkUnavailable");
  const pods = ctx.cluster.inv.items("pods").filter((p) => p.spec?.nodeName === name);
  const running = pods.filter((p) => p.status?.phase === "Running").length;
  evidence.push(
    `Node ${name}: Ready=${ready?.status ?? "?"}${
      ready?.reason ? ` (${ready.reason})` : ""
    }, NetworkUnavailable=${net?.status ?? "n/a"}${net?.reason ? ` (${net.reason})` : ""}, age ${
      formatAge(ageMs(now, node.metadata.creationTimestamp))
    }, pods ${running}/${pods.length} running`,
  );
  if (ready?.status !== "True") {
    out.push(
      `virtual node ${name} NotReady${
        ready?.reason ? ` (${ready.reason}${ready.message ? `: ${ready.message}` : ""})` : ""
      } since ${formatAge(ageMs(now, ready?.lastTransitionTime))}${
        net?.status === "True" ? `; NetworkUnavailable=True (${net.reason ?? "?"})` : ""
      }`,
    );
    const fcNet = fcCondition(ctx.peer?.foreignCluster, "networking", "NetworkConnectionStatus");
    if (net?.status === "True" && fcNet) {
      evidence.push(
        `ForeignCluster ${ctx.peer!.clusterId}: NetworkConnectionStatus=${fcNet.status}${
          fcNet.reason ? ` (${fcNet.reason})` : ""
        }`,
      );
      const conn = peerObjects(ctx.cluster.inv, "connections", ctx.peer!.clusterId)[0];
      if (conn) evidence.push(`Connection ${conn.metadata.name}: ${conn.status?.value ?? "no status"}`);
    }
  } else if (net?.status === "True") {
    out.push(`virtual node ${name}: NetworkUnavailable=True (${net.reason ?? "?"})`);
  } else if (pods.length === 0) {
    evidence.push(`Node ${name} is Ready but nothing runs on it`);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// REF-03

function runRef03(ctx: CheckContext): Outcome {
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
  const fixes: string[] = [];
  for (const nso of nsos) {
    const ns = nso.metadata.namespace;
    const phase = nso.status?.offloadingPhase;
    const conds: Any[] = nso.status?.remoteNamespacesConditions?.[peerId] ?? [];
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
      fixes.push(`kubectl -n ${ns} get namespaceoffloading offloading -o yaml`);
    } else if (phase === "SomeFailed" || phase === "AllFailed") {
      if (conds.length || Object.keys(nso.status?.remoteNamespacesConditions ?? {}).length === 0) {
        fails.push(`NamespaceOffloading ${ns}/offloading phase ${phase}`);
        fixes.push(`kubectl -n ${ns} get namespaceoffloading offloading -o yaml`);
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
    for (const [local, v] of Object.entries(cur) as [string, Any][]) {
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
          `# on ${peerId}: is ${v.remoteNamespace} owned by someone else? (no annotation liqo.io/managed-by-namespace-map)`,
          `kubectl --context <${peerId}> get namespace ${v.remoteNamespace} -o yaml`,
          `# use another mapping strategy, or remove/rename the colliding namespace:`,
          `kubectl -n ${local} patch namespaceoffloading offloading --type=merge -p '{"spec":{"namespaceMappingStrategy":"DefaultName"}}'`,
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
      remediation: [...new Set(fixes)].join("\n"),
    };
  }
  if (warns.length) {
    return {
      status: "warn",
      summary: warns[0],
      evidence: [...evidence, ...warns],
      remediation: `kubectl -n ${
        ctx.cluster.liqoNamespace ?? "liqo"
      } logs deploy/liqo-controller-manager | grep -i offloading`,
    };
  }
  return { status: "pass", summary: `namespace offloading with ${peerId} healthy`, evidence };
}

/** REFLECTION checks. */
export const REFLECTION_CHECKS: readonly CheckDef[] = [
  {
    id: "REF-01",
    title: "Reflected EndpointSlices",
    layer: "reflection",
    needs: ["TUN-01"],
    scope: "single",
    perPeer: true,
    reads: ["endpointslices", "configurations", "nodes"],
    optionalReads: ["shadowendpointslices", "connections"],
    explain: {
      reads:
        "Consumer: EndpointSlice endpoints on the peer's virtual node. Provider: EndpointSlices labelled " +
        "liqo.io/managed-by=shadowendpointslice and offloading.liqo.io/origin=<peer>, their ShadowEndpointSlices, the " +
        "ForeignCluster networking/API-server conditions, the Connection. Both: Configuration status.remote.cidr.",
      decides:
        "fail when provider-side endpoints are forced ready:false (FC networking or API-server condition not " +
        "Established, FACTS §2.11) or when addresses are empty or outside the peer's remapped CIDRs; pass otherwise " +
        "(also when nothing is reflected).",
      fixes:
        "Bring the ForeignCluster condition back to Established (controller-manager logs/restart); restart the " +
        "virtual kubelet when addresses are stale.",
    },
    run: runRef01,
  },
  {
    id: "REF-02",
    title: "Virtual node healthy",
    layer: "reflection",
    // The virtual node goes NotReady when the tunnel is down (FACTS §2.11): that is TUN-01's finding.
    needs: ["TUN-01"],
    scope: "single",
    perPeer: true,
    reads: ["virtualnodes", "nodes", "deployments", "pods"],
    optionalReads: ["connections"],
    explain: {
      reads:
        "VirtualNodes of the peer (conditions), the virtual Node (Ready, NetworkUnavailable, age), the " +
        "virtual-kubelet Deployment (label offloading.liqo.io/component=virtual-kubelet), pods scheduled on the node.",
      decides:
        "skip on the provider side; fail on a NotReady node, NetworkUnavailable=True, a VirtualNode condition " +
        "other than Running/None or a virtual kubelet not running. A Ready node with nothing on it is only noted.",
      fixes: "Follow the virtual kubelet logs; a NetworkUnavailable node follows the ForeignCluster's " +
        "NetworkConnectionStatus.",
    },
    run: runRef02,
  },
  {
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
        "(remote namespace name collision, FACTS §8.4); warn on InProgress older than 5 min; skip when nothing is offloaded.",
      fixes: "Remove or rename the colliding remote namespace, or switch the mapping strategy.",
    },
    run: runRef03,
  },
];
