/**
 * ENV-01: Liqo is installed and its core components (controller-manager, crd-replicator, webhook,
 * ipam, proxy, metric-agent, fabric) are present where expected and healthy (CHECKS.md ENV-01,
 * FACTS §4.1).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { DaemonSet, Deployment, Pod } from "../../liqo/views/core.ts";
import {
  containerSummaries,
  controllerManager,
  controllerManagerArg,
  liqoVersionOf,
  type Named,
  networkingEnabled,
} from "../../liqo/lookups.ts";
import { liqoNs } from "./shared.ts";

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
}

function workloadHealth(inv: Objects, w: Workload): WorkloadHealth {
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

function run(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  if (!controllerManager(inv)) return notInstalled(ctx);
  const ns = liqoNs(ctx.cluster)!;
  const version = liqoVersionOf(inv);
  const good: string[] = [];
  const bad: string[] = [];
  const notes: string[] = [];
  const remediation: string[] = [];
  for (const w of expectedWorkloads(inv)) {
    const found = findWorkload(inv, ns, w);
    if (!found) {
      if (w.optionalBecause) notes.push(`liqo-${w.name} not present: ${w.optionalBecause}`);
      else {
        bad.push(`${ns}/liqo-${w.name} (${w.kind}): missing`);
        remediation.push(
          `helm -n ${ns} get values liqo   # was liqo-${w.name} disabled? reinstall/upgrade Liqo`,
        );
      }
      continue;
    }
    const h = workloadHealth(inv, found);
    const obj = found.obj;
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

export const ENV_01: CheckDef = {
  id: "ENV-01",
  title: "Liqo core components healthy",
  layer: "env",
  needs: ["ENV-05", "ENV-03"],
  scope: "single",
  perPeer: false,
  reads: ["deployments", "daemonsets", "pods"],
  explain: {
    reads: "The controller-manager Deployment (labels app.kubernetes.io/name=component=controller-manager) " +
      "locates the Liqo namespace; there, by app.kubernetes.io/name: Deployments controller-manager, " +
      "crd-replicator, webhook, ipam, proxy, metric-agent and the DaemonSet fabric, with their pods' " +
      "container states, restart counts and last terminations. Controller-manager flags " +
      "--networking-enabled and --ipam-server tell which components are expected.",
    decides: "fail when Liqo is not installed, when a required component is missing, or when a present one " +
      "has fewer ready replicas than desired or a pod in CrashLoopBackOff/ImagePullBackOff; ipam is not " +
      "expected with networking disabled or an external IPAM, fabric not with networking disabled; proxy and " +
      "metric-agent are judged only when present. Skipped when ENV-05 (kernel) or ENV-03 (CRDs) failed, " +
      "because they explain crashing components.",
    fixes:
      "Install Liqo with liqoctl install; otherwise describe the workload and read the previous logs of " +
      "the crashing container (the command is printed with the real names).",
  },
  hops: [],
  run,
};
