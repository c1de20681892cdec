/**
 * One cluster's address plan before peering, each CIDR with where it came from: Liqo's own
 * Networks where Liqo is installed, else what the cluster says of itself (kubeadm-config, the
 * kube-proxy ConfigMap, the API server's flags, the nodes' podCIDRs), else unknown with why. Also
 * the IPAM pools remaps are taken from, and the nodes' addresses.
 */
import type { ClusterView } from "../types.ts";
import { isVirtualNode } from "../../liqo/lookups.ts";
import { NETWORK_TYPE_LABEL, REMOTE_ID_LABEL } from "../../liqo/names.ts";
import { parseCidr } from "../../probes/cidr.ts";
import { liqoInstalled, liqoItems, liqoNamespace } from "./_shared.ts";

/** A CIDR of the plan and its source ("Network liqo/pod-cidr", "kubeadm-config podSubnet"). */
export interface Sourced {
  cidrs: string[];
  from: string;
}

/** The plan of one cluster. */
export interface AddressPlan {
  pod: Sourced | { unknown: string };
  service: Sourced | { unknown: string };
  external: Sourced;
  internal: Sourced;
  reserved: Sourced[];
  /** Networks remapped for existing peers (`status.cidr` of per-peer Networks). */
  peers: Sourced[];
  /** The IPAM pools, null when Liqo is not installed (the pools come with the install). */
  pools: Sourced | null;
  /** Node addresses (InternalIP, ExternalIP), by node. */
  nodes: { node: string; address: string }[];
}

/** Liqo's chart defaults (`deployments/liqo/values.yaml`, `templates/liqo-ipam-networks.yaml`). */
export const CHART_DEFAULTS = {
  external: "10.70.0.0/16",
  internal: "10.80.0.0/16",
  pools: ["10.0.0.0/8", "192.168.0.0/16", "172.16.0.0/12"],
} as const;

const cidrsIn = (text: string): string[] =>
  [...text.matchAll(/\d{1,3}(?:\.\d{1,3}){3}\/\d{1,2}/g)].map((m) => m[0]).filter((c) =>
    parseCidr(c) !== null
  );

/** A kubeadm ClusterConfiguration field (`networking.podSubnet`), or null. */
function kubeadmField(view: ClusterView, field: string): string[] | null {
  const cm = (view.inv.tryItems("configmaps") ?? []).find((c) =>
    c.metadata.namespace === "kube-system" && c.metadata.name === "kubeadm-config"
  );
  const conf = cm?.data?.ClusterConfiguration;
  if (typeof conf !== "string") return null;
  const m = new RegExp(`${field}:\\s*"?([^"\\n]+)`).exec(conf);
  const cidrs = m ? cidrsIn(m[1]) : [];
  return cidrs.length ? cidrs : null;
}

function kubeProxyClusterCidr(view: ClusterView): string[] | null {
  const cm = (view.inv.tryItems("configmaps") ?? []).find((c) =>
    c.metadata.namespace === "kube-system" && c.metadata.name === "kube-proxy"
  );
  const conf = cm?.data?.["config.conf"];
  if (typeof conf !== "string") return null;
  const m = /clusterCIDR:\s*"?([^"\n]+)/.exec(conf);
  const cidrs = m ? cidrsIn(m[1]) : [];
  return cidrs.length ? cidrs : null;
}

function apiserverFlag(view: ClusterView, flag: string): { cidrs: string[]; pod: string } | null {
  for (const p of view.inv.tryItems("pods") ?? []) {
    if (p.metadata.namespace !== "kube-system" || p.metadata.labels?.component !== "kube-apiserver") continue;
    for (const c of p.spec?.containers ?? []) {
      for (const a of [...(c.command ?? []), ...(c.args ?? [])]) {
        if (typeof a === "string" && a.startsWith(`${flag}=`)) {
          const cidrs = cidrsIn(a.slice(flag.length + 1));
          if (cidrs.length) return { cidrs, pod: p.metadata.name };
        }
      }
    }
  }
  return null;
}

function liqoNetworks(view: ClusterView, type: string): Sourced[] {
  const ns = liqoNamespace(view);
  return (liqoItems(view, "networks") ?? []).filter((n) =>
    n.metadata.labels?.[NETWORK_TYPE_LABEL] === type && n.metadata.labels?.[REMOTE_ID_LABEL] === undefined &&
    (ns === null || n.metadata.namespace === ns)
  ).map((n) => {
    const c = n.status?.cidr ?? n.spec?.cidr;
    return {
      cidrs: typeof c === "string" ? [c] : [],
      from: `Network ${n.metadata.namespace}/${n.metadata.name}`,
    };
  }).filter((s) => s.cidrs.length > 0);
}

function merged(list: Sourced[]): Sourced | null {
  return list.length
    ? { cidrs: list.flatMap((s) => s.cidrs), from: list.map((s) => s.from).join(", ") }
    : null;
}

/** The IPAM pools: the liqo-ipam Deployment's `--pools` (chart default when not set). */
function pools(view: ClusterView): Sourced {
  const ns = liqoNamespace(view);
  const dep = (view.inv.tryItems("deployments") ?? []).find((d) =>
    d.metadata.labels?.["app.kubernetes.io/name"] === "ipam" && (!ns || d.metadata.namespace === ns)
  );
  for (const c of dep?.spec?.template?.spec?.containers ?? []) {
    for (const a of c.args ?? []) {
      if (typeof a === "string" && a.startsWith("--pools=")) {
        return {
          cidrs: cidrsIn(a),
          from: `Deployment ${dep!.metadata.namespace}/${dep!.metadata.name} --pools`,
        };
      }
    }
  }
  return { cidrs: [...CHART_DEFAULTS.pools], from: "Liqo's default ipam.pools" };
}

/** The address plan of a cluster. */
export function addressPlan(view: ClusterView): AddressPlan {
  const installed = liqoInstalled(view) === true;
  const nodes = view.inv.items("nodes").filter((n) => !isVirtualNode(n));
  const pod = merged(liqoNetworks(view, "pod-cidr")) ??
    ((c) => c ? { cidrs: c, from: "kube-system/kubeadm-config networking.podSubnet" } : null)(
      kubeadmField(view, "podSubnet"),
    ) ??
    ((c) => c ? { cidrs: c, from: "kube-system/kube-proxy clusterCIDR" } : null)(
      kubeProxyClusterCidr(view),
    ) ??
    ((c) => c.length ? { cidrs: c, from: "the nodes' spec.podCIDRs" } : null)(
      [...new Set(nodes.flatMap((n) => n.spec?.podCIDRs ?? (n.spec?.podCIDR ? [n.spec.podCIDR] : [])))],
    );
  const service = merged(liqoNetworks(view, "service-cidr")) ??
    ((c) => c ? { cidrs: c, from: "kube-system/kubeadm-config networking.serviceSubnet" } : null)(
      kubeadmField(view, "serviceSubnet"),
    ) ??
    ((f) => f ? { cidrs: f.cidrs, from: `kube-system/${f.pod} --service-cluster-ip-range` } : null)(
      apiserverFlag(view, "--service-cluster-ip-range"),
    );
  const chart = (k: "external" | "internal"): Sourced => ({
    cidrs: [CHART_DEFAULTS[k]],
    from: installed
      ? `Liqo's default ${k} CIDR (no ${k}-cidr Network found)`
      : `Liqo's default ${k} CIDR (not installed)`,
  });
  const peers = (liqoItems(view, "networks") ?? []).filter((n) =>
    n.metadata.labels?.[REMOTE_ID_LABEL] !== undefined
  )
    .flatMap((n) =>
      typeof n.status?.cidr === "string"
        ? [{ cidrs: [n.status.cidr], from: `Network ${n.metadata.namespace}/${n.metadata.name}` }]
        : []
    );
  return {
    pod: pod ??
      { unknown: "no pod-cidr Network, kubeadm-config, kube-proxy clusterCIDR or node podCIDR found" },
    service: service ??
      {
        unknown: "no service-cidr Network, kubeadm-config or kube-apiserver --service-cluster-ip-range found",
      },
    external: merged(liqoNetworks(view, "external-cidr")) ?? chart("external"),
    internal: merged(liqoNetworks(view, "internal-cidr")) ?? chart("internal"),
    reserved: liqoNetworks(view, "reserved"),
    peers,
    pools: installed ? pools(view) : null,
    nodes: nodes.flatMap((n) =>
      (n.status?.addresses ?? []).flatMap((a) =>
        (a.type === "InternalIP" || a.type === "ExternalIP") && a.address
          ? [{ node: n.metadata.name, address: a.address }]
          : []
      )
    ),
  };
}
