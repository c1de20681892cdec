/**
 * ENV-06: whether a documented Liqo limit of the detected platform and CNI (OpenShift, AKS and its
 * network plugins, EKS, GKE Dataplane V2, Cilium with kube-proxy replacement, K3s) applies to what the
 * cluster actually uses (Liqo's `docs/installation/compatibility.md`): e.g. a NodePort or LoadBalancer
 * Service whose endpoints include offloaded pods under a CNI that cannot reach them.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { IP } from "../../liqo/views/ipam.ts";
import type { Service } from "../../liqo/views/core.ts";
import { controllerManager, isVirtualNode, networkingEnabled, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { liqoNs } from "./shared.ts";
import {
  ENDPOINTSLICE_IP_LABEL,
  IP_TYPE_LABEL,
  OFFLOADED_POD_NAME_LABEL,
  PREINSTALLED_ANNOTATION,
  SHADOW_POD_LABEL,
} from "../../liqo/names.ts";
import { fix, helm, liqoctl, type RemediationStep, remoteKubeconfig, step } from "../remediation.ts";

type Platform = "openshift" | "aks" | "eks" | "gke" | "k3s" | null;

function detectPlatform(inv: Objects): { platform: Platform; evidence: string } {
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
function offloadedNamespaces(inv: Objects): string[] {
  return [
    ...new Set((inv.tryItems("namespaceoffloadings") ?? []).map((o) => o.metadata.namespace ?? "")),
  ].filter((n) => n);
}

/**
 * User-created IPs (external IP remapping), i.e. not one of those Liqo creates itself
 * (`pkg/utils/ipam/mapping/ips.go`, `pkg/liqo-controller-manager/offloading/ipmapping/`).
 */
function userIps(inv: Objects): IP[] {
  return (inv.tryItems("ips") ?? []).filter((ip) => {
    const l = ip.metadata.labels ?? {};
    return !l[IP_TYPE_LABEL] && !l[SHADOW_POD_LABEL] && !l[REMOTE_ID_LABEL] &&
      !l[ENDPOINTSLICE_IP_LABEL] && !l[OFFLOADED_POD_NAME_LABEL] &&
      ip.metadata.annotations?.[PREINSTALLED_ANNOTATION] !== "true";
  });
}

const COMPAT_DOC = "https://docs.liqo.io/en/stable/installation/compatibility.html";

/** The exposure features a platform/CNI row of the compatibility matrix marks as limited, and why. */
interface ExposureLimits {
  nodePort: string | null;
  loadBalancer: string | null;
}

/**
 * Rows of the matrix with `NodePortExposition`/`LoadBalancerExposition` (docs/installation/compatibility.md):
 * Kubeadm with Cilium kube-proxy replacement and GKE Dataplane V2 (both), AKS with Azure CNI (legacy,
 * NodePort only).
 */
function exposureLimits(inv: Objects, platform: Platform): ExposureLimits {
  const out: ExposureLimits = { nodePort: null, loadBalancer: null };
  const dss = inv.tryItems("daemonsets") ?? [];
  if (
    platform === "gke" &&
    dss.some((d) => d.metadata.namespace === "kube-system" && d.metadata.name === "anetd")
  ) {
    out.nodePort = out.loadBalancer = "GKE Dataplane V2 (kube-system/anetd)";
    return out;
  }
  const cilium = (inv.tryItems("configmaps") ?? []).find((c) => c.metadata.name === "cilium-config");
  const kpr = String(cilium?.data?.["kube-proxy-replacement"] ?? "");
  if (kpr === "true" || kpr === "strict") {
    out.nodePort =
      out.loadBalancer =
        `Cilium with kube-proxy replacement (cilium-config: kube-proxy-replacement=${kpr})`;
    return out;
  }
  if (platform === "aks") {
    // AKS node labels: kubernetes.azure.com/network-plugin=azure without podnetwork-type=overlay is the
    // legacy Azure CNI (pods on the VNet), whose row limits NodePort exposure.
    if (aksLegacyCni(inv)) out.nodePort = "AKS with Azure CNI (legacy)";
  }
  return out;
}

/**
 * AKS with the legacy Azure CNI (pods on the VNet): node label kubernetes.azure.com/network-plugin=azure
 * without kubernetes.azure.com/podnetwork-type=overlay.
 */
function aksLegacyCni(inv: Objects): boolean {
  return inv.items("nodes").some((n) => {
    const l = n.metadata.labels ?? {};
    return !isVirtualNode(n) && l["kubernetes.azure.com/network-plugin"] === "azure" &&
      l["kubernetes.azure.com/podnetwork-type"] !== "overlay";
  });
}

/** A Service exposed through a limited feature whose endpoints include offloaded pods. */
interface ExposedOffloaded {
  svc: Service;
  feature: "NodePortExposition" | "LoadBalancerExposition";
  endpoints: string[];
}

/**
 * NodePort/LoadBalancer Services (as limited) with endpoints on virtual nodes (offloaded pods); null
 * when the EndpointSlices are unreadable.
 */
function exposedOffloaded(inv: Objects, limits: ExposureLimits): ExposedOffloaded[] | null {
  if (!limits.nodePort && !limits.loadBalancer) return [];
  const slices = inv.tryItems("endpointslices");
  if (slices === null) return null;
  const virtual = new Set(inv.items("nodes").filter(isVirtualNode).map((n) => n.metadata.name));
  const out: ExposedOffloaded[] = [];
  for (const svc of inv.tryItems("services") ?? []) {
    const type = svc.spec?.type;
    const feature = type === "LoadBalancer" && limits.loadBalancer
      ? "LoadBalancerExposition"
      : type === "NodePort" && limits.nodePort
      ? "NodePortExposition"
      : null;
    if (!feature) continue;
    const endpoints: string[] = [];
    for (const sl of slices) {
      if (sl.metadata.namespace !== svc.metadata.namespace) continue;
      if (sl.metadata.labels?.["kubernetes.io/service-name"] !== svc.metadata.name) continue;
      for (const e of sl.endpoints ?? []) {
        if (!e?.nodeName || !virtual.has(e.nodeName)) continue;
        endpoints.push(
          `${(e.addresses ?? []).join(",")} (pod ${e.targetRef?.name ?? "?"} on virtual node ${e.nodeName})`,
        );
      }
    }
    if (endpoints.length) out.push({ svc, feature, endpoints });
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const base = platformRun(ctx);
  const inv = ctx.cluster.inv;
  const { platform } = detectPlatform(inv);
  const limits = exposureLimits(inv, platform);
  const hits = exposedOffloaded(inv, limits);
  if (hits === null) {
    return {
      ...base,
      evidence: [
        ...(base.evidence ?? []),
        `${
          limits.nodePort ?? limits.loadBalancer
        } limits NodePort/LoadBalancer exposure of offloaded pods; ` +
        "EndpointSlices not readable, so which Services it affects was not checked",
      ],
    };
  }
  if (hits.length === 0) {
    if (!limits.nodePort && !limits.loadBalancer) return base;
    return {
      ...base,
      evidence: [
        ...(base.evidence ?? []),
        `${
          limits.nodePort ?? limits.loadBalancer
        }: no NodePort/LoadBalancer Service has offloaded endpoints, ` +
        "so its documented exposure limit does not apply",
      ],
    };
  }
  const features = [...new Set(hits.map((h) => h.feature))];
  const why = limits.loadBalancer && features.includes("LoadBalancerExposition")
    ? limits.loadBalancer
    : limits.nodePort;
  const evidence = [
    ...hits.flatMap((h) => [
      `Service ${h.svc.metadata.namespace}/${h.svc.metadata.name} (${h.svc.spec?.type}, ${h.feature}) has offloaded endpoints:`,
      ...h.endpoints.map((e) => `  ${e}`),
    ]),
    `${why}: ${features.join(", ")} limited (docs/installation/compatibility.md)`,
  ];
  const remediation: RemediationStep[] = fix(
    `Known limit (${features.join(", ")}): traffic entering through the node port or load balancer may ` +
      "not reach the offloaded pods. Expose them through an Ingress controller's LoadBalancer instead (the " +
      "documented exception: the Ingress controller terminates the request and reaches local and remote " +
      "pods alike), expose the Service from the provider cluster, or keep its pods local " +
      `(NamespaceOffloading podOffloadingStrategy Local). See ${COMPAT_DOC}`,
  );
  if (base.status === "warn") {
    evidence.push(`also: ${base.summary}`, ...(base.evidence ?? []));
    remediation.push(...(base.remediation ?? []));
  } else evidence.push(...(base.evidence ?? []));
  return {
    status: "warn",
    summary: `${why}: ${
      hits.map((h) => `${h.svc.spec?.type} Service ${h.svc.metadata.namespace}/${h.svc.metadata.name}`).join(
        ", ",
      )
    } ${hits.length > 1 ? "have" : "has"} offloaded endpoints the CNI may not reach (${features.join(", ")})`,
    evidence,
    remediation,
  };
}

function platformRun(ctx: CheckContext): Outcome {
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
        remediation: fix(
          "Disable the networking module (offloading keeps working):",
          helm(
            "local",
            "-n",
            ns,
            "upgrade",
            "liqo",
            "liqo/liqo",
            "--reuse-values",
            "--set",
            "networking.enabled=false",
          ),
          step(
            liqoctl("consumer", "peer", remoteKubeconfig("provider"), "--networking-disabled"),
            "and peer with:",
          ),
          "See https://docs.liqo.io/en/stable/installation/compatibility.html",
        ),
      };
    case "k3s":
      return {
        status: "pass",
        summary: "K3s: known limit RemoteExec (kubectl exec into offloaded pods) — informational",
        evidence: [evidence],
      };
    case "gke": {
      // NodePort/LoadBalancer exposure under Dataplane V2 is judged on the Services' endpoints (run).
      const dpv2 = (inv.tryItems("daemonsets") ?? []).some((d) =>
        d.metadata.namespace === "kube-system" && d.metadata.name === "anetd"
      );
      return {
        status: "pass",
        summary: `GKE${dpv2 ? " Dataplane V2" : ""}: no documented limit applies to this configuration`,
        evidence: [
          evidence,
          dpv2 ? "kube-system/anetd present (Dataplane V2)" : "no anetd DaemonSet (Dataplane V1)",
        ],
      };
    }
    case "aks":
    case "eks": {
      const name = platform.toUpperCase();
      // The legacy Azure CNI row lists NodePortExposition instead of ExternalIPRemapping.
      const ips = platform === "aks" && aksLegacyCni(inv) ? [] : userIps(inv);
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
        remediation: fix(
          "Offloaded pods may fail to reach the home API server: pin API-dependent pods locally or set " +
            "annotation liqo.io/api-server-support: disabled on them; external IP remapping may not work on " +
            `${name} — reach the external host from the cluster that can route to it. ` +
            "See https://docs.liqo.io/en/stable/installation/compatibility.html",
        ),
      };
    }
  }
}

export const ENV_06: CheckDef = {
  id: "ENV-06",
  title: "Platform caveats",
  layer: "env",
  needs: [],
  scope: "single",
  perPeer: false,
  reads: ["nodes"],
  optionalReads: [
    "namespaces",
    "deployments",
    "daemonsets",
    "services",
    "namespaceoffloadings",
    "ips",
    "endpointslices",
    "configmaps",
  ],
  readsIn: { endpointslices: ["offloaded"], configmaps: ["cni"] },
  explain: {
    reads: "Node labels, providerID, osImage and kubelet version (OpenShift, AKS, EKS, GKE, K3s), " +
      "openshift-* namespaces, the controller-manager's --networking-enabled, GKE's anetd DaemonSet " +
      "(Dataplane V2), ConfigMap cilium-config (kube-proxy-replacement), AKS network-plugin labels, " +
      "offloaded namespaces, their NodePort/LoadBalancer Services and EndpointSlices (endpoints on " +
      "virtual nodes are offloaded pods), user-created IPs.",
    decides:
      "warn only when a documented limit (docs/installation/compatibility.md) applies to the current " +
      "configuration, i.e. the cluster uses the limited feature: OpenShift with networking on; a NodePort " +
      "(NodePortExposition) or LoadBalancer (LoadBalancerExposition) Service whose EndpointSlices include " +
      "offloaded pods, under GKE Dataplane V2 or Cilium kube-proxy replacement (both) or AKS Azure CNI " +
      "legacy (NodePort) — with the documented alternative (an Ingress controller's LoadBalancer, exposing " +
      "from the provider, or local pods); the same Services with only local endpoints stay quiet; AKS/EKS with offloaded namespaces (CrossClusterAPIServerInteraction) or user IPs " +
      "(ExternalIPRemapping). K3s's RemoteExec limit is informational (pass). Other platforms pass.",
    fixes: "Use the documented alternative printed with the warning (e.g. disable the networking module on " +
      "OpenShift).",
  },
  hops: [],
  run,
};
