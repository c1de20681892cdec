/**
 * IPAM lookups: the cluster's own Networks by role, the per-peer Configuration and the CIDRs it
 * remaps the peer to (Liqo's `pkg/liqo-controller-manager/networking/external-network/configuration/`,
 * `pkg/utils/ipam/networks.go`).
 */
import type { Objects } from "./views/mod.ts";
import type { Network } from "./views/ipam.ts";
import type { Configuration } from "./views/networking.ts";
import { conditionOf, peerObjects, REMOTE_ID_LABEL } from "./lookups.ts";

import { CIDR_TYPE_LABEL, LEGACY_CONFIGURED_LABEL, NETWORK_TYPE_LABEL } from "./names.ts";
// Spelled in names.ts; importable from here too, beside the lookups that use them.
export { CIDR_TYPE_LABEL, LEGACY_CONFIGURED_LABEL, NETWORK_TYPE_LABEL };

/** A CIDR with the object it came from, for evidence. */
export interface NamedCidr {
  /** What it is, e.g. "pod CIDR (Network liqo/pod-cidr)". */
  what: string;
  cidr: string;
}

/** Strings of a field that should be a string list (tolerates absent / wrong shapes). */
export function strList(x: unknown): string[] {
  if (Array.isArray(x)) return x.filter((v): v is string => typeof v === "string" && v !== "");
  return typeof x === "string" && x !== "" ? [x] : [];
}

/**
 * Effective CIDRs of the cluster's own Networks of one type (`status.cidr`, selected by
 * `ipam.liqo.io/network-type`, in the Liqo namespace when known). Per-peer Networks are excluded.
 */
export function localNetworks(inv: Objects, type: string, liqoNs: string | null): Network[] {
  return inv.items("networks").filter((n) =>
    n.metadata.labels?.[NETWORK_TYPE_LABEL] === type &&
    n.metadata.labels?.[REMOTE_ID_LABEL] === undefined &&
    (liqoNs === null || n.metadata.namespace === liqoNs)
  );
}

/** `status.cidr` of the cluster's Networks of one type. */
export function localCidrs(inv: Objects, type: string, liqoNs: string | null): string[] {
  return localNetworks(inv, type, liqoNs).flatMap((n) => strList(n.status?.cidr));
}

/** The Configuration for a peer (by label), if any. */
export function peerConfiguration(inv: Objects, peerId: string): Configuration | null {
  return peerObjects(inv, "configurations", peerId)[0] ?? null;
}

/** The peer's CIDRs as the local cluster addresses them (Configuration `status.remote.cidr`). */
export function remappedCidrs(cfg: Configuration | null): { pod: string[]; external: string[] } {
  return {
    pod: strList(cfg?.status?.remote?.cidr?.pod),
    external: strList(cfg?.status?.remote?.cidr?.external),
  };
}

/**
 * True when Liqo considers the Configuration remapped: the condition, or the legacy label before v1.2
 * (`pkg/liqo-controller-manager/networking/utils/configuration.go`).
 */
export function configurationConfigured(cfg: Configuration): boolean {
  const c = conditionOf(cfg, "NetworkCIDRsConfigured");
  if (c) {
    return c.status === "True" &&
      (c.observedGeneration === undefined || cfg.metadata.generation === undefined ||
        c.observedGeneration === cfg.metadata.generation);
  }
  return cfg.metadata.labels?.[LEGACY_CONFIGURED_LABEL] === "true";
}
