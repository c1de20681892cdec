/**
 * One diagnosis run: read each cluster once (in parallel), find the peers, pair the two ends of
 * each peering in dual mode, start the WireGuard sampling early, run the engine, and assemble the
 * report document.
 */
import { Inventory } from "../kube/inventory.ts";
import type { KindId } from "../kube/kinds.ts";
import {
  activeGatewayPod,
  clusterIdOf,
  gatewayOf,
  liqoNamespaceOf,
  liqoVersionOf,
  tenantNamespaceOf,
} from "../liqo/lookups.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { ProbeHub } from "../probes/hub.ts";
import { type ClusterInfo, type PeerInfo, type Report, SCHEMA_VERSION, summarize } from "../report/model.ts";
import { CATALOG } from "../checks/catalog.ts";
import { type EngineInput, type PeerPair, runEngine } from "../checks/engine.ts";
import type { CheckDef, CheckResult, ClusterView, PeerView, RunOptions } from "../checks/types.ts";
import { ToolError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { buildPeeringDump } from "../report/peering.ts";
import { buildCheatSheet } from "../report/cheatsheet.ts";

/** What a run needs. */
export interface DiagnosisRequest {
  local: ClusterSource;
  /** Dual mode: the other cluster, or the reason it could not be reached. */
  remote?: { source: ClusterSource | null; error?: string } | null;
  /** Narrow to these peers (cluster IDs or ForeignCluster names). */
  peers?: readonly string[];
  options: RunOptions;
  /** Builds the probe hub once the sources are known. */
  probes: (sources: Map<string, ClusterSource>) => ProbeHub;
  catalog?: readonly CheckDef[];
  onResult?: (r: CheckResult) => void;
  onStart?: EngineInput["onStart"];
  signal?: AbortSignal;
}

/** Kinds always read: identity, peers, and Liqo's namespace. */
const ALWAYS: readonly KindId[] = ["configmaps", "deployments", "foreignclusters", "namespaces", "pods"];

/** The inventory kinds a catalog needs. */
export function kindsFor(catalog: readonly CheckDef[]): Set<KindId> {
  const kinds = new Set<KindId>(ALWAYS);
  for (const c of catalog) for (const k of [...c.reads, ...(c.optionalReads ?? [])]) kinds.add(k);
  // The peering dump and the cheat sheet read these too.
  for (
    const k of ["resourceslices", "identities", "tenants", "namespaceoffloadings", "virtualnodes", "nodes"]
  ) {
    kinds.add(k as KindId);
  }
  return kinds;
}

/** Reads one cluster into a ClusterView. */
export async function loadView(source: ClusterSource, kinds: Set<KindId>): Promise<ClusterView> {
  const inv = await Inventory.load(source, kinds, true);
  const clusterId = clusterIdOf(inv);
  return {
    name: clusterId ?? source.endpoint.context,
    clusterId,
    liqoNamespace: liqoNamespaceOf(inv),
    context: source.endpoint.context,
    server: source.endpoint.server,
    inv,
    now: source.now(),
    isSnapshot: source.isSnapshot,
  };
}

/** Peers of a cluster (ForeignClusters), optionally narrowed. */
export function peersOf(view: ClusterView, only?: readonly string[]): PeerView[] {
  const fcs = view.inv.tryItems("foreignclusters") ?? [];
  const all = fcs.map((fc) => ({
    clusterId: String(fc.spec?.clusterID ?? fc.metadata.name),
    foreignCluster: fc,
    tenantNamespace: tenantNamespaceOf(view.inv, fc),
  }));
  if (!only || only.length === 0) return all;
  return all.filter((p) => only.includes(p.clusterId) || only.includes(p.foreignCluster.metadata.name));
}

/** Runs every check and returns the report document. */
export async function runDiagnosis(req: DiagnosisRequest): Promise<Report> {
  const started = performance.now();
  const catalog = req.catalog ?? CATALOG;
  const kinds = kindsFor(catalog);
  const remoteSource = req.remote?.source ?? null;
  const [local, loadedRemote] = await Promise.all([
    loadView(req.local, kinds),
    remoteSource ? loadView(remoteSource, kinds) : Promise.resolve(null),
  ]);
  // Two kubeconfigs for one cluster: judge it once; the dual checks say why they cannot run.
  const sameCluster = loadedRemote !== null && local.clusterId !== null &&
    local.clusterId === loadedRemote.clusterId;
  const remote = sameCluster ? null : loadedRemote;
  const localPeers = peersOf(local, req.peers);
  if (req.peers?.length) {
    const known = peersOf(local).map((p) => p.clusterId);
    const missing = req.peers.filter((p) =>
      !localPeers.some((l) => l.clusterId === p || l.foreignCluster.metadata.name === p)
    );
    if (missing.length) {
      throw new ToolError(
        `no peer ${missing.join(", ")} on ${local.name} (known peers: ${
          known.length ? known.join(", ") : "none"
        })`,
      );
    }
  }
  const pairing = loadedRemote ? pairPeers(local, localPeers, loadedRemote) : null;
  const remotePeers = remote && pairing ? pairing.remotePeers : [];

  const sources = new Map<string, ClusterSource>([[local.name, req.local]]);
  if (remote && remoteSource) sources.set(remote.name, remoteSource);
  const probes = req.probes(sources);
  warmWireguard(probes, local, localPeers);
  if (remote) warmWireguard(probes, remote, remotePeers);

  const remoteUnavailable = req.remote && !remote
    ? req.remote.error ?? "remote cluster unavailable"
    : undefined;
  const engine = await runEngine({
    catalog,
    local: { view: local, peers: localPeers },
    remote: req.remote
      ? { view: remote, peers: remotePeers, unavailable: pairing?.problem ?? remoteUnavailable }
      : null,
    pairs: pairing?.pairs,
    probes,
    options: req.options,
    onResult: req.onResult,
    onStart: req.onStart,
    signal: req.signal,
  });

  const views = remote ? [local, remote] : [local];
  const clusters: ClusterInfo[] = views.map((v, i) => ({
    name: v.name,
    clusterId: v.clusterId,
    context: v.context,
    server: v.server,
    role: i === 0 ? "local" : "remote",
    liqoNamespace: v.liqoNamespace,
    liqoVersion: liqoVersionOf(v.inv),
  }));
  if (req.remote && !remote && !sameCluster) {
    clusters.push({
      name: "remote",
      clusterId: null,
      context: "",
      server: "",
      role: "remote",
      liqoNamespace: null,
      liqoVersion: null,
    });
  }
  const peers: PeerInfo[] = [
    ...localPeers.map((p) => peerInfo(local, p)),
    ...remotePeers.map((p) => peerInfo(remote!, p)),
  ];
  const snapshot = req.local.isSnapshot;
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: "flyingfish", version: VERSION },
    generatedAt: new Date().toISOString(),
    mode: snapshot ? "snapshot" : "live",
    snapshotTakenAt: snapshot ? local.now.toISOString() : null,
    clusters,
    peers,
    results: engine.results,
    diagnosis: engine.diagnosis,
    summary: summarize(engine.results),
    exitCode: engine.exitCode,
    durationMs: Math.round(performance.now() - started),
    peering: buildPeeringDump(views, [localPeers, remotePeers]),
    cheatSheet: buildCheatSheet(views, [localPeers, remotePeers]),
  };
}

function peerInfo(view: ClusterView, p: PeerView): PeerInfo {
  return {
    cluster: view.name,
    clusterId: p.clusterId,
    role: String(p.foreignCluster.status?.role ?? "Unknown"),
    tenantNamespace: p.tenantNamespace,
  };
}

/** Pairs each local peer with the remote cluster's ForeignCluster for the local cluster. */
export function pairPeers(
  local: ClusterView,
  localPeers: readonly PeerView[],
  remote: ClusterView,
): { pairs: Map<string, PeerPair>; remotePeers: PeerView[]; problem?: string } {
  const pairs = new Map<string, PeerPair>();
  if (local.clusterId && local.clusterId === remote.clusterId) {
    return {
      pairs,
      remotePeers: [],
      problem: `--kubeconfig and --remote-kubeconfig point at the same cluster (${local.clusterId})`,
    };
  }
  const remoteAll = peersOf(remote);
  const remoteForLocal = remoteAll.find((p) => local.clusterId !== null && p.clusterId === local.clusterId) ??
    null;
  const localForRemote = localPeers.find((p) =>
    remote.clusterId !== null && p.clusterId === remote.clusterId
  );
  for (const p of localPeers) {
    pairs.set(p.clusterId, { local: p, remote: p === localForRemote ? remoteForLocal : null });
  }
  if (!localForRemote || !remoteForLocal) {
    const why = !localForRemote
      ? `${local.name} has no ForeignCluster for ${remote.clusterId ?? remote.name}`
      : `${remote.name} has no ForeignCluster for ${local.clusterId ?? local.name}`;
    return {
      pairs,
      remotePeers: remoteAll,
      problem: `the two clusters are not peered with each other: ${why}`,
    };
  }
  return { pairs, remotePeers: remoteAll };
}

/** Starts `wg show` sampling on every active gateway pod now, so it overlaps the other checks. */
function warmWireguard(probes: ProbeHub, view: ClusterView, peers: readonly PeerView[]): void {
  if (view.inv.tryItems("pods") === null) return;
  for (const p of peers) {
    const gw = gatewayOf(view.inv, p.clusterId);
    const pod = gw ? activeGatewayPod(view.inv, gw) : null;
    if (pod) probes.wireguard(view.name, pod.metadata.namespace!, pod.metadata.name).catch(() => {});
  }
}
