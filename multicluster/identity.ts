/**
 * Identity first: the clusters of a fleet are told apart by their Liqo cluster ID (the
 * cluster-ID ConfigMap), else by API server URL + CA fingerprint — never by a kubeconfig cluster
 * name. Endpoint groups (./load.ts) that turn out to share a cluster ID are one cluster: the first
 * read is kept, and the record says which context was used and why. Two groups sharing an ID with
 * no node in common are two clusters colliding on one ID (diagnose/pairing.ts distinctClusters):
 * kept apart, named by their context. Pure.
 */
import type { ClusterView } from "../checks/types.ts";
import { distinctClusters } from "../diagnose/pairing.ts";
import type { ReadCluster } from "./load.ts";

/** One cluster of the fleet: the read that stands for it and every context reaching it. */
export interface FleetMember {
  /** Unique in the fleet: the cluster ID, else (or on an ID collision) the context used. */
  name: string;
  read: ReadCluster;
  /** Every selected context reaching it, the one used first. */
  contexts: string[];
  chosenBecause: string | null;
  identity: "cluster-id" | "endpoint";
  /** Set when another cluster of the fleet carries the same cluster ID (a collision). */
  collision: string | null;
}

/** The view of a member that was read. */
export function viewOfMember(m: FleetMember): ClusterView | null {
  return m.read.view;
}

/** Merges reads that reach one cluster (same cluster ID, a node in common). */
export function identify(reads: readonly ReadCluster[]): FleetMember[] {
  const members: FleetMember[] = [];
  for (const r of reads) {
    const id = r.view?.clusterId ?? null;
    const same = id === null ? undefined : members.find((m) => m.read.view?.clusterId === id);
    if (same && r.view && same.read.view) {
      const two = distinctClusters(same.read.view, r.view);
      if (two === null) {
        const names = r.group.contexts.map((c) => c.name);
        same.contexts.push(...names);
        same.chosenBecause =
          `${same.read.context.name}: read first; ${names.join(", ")} reach${
            names.length === 1 ? "es" : ""
          } the same cluster (Liqo cluster ID ${id}) through ${r.context.server ?? "another endpoint"}` +
          (same.chosenBecause ? ` (${same.chosenBecause})` : "");
        continue;
      }
      const note = `cluster ID ${id} is carried by two clusters (${two}): a cluster ID collision (see FC-01)`;
      same.collision = note;
      members.push(member(r, `${id}@${r.context.name}`, note));
      continue;
    }
    members.push(member(r, id ?? r.context.name, null));
  }
  // A collision renames the later one only; say it on the first as well.
  for (const m of members) {
    if (m.collision && m.name === m.read.view?.clusterId) m.name = `${m.name}@${m.read.context.name}`;
  }
  return members;
}

function member(r: ReadCluster, name: string, collision: string | null): FleetMember {
  return {
    name,
    read: r,
    contexts: [r.context.name, ...r.group.contexts.map((c) => c.name).filter((n) => n !== r.context.name)],
    chosenBecause: r.chosenBecause,
    identity: r.view?.clusterId ? "cluster-id" : "endpoint",
    collision,
  };
}
