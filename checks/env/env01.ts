/**
 * ENV-01: Liqo is installed and its core components (controller-manager, crd-replicator, webhook,
 * ipam, proxy, metric-agent, fabric) are present where expected and healthy (Liqo's
 * `deployments/liqo/templates/`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { DaemonSet, Deployment, Pod } from "../../liqo/views/core.ts";
import {
  conditionOf,
  containerSummaries,
  controllerManager,
  controllerManagerArg,
  liqoVersionOf,
  type Named,
  networkingEnabled,
  type NodeDown,
  nodeDownText,
  podNodeDown,
} from "../../liqo/lookups.ts";
import { containerLog } from "../common/logs.ts";
import { liqoNs } from "./shared.ts";
import { GATEWAY_LABELS } from "../../liqo/names.ts";
import {
  fix,
  helm,
  kubectl,
  kubectlIn,
  liqoctl,
  type RemediationStep,
  step,
  unique,
} from "../remediation.ts";

/** Log reads per unhealthy workload (one per failing container, the first pods first). */
const MAX_LOGS_PER_WORKLOAD = 2;

const NAME_LABEL = "app.kubernetes.io/name";

/** True when every matchLabels entry of a workload selects the pod. */
function selects(workload: Deployment | DaemonSet, pod: Pod): boolean {
  const match: Record<string, string> = workload.spec?.selector?.matchLabels ?? {};
  const keys = Object.keys(match);
  if (keys.length === 0) return false;
  return keys.every((k) => pod.metadata.labels?.[k] === match[k]);
}

/** Pods of a Deployment or DaemonSet (same namespace, selector match). */
function podsOf(inv: Objects, workload: Deployment | DaemonSet): Pod[] {
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
function podBroken(pod: Pod): boolean {
  if (pod.status?.phase === "Failed") return true;
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.some((s) => BAD_WAITING.has(s?.state?.waiting?.reason ?? ""));
}

/** Ready by its Ready condition (which the node controller turns False on a lost node) and its containers. */
function podIsReady(pod: Pod): boolean {
  const cs = containerSummaries(pod);
  const cond = conditionOf(pod, "Ready");
  return cs.length > 0 && cs.every((c) => c.ready) && (cond === undefined || cond.status === "True");
}

interface ExpectedWorkload {
  name: string;
  kind: "Deployment" | "DaemonSet";
  /** Why it is absent by design, or null when it must exist. */
  optionalBecause: string | null;
  container: string;
}

function expectedWorkloads(inv: Objects): ExpectedWorkload[] {
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

/** A found workload, tagged with its kind. */
type Workload = { kind: "Deployment"; obj: Deployment } | { kind: "DaemonSet"; obj: DaemonSet };

function findWorkload(inv: Objects, ns: string, w: ExpectedWorkload): Workload | undefined {
  const pick = <T extends Named>(all: readonly T[]): T | undefined => {
    const list = all.filter((o) => o.metadata.namespace === ns);
    return list.find((o) => o.metadata.labels?.[NAME_LABEL] === w.name) ??
      list.find((o) => o.metadata.name === `liqo-${w.name}`);
  };
  if (w.kind === "Deployment") {
    const obj = pick(inv.items("deployments"));
    return obj && { kind: "Deployment", obj };
  }
  const obj = pick(inv.items("daemonsets"));
  return obj && { kind: "DaemonSet", obj };
}

interface WorkloadHealth {
  healthy: boolean;
  line: string;
  details: string[];
  pods: Pod[];
  /** Failing containers on reachable nodes whose logs say why (bounded). */
  logTargets: { pod: Pod; container: string }[];
  /** NotReady nodes that explain the whole shortfall (every missing or failing pod is on one), else []. */
  downNodes: NodeDown[];
}

function workloadHealth(inv: Objects, w: Workload, now: Date): WorkloadHealth {
  const { kind, obj } = w;
  const desired: number = w.kind === "Deployment"
    ? (w.obj.spec?.replicas ?? 1)
    : (w.obj.status?.desiredNumberScheduled ?? 0);
  const ready: number = w.kind === "Deployment"
    ? (w.obj.status?.readyReplicas ?? 0)
    : (w.obj.status?.numberReady ?? 0);
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
  const logTargets: { pod: Pod; container: string }[] = [];
  const downOf = new Map(pods.map((p) => [p, podNodeDown(inv, p)]));
  if (!healthy) {
    if (desired === 0) details.push(kind === "Deployment" ? "  scaled to 0 replicas" : "  schedules no pod");
    for (const s of summaries) {
      const down = downOf.get(s.pod) ?? null;
      if (down && !podIsReady(s.pod)) {
        details.push(
          `  pod ${s.pod.metadata.name} on NotReady node ${down.name} (see ENV-07): ${
            nodeDownText(down, now)
          }, last-posted status ${s.pod.status?.phase ?? "unknown"}`,
        );
        continue;
      }
      for (const c of s.containers) {
        if (c.ready && !c.lastTermination) continue;
        details.push(
          `  pod ${s.pod.metadata.name}${
            s.pod.spec?.nodeName ? ` on ${s.pod.spec.nodeName}` : ""
          }: container ${c.name} ${c.state}, ${c.restarts} restarts${
            c.lastTermination ? `, last termination ${c.lastTermination}` : ""
          }`,
        );
        if (!c.ready && !down) logTargets.push({ pod: s.pod, container: c.name });
      }
      if (s.containers.length === 0) {
        details.push(`  pod ${s.pod.metadata.name}: phase ${s.pod.status?.phase ?? "unknown"}`);
      }
    }
  }
  // The shortfall is the node's when every pod that is not ready sits on a NotReady node and those
  // pods account for all the missing replicas.
  const notReadyPods = pods.filter((p) => podBroken(p) || !podIsReady(p));
  const onDown = notReadyPods.filter((p) => downOf.get(p));
  const explained = !healthy && desired > 0 && onDown.length > 0 && onDown.length === notReadyPods.length &&
    desired - ready <= onDown.length;
  const downNodes = explained
    ? [...new Map(onDown.map((p) => [downOf.get(p)!.name, downOf.get(p)!])).values()]
    : [];
  return {
    healthy,
    line,
    details,
    pods: broken,
    logTargets: logTargets.slice(0, MAX_LOGS_PER_WORKLOAD),
    downNodes,
  };
}

function notInstalled(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  const partial = [...inv.items("deployments"), ...inv.items("daemonsets")].filter((o) =>
    o.metadata.labels?.["app.kubernetes.io/part-of"] === "liqo" &&
    !o.metadata.labels?.[GATEWAY_LABELS.component]
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
      remediation: fix(
        helm("local", "-n", ns, "history", "liqo"),
        helm("local", "-n", ns, "status", "liqo"),
        step(
          liqoctl(
            "local",
            "install",
            "<provider>",
            "--cluster-id",
            ctx.cluster.name,
            "--version",
            "<version>",
          ),
          "Reinstall the same Liqo version:",
        ),
      ),
    };
  }
  return {
    status: "fail",
    summary: "Liqo is not installed (no liqo-controller-manager Deployment in any namespace)",
    evidence: [
      "no Deployment labelled app.kubernetes.io/name=controller-manager,app.kubernetes.io/component=controller-manager",
      `context ${ctx.cluster.context} (${ctx.cluster.server})`,
    ],
    remediation: fix(
      "Check that the kubeconfig/context points at the intended cluster, then install Liqo:",
      step(
        liqoctl("local", "install", "<provider>", "--cluster-id", "<name>"),
        "e.g. liqoctl install kubeadm --cluster-id rome",
      ),
      "(providers: kubeadm, kind, k3s, aks, eks, gke, openshift, …; see https://docs.liqo.io/en/stable/installation/install.html)",
    ),
  };
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const inv = ctx.cluster.inv;
  if (!controllerManager(inv)) return notInstalled(ctx);
  const ns = liqoNs(ctx.cluster)!;
  const version = liqoVersionOf(inv);
  const good: string[] = [];
  const bad: string[] = [];
  const notes: string[] = [];
  const remediation: RemediationStep[] = [];
  /** Unhealthy components whose whole shortfall is on NotReady nodes (ENV-07's finding). */
  const onDownNodes: { name: string; nodes: string[] }[] = [];
  /** Unhealthy components with a cause of their own, and the log line that says it. */
  const failing: { name: string; cite: string | null }[] = [];
  for (const w of expectedWorkloads(inv)) {
    const found = findWorkload(inv, ns, w);
    if (!found) {
      if (w.optionalBecause) notes.push(`liqo-${w.name} not present: ${w.optionalBecause}`);
      else {
        bad.push(`${ns}/liqo-${w.name} (${w.kind}): missing`);
        failing.push({ name: `liqo-${w.name}`, cite: null });
        remediation.push(
          step(
            helm("local", "-n", ns, "get", "values", "liqo"),
            `was liqo-${w.name} disabled? reinstall/upgrade Liqo`,
          ),
        );
      }
      continue;
    }
    const h = workloadHealth(inv, found, ctx.cluster.now);
    const obj = found.obj;
    if (h.healthy) {
      good.push(h.line);
      continue;
    }
    bad.push(h.line, ...h.details);
    if (h.downNodes.length > 0) {
      onDownNodes.push({ name: obj.metadata.name, nodes: h.downNodes.map((d) => d.name) });
      remediation.push(
        ...h.downNodes.map((d) => step(kubectl("local", "describe", "node", d.name), "see ENV-07")),
      );
      continue;
    }
    // Liqo's components write why they stopped to their log, not to the termination message.
    let cite: string | null = null;
    for (const t of h.logTargets) {
      const log = await containerLog(ctx, t.pod, t.container, "    ");
      bad.push(...log.evidence);
      cite ??= log.cite;
    }
    failing.push({ name: obj.metadata.name, cite });
    const kindRef = w.kind === "Deployment" ? "deploy" : "ds";
    remediation.push(step(kubectlIn("local", ns, "describe", kindRef, obj.metadata.name)));
    const pod = h.pods[0]?.metadata.name;
    remediation.push(
      step(
        pod
          ? kubectlIn("local", ns, "logs", pod, "-c", w.container, "--previous")
          : kubectlIn("local", ns, "logs", `${kindRef}/${obj.metadata.name}`, "-c", w.container),
      ),
    );
  }
  if (bad.length > 0) {
    const downText = onDownNodes.length > 0
      ? `${onDownNodes.map((d) => d.name).join(", ")} on NotReady node${
        new Set(onDownNodes.flatMap((d) => d.nodes)).size > 1 ? "s" : ""
      } ${[...new Set(onDownNodes.flatMap((d) => d.nodes))].join(", ")} (see ENV-07)`
      : "";
    const evidence = [...bad, ...notes, `Liqo version ${version ?? "unknown"}`];
    const fixes = unique(remediation);
    if (failing.length === 0) {
      // Every shortfall is a lost node's: ENV-07 fails for it and is the diagnosis.
      return {
        status: "warn",
        summary: `Liqo component${onDownNodes.length > 1 ? "s" : ""} ${downText}`,
        evidence,
        remediation: fixes,
      };
    }
    const names = failing.map((f) => f.cite ? `${f.name} (log: "${f.cite}")` : f.name);
    return {
      status: "fail",
      summary: `unhealthy Liqo component${failing.length > 1 ? "s" : ""} in namespace ${ns}: ${
        names.join(", ")
      }${downText ? `; also ${downText}` : ""}`,
      evidence,
      remediation: fixes,
    };
  }
  return {
    status: "pass",
    summary: `${good.length} Liqo components healthy in namespace ${ns} (${version ?? "version unknown"})`,
    evidence: [...good, ...notes],
  };
}

export const ENV_01: CheckDef = {
  id: "ENV-01",
  title: "Liqo core components healthy",
  layer: "env",
  needs: ["ENV-05", "ENV-03"],
  scope: "single",
  perPeer: false,
  reads: ["deployments", "daemonsets", "pods"],
  readsIn: { pods: ["liqo", "tenants"] },
  optionalReads: ["nodes"],
  explain: {
    reads: "The controller-manager Deployment (labels app.kubernetes.io/name=component=controller-manager) " +
      "locates the Liqo namespace; there, by app.kubernetes.io/name: Deployments controller-manager, " +
      "crd-replicator, webhook, ipam, proxy, metric-agent and the DaemonSet fabric, with their pods' " +
      "container states, restart counts, last terminations and the recent log of a failing container; the " +
      "Nodes their pods are bound to (Ready condition, unreachable taint). Controller-manager flags " +
      "--networking-enabled and --ipam-server tell which components are expected.",
    decides: "fail when Liqo is not installed, when a required component is missing, or when a present one " +
      "has fewer ready replicas than desired or a pod in CrashLoopBackOff/ImagePullBackOff — citing the last " +
      "termination and the last error line of the failing container's log (a bounded read, the previous " +
      "instance after a restart; up to 5 error/fatal/panic/failed lines, else the last 3 lines, as evidence; " +
      "a log that cannot be read says why, e.g. the missing get pods/log permission); ipam is not " +
      "expected with networking disabled or an external IPAM, fabric not with networking disabled; proxy and " +
      "metric-agent are judged only when present. A component whose whole shortfall is pods on NotReady nodes " +
      '(a DaemonSet one pod short, a Deployment whose pod sits on a lost node) is reported as "on NotReady node ' +
      'X (see ENV-07)": warn when that is all, ENV-07 being the failure. Skipped when ENV-05 (kernel) or ' +
      "ENV-03 (CRDs) failed, because they explain crashing components.",
    fixes:
      "Install Liqo with liqoctl install; otherwise describe the workload and read the previous logs of " +
      "the crashing container (the command is printed with the real names); for a NotReady node see ENV-07.",
  },
  hops: [],
  hubReads: ["logs"],
  run,
};
