/**
 * One diagnosis run: read each cluster once (in parallel), find the peers, pair the two ends of
 * each peering in dual mode, start the WireGuard sampling early, run the engine, and assemble the
 * report document.
 */
import { liqoInstallationUnreadable, liqoVersionOf } from "../liqo/lookups.ts";
import type { ClusterSource, ServerVersion } from "../kube/source.ts";
import type { ProbeHub } from "../probes/hub.ts";
import { type ClusterInfo, type PeerInfo, type Report, SCHEMA_VERSION, summarize } from "../report/model.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import { type EngineInput, factsOf, runEngine } from "../checks/engine.ts";
import { buildPreflight } from "../report/preflight.ts";
import type { CheckDef, CheckResult, ClusterView, PeerView, RunOptions } from "../checks/types.ts";
import { PermissionError, ToolError } from "../errors.ts";
import type { KindId } from "../kube/kinds.ts";
import type { ReadScope } from "../liqo/scopes.ts";
import { VERSION } from "../version.ts";
import { heapBound } from "../heap.ts";
import { buildPeeringDump, PEERING_DUMP_READS } from "../report/peering.ts";
import { buildCheatSheet, CHEAT_SHEET_READS } from "../report/cheatsheet.ts";
import { buildSection } from "../report/sections.ts";
import { assembleReport } from "../report/assemble.ts";
import type { Invocation } from "../report/invocation.ts";
import type { ActiveRunRecord } from "../active/mod.ts";
import type { ActivePhase } from "../checks/types.ts";
import { peersOf, planFor, ViewLoader, viewOf } from "./views.ts";
import { pairPeers } from "./pairing.ts";
import { warmWireguard } from "./warmup.ts";

export { kindsFor, loadView, peersOf, planFor } from "./views.ts";
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
  /** The checks to run (default: the passive ones); active checks run only with {@link active}. */
  catalog?: readonly CheckDef[];
  onResult?: (r: CheckResult) => void;
  onStart?: EngineInput["onStart"];
  /** How the user ran FlyingFish: recorded in the report; remediation commands name its clusters. */
  invocation?: Invocation;
  /** A line for the user while the run goes on (e.g. the remote cluster is left out, and why). */
  onNotice?: (line: string) => void;
  signal?: AbortSignal;
  /**
   * The active phase of an active run (diagnose/active.ts opens it): the catalog's active checks read
   * their outcomes from it, and the report's `active` block is its record.
   */
  active?: ActivePhase & { record?(): ActiveRunRecord | null };
  /**
   * `flyingfish preflight`: the two clusters are not (yet) a peering — the remote is kept even when it
   * is the local cluster (PF-ID says so), nothing is paired, and the report gets the verdict block.
   */
  preflight?: boolean;
}

/**
 * What the WireGuard warm-up waits for: the gateways, their pods and the peers — all in the first
 * wave, needing nothing read before them. These reads are sent first.
 */
export const WARMUP_READS: readonly (readonly [KindId, ReadScope])[] = [
  ["gatewayservers", "cluster"],
  ["gatewayclients", "cluster"],
  ["foreignclusters", "cluster"],
  ["pods", "gateways"],
];

/**
 * Runs every check and returns the report document. The first wave of requests carries /version,
 * discovery, every list read everywhere and those that locate the scoped lists; the scoped lists
 * follow as soon as their location is known; the first `wg show` sample starts as soon as the
 * gateways and their pods are in, so the sampling interval overlaps the remaining lists and checks.
 */
export async function runDiagnosis(req: DiagnosisRequest): Promise<Report> {
  const started = performance.now();
  const catalog = req.catalog ?? PASSIVE_CHECKS;
  const plan = planFor(req.active ? catalog : catalog.filter((c) => !c.active));
  const remoteSource = req.remote?.source ?? null;
  const localLoad = new ViewLoader(req.local, plan, WARMUP_READS);
  const localVersion = req.local.probeReachable?.() ?? Promise.resolve(null);
  // The remote's /version decides whether the remote takes part: unreachable, it is left out (and
  // its lists' failures with it) and the dual checks say why.
  const remoteVersion = remoteSource?.probeReachable?.().then(
    (v) => ({ ok: true as const, version: v }),
    (err: unknown) => {
      if (err instanceof PermissionError || !(err instanceof ToolError)) throw err;
      return { ok: false as const, error: `remote cluster unavailable: ${err.message}` };
    },
  ) ?? Promise.resolve({ ok: true as const, version: null });
  const remoteLoad = remoteSource ? new ViewLoader(remoteSource, plan, WARMUP_READS) : null;
  // A failed /version (unreachable, rejected credentials) ends the run before any list is judged.
  const [localServer, reachedRemote] = await Promise.all([localVersion, remoteVersion]);
  let remoteError = reachedRemote.ok ? req.remote?.error : reachedRemote.error;
  const leftOut = (error: string) => {
    if (req.remote?.source) req.onNotice?.(`${error} — checking ${req.local.endpoint.context} alone`);
  };
  if (remoteError) leftOut(remoteError);
  const liveRemote = reachedRemote.ok ? remoteLoad : null;

  // Warm-up: the first `wg show` of every gateway starts as soon as the gateways and their pods are
  // read — before the cluster's name is known, so under a provisional one: the hub keys samples by
  // source, and the checks later ask under the final name for the same sample.
  const sources = new Map<string, ClusterSource>();
  const probes = req.probes(sources);
  const warm = async (load: ViewLoader, source: ClusterSource, alias: string, peers?: readonly string[]) => {
    const early: ClusterView = { ...viewOf(source, await load.ready(WARMUP_READS)), name: alias };
    sources.set(alias, source);
    warmWireguard(probes, early, peersOf(early, peers));
  };
  // A warm-up that cannot start (an unreadable kind) leaves the sampling to the checks.
  const warming = Promise.all([
    warm(localLoad, req.local, "\u0000local", req.peers),
    liveRemote ? warm(liveRemote, remoteSource!, "\u0000remote") : null,
  ]).catch(() => {});

  // The remote's reads can still end in a run-ending error after its /version answered (credentials
  // rejected on the lists: revoked, or a token without the scope): left out like an unreachable one.
  const remoteView = liveRemote?.view().catch((err: unknown) => {
    if (err instanceof PermissionError || !(err instanceof ToolError)) throw err;
    remoteError = `remote cluster unavailable: ${err.message}`;
    leftOut(remoteError);
    return null;
  }) ?? null;
  const [localLoaded, remoteLoaded] = await Promise.all([localLoad.view(), remoteView]);
  // The API servers' versions, for the checks that judge them (preflight's PF-VER).
  const local: ClusterView = { ...localLoaded, serverVersion: localServer?.gitVersion ?? null };
  const loadedRemote: ClusterView | null = remoteLoaded
    ? { ...remoteLoaded, serverVersion: reachedRemote.ok ? reachedRemote.version?.gitVersion ?? null : null }
    : null;
  await warming;
  return await judgeViews({
    ...req,
    started,
    catalog,
    local: { source: req.local, view: local, serverVersion: localServer },
    remote: req.remote
      ? {
        source: remoteSource,
        view: loadedRemote,
        serverVersion: reachedRemote.ok ? reachedRemote.version : null,
        error: remoteError,
      }
      : null,
    probes,
    sources,
  });
}

/** One loaded cluster: its source, its view, what its /version said. */
export interface LoadedCluster {
  source: ClusterSource;
  view: ClusterView;
  serverVersion: ServerVersion | null;
}

/** What {@link judgeViews} needs: the clusters already read, the run's probe hub and options. */
export interface JudgeRequest extends
  Pick<
    DiagnosisRequest,
    "peers" | "options" | "onResult" | "onStart" | "invocation" | "signal" | "active" | "preflight"
  > {
  /** When the run started (performance.now()), for the report's duration. */
  started: number;
  catalog: readonly CheckDef[];
  local: LoadedCluster;
  /** Dual mode: the other cluster as read (view null: left out, and `error` says why). */
  remote: {
    source: ClusterSource | null;
    view: ClusterView | null;
    serverVersion: ServerVersion | null;
    error?: string;
  } | null;
  /** Single mode: why there is no other end (fleet mode's half-visible edges; see EngineInput). */
  noRemoteReason?: string;
  /** Dual mode: judge only these peers of the remote end (fleet mode: the local end alone). */
  remotePeers?: readonly string[];
  probes: ProbeHub;
  /** The probe hub's sources by cluster name: the judged clusters are added. */
  sources: Map<string, ClusterSource>;
}

/**
 * Judges clusters already read: pairs the two ends in dual mode, runs the engine and assembles the
 * report. Reads nothing: fleet mode (multicluster/) calls it once per edge over views read once.
 */
export async function judgeViews(req: JudgeRequest): Promise<Report> {
  const { started, catalog, probes, sources } = req;
  const local = req.local.view;
  const loadedRemote = req.remote?.view ?? null;
  const remoteSource = req.remote?.source ?? null;
  const remoteError = req.remote?.error;
  const localServer = req.local.serverVersion;
  // Two kubeconfigs for one cluster: judge it once; the dual checks say why they cannot run.
  const sameCluster = !req.preflight && loadedRemote !== null && local.clusterId !== null &&
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
  const pairing = loadedRemote && !req.preflight ? pairPeers(local, localPeers, loadedRemote) : null;
  const remotePeers = remote && pairing
    ? pairing.remotePeers.filter((p) => !req.remotePeers || req.remotePeers.includes(p.clusterId))
    : [];
  sources.set(local.name, req.local.source);
  if (remote && remoteSource) sources.set(remote.name, remoteSource);

  const remoteUnavailable = req.remote && !remote ? remoteError ?? "remote cluster unavailable" : undefined;
  const engine = await runEngine({
    catalog,
    local: { view: local, peers: localPeers },
    remote: req.remote
      ? { view: remote, peers: remotePeers, unavailable: pairing?.problem ?? remoteUnavailable }
      : null,
    pairs: pairing?.pairs,
    ...(req.noRemoteReason ? { noRemoteReason: req.noRemoteReason } : {}),
    probes,
    options: req.options,
    onResult: req.onResult,
    onStart: req.onStart,
    signal: req.signal,
    active: req.active ?? null,
  });
  const { results, diagnosis, exitCode } = engine;

  const views = remote ? [local, remote] : [local];
  const clusters: ClusterInfo[] = views.map((v, i) => ({
    name: v.name,
    clusterId: v.clusterId,
    context: v.context,
    server: v.server,
    role: i === 0 ? "local" : "remote",
    liqoNamespace: v.liqoNamespace,
    liqoVersion: liqoVersionOf(v.inv),
    serverVersion: (i === 0 ? localServer : req.remote?.serverVersion ?? null)?.gitVersion ?? null,
    ...unreadableInstallation(v),
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
  // Before a peering there is nothing to dump and no tunnel to test by hand: a preflight report
  // carries its verdict block instead (peering null, no cheat sheet, no gap to report).
  const peering = req.preflight
    ? { value: null, gaps: [] }
    : buildSection("peering", PEERING_DUMP_READS, views, () => buildPeeringDump(views, both), null);
  const cheatSheet = req.preflight
    ? { value: [], gaps: [] }
    : buildSection("cheat-sheet", CHEAT_SHEET_READS, views, () => buildCheatSheet(views, both), []);
  const snapshot = req.local.source.isSnapshot;
  // Between phases, what the engine and the sections let go is collected before the report is built.
  heapBound().check();
  const report = assembleReport({
    schemaVersion: SCHEMA_VERSION,
    tool: { name: "flyingfish", version: VERSION },
    generatedAt: new Date().toISOString(),
    mode: snapshot ? "snapshot" : "live",
    snapshotTakenAt: snapshot ? local.now.toISOString() : null,
    clusters,
    peers,
    results,
    diagnosis,
    summary: summarize(results),
    exitCode,
    durationMs: Math.round(performance.now() - started),
    peering: peering.value,
    cheatSheet: cheatSheet.value,
    incomplete: [...peering.gaps, ...cheatSheet.gaps],
    ...(req.active?.record ? { active: req.active.record() } : {}),
  }, req.invocation ?? null);
  heapBound().check();
  if (!req.preflight) return report;
  const named = (v: ClusterView, file: string | null) => ({
    name: v.name,
    kubeconfig: file,
    context: v.context,
    liqoNamespace: v.liqoNamespace,
  });
  return {
    ...report,
    preflight: buildPreflight({
      results,
      factsOf,
      intent: req.options.preflight,
      consumer: named(local, req.invocation?.kubeconfig.local ?? null),
      provider: remote ? named(remote, req.invocation?.kubeconfig.remote ?? null) : {
        name: "the provider",
        kubeconfig: req.invocation?.kubeconfig.remote ?? null,
        context: "",
        liqoNamespace: null,
      },
      probed: req.active !== undefined,
    }),
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

/** `liqoUnreadable` of a cluster whose Liqo installation could not be looked for (else nothing). */
function unreadableInstallation(v: ClusterView): Pick<ClusterInfo, "liqoUnreadable"> {
  const why = liqoInstallationUnreadable(v.inv);
  return why === null ? {} : { liqoUnreadable: why };
}
