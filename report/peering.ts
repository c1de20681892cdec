/**
 * The peering resource dump: ForeignClusters (role, age, modules and how long each condition has
 * held), ResourceSlices, Identities, Tenants, NamespaceOffloadings and virtual nodes, as tables.
 */
import type { ClusterView, PeerView } from "../checks/types.ts";
import {
  ageMs,
  conditionOf,
  formatAge,
  isVirtualNode,
  type Named,
  REMOTE_ID_LABEL,
} from "../liqo/lookups.ts";
import type { ResourceList } from "../liqo/views/meta.ts";
import type { KindId } from "../kube/kinds.ts";
import type { ReadScope } from "../liqo/scopes.ts";
import type { DumpTable, ForeignClusterRow, PeeringDump } from "./model.ts";

const MODULES = ["networking", "authentication", "offloading"] as const;

/** What the dump reads (besides the peers' ForeignClusters), declared like a check's reads. */
export const PEERING_DUMP_READS: readonly KindId[] = [
  "foreignclusters",
  "resourceslices",
  "identities",
  "tenants",
  "namespaceoffloadings",
  "virtualnodes",
  "nodes",
  "pods",
];

/** Where the dump reads pods: only those on virtual nodes (offloaded pods per virtual node). */
export const PEERING_DUMP_READS_IN: { readonly [K in KindId]?: readonly ReadScope[] } = {
  pods: ["virtual-nodes"],
};

/** Builds the dump from the clusters read; null when no peering exists. */
export function buildPeeringDump(
  views: readonly ClusterView[],
  peers: readonly (readonly PeerView[])[],
): PeeringDump | null {
  if (peers.every((p) => p.length === 0)) return null;
  const foreignClusters: ForeignClusterRow[] = [];
  const slices: string[][] = [], identities: string[][] = [], tenants: string[][] = [];
  const offloadings: string[][] = [], vnodes: string[][] = [];
  views.forEach((v, i) => {
    for (const p of peers[i] ?? []) foreignClusters.push(fcRow(v, p));
    const list = <K extends KindId>(k: K) => v.inv.tryItems(k) ?? [];
    for (const rs of list("resourceslices")) {
      slices.push([
        v.name,
        rs.metadata.name,
        peerOf(rs),
        resources(rs.spec?.resources),
        resources(rs.status?.resources),
        conditionOf(rs, "Authentication")?.status ?? "-",
        conditionOf(rs, "Resources")?.status ?? "-",
      ]);
    }
    for (const id of list("identities")) {
      identities.push([
        v.name,
        `${id.metadata.namespace}/${id.metadata.name}`,
        String(id.spec?.type ?? "-"),
        peerOf(id),
        String(id.spec?.authParams?.proxyURL ?? id.spec?.authParams?.apiServer ?? "-"),
        String(id.status?.kubeconfigSecretRef?.name ?? "-"),
      ]);
    }
    for (const t of list("tenants")) {
      tenants.push([
        v.name,
        `${t.metadata.namespace}/${t.metadata.name}`,
        peerOf(t),
        String(t.spec?.tenantCondition ?? "Active"),
        String(t.spec?.authzPolicy ?? "KeysExchange"),
        String(t.status?.tenantNamespace ?? "-"),
      ]);
    }
    for (const o of list("namespaceoffloadings")) {
      offloadings.push([
        v.name,
        String(o.metadata.namespace),
        String(o.status?.offloadingPhase ?? "-"),
        String(o.spec?.namespaceMappingStrategy ?? "DefaultName"),
        String(o.spec?.podOffloadingStrategy ?? "LocalAndRemote"),
        String(o.status?.remoteNamespaceName ?? "-"),
      ]);
    }
    const pods = list("pods");
    for (const n of list("nodes").filter(isVirtualNode)) {
      const onNode = pods.filter((p) => p.spec?.nodeName === n.metadata.name);
      vnodes.push([
        v.name,
        n.metadata.name,
        peerOf(n),
        String(conditionOf(n, "Ready")?.status ?? "-"),
        String(n.status?.capacity?.cpu ?? "-"),
        String(n.status?.capacity?.memory ?? "-"),
        String(n.status?.capacity?.pods ?? "-"),
        `${onNode.length} / ${onNode.filter((p) => p.status?.phase === "Running").length}`,
        formatAge(ageMs(v.now, n.metadata.creationTimestamp)),
      ]);
    }
  });
  const tables: DumpTable[] = [
    {
      title: "ResourceSlices",
      columns: ["Cluster", "Name", "Peer", "Requested", "Accepted", "Authentication", "Resources"],
      rows: slices,
    },
    {
      title: "Identities",
      columns: ["Cluster", "Identity", "Type", "Peer", "API server", "Kubeconfig Secret"],
      rows: identities,
    },
    {
      title: "Tenants",
      columns: ["Cluster", "Tenant", "Peer", "Condition", "Policy", "Tenant namespace"],
      rows: tenants,
    },
    {
      title: "NamespaceOffloadings",
      columns: ["Cluster", "Namespace", "Phase", "Mapping", "Pod offloading", "Remote namespace"],
      rows: offloadings,
    },
    {
      title: "Virtual nodes",
      columns: [
        "Cluster",
        "Node",
        "Peer",
        "Ready",
        "CPU",
        "Memory",
        "Pods cap.",
        "Pods scheduled / running",
        "Age",
      ],
      rows: vnodes,
    },
  ];
  return { foreignClusters, tables };
}

function fcRow(v: ClusterView, p: PeerView): ForeignClusterRow {
  const fc = p.foreignCluster;
  return {
    cluster: v.name,
    name: fc.metadata.name,
    role: String(fc.status?.role ?? "Unknown"),
    age: formatAge(ageMs(v.now, fc.metadata.creationTimestamp)),
    modules: MODULES.map((m) => {
      const mod = fc.status?.modules?.[m];
      const conds = mod?.conditions ?? [];
      return {
        name: m,
        enabled: mod?.enabled === true,
        conditions: conds.map((c) => {
          const held = ageMs(v.now, c?.lastTransitionTime);
          return {
            type: String(c?.type ?? "?"),
            status: String(c?.status ?? "?"),
            since: held === null ? null : `${formatAge(held)} ago`,
          };
        }),
      };
    }),
  };
}

function peerOf(o: Named): string {
  return o.metadata.labels?.[REMOTE_ID_LABEL] ?? "-";
}

function resources(r: ResourceList | null | undefined): string {
  if (!r || typeof r !== "object") return "-";
  const parts = ["cpu", "memory", "pods"].filter((k) => r[k] !== undefined).map((k) => `${k}=${r[k]}`);
  return parts.length ? parts.join(" ") : "-";
}
