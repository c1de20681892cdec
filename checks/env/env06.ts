/**
 * ENV-06: whether a documented Liqo limit of the detected platform (OpenShift, AKS, EKS, GKE, K3s)
 * applies to the current configuration (Liqo's `docs/installation/compatibility.md`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { IP } from "../../liqo/views/ipam.ts";
import { controllerManager, isVirtualNode, networkingEnabled, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { liqoNs } from "./shared.ts";
import {
  ENDPOINTSLICE_IP_LABEL,
  IP_TYPE_LABEL,
  OFFLOADED_POD_NAME_LABEL,
  PREINSTALLED_ANNOTATION,
  SHADOW_POD_LABEL,
} from "../../liqo/names.ts";
import { fix, helm, liqoctl, remoteKubeconfig, step } from "../remediation.ts";

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

function run(ctx: CheckContext): Outcome {
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
      const dpv2 = (inv.tryItems("daemonsets") ?? []).some((d) =>
        d.metadata.namespace === "kube-system" && d.metadata.name === "anetd"
      );
      const exposed = offloaded.length === 0
        ? []
        : (inv.tryItems("services") ?? []).filter((s) =>
          offloaded.includes(s.metadata.namespace ?? "") &&
          ["NodePort", "LoadBalancer"].includes(s.spec?.type ?? "")
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
        remediation: fix(
          "Known limit (NodePortExposition/LoadBalancerExposition): expose those Services from a cluster " +
            "without Dataplane V2, or keep their backing pods local (NamespaceOffloading podOffloadingStrategy Local). " +
            "See https://docs.liqo.io/en/stable/installation/compatibility.html",
        ),
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
    fixes: "Use the documented alternative printed with the warning (e.g. disable the networking module on " +
      "OpenShift).",
  },
  hops: [],
  run,
};
