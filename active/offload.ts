/**
 * What offload mode needs beyond direct mode: the peer's virtual node(s) on the consumer, how many
 * pods to offload and how Liqo spreads them over the provider's nodes, the refinements of an
 * offloaded pod's manifest, the provider namespace, and how the matrix labels the offloaded
 * columns (when the NamespaceOffloading is Ready: fleet.ts offloadingVerdict).
 *
 * Spreading (Liqo source, github.com/liqotech/liqo): the pod annotation
 * `liqo.io/anti-affinity-preset` (`pkg/consts/replication.go` PodAntiAffinityPresetKey) with value
 * `hard` or `soft` makes the virtual kubelet give the remote pod a required / preferred
 * podAntiAffinity on `kubernetes.io/hostname` over the pod's labels
 * (`pkg/virtualKubelet/forge/pods.go` RemoteShadowPod → AntiAffinityHardMutator /
 * AntiAffinitySoftMutator); `liqo.io/anti-affinity-labels` (PodAntiAffinityLabelsKey) restricts it
 * to a comma-separated subset of label keys (documented in docs/usage/reflection.md). Our probe
 * pods differ in their node label, so we name the keys every offloaded probe pod shares.
 * Scheduling onto the virtual node needs the toleration `virtual-node.liqo.io/not-allowed`
 * (`pkg/consts/webhook.go` VirtualNodeTolerationKey; Liqo's pod webhook adds it in offloaded
 * namespaces, templates.ts offloadedPodManifest adds it itself). The virtual node carries
 * `kubernetes.io/hostname=<node name>` (`pkg/virtualKubelet/liqoNodeProvider/setup.go`), so the
 * same hostname nodeAffinity that places local pods places offloaded ones.
 * Exec into an offloaded pod goes through the consumer's API server: the virtual kubelet forwards
 * it to the remote pod (`pkg/virtualKubelet/reflection/workload/podns.go` Exec), hence
 * ProbePod.execSide `local`. The remote pod keeps the local pod's name (RemoteShadowPod), so
 * netexec's /hostname answers it on both sides.
 */
import type { ClusterView } from "../checks/types.ts";
import type { K8sObject } from "../kube/source.ts";
import { conditionOf, isVirtualNode, REMOTE_ID_LABEL } from "../liqo/lookups.ts";
import type { ProbeMode, ProbeName, ProbePod } from "./model.ts";
import { PROBE_LABELS } from "./model.ts";
import type { OffloadSpread } from "./fleet/templates.ts";
import { ANTI_AFFINITY_LABELS_ANNOTATION, ANTI_AFFINITY_PRESET_ANNOTATION } from "../liqo/names.ts";

// Spelled in liqo/names.ts; importable from here, where the offload plan writes them.
export { ANTI_AFFINITY_LABELS_ANNOTATION, ANTI_AFFINITY_PRESET_ANNOTATION };
/** Label keys every offloaded probe pod of a run shares (the index label differs, so it is left out). */
export const ANTI_AFFINITY_LABEL_KEYS: readonly string[] = [PROBE_LABELS.runId, PROBE_LABELS.component];

/**
 * Offloaded pods when the provider's node count is unknown (no --remote-kubeconfig): the
 * ResourceSlice and VirtualNode carry resources, not nodes, so two — enough to tell a whole column
 * from one pod — spread softly so a one-node provider still runs both.
 */
export const DEFAULT_OFFLOADED_PODS = 2;

/**
 * Whether the run namespace is offloaded: always in offload mode, and in direct mode when the
 * service probe runs — a Service is reflected only from an offloaded namespace, and direct mode's
 * remote pods live in the provider's own run namespace, which Liqo never reflects into. Direct mode
 * then offloads the same way (NamespaceOffloading `offloading` in the run namespace, FleetPlan
 * `offload`) and the offloaded pods of {@link planOffload} are the service probe's remote backends
 * (FleetHandle `offloaded`); the matrix keeps the direct pods.
 */
export function offloadingWanted(mode: ProbeMode, probes: readonly ProbeName[]): boolean {
  return mode === "offload" || probes.includes("service");
}

/** A virtual node of the peer on the consumer. */
export interface PeerVirtualNode {
  name: string;
  ready: boolean;
  /** Why it is not usable ("" when Ready). */
  reason: string;
}

/** The peer's virtual Nodes on the consumer (labels liqo.io/type=virtual-node, liqo.io/remote-cluster-id=peer). */
export function peerVirtualNodes(consumer: ClusterView, peer: string): PeerVirtualNode[] {
  return consumer.inv.withLabel("nodes", REMOTE_ID_LABEL, peer).filter(isVirtualNode).map((n) => {
    const ready = conditionOf(n, "Ready");
    const ok = ready?.status === "True" && !n.spec?.unschedulable;
    return {
      name: n.metadata.name,
      ready: ok,
      reason: ok
        ? ""
        : n.spec?.unschedulable
        ? "cordoned"
        : `Ready=${ready?.status ?? "unknown"}${ready?.reason ? ` (${ready.reason})` : ""}`,
    };
  }).sort((a, b) => a.name.localeCompare(b.name));
}

/** Where one offloaded pod goes. */
export interface OffloadPlacement {
  /** The virtual node it is scheduled on. */
  virtualNode: string;
  /** 0-based index among the offloaded pods (names `…-<index>`). */
  index: number;
  preset: "hard" | "soft";
}

/** The offloaded part of a fleet. */
export interface OffloadPlan {
  peer: string;
  virtualNodes: string[];
  /** One entry per pod to offload. */
  pods: OffloadPlacement[];
  /** hard when the provider's schedulable nodes are known (one pod each), soft otherwise. */
  preset: "hard" | "soft";
  /** Why that many pods, for the report ("3 schedulable provider nodes" / "provider nodes unknown: 2"). */
  countReason: string;
}

/** A plan, or why offload mode cannot run (no Ready virtual node for the peer). */
export type OffloadPlanOutcome = { ok: true; plan: OffloadPlan } | { ok: false; reason: string };

/**
 * Plans the offloaded pods: one per schedulable provider node when those are known (the remote
 * kubeconfig was given; pass selectNodes(remote nodes).nodes) with Liqo's `hard` anti-affinity, else
 * {@link DEFAULT_OFFLOADED_PODS} with `soft`; spread round-robin over the peer's Ready virtual nodes.
 */
export function planOffload(
  consumer: ClusterView,
  peer: string,
  providerNodes: readonly string[] | null,
): OffloadPlanOutcome {
  const vns = peerVirtualNodes(consumer, peer);
  const ready = vns.filter((v) => v.ready).map((v) => v.name);
  if (ready.length === 0) {
    return {
      ok: false,
      reason: vns.length === 0
        ? `no virtual node for ${peer} on ${consumer.name}: offload mode needs the peer to share resources ` +
          `(liqoctl peer creates a ResourceSlice and its VirtualNode); with --remote-kubeconfig use --mode direct`
        : `no Ready virtual node for ${peer} on ${consumer.name}: ${
          vns.map((v) => `${v.name} ${v.reason}`).join(", ")
        }`,
    };
  }
  const known = providerNodes !== null && providerNodes.length > 0;
  const count = known ? providerNodes.length : DEFAULT_OFFLOADED_PODS;
  const preset = known ? "hard" : "soft";
  return {
    ok: true,
    plan: {
      peer,
      virtualNodes: ready,
      preset,
      countReason: known
        ? `${count} schedulable provider node(s), one offloaded pod each (Liqo anti-affinity preset hard)`
        : `provider nodes unknown without --remote-kubeconfig: ${count} offloaded pods, spread with Liqo's ` +
          `anti-affinity preset soft`,
      pods: Array.from({ length: count }, (_, index) => ({
        virtualNode: ready[index % ready.length],
        index,
        preset,
      })),
    },
  };
}

/**
 * The spreading of an offloaded probe pod, for C2's offloadedPodManifest (its `spread` hook):
 * Liqo's anti-affinity preset and the label keys it selects on. No podAntiAffinity of our own:
 * the consumer's scheduler would read it against the virtual node, Liqo strips it from the remote
 * pod, and the preset is what Liqo turns into the remote pod's anti-affinity.
 */
export function offloadSpread(preset: OffloadPlacement["preset"]): OffloadSpread {
  return {
    annotations: {
      [ANTI_AFFINITY_PRESET_ANNOTATION]: preset,
      [ANTI_AFFINITY_LABELS_ANNOTATION]: ANTI_AFFINITY_LABEL_KEYS.join(","),
    },
  };
}

interface OffloadingShape {
  status?: { remoteNamespaceName?: string };
}

/**
 * The provider namespace the run namespace is offloaded to: `status.remoteNamespaceName`, else
 * Liqo's DefaultName `<namespace>-<consumer cluster ID>`
 * (`pkg/liqo-controller-manager/offloading/namespaceoffloading-controller/status.go`), null when neither is known.
 */
export function remoteNamespaceOf(
  offloading: K8sObject | null,
  namespace: string,
  consumerId: string | null,
): string | null {
  const fromStatus = (offloading as OffloadingShape | null)?.status?.remoteNamespaceName;
  if (fromStatus) return fromStatus;
  return consumerId ? `${namespace}-${consumerId}` : null;
}

/**
 * Offloaded pods with their remote node filled in from the provider's pods (remote kubeconfig
 * given: the remote pod has the same name, `spec.nodeName` is the real node); unchanged otherwise.
 */
export function placeOffloadedPods(pods: readonly ProbePod[], remotePods: readonly K8sObject[]): ProbePod[] {
  const nodeOf = new Map<string, string>();
  for (const p of remotePods) {
    const node = (p.spec as { nodeName?: string } | undefined)?.nodeName;
    if (node) nodeOf.set(p.metadata.name, node);
  }
  return pods.map((p) => nodeOf.has(p.name) ? { ...p, node: nodeOf.get(p.name)! } : { ...p });
}

/** Column labels for offloaded pods, and the note the matrix title carries when nodes are unknown. */
export interface OffloadColumns {
  labels: string[];
  /** e.g. "columns are offloaded pods: …"; null when every remote node is known. */
  note: string | null;
}

/**
 * How the matrix labels offloaded columns: the remote node when known (placeOffloadedPods), else the
 * pod name — the consumer only sees the virtual node (`spec.nodeName`) and the virtual kubelet's IP
 * (`status.hostIP`), never the provider's node — and a note saying so for the matrix title.
 */
export function offloadColumns(pods: readonly ProbePod[], virtualNodes: readonly string[]): OffloadColumns {
  const unknown = pods.filter((p) => virtualNodes.includes(p.node));
  return {
    labels: pods.map((p) => virtualNodes.includes(p.node) ? p.name : p.node),
    note: unknown.length === 0
      ? null
      : `columns are offloaded pods: their provider nodes are unknown from the consumer (it sees only virtual node ${
        [...new Set(unknown.map((p) => p.node))].join(", ")
      }); give --remote-kubeconfig to label them by node`,
  };
}
