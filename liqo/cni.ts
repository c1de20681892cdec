/**
 * The DaemonSets that identify a CNI, by name or `k8s-app` label: CNI-01 fingerprints the CNI with
 * them and `collect` keeps their namespaces. One list, so a CNI added for one is known to both.
 */
import type { DaemonSet } from "./views/core.ts";

/** DaemonSet names per CNI. */
export const CNI_DAEMONSETS = {
  calico: ["calico-node"],
  canal: ["canal"],
  cilium: ["cilium"],
  flannel: ["kube-flannel-ds", "kube-flannel"],
  kindnet: ["kindnet"],
  aws: ["aws-node"],
  azure: ["azure-cns", "azure-ip-masq-agent", "azure-cni"],
  gkeDataplaneV2: ["anetd"],
  weave: ["weave-net"],
  antrea: ["antrea-agent"],
  kubeRouter: ["kube-router"],
  ovnKubernetes: ["ovnkube-node"],
} as const satisfies Record<string, readonly string[]>;

/** Anything with a name and labels (a typed DaemonSet or a raw object). */
interface Labelled {
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> | null };
}

/** True when `ds` is one of `names` (by name or `k8s-app` label); Flannel's also by `app=flannel`. */
export function isDaemonSetOf(ds: Labelled, names: readonly string[]): boolean {
  const labels = ds.metadata.labels;
  if (names.includes(ds.metadata.name) || names.includes(labels?.["k8s-app"] ?? "")) return true;
  return names === CNI_DAEMONSETS.flannel && labels?.app === "flannel";
}

/** The first DaemonSet of a CNI. */
export function cniDaemonSet(dss: readonly DaemonSet[], names: readonly string[]): DaemonSet | undefined {
  return dss.find((d) => isDaemonSetOf(d, names));
}

/** True when `ds` belongs to any known CNI. */
export function isCniDaemonSet(ds: Labelled): boolean {
  return Object.values(CNI_DAEMONSETS).some((names) => isDaemonSetOf(ds, names));
}
