/**
 * Liqo-aware addressing for the active probes: which address a pod must dial to reach another pod
 * across the peering, and which source address the far side should see (netexec `clientip`).
 *
 * Liqo remaps a peer's pod CIDR when it clashes with the local one: each cluster's Configuration for
 * the peer says the peer's real CIDR (`spec.remote.cidr.pod[i]`) and the CIDR the local cluster
 * reaches it at (`status.remote.cidr.pod[i]`); an address keeps its host bits and swaps the network
 * prefix (Liqo's pkg/utils/ipam/mapping; probes/cidr.ts remapAddress). So:
 * - a local pod dials a remote pod at the remote pod IP remapped with the LOCAL Configuration;
 * - a remote pod dials a local pod at the local pod IP remapped with the REMOTE Configuration;
 * - the far side sees the dialling pod's IP remapped with the far cluster's Configuration for the
 *   dialler's cluster — a different source is a NAT finding.
 * Offload mode: an offloaded pod's IP as the consumer reports it is already remapped (it lives in
 * the consumer's view of the provider's pod CIDR); its own IP on the provider is the reverse remap.
 *
 * Every answer is an address with how it was computed, or null with the reason (no Configuration,
 * not remapped yet, an IP outside the CIDRs): nothing is guessed.
 */
import type { ClusterView } from "../checks/types.ts";
import { remapAddress } from "../probes/cidr.ts";
import type { ProbePod, Side } from "./model.ts";
import { strList } from "../liqo/ipam.ts";
import { REMOTE_ID_LABEL } from "../liqo/lookups.ts";
import type { Configuration } from "../liqo/views/networking.ts";

/** An address and how it was computed, or why it could not be. */
export type Address =
  | { ip: string; how: string }
  | { ip: null; reason: string };

/** The per-cluster inputs of addressing: who the cluster is and its Configuration for the other side. */
export interface AddressingInputs {
  /** The local cluster (always known). */
  local: ClusterView;
  /** The remote cluster in direct mode (or with `--remote-kubeconfig`); null when not readable. */
  remote: ClusterView | null;
  /** The peer's cluster ID (the remote cluster). */
  peer: string;
}

/** Addressing between the probe pods of one run. */
export interface Addressing {
  /** The address `from` must dial to reach `to`. */
  dial(from: ProbePod, to: ProbePod): Address;
  /** The source address `to` should see when `from` dials it (netexec `clientip`). */
  expectedSource(from: ProbePod, to: ProbePod): Address;
  /** `pod`'s address as seen from a pod in the `viewer` cluster's network. */
  addressIn(pod: ProbePod, viewer: Side): Address;
}

/** One direction of a Configuration: the peer's real pod CIDRs and where the holder reaches them. */
interface PodMapping {
  /** `spec.remote.cidr.pod`: the peer's own pod CIDRs. */
  real: string[];
  /** `status.remote.cidr.pod`: the same CIDRs as the holder addresses them. */
  mapped: string[];
  /** "Configuration ns/name on <cluster>", for the `how` and reasons. */
  source: string;
}

/** The Configuration a cluster holds for a peer (by label), or why there is none. */
function configurationFor(view: ClusterView, peerId: string): { cfg: Configuration } | { reason: string } {
  const all = view.inv.tryItems("configurations");
  if (all === null) return { reason: `Configurations of ${view.name} could not be read` };
  const cfg = all.find((c) => c.metadata.labels?.[REMOTE_ID_LABEL] === peerId);
  if (!cfg) return { reason: `${view.name} has no Configuration labelled ${REMOTE_ID_LABEL}=${peerId}` };
  return { cfg };
}

function podMapping(view: ClusterView, peerId: string): PodMapping | { reason: string } {
  const found = configurationFor(view, peerId);
  if ("reason" in found) return found;
  const { cfg } = found;
  const source = `Configuration ${
    cfg.metadata.namespace ? `${cfg.metadata.namespace}/` : ""
  }${cfg.metadata.name} on ${view.name}`;
  const real = strList(cfg.spec?.remote?.cidr?.pod);
  const mapped = strList(cfg.status?.remote?.cidr?.pod);
  if (real.length === 0) return { reason: `${source} has no spec.remote.cidr.pod` };
  if (mapped.length === 0) {
    return { reason: `${source} has no status.remote.cidr.pod (not remapped yet: see the IPAM checks)` };
  }
  if (mapped.length !== real.length) {
    return {
      reason:
        `${source}: spec.remote.cidr.pod has ${real.length} CIDR(s), status.remote.cidr.pod ${mapped.length}`,
    };
  }
  return { real, mapped, source };
}

/** Remaps `ip` through the first CIDR pair that contains it (`from` list → `to` list). */
function remapThrough(ip: string, from: string[], to: string[]): string | null {
  for (let i = 0; i < from.length; i++) {
    const out = remapAddress(ip, from[i], to[i]);
    if (out !== null) return out;
  }
  return null;
}

/** Builds the addressing of a run from the clusters' Configurations (read once, lazily). */
export function createAddressing(inputs: AddressingInputs): Addressing {
  const localId = inputs.local.clusterId;
  // viewer side → its mapping of the other side's pod CIDR (memoised).
  const cache = new Map<Side, PodMapping | { reason: string }>();
  const mappingHeldBy = (viewer: Side): PodMapping | { reason: string } => {
    const known = cache.get(viewer);
    if (known) return known;
    let m: PodMapping | { reason: string };
    if (viewer === "local") m = podMapping(inputs.local, inputs.peer);
    else if (!inputs.remote) {
      m = {
        reason: `the remote cluster's Configuration for ${
          localId ?? inputs.local.name
        } is not readable without --remote-kubeconfig`,
      };
    } else if (!localId) {
      m = { reason: `the local cluster ID is unknown (no liqo-clusterid-configmap on ${inputs.local.name})` };
    } else m = podMapping(inputs.remote, localId);
    cache.set(viewer, m);
    return m;
  };

  const addressIn = (pod: ProbePod, viewer: Side): Address => {
    // A pod's reported IP is in the frame of the cluster it is exec'd through (offloaded pods: the
    // consumer's view, already remapped); its own network is `pod.side`.
    const frame = pod.execSide;
    if (!pod.podIP) return { ip: null, reason: `pod ${pod.name} has no IP` };
    if (frame === viewer) return { ip: pod.podIP, how: "pod IP" };
    if (frame === pod.side) {
      // Real IP → as the viewer reaches it: the viewer's Configuration for the pod's cluster, spec → status.
      const m = mappingHeldBy(viewer);
      if ("reason" in m) return { ip: null, reason: m.reason };
      const ip = remapThrough(pod.podIP, m.real, m.mapped);
      if (ip === null) {
        return {
          ip: null,
          reason: `${pod.podIP} (pod ${pod.name}) is not inside spec.remote.cidr.pod ${
            m.real.join(", ")
          } of ${m.source}`,
        };
      }
      return { ip, how: `${pod.podIP} remapped ${m.real.join(",")} → ${m.mapped.join(",")} (${m.source})` };
    }
    // An offloaded pod's consumer-side IP → its real IP on its own cluster: the consumer's (frame's)
    // Configuration, status → spec.
    const m = mappingHeldBy(frame);
    if ("reason" in m) return { ip: null, reason: m.reason };
    const ip = remapThrough(pod.podIP, m.mapped, m.real);
    if (ip === null) {
      return {
        ip: null,
        reason: `${pod.podIP} (offloaded pod ${pod.name}) is not inside status.remote.cidr.pod ${
          m.mapped.join(", ")
        } of ${m.source}`,
      };
    }
    return { ip, how: `${pod.podIP} mapped back ${m.mapped.join(",")} → ${m.real.join(",")} (${m.source})` };
  };

  return {
    addressIn,
    dial: (from, to) => addressIn(to, from.side),
    expectedSource: (from, to) => addressIn(from, to.side),
  };
}
