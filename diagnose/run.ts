/**
 * One diagnosis run: read each cluster once (in parallel), find the peers, pair the two ends of
 * each peering in dual mode, start the WireGuard sampling early, run the engine, and assemble the
 * report document.
 */
import { liqoVersionOf } from "../liqo/lookups.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { ProbeHub } from "../probes/hub.ts";
import { type ClusterInfo, type PeerInfo, type Report, SCHEMA_VERSION, summarize } from "../report/model.ts";
import { CATALOG } from "../checks/catalog.ts";
import { type EngineInput, runEngine } from "../checks/engine.ts";
import type { CheckDef, CheckResult, ClusterView, PeerView, RunOptions } from "../checks/types.ts";
import { ToolError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { buildPeeringDump, PEERING_DUMP_READS } from "../report/peering.ts";
import { buildCheatSheet, CHEAT_SHEET_READS } from "../report/cheatsheet.ts";
import { buildSection } from "../report/sections.ts";
import { kindsFor, loadView, peersOf } from "./views.ts";
import { pairPeers } from "./pairing.ts";
import { warmWireguard } from "./warmup.ts";

export { kindsFor, loadView, peersOf } from "./views.ts";
export { pairPeers } from "./pairing.ts";

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
  const both = [localPeers, remotePeers];
  const peering = buildSection(
    "peering",
    PEERING_DUMP_READS,
    views,
    () => buildPeeringDump(views, both),
    null,
  );
  const cheatSheet = buildSection(
    "cheat-sheet",
    CHEAT_SHEET_READS,
    views,
    () => buildCheatSheet(views, both),
    [],
  );
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
    peering: peering.value,
    cheatSheet: cheatSheet.value,
    incomplete: [...peering.gaps, ...cheatSheet.gaps],
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
