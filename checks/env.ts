/**
 * ENV layer: is Liqo installed and healthy, at matching versions, on nodes and platforms it supports,
 * without debris of old peerings (CHECKS.md ENV-01…06, FACTS §1, §4, §5, §7).
 */
import type { CheckContext, CheckDef, ClusterView, Outcome } from "./types.ts";
import type { Inventory } from "../kube/inventory.ts";
import type { K8sObject } from "../kube/source.ts";
import { KINDS } from "../kube/kinds.ts";
import {
  ageMs,
  containerSummaries,
  controllerManager,
  controllerManagerArg,
  formatAge,
  gatewayOf,
  gatewayPods,
  imageTag,
  isVirtualNode,
  liqoNamespaceOf,
  liqoVersionOf,
  networkingEnabled,
  REMOTE_ID_LABEL,
} from "../liqo/lookups.ts";

// ---------------------------------------------------------------------------------------------
// shared helpers

const NAME_LABEL = "app.kubernetes.io/name";

/** Namespace Liqo runs in on a cluster view. */
function liqoNs(view: ClusterView): string | null {
  return view.liqoNamespace ?? liqoNamespaceOf(view.inv);
}

/** True when every matchLabels entry of a workload selects the pod. */
function selects(workload: K8sObject, pod: K8sObject): boolean {
  const match: Record<string, string> = workload.spec?.selector?.matchLabels ?? {};
  const keys = Object.keys(match);
  if (keys.length === 0) return false;
  return keys.every((k) => pod.metadata.labels?.[k] === match[k]);
}

/** Pods of a Deployment or DaemonSet (same namespace, selector match). */
function podsOf(inv: Inventory, workload: K8sObject): K8sObject[] {
  return (inv.tryItems("pods") ?? []).filter((p) =>
    p.metadata.namespace === workload.metadata.namespace && selects(workload, p)
  );
}

const BAD_WAITING = new Set([
  "CrashLoopBackOff",
  "ImagePullBackOff",
  "ErrImagePull",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
  "InvalidImageName",
]);

/** True when a pod is visibly broken (crash loop, image pull failure, failed phase). */
function podBroken(pod: K8sObject): boolean {
  if (pod.status?.phase === "Failed") return true;
  // deno-lint-ignore no-explicit-any
  const statuses: any[] = pod.status?.containerStatuses ?? [];
  return statuses.some((s) => BAD_WAITING.has(s?.state?.waiting?.reason));
}

/** "v1.2.3" → [1, 2, 3]; null when not a release version (e.g. a CI commit SHA). */
export function parseSemver(v: string | null | undefined): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v ?? "");
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

// ---------------------------------------------------------------------------------------------
// ENV-01

interface ExpectedWorkload {
  name: string;
  kind: "Deployment" | "DaemonSet";
  /** Why it is absent by design, or null when it must exist. */
  optionalBecause: string | null;
  container: string;
}

function expectedWorkloads(inv: Inventory): ExpectedWorkload[] {
  const net = networkingEnabled(inv);
  const ipamServer = controllerManagerArg(inv, "ipam-server");
  const externalIpam = ipamServer !== null && ipamServer !== "" && !/^liqo-ipam[.:]/.test(ipamServer);
  const ipamOptional = !net
    ? "networking disabled (--networking-enabled=false)"
    : externalIpam
    ? `external IPAM (--ipam-server=${ipamServer})`
    : null;
  return [
    {
      name: "controller-manager",
      kind: "Deployment",
      optionalBecause: null,
      container: "controller-manager",
    },
    { name: "crd-replicator", kind: "Deployment", optionalBecause: null, container: "crd-replicator" },
    { name: "webhook", kind: "Deployment", optionalBecause: null, container: "webhook" },
    { name: "ipam", kind: "Deployment", optionalBecause: ipamOptional, container: "ipam" },
    { name: "proxy", kind: "Deployment", optionalBecause: "optional (proxy.enabled)", container: "proxy" },
    {
      name: "metric-agent",
      kind: "Deployment",
      optionalBecause: "optional (metricAgent.enabled)",
      container: "metric-agent",
    },
    {
      name: "fabric",
      kind: "DaemonSet",
      optionalBecause: net ? null : "networking disabled (--networking-enabled=false)",
      container: "fabric",
    },
  ];
}

function findWorkload(inv: Inventory, ns: string, w: ExpectedWorkload): K8sObject | undefined {
  const list = inv.items(w.kind === "Deployment" ? "deployments" : "daemonsets")
    .filter((o) => o.metadata.namespace === ns);
  return list.find((o) => o.metadata.labels?.[NAME_LABEL] === w.name) ??
    list.find((o) => o.metadata.name === `liqo-${w.name}`);
}

interface WorkloadHealth {
  healthy: boolean;
  line: string;
  details: string[];
  pods: K8sObject[];
}

function workloadHealth(inv: Inventory, obj: K8sObject, kind: "Deployment" | "DaemonSet"): WorkloadHealth {
  const desired: number = kind === "Deployment"
    ? (obj.spec?.replicas ?? 1)
    : (obj.status?.desiredNumberScheduled ?? 0);
  const ready: number = kind === "Deployment"
    ? (obj.status?.readyReplicas ?? 0)
    : (obj.status?.numberReady ?? 0);
  const pods = podsOf(inv, obj);
  const summaries = pods.map((p) => ({ pod: p, containers: containerSummaries(p) }));
  const restarts = summaries.reduce((n, s) => n + s.containers.reduce((m, c) => m + c.restarts, 0), 0);
  const broken = pods.filter(podBroken);
  const healthy = desired > 0 && ready >= desired && broken.length === 0;
  const line =
    `${obj.metadata.namespace}/${obj.metadata.name} (${kind}): ${ready}/${desired} ready, ${restarts} restart${
      restarts === 1 ? "" : "s"
    }`;
  const details: string[] = [];
  if (!healthy) {
    if (desired === 0) details.push(kind === "Deployment" ? "  scaled to 0 replicas" : "  schedules no pod");
    for (const s of summaries) {
      for (const c of s.containers) {
        if (c.ready && !c.lastTermination) continue;
        details.push(
          `  pod ${s.pod.metadata.name}${
            s.pod.spec?.nodeName ? ` on ${s.pod.spec.nodeName}` : ""
          }: container ${c.name} ${c.state}, ${c.restarts} restarts${
            c.lastTermination ? `, last termination ${c.lastTermination}` : ""
          }`,
        );
      }
      if (s.containers.length === 0) {
        details.push(`  pod ${s.pod.metadata.name}: phase ${s.pod.status?.phase ?? "unknown"}`);
      }
    }
  }
  return { healthy, line, details, pods: broken };
}

function notInstalled(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  const partial = [...inv.items("deployments"), ...inv.items("daemonsets")].filter((o) =>
    o.metadata.labels?.["app.kubernetes.io/part-of"] === "liqo" &&
    !o.metadata.labels?.["networking.liqo.io/component"]
  );
  if (partial.length > 0) {
    const ns = partial[0].metadata.namespace ?? "liqo";
    return {
      status: "fail",
      summary: `Liqo controller-manager Deployment is missing in namespace ${ns} (partial or broken install)`,
      evidence: [
        "no Deployment labelled app.kubernetes.io/name=controller-manager,app.kubernetes.io/component=controller-manager",
        ...partial.map((o) => `found ${o.kind ?? "workload"} ${o.metadata.namespace}/${o.metadata.name}`),
      ],
      remediation: `helm -n ${ns} history liqo\nhelm -n ${ns} status liqo\n` +
        `Reinstall the same Liqo version: liqoctl install <provider> --cluster-id ${ctx.cluster.name} --version <version>`,
    };
  }
  return {
    status: "fail",
    summary: "Liqo is not installed (no liqo-controller-manager Deployment in any namespace)",
    evidence: [
      "no Deployment labelled app.kubernetes.io/name=controller-manager,app.kubernetes.io/component=controller-manager",
      `context ${ctx.cluster.context} (${ctx.cluster.server})`,
    ],
    remediation: "Check that the kubeconfig/context points at the intended cluster, then install Liqo:\n" +
      `  liqoctl install <provider> --cluster-id <name>    # e.g. liqoctl install kubeadm --cluster-id rome\n` +
      "  (providers: kubeadm, kind, k3s, aks, eks, gke, openshift, …; see https://docs.liqo.io/en/stable/installation/install.html)",
  };
}

function runEnv01(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  if (!controllerManager(inv)) return notInstalled(ctx);
  const ns = liqoNs(ctx.cluster)!;
  const version = liqoVersionOf(inv);
  const good: string[] = [];
  const bad: string[] = [];
  const notes: string[] = [];
  const remediation: string[] = [];
  for (const w of expectedWorkloads(inv)) {
    const obj = findWorkload(inv, ns, w);
    if (!obj) {
      if (w.optionalBecause) notes.push(`liqo-${w.name} not present: ${w.optionalBecause}`);
      else {
        bad.push(`${ns}/liqo-${w.name} (${w.kind}): missing`);
        remediation.push(
          `helm -n ${ns} get values liqo   # was liqo-${w.name} disabled? reinstall/upgrade Liqo`,
        );
      }
      continue;
    }
    const h = workloadHealth(inv, obj, w.kind);
    if (h.healthy) {
      good.push(h.line);
      continue;
    }
    bad.push(h.line, ...h.details);
    const kindRef = w.kind === "Deployment" ? "deploy" : "ds";
    remediation.push(`kubectl -n ${ns} describe ${kindRef} ${obj.metadata.name}`);
    const pod = h.pods[0]?.metadata.name;
    remediation.push(
      pod
        ? `kubectl -n ${ns} logs ${pod} -c ${w.container} --previous`
        : `kubectl -n ${ns} logs ${kindRef}/${obj.metadata.name} -c ${w.container}`,
    );
  }
  if (bad.length > 0) {
    const names = bad.filter((l) => !l.startsWith("  ")).map((l) => l.split(" ")[0].split("/")[1]);
    return {
      status: "fail",
      summary: `unhealthy Liqo component${names.length > 1 ? "s" : ""} in namespace ${ns}: ${
        names.join(", ")
      }`,
      evidence: [...bad, ...notes, `Liqo version ${version ?? "unknown"}`],
      remediation: [...new Set(remediation)].join("\n"),
    };
  }
  return {
    status: "pass",
    summary: `${good.length} Liqo components healthy in namespace ${ns} (${version ?? "version unknown"})`,
    evidence: [...good, ...notes],
  };
}

// ---------------------------------------------------------------------------------------------
// ENV-05

/** Parses a kernel release ("6.8.0-51-generic", "4.18.0-553.el8_10.x86_64") into [major, minor, patch]. */
export function parseKernel(release: unknown): [number, number, number] | null {
  if (typeof release !== "string") return null;
  const m = /^\s*(\d+)\.(\d+)(?:\.(\d+))?/.exec(release);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

const MIN_KERNEL: [number, number] = [5, 10];

function kernelBelowMin(k: [number, number, number]): boolean {
  return k[0] < MIN_KERNEL[0] || (k[0] === MIN_KERNEL[0] && k[1] < MIN_KERNEL[1]);
}

/** Liqo pods (fabric, gateways) on a node whose containers refused the kernel. */
function kernelRefusals(inv: Inventory, node: string): string[] {
  const out: string[] = [];
  for (const p of inv.tryItems("pods") ?? []) {
    if (p.spec?.nodeName !== node) continue;
    const liqo = p.metadata.labels?.["app.kubernetes.io/part-of"] === "liqo" ||
      p.metadata.labels?.["networking.liqo.io/component"] === "gateway";
    if (!liqo) continue;
    for (const c of containerSummaries(p)) {
      if (c.lastTermination && /kernel/i.test(c.lastTermination)) {
        out.push(
          `  ${p.metadata.namespace}/${p.metadata.name} container ${c.name}: ${c.state}, ${c.lastTermination}`,
        );
      }
    }
  }
  return out;
}

function runEnv05(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  if (controllerManager(inv) && !networkingEnabled(inv)) {
    return {
      status: "skip",
      summary: "networking module disabled: the kernel requirement only applies to gateway and fabric",
    };
  }
  const nodes = inv.items("nodes").filter((n) => !isVirtualNode(n));
  if (nodes.length === 0) return { status: "unknown", summary: "no (non-virtual) nodes visible" };
  const low: string[] = [];
  const unknown: string[] = [];
  const ok: string[] = [];
  for (const n of nodes) {
    const release = n.status?.nodeInfo?.kernelVersion;
    const os = n.status?.nodeInfo?.osImage ? ` (${n.status.nodeInfo.osImage})` : "";
    const k = parseKernel(release);
    if (!k) {
      unknown.push(
        `${n.metadata.name}: kernel version ${release ? `"${release}" unparsable` : "not reported"}`,
      );
    } else if (kernelBelowMin(k)) {
      low.push(`${n.metadata.name}: kernel ${release}${os} < 5.10`, ...kernelRefusals(inv, n.metadata.name));
    } else ok.push(`${n.metadata.name}: kernel ${release}`);
  }
  if (low.length > 0) {
    const names = low.filter((l) => !l.startsWith("  ")).map((l) => l.split(":")[0]);
    return {
      status: "fail",
      summary: `node kernel below 5.10 on ${names.join(", ")}: Liqo gateway and fabric refuse to start there`,
      evidence: [...low, ...unknown, ...ok],
      remediation: [
        `Upgrade the kernel of ${names.join(", ")} to 5.10 or newer (e.g. Ubuntu 20.04: ` +
        "sudo apt install --install-recommends linux-generic-hwe-20.04 && sudo reboot), or replace the node(s) with a newer OS image.",
        "Meanwhile keep workloads (and the gateway) off them:",
        ...names.map((n) => `  kubectl drain ${n} --ignore-daemonsets --delete-emptydir-data`),
        "Last resort only (unsupported: Liqo needs the nftables features of 5.10): " +
        `helm upgrade liqo liqo/liqo -n ${
          liqoNs(ctx.cluster) ?? "liqo"
        } --reuse-values --set requirements.kernel.enabled=false` +
        " (liqoctl's --disable-kernel-version-check only skips its own pre-install check)",
      ].join("\n"),
    };
  }
  if (unknown.length > 0) {
    return {
      status: "unknown",
      summary: `cannot read the kernel version of ${unknown.length} node(s)`,
      evidence: [...unknown, ...ok],
    };
  }
  return { status: "pass", summary: `all ${nodes.length} nodes run kernel ≥ 5.10`, evidence: ok };
}

// ---------------------------------------------------------------------------------------------
// ENV-02

/** Gateway container image tags of the peer's gateway pods on one cluster. */
function gatewayTags(inv: Inventory, peerId: string): { pod: string; tags: string[] } | null {
  const gw = gatewayOf(inv, peerId);
  if (!gw || !inv.tryItems("pods")) return null;
  const pod = gatewayPods(inv, gw).find((p) => !p.metadata.deletionTimestamp);
  if (!pod) return null;
  // deno-lint-ignore no-explicit-any
  const containers: any[] = pod.spec?.containers ?? [];
  const tags = containers.map((c) => imageTag(c?.image)).filter((t): t is string => t !== null);
  return { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, tags: [...new Set(tags)] };
}

function cmImage(inv: Inventory): string {
  // deno-lint-ignore no-explicit-any
  const containers: any[] = controllerManager(inv)?.spec?.template?.spec?.containers ?? [];
  const c = containers.find((x) => x?.name === "controller-manager") ?? containers[0];
  return c?.image ?? "no image";
}

function compareVersions(a: string, b: string): "same" | "patch" | "minor" | "incomparable" {
  if (a === b) return "same";
  const x = parseSemver(a), y = parseSemver(b);
  if (!x || !y) return "incomparable";
  if (x[0] !== y[0] || x[1] !== y[1]) return "minor";
  return x[2] === y[2] ? "same" : "patch";
}

interface Versioned {
  name: string;
  version: string;
  ctx: string;
}

function olderFirst(a: Versioned, b: Versioned): [Versioned, Versioned] {
  const x = parseSemver(a.version), y = parseSemver(b.version);
  if (!x || !y) return [a, b];
  const cmp = x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  return cmp <= 0 ? [a, b] : [b, a];
}

function runEnv02(ctx: CheckContext): Outcome {
  const remote = ctx.remote;
  if (!remote) return { status: "skip", summary: "needs --remote-kubeconfig" };
  const local = ctx.cluster;
  const lv = liqoVersionOf(local.inv), rv = liqoVersionOf(remote.inv);
  const evidence = [
    `${local.name}: ${lv ?? "no controller-manager"} (${cmImage(local.inv)})`,
    `${remote.name}: ${rv ?? "no controller-manager"} (${cmImage(remote.inv)})`,
  ];
  if (!lv || !rv) {
    return {
      status: "unknown",
      summary: `cannot read the Liqo version of ${!lv ? local.name : remote.name}`,
      evidence,
    };
  }
  const lag: string[] = [];
  const sides = [
    { view: local, version: lv, peerId: ctx.peer?.clusterId ?? null },
    { view: remote, version: rv, peerId: ctx.remotePeer?.clusterId ?? local.clusterId },
  ];
  for (const s of sides) {
    if (!s.peerId) continue;
    const g = gatewayTags(s.view.inv, s.peerId);
    if (!g) continue;
    const off = g.tags.filter((t) => compareVersions(t, s.version) !== "same");
    evidence.push(`${s.view.name} gateway ${g.pod}: ${g.tags.join(", ") || "no tag"}`);
    if (off.length > 0) {
      lag.push(`${s.view.name}: gateway ${g.pod} runs ${off.join(", ")}, controller-manager ${s.version}`);
    }
  }
  const diff = compareVersions(lv, rv);
  const [older, newer] = olderFirst(
    { name: local.name, version: lv, ctx: local.context },
    { name: remote.name, version: rv, ctx: remote.context },
  );
  if (diff === "minor") {
    return {
      status: "fail",
      summary:
        `Liqo versions differ beyond patch level: ${local.name} ${lv}, ${remote.name} ${rv} (unsupported)`,
      evidence: [...evidence, ...lag],
      remediation: [
        `Run the same Liqo version on both clusters; upgrades do not update CRDs, so on ${older.name} (${older.version}):`,
        `  liqoctl unpeer --remote-kubeconfig <${newer.name} kubeconfig>   # from the consumer`,
        `  liqoctl uninstall --context ${older.ctx} && liqoctl install <provider> --context ${older.ctx} --version ${newer.version}`,
        `  liqoctl peer --remote-kubeconfig <provider kubeconfig>`,
        "  liqoctl version   # client and server versions on each cluster",
      ].join("\n"),
    };
  }
  if (diff === "incomparable") {
    return {
      status: "unknown",
      summary:
        `Liqo versions ${lv} and ${rv} are not release versions and differ; cannot tell their distance`,
      evidence,
    };
  }
  if (diff === "patch") {
    return {
      status: "warn",
      summary: `Liqo patch versions differ: ${local.name} ${lv}, ${remote.name} ${rv}`,
      evidence: [...evidence, ...lag],
      remediation:
        `Align ${older.name} on ${newer.version}: liqoctl install <provider> --context ${older.ctx} ` +
        `--version ${newer.version} (same options as the original install)`,
    };
  }
  if (lag.length > 0) {
    return {
      status: "warn",
      summary: "gateway images lag behind the controller-manager",
      evidence: [...evidence, ...lag],
      remediation:
        "Gateway Deployments are rendered from the WgGateway*Templates at peering time; re-create them " +
        "with the current images: liqoctl network reset --remote-kubeconfig <other> && " +
        "liqoctl network connect --remote-kubeconfig <other>",
    };
  }
  return { status: "pass", summary: `both clusters run Liqo ${lv}`, evidence };
}

// ---------------------------------------------------------------------------------------------
// ENV-03

/** Plurals of the Liqo kinds FlyingFish reads, per group/version. */
export function expectedLiqoResources(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const spec of Object.values(KINDS)) {
    if (!spec.group.endsWith(".liqo.io")) continue;
    const key = `${spec.group}/${spec.version}`;
    out.set(key, [...(out.get(key) ?? []), spec.plural]);
  }
  return out;
}

function runEnv03(ctx: CheckContext): Outcome {
  const d = ctx.cluster.inv.discovery;
  if (!d) return { status: "unknown", summary: "API discovery was not read in this run" };
  if (!d.ok) return { status: "unknown", summary: `API discovery ${d.reason}: ${d.message}` };
  const served = new Map(d.groups.map((g) => [`${g.group}/${g.version}`, new Set(g.resources)]));
  const missing: string[] = [];
  const present: string[] = [];
  for (const [gv, plurals] of expectedLiqoResources()) {
    const have = served.get(gv);
    if (!have || have.size === 0) {
      missing.push(`${gv}: group/version not served`);
      continue;
    }
    const lacking = plurals.filter((p) => !have.has(p));
    if (lacking.length) missing.push(`${gv}: missing ${lacking.join(", ")}`);
    else present.push(`${gv}: ${plurals.length} resources served`);
  }
  if (missing.length === 0) {
    return { status: "pass", summary: "all Liqo API groups and resources are served", evidence: present };
  }
  if (present.length === 0 && !controllerManager(ctx.cluster.inv)) {
    return { status: "skip", summary: "Liqo is not installed (see ENV-01)" };
  }
  const ns = liqoNs(ctx.cluster) ?? "liqo";
  const version = liqoVersionOf(ctx.cluster.inv) ?? "<version>";
  return {
    status: "fail",
    summary: `Liqo CRDs missing (broken or partial install): ${
      missing.map((m) => m.split(":")[0]).join(", ")
    }`,
    evidence: [...missing, ...present],
    remediation: "kubectl get crd | grep liqo.io\n" +
      `kubectl api-resources --api-group=${missing[0].split("/")[0]}\n` +
      "Reinstall the CRDs of the running version (Helm installs CRDs only on first install, a plain " +
      "upgrade does not update or restore them):\n" +
      `  helm pull liqo/liqo --version ${version} --untar && ` +
      "kubectl apply --server-side -f liqo/charts/liqo-crds/crds/\n" +
      `  or: helm -n ${ns} upgrade liqo liqo/liqo --version ${version} --reuse-values ` +
      "--set liqo-crds.crdUpgrade.enabled=true   # runs the chart's CRD upgrade Job\n" +
      "then restart the crash-looping Liqo components; if that is not enough: unpeer, uninstall and " +
      "reinstall the same version on both clusters",
  };
}

// ---------------------------------------------------------------------------------------------
// ENV-04

const STUCK_MS = 5 * 60 * 1000;
const UNREACHABLE_ANNOTATION = "liqo.io/foreign-cluster-permanently-unreachable";

function finalizersOf(o: K8sObject): string[] {
  const meta = o.metadata.finalizers ?? [];
  const spec: string[] = o.kind === "Namespace" ? (o.spec?.finalizers ?? []) : [];
  return [...meta, ...spec];
}

/** Namespace status conditions that name what blocks its deletion. */
function namespaceBlockers(ns: K8sObject): string[] {
  // deno-lint-ignore no-explicit-any
  const conds: any[] = ns.status?.conditions ?? [];
  return conds
    .filter((c) => c?.status === "True" && /Remaining|Failure/.test(String(c?.type)) && c?.message)
    .map((c) => `    ${c.type}: ${c.message}`);
}

function stuckLine(o: K8sObject, now: Date, what: string): string | null {
  const age = ageMs(now, o.metadata.deletionTimestamp);
  if (age === null || age < STUCK_MS) return null;
  const fins = finalizersOf(o);
  return `${what} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}: deleting for ${
    formatAge(age)
  }, finalizers [${fins.join(", ") || "none"}]`;
}

function runEnv04(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  const now = ctx.cluster.now;
  const fcs = inv.items("foreignclusters");
  const fcIds = new Set(fcs.map((f) => f.spec?.clusterID ?? f.metadata.name));
  const tenantNs = inv.items("namespaces").filter((n) =>
    n.metadata.labels?.["liqo.io/tenant-namespace"] === "true"
  );
  const evidence: string[] = [];
  const fixes: string[] = [];

  for (const ns of tenantNs) {
    const line = stuckLine(ns, now, "tenant namespace");
    const id = ns.metadata.labels?.[REMOTE_ID_LABEL];
    const orphan = id !== undefined && !fcIds.has(id);
    if (line) {
      const left = leftovers(inv, ns.metadata.name);
      evidence.push(
        line + (orphan ? ` (no ForeignCluster ${id})` : ""),
        ...namespaceBlockers(ns),
        ...left.map((l) => `    leftover ${l.kind} ${l.name}: finalizers [${l.finalizers.join(", ")}]`),
      );
      fixes.push(`kubectl get liqo -n ${ns.metadata.name}   # what is left inside (category liqo)`);
      if (left.length === 0) {
        fixes.push(
          `kubectl -n ${ns.metadata.name} patch <resource> <name> --type=merge -p '{"metadata":{"finalizers":null}}'   # for each leftover whose controller is gone`,
        );
      }
      for (const l of left) {
        fixes.push(
          `kubectl -n ${ns.metadata.name} patch ${l.resource} ${l.name} --type=merge -p '{"metadata":{"finalizers":null}}'` +
            (orphan ? `   # peer ${id} is gone` : "   # only if its controller cannot finish the cleanup"),
        );
      }
    } else if (orphan) {
      evidence.push(
        `tenant namespace ${ns.metadata.name}: no ForeignCluster for peer ${id} (leftover of an old peering)`,
      );
      fixes.push(
        `kubectl get liqo -n ${ns.metadata.name}`,
        `kubectl delete namespace ${ns.metadata.name}   # only if peer ${id} is really gone`,
      );
    }
  }
  for (const fc of fcs) {
    const line = stuckLine(fc, now, "ForeignCluster");
    if (line) {
      evidence.push(line);
      fixes.push(
        `liqoctl unpeer --remote-kubeconfig <${fc.metadata.name} kubeconfig>   # or, if that peer is gone:`,
        `kubectl patch foreigncluster ${fc.metadata.name} --type=merge -p '{"metadata":{"finalizers":null}}'`,
      );
    }
    if (fc.metadata.annotations?.[UNREACHABLE_ANNOTATION] === "true") {
      evidence.push(
        `ForeignCluster ${fc.metadata.name}: annotated ${UNREACHABLE_ANNOTATION}="true" (peer marked dead)`,
      );
      fixes.push(
        `liqoctl unpeer --remote-kubeconfig <${fc.metadata.name} kubeconfig> (or remove the annotation if the peer is back: ` +
          `kubectl annotate foreigncluster ${fc.metadata.name} ${UNREACHABLE_ANNOTATION}-)`,
      );
    }
  }
  for (
    const [kind, label] of [["namespacemaps", "NamespaceMap"], ["resourceslices", "ResourceSlice"]] as const
  ) {
    for (const o of inv.tryItems(kind) ?? []) {
      const line = stuckLine(o, now, label);
      if (!line) continue;
      evidence.push(line);
      fixes.push(
        `kubectl -n ${o.metadata.namespace} patch ${label.toLowerCase()} ${o.metadata.name} --type=merge -p '{"metadata":{"finalizers":null}}'` +
          "   # force-unpeer order: NamespaceMaps first, then ResourceSlices",
      );
    }
  }
  evidence.push(...orphanGateways(inv, tenantNs, fixes));
  if (evidence.length === 0) {
    return {
      status: "pass",
      summary: `no stale peering debris (${tenantNs.length} tenant namespace${
        tenantNs.length === 1 ? "" : "s"
      }, ${fcs.length} ForeignCluster${fcs.length === 1 ? "" : "s"})`,
    };
  }
  const count = evidence.filter((l) => !l.startsWith("  ")).length;
  return {
    status: "warn",
    summary: `${count} piece${count === 1 ? "" : "s"} of stale peering debris`,
    evidence,
    remediation: [...new Set(fixes)].join("\n"),
  };
}

/** Liqo kinds whose leftovers commonly keep a tenant namespace from terminating. */
const LEFTOVER_KINDS = [
  "tenants",
  "identities",
  "resourceslices",
  "namespacemaps",
  "virtualnodes",
  "configurations",
  "gatewayservers",
  "gatewayclients",
  "publickeies",
  "internalfabrics",
  "networks",
  "ips",
] as const;

/** Objects with finalizers inside a namespace, among the Liqo kinds this run has read. */
function leftovers(
  inv: Inventory,
  ns: string,
): { kind: string; resource: string; name: string; finalizers: string[] }[] {
  const out: { kind: string; resource: string; name: string; finalizers: string[] }[] = [];
  for (const k of LEFTOVER_KINDS) {
    for (const o of inv.tryItems(k) ?? []) {
      if (o.metadata.namespace !== ns || !(o.metadata.finalizers?.length)) continue;
      const spec = KINDS[k];
      out.push({
        kind: spec.kind,
        resource: `${spec.plural}.${spec.group}`,
        name: o.metadata.name,
        finalizers: o.metadata.finalizers,
      });
    }
  }
  return out;
}

function orphanGateways(inv: Inventory, tenantNs: readonly K8sObject[], fixes: string[]): string[] {
  const deps = inv.tryItems("deployments");
  const servers = inv.tryItems("gatewayservers");
  const clients = inv.tryItems("gatewayclients");
  if (!deps || !servers || !clients) return [];
  const nsNames = new Set(tenantNs.map((n) => n.metadata.name));
  const out: string[] = [];
  for (const d of deps) {
    if (!nsNames.has(d.metadata.namespace ?? "")) continue;
    const labels = d.metadata.labels ?? {};
    const isGw = labels["networking.liqo.io/component"] === "gateway" || d.metadata.name.startsWith("gw-");
    if (!isGw) continue;
    const gwName = labels["networking.liqo.io/gateway-name"] ?? d.metadata.name.replace(/^gw-/, "");
    const owner = [...servers, ...clients].find((g) =>
      g.metadata.namespace === d.metadata.namespace && g.metadata.name === gwName
    );
    if (owner) continue;
    out.push(
      `gateway Deployment ${d.metadata.namespace}/${d.metadata.name}: no GatewayServer/GatewayClient ${gwName}`,
    );
    fixes.push(
      `kubectl -n ${d.metadata.namespace} delete deployment ${d.metadata.name}   # orphaned gateway`,
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// ENV-06

type Platform = "openshift" | "aks" | "eks" | "gke" | "k3s" | null;

function detectPlatform(inv: Inventory): { platform: Platform; evidence: string } {
  const nodes = inv.items("nodes").filter((n) => !isVirtualNode(n));
  for (const n of nodes) {
    const l = n.metadata.labels ?? {};
    const os: string = n.status?.nodeInfo?.osImage ?? "";
    const pid: string = n.spec?.providerID ?? "";
    const kubelet: string = n.status?.nodeInfo?.kubeletVersion ?? "";
    const name = n.metadata.name;
    if (/Red Hat Enterprise Linux CoreOS/i.test(os) || l["node.openshift.io/os_id"]) {
      return {
        platform: "openshift",
        evidence: `node ${name}: ${os || `node.openshift.io/os_id=${l["node.openshift.io/os_id"]}`}`,
      };
    }
    if (Object.keys(l).some((k) => k.startsWith("kubernetes.azure.com/")) || pid.startsWith("azure://")) {
      return {
        platform: "aks",
        evidence: `node ${name}: AKS labels/providerID ${pid || "kubernetes.azure.com/*"}`,
      };
    }
    if (Object.keys(l).some((k) => k.startsWith("eks.amazonaws.com/"))) {
      return { platform: "eks", evidence: `node ${name}: label eks.amazonaws.com/*` };
    }
    if (Object.keys(l).some((k) => k.startsWith("cloud.google.com/gke-"))) {
      return { platform: "gke", evidence: `node ${name}: label cloud.google.com/gke-*` };
    }
    if (
      pid.startsWith("k3s://") || /\+k3s/.test(kubelet) || l["node.kubernetes.io/instance-type"] === "k3s"
    ) {
      return {
        platform: "k3s",
        evidence: `node ${name}: kubelet ${kubelet}${pid ? `, providerID ${pid}` : ""}`,
      };
    }
  }
  const osNs = (inv.tryItems("namespaces") ?? []).find((n) => n.metadata.name.startsWith("openshift-"));
  if (osNs) return { platform: "openshift", evidence: `namespace ${osNs.metadata.name}` };
  return { platform: null, evidence: "" };
}

/** Namespaces offloaded from this cluster (they hold a NamespaceOffloading). */
function offloadedNamespaces(inv: Inventory): string[] {
  return [
    ...new Set((inv.tryItems("namespaceoffloadings") ?? []).map((o) => o.metadata.namespace ?? "")),
  ].filter((n) => n);
}

/** User-created IPs (external IP remapping), i.e. not one of those Liqo creates itself (FACTS §2.9). */
function userIps(inv: Inventory): K8sObject[] {
  return (inv.tryItems("ips") ?? []).filter((ip) => {
    const l = ip.metadata.labels ?? {};
    return !l["ipam.liqo.io/ip-type"] && !l["liqo.io/shadowPod"] && !l[REMOTE_ID_LABEL] &&
      !l["ipam.liqo.io/endpointslice"] && !l["offloading.liqo.io/pod-name"] &&
      ip.metadata.annotations?.["liqo.io/preinstalled"] !== "true";
  });
}

function runEnv06(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  const { platform, evidence } = detectPlatform(inv);
  const ns = liqoNs(ctx.cluster) ?? "liqo";
  const installed = controllerManager(inv) !== null;
  const net = installed && networkingEnabled(inv);
  const offloaded = offloadedNamespaces(inv);
  switch (platform) {
    case null:
      return { status: "pass", summary: "no platform with documented Liqo limits detected" };
    case "openshift":
      if (!net) {
        return {
          status: "pass",
          summary: "OpenShift with the networking module disabled",
          evidence: [evidence],
        };
      }
      return {
        status: "warn",
        summary:
          "OpenShift with the Liqo networking module enabled: networking on OpenShift is not supported yet",
        evidence: [evidence, "controller-manager: --networking-enabled is not false"],
        remediation: "Disable the networking module (offloading keeps working):\n" +
          `  helm -n ${ns} upgrade liqo liqo/liqo --reuse-values --set networking.enabled=false\n` +
          "  and peer with: liqoctl peer --remote-kubeconfig <provider> --networking-disabled\n" +
          "See https://docs.liqo.io/en/stable/installation/compatibility.html",
      };
    case "k3s":
      return {
        status: "pass",
        summary: "K3s: known limit RemoteExec (kubectl exec into offloaded pods) — informational",
        evidence: [evidence],
      };
    case "gke": {
      const dpv2 = (inv.tryItems("daemonsets") ?? []).some((d) =>
        d.metadata.namespace === "kube-system" && d.metadata.name === "anetd"
      );
      const exposed = offloaded.length === 0
        ? []
        : (inv.tryItems("services") ?? []).filter((s) =>
          offloaded.includes(s.metadata.namespace ?? "") &&
          ["NodePort", "LoadBalancer"].includes(s.spec?.type)
        );
      if (!dpv2 || exposed.length === 0) {
        return {
          status: "pass",
          summary: `GKE${dpv2 ? " Dataplane V2" : ""}: no documented limit applies to this configuration`,
          evidence: [
            evidence,
            dpv2 ? "kube-system/anetd present (Dataplane V2)" : "no anetd DaemonSet (Dataplane V1)",
          ],
        };
      }
      return {
        status: "warn",
        summary: "GKE Dataplane V2: NodePort/LoadBalancer Services may not reach offloaded pods",
        evidence: [
          evidence,
          "kube-system/anetd present (Dataplane V2)",
          ...exposed.map((s) =>
            `Service ${s.metadata.namespace}/${s.metadata.name}: ${s.spec?.type} in an offloaded namespace`
          ),
        ],
        remediation:
          "Known limit (NodePortExposition/LoadBalancerExposition): expose those Services from a cluster " +
          "without Dataplane V2, or keep their backing pods local (NamespaceOffloading podOffloadingStrategy Local). " +
          "See https://docs.liqo.io/en/stable/installation/compatibility.html",
      };
    }
    case "aks":
    case "eks": {
      const name = platform.toUpperCase();
      const ips = userIps(inv);
      const lines = [evidence];
      if (offloaded.length) {
        lines.push(`offloaded namespaces: ${offloaded.join(", ")} (CrossClusterAPIServerInteraction)`);
      }
      if (ips.length) {
        lines.push(
          ...ips.map((ip) => `IP ${ip.metadata.namespace}/${ip.metadata.name} (ExternalIPRemapping)`),
        );
      }
      // Offloaded pods that talk to the home API server are affected, but most offloaded workloads do
      // not: a note, not a warning, keeps every EKS/AKS consumer from seeing a permanent "!".
      if (!ips.length) {
        return {
          status: "pass",
          summary: offloaded.length
            ? `${name}: offloaded pods that call the home API server may not reach it (documented limit)`
            : `${name}: no documented limit applies to this configuration`,
          evidence: lines,
        };
      }
      return {
        status: "warn",
        summary: `${name}: documented Liqo limits apply (${
          [
            offloaded.length ? "CrossClusterAPIServerInteraction" : "",
            ips.length ? "ExternalIPRemapping" : "",
          ]
            .filter((s) => s).join(", ")
        })`,
        evidence: lines,
        remediation:
          "Offloaded pods may fail to reach the home API server: pin API-dependent pods locally or set " +
          "annotation liqo.io/api-server-support: disabled on them; external IP remapping may not work on " +
          `${name} — reach the external host from the cluster that can route to it. ` +
          "See https://docs.liqo.io/en/stable/installation/compatibility.html",
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// catalog

/** ENV layer checks, in diagnosis order. */
export const ENV_CHECKS: readonly CheckDef[] = [
  {
    id: "ENV-01",
    title: "Liqo core components healthy",
    layer: "env",
    needs: ["ENV-05", "ENV-03"],
    scope: "single",
    perPeer: false,
    reads: ["deployments", "daemonsets", "pods"],
    explain: {
      reads:
        "The controller-manager Deployment (labels app.kubernetes.io/name=component=controller-manager) " +
        "locates the Liqo namespace; there, by app.kubernetes.io/name: Deployments controller-manager, " +
        "crd-replicator, webhook, ipam, proxy, metric-agent and the DaemonSet fabric, with their pods' " +
        "container states, restart counts and last terminations. Controller-manager flags " +
        "--networking-enabled and --ipam-server tell which components are expected.",
      decides:
        "fail when Liqo is not installed, when a required component is missing, or when a present one " +
        "has fewer ready replicas than desired or a pod in CrashLoopBackOff/ImagePullBackOff; ipam is not " +
        "expected with networking disabled or an external IPAM, fabric not with networking disabled; proxy and " +
        "metric-agent are judged only when present. Skipped when ENV-05 (kernel) or ENV-03 (CRDs) failed, " +
        "because they explain crashing components.",
      fixes:
        "Install Liqo with liqoctl install; otherwise describe the workload and read the previous logs of " +
        "the crashing container (the command is printed with the real names).",
    },
    run: runEnv01,
  },
  {
    id: "ENV-02",
    title: "Liqo versions match across the peering",
    layer: "env",
    needs: [],
    scope: "dual",
    perPeer: true,
    reads: ["deployments"],
    optionalReads: ["pods", "gatewayservers", "gatewayclients"],
    explain: {
      reads:
        "The controller-manager image tag on both clusters (liqoctl's method; app.kubernetes.io/version " +
        "as fallback) and the image tags of the peer's gateway pod on each side.",
      decides: "fail when the versions differ in major or minor (unsupported by Liqo), warn on a patch " +
        "difference or when gateway images lag behind their controller-manager, unknown for non-release " +
        "tags that differ.",
      fixes: "Run the same Liqo version on both clusters; CRDs are not upgraded in place, so unpeer, " +
        "reinstall and peer again.",
    },
    run: runEnv02,
  },
  {
    id: "ENV-03",
    title: "Liqo API groups served",
    layer: "env",
    needs: [],
    scope: "single",
    perPeer: false,
    reads: [],
    explain: {
      reads: "API discovery for authentication/core/networking/offloading.liqo.io v1beta1 and ipam.liqo.io " +
        "v1alpha1, and the resources this tool reads in each (e.g. publickeies, foreignclusters, networks).",
      decides:
        "fail listing each group/version or resource that is not served (broken or partial install); " +
        "skip when Liqo is not installed at all (ENV-01 says so); unknown when discovery is forbidden or " +
        "failed. Whether CRDs are older than the running controllers cannot be seen through discovery " +
        "(schemas are not compared), so that part is not judged.",
      fixes: "Reinstall the CRDs of the running Liqo version (Helm does not touch CRDs on upgrade): apply " +
        "the chart's liqo-crds/crds/ with kubectl apply --server-side, or helm upgrade with " +
        "liqo-crds.crdUpgrade.enabled=true; otherwise unpeer, uninstall and reinstall.",
    },
    run: runEnv03,
  },
  {
    id: "ENV-04",
    title: "No stale peering debris",
    layer: "env",
    needs: [],
    scope: "single",
    perPeer: false,
    reads: ["namespaces", "foreignclusters"],
    optionalReads: [
      "namespacemaps",
      "resourceslices",
      "deployments",
      "gatewayservers",
      "gatewayclients",
      "tenants",
      "identities",
      "virtualnodes",
      "configurations",
      "publickeies",
      "internalfabrics",
      "networks",
      "ips",
    ],
    explain: {
      reads: "Tenant namespaces (label liqo.io/tenant-namespace=true), ForeignClusters, NamespaceMaps and " +
        "ResourceSlices with their deletionTimestamp and finalizers, namespace deletion conditions, gateway " +
        "Deployments in tenant namespaces, and the ForeignCluster annotation " +
        "liqo.io/foreign-cluster-permanently-unreachable.",
      decides:
        "warn when something has been deleting for more than 5 minutes, when a tenant namespace has no " +
        "ForeignCluster, when a gateway Deployment has no GatewayServer/GatewayClient, or when a peer is " +
        "marked permanently unreachable; pass otherwise.",
      fixes:
        "Unpeer properly (liqoctl unpeer); for peers that are gone, remove the finalizers of leftovers " +
        "(NamespaceMaps first, then ResourceSlices) and delete orphaned namespaces/Deployments.",
    },
    run: runEnv04,
  },
  {
    id: "ENV-05",
    title: "Node kernels ≥ 5.10",
    layer: "env",
    needs: [],
    scope: "single",
    perPeer: false,
    reads: ["nodes"],
    optionalReads: ["pods", "deployments"],
    explain: {
      reads: "status.nodeInfo.kernelVersion of every node not labelled liqo.io/type=virtual-node, and the " +
        "last terminations of Liqo pods on low-kernel nodes (the gateway and fabric kernel refusal).",
      decides:
        "fail listing each node below 5.10 (Liqo's gateway and fabric refuse to start there); unknown " +
        "when a kernel version cannot be parsed; skip when the networking module is disabled.",
      fixes:
        "Upgrade the node kernel or OS image; the Helm value requirements.kernel.enabled=false disables " +
        "the check but is unsupported and only a last resort.",
    },
    run: runEnv05,
  },
  {
    id: "ENV-06",
    title: "Platform caveats",
    layer: "env",
    needs: [],
    scope: "single",
    perPeer: false,
    reads: ["nodes"],
    optionalReads: ["namespaces", "deployments", "daemonsets", "services", "namespaceoffloadings", "ips"],
    explain: {
      reads: "Node labels, providerID, osImage and kubelet version (OpenShift, AKS, EKS, GKE, K3s), " +
        "openshift-* namespaces, the controller-manager's --networking-enabled, GKE's anetd DaemonSet " +
        "(Dataplane V2), offloaded namespaces and their NodePort/LoadBalancer Services, user-created IPs.",
      decides:
        "warn only when a documented limit (docs/installation/compatibility.md) applies to the current " +
        "configuration: OpenShift with networking on; GKE Dataplane V2 with NodePort/LB Services in offloaded " +
        "namespaces; AKS/EKS with offloaded namespaces (CrossClusterAPIServerInteraction) or user IPs " +
        "(ExternalIPRemapping). K3s's RemoteExec limit is informational (pass). Other platforms pass.",
      fixes:
        "Use the documented alternative printed with the warning (e.g. disable the networking module on " +
        "OpenShift).",
    },
    run: runEnv06,
  },
];
