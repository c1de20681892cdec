/**
 * FABRIC layer: the in-cluster Geneve overlay between every node and the gateway pod (FACTS §2.7,
 * §2.8): fabric DaemonSet coverage (FAB-01), per-node wiring objects (FAB-02), NetworkPolicies on
 * the Geneve path (FAB-03) and Route/FirewallConfigurations applied by the pods that must apply them
 * (FAB-04).
 */
import type { CheckContext, CheckDef, Outcome } from "./types.ts";
import type { Inventory } from "../kube/inventory.ts";
import type { K8sObject } from "../kube/source.ts";
import {
  activeGatewayPod,
  ageMs,
  conditionOf,
  containerSummaries,
  formatAge,
  gatewayOf,
  gatewayPods,
  type GatewayRef,
  isVirtualNode,
  nodeReady,
  REMOTE_ID_LABEL,
  warningEventsFor,
} from "../liqo/lookups.ts";
import { describePolicy, ingressPoliciesFor, policiesAdmit } from "../liqo/policies.ts";
import { controllerManagerFlag } from "../liqo/args.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const FABRIC_NAME_LABEL = "app.kubernetes.io/name";
const GENEVE_PORT = 6091;

/** The liqo-fabric DaemonSet (label app.kubernetes.io/name=fabric in the Liqo namespace), if any. */
export function fabricDaemonSet(inv: Inventory, liqoNs: string | null): K8sObject | null {
  const dss = inv.items("daemonsets").filter((d) => liqoNs === null || d.metadata.namespace === liqoNs);
  return dss.find((d) => d.metadata.labels?.[FABRIC_NAME_LABEL] === "fabric") ??
    dss.find((d) => d.metadata.name === "liqo-fabric") ?? null;
}

/** Fabric pods (not being deleted), by the DaemonSet's selector labels. */
export function fabricPods(inv: Inventory, liqoNs: string | null): K8sObject[] {
  return inv.items("pods").filter((p) =>
    (liqoNs === null || p.metadata.namespace === liqoNs) &&
    p.metadata.labels?.[FABRIC_NAME_LABEL] === "fabric" &&
    !p.metadata.deletionTimestamp
  );
}

const podReady = (p: K8sObject): boolean =>
  p.status?.phase === "Running" && conditionOf(p, "Ready")?.status === "True";

// ------------------------------------------------------------------------------------------------
// FAB-01

/** True when a toleration tolerates a taint (Kubernetes semantics). */
export function tolerates(tol: Any, taint: Any): boolean {
  if (tol?.effect && tol.effect !== taint?.effect) return false;
  if (tol?.operator === "Exists") return !tol.key || tol.key === taint?.key;
  return tol?.key === taint?.key && (tol?.value ?? "") === (taint?.value ?? "");
}

/** DaemonSet pods tolerate node.kubernetes.io/* condition taints automatically. */
const AUTO_TOLERATED = /^node\.kubernetes\.io\//;

function untoleratedTaints(ds: K8sObject, node: K8sObject): string[] {
  const tols: Any[] = ds.spec?.template?.spec?.tolerations ?? [];
  return ((node.spec?.taints ?? []) as Any[])
    .filter((t) =>
      (t?.effect === "NoSchedule" || t?.effect === "NoExecute") && !AUTO_TOLERATED.test(t?.key ?? "")
    )
    .filter((t) => !tols.some((tol) => tolerates(tol, t)))
    .map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`);
}

function whyNoFabric(ds: K8sObject, node: K8sObject, pods: K8sObject[]): string {
  const name = node.metadata.name;
  if (pods.length === 0) {
    const taints = untoleratedTaints(ds, node);
    if (taints.length) {
      return `${name}: no fabric pod — taint ${taints.join(", ")} not tolerated by the DaemonSet`;
    }
    const sel: Record<string, string> = ds.spec?.template?.spec?.nodeSelector ?? {};
    const miss = Object.entries(sel).filter(([k, v]) => node.metadata.labels?.[k] !== v);
    if (miss.length) {
      return `${name}: no fabric pod — nodeSelector ${
        miss.map(([k, v]) => `${k}=${v}`).join(",")
      } not matched`;
    }
    if (!nodeReady(node)) return `${name}: no fabric pod — node is NotReady`;
    return `${name}: no fabric pod scheduled`;
  }
  const p = pods[0];
  if (p.status?.phase === "Pending") {
    const sched = conditionOf(p, "PodScheduled");
    const cs = containerSummaries(p).find((c) => c.state !== "running");
    const why = sched?.status === "False"
      ? `${sched.reason ?? "Unschedulable"}: ${sched.message ?? ""}`
      : cs?.state ?? "";
    return `${name}: fabric pod ${p.metadata.name} Pending${why ? ` (${why.trim()})` : ""}`;
  }
  const bad = containerSummaries(p).filter((c) => !c.ready || c.state !== "running");
  const detail = bad.map((c) =>
    `${c.name} ${c.state}, ${c.restarts} restarts${c.lastTermination ? `, last: ${c.lastTermination}` : ""}`
  );
  return `${name}: fabric pod ${p.metadata.name} ${p.status?.phase ?? "?"}, not Ready${
    detail.length ? ` (${detail.join("; ")})` : ""
  }${nodeReady(node) ? "" : " — node is NotReady"}`;
}

function runFab01(ctx: CheckContext): Outcome {
  const { inv, liqoNamespace } = ctx.cluster;
  if (!liqoNamespace) return { status: "skip", summary: "Liqo namespace not found (ENV-01)" };
  const ds = fabricDaemonSet(inv, liqoNamespace);
  if (!ds) {
    if (controllerManagerFlag(inv, "networking-enabled") === "false") {
      return { status: "skip", summary: "networking module disabled (--networking-enabled=false)" };
    }
    return {
      status: "fail",
      summary: `liqo-fabric DaemonSet missing in ${liqoNamespace}: pods on every node won't reach the peer`,
      evidence: [`no DaemonSet labelled ${FABRIC_NAME_LABEL}=fabric in ${liqoNamespace}`],
      remediation:
        `helm -n ${liqoNamespace} status liqo\nhelm -n ${liqoNamespace} upgrade liqo liqo/liqo --reuse-values`,
    };
  }
  const pods = fabricPods(inv, liqoNamespace);
  const nodes = inv.items("nodes").filter((n) => !isVirtualNode(n));
  const st = ds.status ?? {};
  const evidence = [
    `DaemonSet ${liqoNamespace}/${ds.metadata.name}: desired ${st.desiredNumberScheduled ?? "?"}, ready ${
      st.numberReady ?? "?"
    }, non-virtual nodes ${nodes.length}`,
  ];
  const problems: { line: string; nodeDown: boolean; node: string; pod: K8sObject | null }[] = [];
  for (const node of nodes) {
    const mine = pods.filter((p) => p.spec?.nodeName === node.metadata.name);
    if (mine.some(podReady)) continue;
    problems.push({
      line: whyNoFabric(ds, node, mine),
      nodeDown: !nodeReady(node),
      node: node.metadata.name,
      pod: mine[0] ?? null,
    });
  }
  if (problems.length === 0) {
    return { status: "pass", summary: `fabric pod ready on all ${nodes.length} nodes`, evidence };
  }
  for (const p of problems) {
    evidence.push(p.line);
    if (p.pod) evidence.push(...fabricEvents(ctx, "Pod", p.pod));
  }
  // The DaemonSet's own warnings (FailedCreate, FailedDaemonPod) explain nodes without a pod.
  if (problems.some((p) => !p.pod)) evidence.push(...fabricEvents(ctx, "DaemonSet", ds));
  const names = problems.map((p) => p.node).join(", ");
  const onlyDown = problems.every((p) => p.nodeDown && !p.pod);
  const remediation = problems.map((p) => {
    if (p.pod) {
      return `kubectl -n ${liqoNamespace} describe pod ${p.pod.metadata.name}\nkubectl -n ${liqoNamespace} logs ${p.pod.metadata.name} --previous`;
    }
    const taint = p.line.match(/taint (\S+?):(NoSchedule|NoExecute)/);
    if (taint) {
      const [key, value] = taint[1].split("=");
      const tol = JSON.stringify({
        key,
        operator: value ? "Equal" : "Exists",
        ...(value ? { value } : {}),
        effect: taint[2],
      });
      return `# either remove the taint:\nkubectl taint nodes ${p.node} ${taint[1]}:${taint[2]}-\n` +
        `# or let liqo-fabric tolerate it (persist it in your Helm values too):\n` +
        `kubectl -n ${liqoNamespace} patch daemonset ${ds.metadata.name} --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations/-","value":${tol}}]'`;
    }
    return `kubectl describe node ${p.node}\nkubectl -n ${liqoNamespace} describe daemonset ${ds.metadata.name}`;
  }).join("\n");
  return {
    status: onlyDown ? "warn" : "fail",
    summary: `no ready fabric pod on ${names}: pods on ${
      problems.length > 1 ? "nodes" : "node"
    } ${names} won't reach the peer`,
    evidence,
    remediation,
  };
}

/** Warning events of a fabric pod or the DaemonSet, as indented evidence lines. */
function fabricEvents(ctx: CheckContext, kind: string, o: K8sObject): string[] {
  return warningEventsFor(ctx.cluster.inv, kind, o.metadata.namespace, o.metadata.name, ctx.cluster.now)
    .map((l) =>
      `  event ${kind === "Pod" ? `pod ${o.metadata.name}` : `daemonset ${o.metadata.name}`}: ${l}`
    );
}

// ------------------------------------------------------------------------------------------------
// FAB-02

function networkingOff(ctx: CheckContext): boolean {
  return ctx.peer?.foreignCluster?.status?.modules?.networking?.enabled === false;
}

/** The skip of a peer without a gateway: the networking module is off for it, or GW-01 found none. */
function noGatewaySkip(ctx: CheckContext): Outcome {
  return {
    status: "skip",
    summary: networkingOff(ctx)
      ? "networking module disabled for this peer"
      : "no gateway for this peer (GW-01)",
  };
}

function runFab02(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const { inv, liqoNamespace } = ctx.cluster;
  const gw = gatewayOf(inv, peerId);
  if (!gw) return noGatewaySkip(ctx);
  const pod = activeGatewayPod(inv, gw);
  if (!pod) return { status: "skip", summary: `no running gateway pod for ${gw.workloadName} (GW-01)` };
  const podIP: string | undefined = pod.status?.podIP;
  const gwNode: string | undefined = pod.spec?.nodeName;
  const problems: string[] = [];
  const evidence: string[] = [
    `active gateway pod ${gw.namespace}/${pod.metadata.name}: IP ${podIP ?? "?"} on ${gwNode ?? "?"}`,
  ];
  const fixes: string[] = [];
  const fabrics = inv.items("internalfabrics").filter((f) => f.metadata.labels?.[REMOTE_ID_LABEL] === peerId);
  const fabric = fabrics.find((f) => f.metadata.namespace === gw.namespace) ?? fabrics[0] ?? null;
  if (!fabric) {
    problems.push(`no InternalFabric labelled ${REMOTE_ID_LABEL}=${peerId}`);
    fixes.push(
      `kubectl -n ${liqoNamespace ?? "liqo"} logs deploy/liqo-controller-manager | grep -i internalfabric`,
    );
  } else {
    const ip = fabric.spec?.gatewayIP;
    evidence.push(
      `InternalFabric ${fabric.metadata.namespace}/${fabric.metadata.name}: spec.gatewayIP ${ip ?? "(none)"}`,
    );
    if (ip !== podIP) {
      problems.push(
        `InternalFabric ${fabric.metadata.name} spec.gatewayIP ${ip ?? "(none)"} ≠ gateway pod IP ${
          podIP ?? "?"
        } (stale after a gateway restart): every node's Geneve tunnel points at a dead address`,
      );
      fixes.push(
        `# the controller-manager rewrites it from the gateway status; make it reconcile:`,
        `kubectl -n ${liqoNamespace ?? "liqo"} logs deploy/liqo-controller-manager | grep -i internalfabric`,
        `kubectl -n ${liqoNamespace ?? "liqo"} rollout restart deploy/liqo-controller-manager`,
      );
    }
  }
  problems.push(...nodeWiring(inv, fabric, gwNode, evidence));
  if (problems.length === 0) {
    return {
      status: "pass",
      summary: `InternalFabric, InternalNodes and GeneveTunnels consistent for ${gw.workloadName}`,
      evidence,
    };
  }
  if (problems.some((p) => p.startsWith("node "))) {
    fixes.push(
      `kubectl get internalnodes -o wide`,
      `kubectl -n ${liqoNamespace ?? "liqo"} get pods -l ${FABRIC_NAME_LABEL}=fabric -o wide`,
    );
  }
  return {
    status: "fail",
    summary: problems[0],
    evidence: [...evidence, ...problems],
    remediation: fixes.join("\n"),
  };
}

function nodeWiring(
  inv: Inventory,
  fabric: K8sObject | null,
  gwNode: string | undefined,
  evidence: string[],
): string[] {
  const problems: string[] = [];
  const inodes = new Map(inv.items("internalnodes").map((n) => [n.metadata.name, n]));
  const tunnels = fabric
    ? inv.items("genevetunnels").filter((t) =>
      t.metadata.namespace === fabric.metadata.namespace &&
      t.metadata.labels?.["networking.liqo.io/internal-fabric-name"] === fabric.metadata.name
    )
    : [];
  for (const node of inv.items("nodes").filter((n) => !isVirtualNode(n))) {
    const name = node.metadata.name;
    const inode = inodes.get(name);
    if (!inode) {
      problems.push(`node ${name}: no InternalNode`);
      continue;
    }
    const need = name === gwNode ? "local" : "remote";
    const nodeIP = inode.status?.nodeIP?.[need];
    if (!inode.spec?.interface?.node?.ip) {
      problems.push(`node ${name}: InternalNode has no spec.interface.node.ip`);
    }
    if (!nodeIP) {
      problems.push(
        `node ${name}: InternalNode has no status.nodeIP.${need} — its fabric pod is not running or does not see the active gateway`,
      );
    } else {evidence.push(
        `InternalNode ${name}: overlay ${inode.spec?.interface?.node?.ip}, nodeIP.${need} ${nodeIP}`,
      );}
    if (
      fabric && !tunnels.some((t) => t.metadata.labels?.["networking.liqo.io/internal-node-name"] === name)
    ) {
      problems.push(`node ${name}: no GeneveTunnel for InternalFabric ${fabric.metadata.name}`);
    }
  }
  return problems;
}

// ------------------------------------------------------------------------------------------------
// FAB-03

function nodeSources(inv: Inventory): string[] {
  const out = new Set<string>();
  for (const n of inv.items("internalnodes")) {
    for (const k of ["local", "remote"]) {
      const v = n.status?.nodeIP?.[k];
      if (typeof v === "string" && v) out.add(v);
    }
  }
  for (const n of inv.items("nodes").filter((x) => !isVirtualNode(x))) {
    for (const a of (n.status?.addresses ?? []) as Any[]) {
      if (a?.type === "InternalIP" && a.address) out.add(a.address);
    }
  }
  return [...out];
}

function runFab03(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const inv = ctx.cluster.inv;
  const gw: GatewayRef | null = gatewayOf(inv, peerId);
  if (!gw) return { status: "skip", summary: "no gateway for this peer (GW-01)" };
  const pods = gatewayPods(inv, gw);
  const pod = activeGatewayPod(inv, gw) ?? pods[0];
  if (!pod) return { status: "skip", summary: `no gateway pod for ${gw.workloadName} (GW-01)` };
  const policies = ingressPoliciesFor(inv.items("networkpolicies"), pod);
  if (policies.length === 0) {
    return { status: "pass", summary: "no NetworkPolicy selects the gateway pod", evidence: [] };
  }
  const sources = nodeSources(inv);
  const blocked = sources.filter((s) => !policiesAdmit(policies, s, "UDP", GENEVE_PORT));
  const evidence = policies.map(describePolicy);
  if (blocked.length === 0) {
    return {
      status: "pass",
      summary: `NetworkPolicies on ${pod.metadata.name} admit Geneve UDP ${GENEVE_PORT} from the nodes`,
      evidence,
    };
  }
  evidence.push(
    `sources not admitted for UDP ${GENEVE_PORT}: ${
      blocked.join(", ")
    } (InternalNode status.nodeIP / node InternalIPs)`,
  );
  const denyAll = policies.every((p) => ((p.spec?.ingress ?? []) as Any[]).length === 0);
  const names = policies.map((p) => p.metadata.name).join(", ");
  return {
    status: denyAll ? "fail" : "warn",
    summary: denyAll
      ? `NetworkPolicy ${names} denies all ingress to gateway pod ${pod.metadata.name}: Geneve UDP ${GENEVE_PORT} from the nodes is dropped`
      : `NetworkPolicy ${names} on gateway pod ${pod.metadata.name} may drop Geneve UDP ${GENEVE_PORT} from the nodes`,
    evidence,
    remediation: [
      `# admit UDP ${GENEVE_PORT} from the node addresses (and the fabric source IPs) to the gateway pods, e.g. add:`,
      `#   ingress: [{from: [{ipBlock: {cidr: <node CIDR>}}], ports: [{protocol: UDP, port: ${GENEVE_PORT}}]}]`,
      ...policies.map((p) => `kubectl -n ${p.metadata.namespace} edit networkpolicy ${p.metadata.name}`),
    ].join("\n"),
  };
}

// ------------------------------------------------------------------------------------------------
// FAB-04

interface Applier {
  pod: K8sObject;
  kind: "fabric" | "gateway";
}

function labelOf(o: K8sObject, kind: "route" | "firewall", key: string): string | undefined {
  return o.metadata.labels?.[`networking.liqo.io/${kind}-${key}`];
}

/** Tenant namespaces of other peers (objects there concern another peer). */
function otherTenantNamespaces(inv: Inventory, peerId: string): Set<string> {
  return new Set(
    (inv.tryItems("namespaces") ?? []).filter((n) =>
      n.metadata.labels?.["liqo.io/tenant-namespace"] === "true" &&
      n.metadata.labels?.[REMOTE_ID_LABEL] !== peerId
    ).map((n) => n.metadata.name),
  );
}

function requiredAppliers(
  o: K8sObject,
  kind: "route" | "firewall",
  peerId: string,
  fabric: K8sObject[],
  gwPod: K8sObject | null,
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

function runFab04(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const { inv, liqoNamespace, now } = ctx.cluster;
  const gw = gatewayOf(inv, peerId);
  if (!gw) return noGatewaySkip(ctx);
  const gwPod = activeGatewayPod(inv, gw);
  const fabric = fabricPods(inv, liqoNamespace).filter((p) => p.status?.phase === "Running");
  const others = otherTenantNamespaces(inv, peerId);
  const failures: string[] = [];
  const young: string[] = [];
  const logs = new Set<string>();
  let checked = 0;
  for (const kind of ["route", "firewall"] as const) {
    for (const o of inv.items(kind === "route" ? "routeconfigurations" : "firewallconfigurations")) {
      if (o.metadata.namespace && others.has(o.metadata.namespace)) continue;
      const appliers = requiredAppliers(o, kind, peerId, fabric, gwPod);
      if (!appliers) continue;
      const conds: Any[] = o.status?.conditions ?? [];
      const label = `${
        kind === "route" ? "RouteConfiguration" : "FirewallConfiguration"
      } ${o.metadata.namespace}/${o.metadata.name}`;
      for (const a of appliers) {
        checked++;
        const c = conds.find((x) => x?.host === a.pod.metadata.name);
        if (c?.type === "Applied" && c.status === "True") continue;
        const logCmd = a.kind === "fabric"
          ? `kubectl -n ${a.pod.metadata.namespace} logs ${a.pod.metadata.name}`
          : `kubectl -n ${a.pod.metadata.namespace} logs ${a.pod.metadata.name} -c gateway`;
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
          logs.add(logCmd);
        } else if (age < 30_000) {
          young.push(`${label}: no Applied entry yet for ${a.pod.metadata.name} (${formatAge(age)} old)`);
        } else {
          failures.push(
            `${label}: no Applied=True entry for ${a.pod.metadata.name}${
              c ? ` (entry type ${c.type || "''"} status ${c.status || "''"})` : ""
            }`,
          );
          logs.add(logCmd);
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
      remediation: [...logs].join("\n"),
    };
  }
  if (young.length) return { status: "warn", summary: young[0], evidence: [...evidence, ...young] };
  return { status: "pass", summary: `all Route/FirewallConfigurations applied by their pods`, evidence };
}

/** FABRIC checks. */
export const FABRIC_CHECKS: readonly CheckDef[] = [
  {
    id: "FAB-01",
    title: "Fabric DaemonSet covers every node",
    layer: "fabric",
    // A kernel below 5.10 makes the fabric pod refuse to start: ENV-05 explains it.
    needs: ["ENV-05"],
    scope: "single",
    perPeer: false,
    reads: ["daemonsets", "pods", "nodes"],
    optionalReads: ["deployments", "events"],
    explain: {
      reads: "DaemonSet labelled app.kubernetes.io/name=fabric in the Liqo namespace (status, tolerations, " +
        "nodeSelector), its pods, every non-virtual Node (taints, Ready), the controller-manager's --networking-enabled; " +
        "when readable, Warning events of the failing fabric pods and of the DaemonSet.",
      decides:
        "fail listing each node without a Running+Ready fabric pod and why (untolerated taint, Pending " +
        "reason, crash with last termination); warn when the only such nodes are NotReady; skip when networking is disabled.",
      fixes: "Remove the taint or add a toleration to liqo-fabric; read the fabric pod's logs.",
    },
    run: runFab01,
  },
  {
    id: "FAB-02",
    title: "Per-node Geneve wiring",
    layer: "fabric",
    needs: ["FAB-01"],
    scope: "single",
    perPeer: true,
    reads: ["internalnodes", "internalfabrics", "genevetunnels", "nodes", "pods"],
    optionalReads: ["gatewayservers", "gatewayclients"],
    explain: {
      reads:
        "InternalNode per non-virtual node (spec.interface.node.ip, status.nodeIP.local for the gateway's node, " +
        ".remote for the others), the peer's InternalFabric (spec.gatewayIP), GeneveTunnels by their " +
        "internal-fabric-name/internal-node-name labels, the active gateway pod's IP and node.",
      decides:
        "fail naming the node or gateway whose object is missing or stale (gatewayIP ≠ gateway pod IP after " +
        "a gateway restart).",
      fixes: "Make the controller-manager reconcile (logs, restart); fix the node's fabric pod.",
    },
    run: runFab02,
  },
  {
    id: "FAB-03",
    title: "Geneve UDP 6091 admitted to the gateway",
    layer: "fabric",
    needs: [],
    scope: "single",
    perPeer: true,
    reads: ["networkpolicies", "pods", "internalnodes", "nodes"],
    optionalReads: ["gatewayservers", "gatewayclients"],
    explain: {
      reads: "NetworkPolicies selecting the gateway pod (policyTypes Ingress), the Geneve sources " +
        "(InternalNode status.nodeIP, node InternalIPs). Passive only.",
      decides:
        "pass without such policies or when they admit UDP 6091 from every source; fail on a deny-all " +
        "policy; warn otherwise (CNIs differ on host traffic).",
      fixes: "Add an ingress rule admitting UDP 6091 from the node addresses.",
    },
    run: runFab03,
  },
  {
    id: "FAB-04",
    title: "Route and Firewall configurations applied",
    layer: "fabric",
    needs: [],
    scope: "single",
    perPeer: true,
    reads: ["routeconfigurations", "firewallconfigurations", "pods"],
    optionalReads: ["namespaces", "gatewayservers", "gatewayclients"],
    explain: {
      reads: "RouteConfigurations and FirewallConfigurations with their category/subcategory/unique labels " +
        "(FACTS §2.8), status.conditions[] per host, current fabric pods and the peer's active gateway pod.",
      decides:
        "fail naming object and pod when a current pod that must apply an object has Applied=False or no " +
        "entry; warn when the object or pod is younger than 30 s; entries of deleted pods are ignored.",
      fixes:
        "Read the logs of the pod that failed (fabric pod, or the gateway container of the gateway pod).",
    },
    run: runFab04,
  },
];
