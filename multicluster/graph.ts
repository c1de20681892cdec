/**
 * The fleet as a graph: clusters are nodes; every peering is an edge consumer → provider (the
 * ForeignClusters' roles), with its network edge (which end hosts the GatewayServer, which the
 * GatewayClient). Each edge is classified — paired, half-visible, asymmetric, orphan (see
 * docs/fleet.md) — and carries the plan of its engine run: which end is local, which is remote,
 * which peer to narrow to. Pure: it reads the views the fleet read once.
 */
import type { ClusterView, PeerView } from "../checks/types.ts";
import { peersOf } from "../diagnose/views.ts";
import { readProblem } from "../checks/engine.ts";
import { REMOTE_ID_LABEL, TENANT_NAMESPACE_LABEL } from "../liqo/names.ts";
import type { FleetEdge } from "../report/fleet.ts";

/** A cluster of the fleet as the graph sees it (the view's name is the member's name). */
export interface GraphNode {
  name: string;
  view: ClusterView | null;
  /** The contexts reaching it, for remediation commands. */
  context: string | null;
}

/** An edge and how to judge it. */
export interface PlannedEdge
  extends
    Pick<FleetEdge, "id" | "class" | "reason" | "consumer" | "provider" | "ends" | "direction" | "network"> {
  /** The engine run: local end, remote end (null: one-sided), the peer to narrow to. */
  run: { local: string; remote: string | null; peer: string; noRemoteReason?: string } | null;
  /** The fleet's own finding on this edge. */
  asymmetric?: { recorder: string; missing: string; role: string; leftovers?: string[] };
  orphan?: { cluster: string; peerId: string; objects: string[] };
}

type Role = "Consumer" | "Provider" | "ConsumerAndProvider" | "Unknown";

function roleOf(p: PeerView | undefined): Role {
  const r = String(p?.foreignCluster.status?.role ?? "Unknown");
  return r === "Consumer" || r === "Provider" || r === "ConsumerAndProvider" ? r : "Unknown";
}

/**
 * Consumer and provider of a pair from the roles each end records of the other (A's record of B:
 * `Provider` means B provides to A).
 */
function direction(a: string, b: string, aOfB: Role, bOfA: Role) {
  const aConsumes = aOfB === "Provider" || aOfB === "ConsumerAndProvider" || bOfA === "Consumer" ||
    bOfA === "ConsumerAndProvider";
  const bConsumes = aOfB === "Consumer" || aOfB === "ConsumerAndProvider" || bOfA === "Provider" ||
    bOfA === "ConsumerAndProvider";
  if (aConsumes && bConsumes) {
    const [x, y] = [a, b].sort();
    return { id: `${x}⇄${y}`, consumer: null, provider: null, direction: "both" as const };
  }
  if (aConsumes) return { id: `${a}→${b}`, consumer: a, provider: b, direction: "one-way" as const };
  if (bConsumes) return { id: `${b}→${a}`, consumer: b, provider: a, direction: "one-way" as const };
  const [x, y] = [a, b].sort();
  return { id: `${x}–${y}`, consumer: null, provider: null, direction: "unknown" as const };
}

/** Which end hosts the gateway server and which the client (by the remote-cluster-id label). */
function networkOf(a: GraphNode, bId: string, b: GraphNode | null, aId: string | null) {
  const has = (n: GraphNode | null, kind: "gatewayservers" | "gatewayclients", id: string | null) =>
    id !== null &&
    (n?.view?.inv.tryItems(kind) ?? []).some((g) => g.metadata.labels?.[REMOTE_ID_LABEL] === id);
  const bName = b?.name ?? bId;
  return {
    server: has(a, "gatewayservers", bId) ? a.name : has(b, "gatewayservers", aId) ? bName : null,
    client: has(a, "gatewayclients", bId) ? a.name : has(b, "gatewayclients", aId) ? bName : null,
  };
}

/** Every edge of the fleet, in a stable order (by id). */
export function planEdges(
  nodes: readonly GraphNode[],
  /** Contexts that could not be read: a peer outside the fleet may be one of them. */
  unreadable: readonly string[] = [],
): PlannedEdge[] {
  const byId = new Map<string, GraphNode>();
  for (const n of nodes) if (n.view?.clusterId) byId.set(n.view.clusterId, n);
  const edges = new Map<string, PlannedEdge>();
  const seenPairs = new Set<string>();
  for (const a of nodes) {
    const av = a.view;
    if (!av) continue;
    const peers = peersOf(av);
    for (const p of peers) {
      const b = byId.get(p.clusterId) ?? null;
      if (b === a) continue; // a ForeignCluster for itself: FC-01's business, not an edge
      const pairKey = [a.name, b?.name ?? p.clusterId].sort().join("\u0000");
      if (seenPairs.has(pairKey)) continue;
      seenPairs.add(pairKey);
      const bv = b?.view ?? null;
      const bPeers = bv ? peersOf(bv) : [];
      const back = av.clusterId ? bPeers.find((q) => q.clusterId === av.clusterId) : undefined;
      const d = direction(a.name, b?.name ?? p.clusterId, roleOf(p), roleOf(back));
      const local = d.consumer ?? a.name;
      const common = {
        id: d.id,
        consumer: d.consumer,
        provider: d.provider,
        ends: [a.name, b?.name ?? p.clusterId] as [string, string],
        direction: d.direction,
        network: networkOf(a, p.clusterId, b, av.clusterId),
      };
      if (!b || !bv) {
        const maybe = unreadable.length
          ? `; ${unreadable.length} selected context(s) could not be read and may reach it (${
            unreadable.join(", ")
          })`
          : "";
        const why = `peer ${p.clusterId} is in no selected context of the kubeconfig${maybe}`;
        edges.set(d.id, {
          ...common,
          class: "half-visible",
          reason: why,
          run: {
            local: a.name,
            remote: null,
            peer: p.clusterId,
            noRemoteReason: `the other end (${p.clusterId}) is not in the fleet: ${why}`,
          },
        });
        continue;
      }
      if (back && !back.unlocated) {
        edges.set(d.id, {
          ...common,
          class: "paired",
          reason: `both ends in the fleet, each with a ForeignCluster for the other`,
          run: {
            local,
            remote: local === a.name ? b.name : a.name,
            peer: local === a.name ? b.view!.clusterId! : av.clusterId!,
          },
        });
        continue;
      }
      // B was read: does it have no record of A, or could its ForeignClusters not be listed?
      const unsure = bv.inv.tryItems("foreignclusters") === null
        ? readProblem(bv, "foreignclusters") ?? "foreignclusters unreadable"
        : null;
      if (unsure) {
        edges.set(d.id, {
          ...common,
          class: "paired",
          reason: `both ends in the fleet; whether ${b.name} records ${a.name} is unknown: ${unsure}`,
          run: { local: a.name, remote: b.name, peer: p.clusterId },
        });
        continue;
      }
      edges.set(d.id, {
        ...common,
        class: "asymmetric",
        reason: `${a.name} records ${b.name} (ForeignCluster ${p.foreignCluster.metadata.name}, role ${
          roleOf(p)
        }) but ${b.name} has no ForeignCluster for ${av.clusterId ?? a.name}`,
        run: { local: a.name, remote: b.name, peer: p.clusterId },
        asymmetric: { recorder: a.name, missing: b.name, role: roleOf(p) },
      });
    }
    for (const o of orphansOf(av, peers)) {
      const b = byId.get(o.peerId);
      const id = `${a.name}⇢${b?.name ?? o.peerId}`;
      edges.set(id, {
        id,
        class: "orphan",
        reason:
          `${o.objects.length} object(s) on ${a.name} for cluster ID ${o.peerId}, which no ForeignCluster of ${a.name} references`,
        consumer: null,
        provider: null,
        ends: [a.name, b?.name ?? o.peerId],
        direction: "unknown",
        network: { server: null, client: null },
        run: null,
        orphan: { cluster: a.name, peerId: o.peerId, objects: o.objects },
      });
    }
  }
  // Objects the forgetting end still keeps for the recorder are that asymmetry's evidence, not an
  // orphan edge of their own.
  for (const [id, e] of edges) {
    if (!e.orphan) continue;
    const asym = [...edges.values()].find((x) =>
      x.asymmetric?.missing === e.orphan!.cluster &&
      byId.get(e.orphan!.peerId)?.name === x.asymmetric.recorder
    );
    if (!asym) continue;
    asym.asymmetric!.leftovers = e.orphan.objects;
    edges.delete(id);
  }
  return [...edges.values()].sort((x, y) => x.id.localeCompare(y.id));
}

/** Kinds whose `liqo.io/remote-cluster-id` label names a peer, as the orphan search reads them. */
const ORPHAN_KINDS = [
  ["gatewayservers", "GatewayServer"],
  ["gatewayclients", "GatewayClient"],
  ["publickeies", "PublicKey"],
  ["configurations", "Configuration"],
] as const;

/**
 * Tenant namespaces, gateways, keys and network configurations labelled for a cluster ID that no
 * ForeignCluster of the cluster references. Nothing is called orphaned when the ForeignClusters
 * could not be listed (the peers were then found by these very labels).
 */
export function orphansOf(
  view: ClusterView,
  peers: readonly PeerView[] = peersOf(view),
): { peerId: string; objects: string[] }[] {
  if (view.inv.tryItems("foreignclusters") === null) return [];
  const known = new Set(peers.map((p) => p.clusterId));
  const found = new Map<string, string[]>();
  const add = (id: string | undefined, what: string) => {
    if (!id || known.has(id) || id === view.clusterId) return;
    found.set(id, [...(found.get(id) ?? []), what]);
  };
  for (const ns of view.inv.tryItems("namespaces") ?? []) {
    if (ns.metadata.labels?.[TENANT_NAMESPACE_LABEL] === "true") {
      add(ns.metadata.labels?.[REMOTE_ID_LABEL], `Namespace ${ns.metadata.name}`);
    }
  }
  for (const [kind, label] of ORPHAN_KINDS) {
    for (const o of view.inv.tryItems(kind) ?? []) {
      add(o.metadata.labels?.[REMOTE_ID_LABEL], `${label} ${o.metadata.namespace}/${o.metadata.name}`);
    }
  }
  return [...found].sort(([a], [b]) => a.localeCompare(b)).map(([peerId, objects]) => ({ peerId, objects }));
}
