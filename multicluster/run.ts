/**
 * One fleet run: list and select the contexts, group them by endpoint, read each cluster once
 * (./load.ts), tell the clusters apart by identity (./identity.ts), build and classify the edges
 * (./graph.ts), and judge every edge with the one engine over the views already read
 * (diagnose/run.ts judgeViews: a paired edge exactly as `--remote-kubeconfig` judges it). One probe
 * hub serves the whole fleet, so each gateway's `wg show` is sampled once whatever the number of
 * edges it is on. Produces the fleet report document (report/fleet.ts).
 */
import { type ContextEntry, listContexts } from "../kube/kubeconfig.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { ProbeHub } from "../probes/hub.ts";
import type { CheckDef, ClusterView, RunOptions } from "../checks/types.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import { liqoVersionOf } from "../liqo/lookups.ts";
import { REMOTE_ID_LABEL } from "../liqo/names.ts";
import { planFor } from "../diagnose/views.ts";
import { judgeViews, type LoadedCluster } from "../diagnose/run.ts";
import type { Report } from "../report/model.ts";
import type { Invocation } from "../report/invocation.ts";
import {
  EDGE_CLASSES,
  EDGE_VERDICTS,
  type EdgeFinding,
  FLEET_SCHEMA_VERSION,
  type FleetCluster,
  type FleetEdge,
  type FleetReport,
  verdictOf,
  worseExit,
} from "../report/fleet.ts";
import { VERSION } from "../version.ts";
import { type ContextSelection, selectContexts } from "./select.ts";
import { groupByEndpoint, readFleet } from "./load.ts";
import { type FleetMember, identify } from "./identity.ts";
import { type GraphNode, planEdges, type PlannedEdge } from "./graph.ts";
import type { FleetClock } from "./timings.ts";

/** The documented, gentle default of `--parallel`: clusters read at once. */
export const DEFAULT_PARALLEL = 4;
/** The default of `--cluster-timeout`: how long one cluster may take to be read. */
export const DEFAULT_CLUSTER_TIMEOUT = "60s";

/** What a fleet run needs. */
export interface FleetRequest {
  /** The kubeconfig file(s) (repeated `--kubeconfig`; none: $KUBECONFIG, ~/.kube/config). */
  kubeconfigs: readonly string[];
  /** kubeconfig text instead of files (demo, tests). */
  kubeconfigYaml?: string;
  selection: ContextSelection;
  /** The contexts to choose from, when they do not come from a kubeconfig (a fleet bundle's clusters). */
  contexts?: readonly ContextEntry[];
  parallel: number;
  clusterTimeoutMs: number;
  clusterTimeoutLabel: string;
  /** Opens a context's live source (nothing is sent until the first request). */
  open: (context: string) => Promise<ClusterSource>;
  options: RunOptions;
  /** The checks to run (default: the passive ones). */
  catalog?: readonly CheckDef[];
  /** Builds the one probe hub of the fleet. */
  probes: (sources: Map<string, ClusterSource>) => ProbeHub;
  invocation?: Invocation;
  /** A line for the user while the run goes on. */
  onNotice?: (line: string) => void;
  /**
   * The sources read stay open when the run ends (the caller owns them: fleet rounds keep their
   * watched sources); a source that failed its read is closed all the same.
   */
  keepOpen?: boolean;
  /** Marks where the wall time goes (multicluster/timings.ts). */
  clock?: FleetClock;
}

/** The contexts the selection names, with what identifies their clusters. */
export async function selectedContexts(
  req: Pick<FleetRequest, "kubeconfigs" | "kubeconfigYaml" | "selection" | "contexts">,
): Promise<ContextEntry[]> {
  const { contexts } = req.contexts ? { contexts: [...req.contexts] } : await listContexts({
    ...(req.kubeconfigYaml !== undefined ? { kubeconfigYaml: req.kubeconfigYaml } : {}),
    ...(req.kubeconfigs.length ? { kubeconfigs: req.kubeconfigs } : {}),
  });
  const names = selectContexts(contexts.map((c) => c.name), req.selection);
  return contexts.filter((c) => names.includes(c.name));
}

/** Runs the fleet and returns its report (closing every source it opened). */
export async function runFleet(req: FleetRequest): Promise<FleetReport> {
  const started = performance.now();
  const clock = req.clock;
  clock?.mark("run-start");
  const contexts = await selectedContexts(req);
  clock?.mark("contexts");
  const catalog = req.catalog ?? PASSIVE_CHECKS;
  const passive = catalog.filter((c) => !c.active);
  const sources = new Map<string, ClusterSource>();
  const hub = req.probes(sources);
  // Timed: each `wg show` pair's landing is marked (the sample interval is the run's floor).
  const probes: ProbeHub = clock
    ? Object.assign(Object.create(hub) as ProbeHub, {
      wireguard: (cluster: string, namespace: string, pod: string) => {
        const r = hub.wireguard(cluster, namespace, pod);
        r.then(() => clock.mark("wg-sampled", `${namespace}/${pod}`), () => {});
        return r;
      },
    })
    : hub;
  const groups = groupByEndpoint(contexts);
  const reads = await readFleet(groups, {
    open: req.open,
    plan: planFor(passive),
    probes,
    sources,
    parallel: req.parallel,
    clusterTimeoutMs: req.clusterTimeoutMs,
    clusterTimeoutLabel: req.clusterTimeoutLabel,
    ...(clock ? { clock } : {}),
  });
  clock?.mark("reads-done");
  try {
    for (const r of reads) if (r.error) req.onNotice?.(`${r.context.name}: ${r.error}`);
    const members = identify(reads);
    const views = new Map<string, ClusterView>();
    for (const m of members) if (m.read.view) views.set(m.name, { ...m.read.view, name: m.name });
    const nodes: GraphNode[] = members.map((m) => ({
      name: m.name,
      view: views.get(m.name) ?? null,
      context: m.read.context.name,
    }));
    const unreadable = members.filter((m) => !m.read.view).map((m) => m.read.context.name);
    const planned = planEdges(nodes, unreadable);
    const loaded = (name: string): LoadedCluster => {
      const m = members.find((x) => x.name === name)!;
      return { source: m.read.source!, view: views.get(name)!, serverVersion: m.read.serverVersion };
    };
    const judge = (local: string, extra: Partial<Parameters<typeof judgeViews>[0]>): Promise<Report> =>
      judgeViews({
        started,
        catalog: passive,
        local: loaded(local),
        remote: null,
        probes,
        sources,
        options: req.options,
        ...(req.invocation ? { invocation: req.invocation } : {}),
        ...extra,
      });
    clock?.mark("planned");
    const edgeReports = await Promise.all(planned.map(async (e) => {
      if (!e.run) return null;
      const { local, remote, peer, noRemoteReason } = e.run;
      const remoteLoaded = remote ? loaded(remote) : null;
      const r = await judge(local, {
        peers: [peer],
        remote: remoteLoaded ? { ...remoteLoaded, source: remoteLoaded.source } : null,
        ...(remoteLoaded && views.get(local)?.clusterId
          ? { remotePeers: [views.get(local)!.clusterId!] }
          : {}),
        ...(noRemoteReason ? { noRemoteReason } : {}),
      });
      clock?.mark("edge-judged", e.id);
      return r;
    }));
    const judged = new Set(planned.flatMap((e) => e.run ? [e.run.local, e.run.remote ?? ""] : []));
    const lone = new Map<string, Report>();
    await Promise.all(
      members.filter((m) => views.has(m.name) && !judged.has(m.name)).map(async (m) => {
        lone.set(m.name, await judge(m.name, {}));
      }),
    );

    clock?.mark("judged");
    const edges = planned.map((e, i) => edgeOf(e, edgeReports[i], members));
    edges.sort((a, b) => b.exitCode - a.exitCode || a.id.localeCompare(b.id));
    const clusters = members.map((m): FleetCluster => ({
      name: m.name,
      clusterId: m.read.view?.clusterId ?? null,
      identity: m.identity,
      context: m.read.view ? m.read.context.name : null,
      contexts: m.contexts,
      chosenBecause: [m.chosenBecause, m.collision].filter(Boolean).join("; ") || null,
      server: m.read.context.server,
      ca: m.read.context.ca,
      error: m.read.error,
      liqoVersion: m.read.view ? liqoVersionOf(m.read.view.inv) : null,
      serverVersion: m.read.serverVersion?.gitVersion ?? null,
      edges: edges.filter((e) => e.ends.includes(m.name)).map((e) => e.id),
      report: lone.get(m.name) ?? null,
    }));
    const judgedAny = edges.some((e) => e.report !== null || e.finding !== null) || lone.size > 0;
    let exit: 0 | 1 | 2 = 0;
    for (const e of edges) exit = worseExit(exit, e.exitCode);
    for (const r of lone.values()) exit = worseExit(exit, r.exitCode as 0 | 1 | 2);
    const count = <K extends string>(keys: readonly K[], of: (e: FleetEdge) => K) =>
      Object.fromEntries(keys.map((k) => [k, edges.filter((e) => of(e) === k).length])) as Record<K, number>;
    clock?.mark("assembled");
    return {
      schemaVersion: FLEET_SCHEMA_VERSION,
      kind: "fleet",
      tool: { name: "flyingfish", version: VERSION },
      generatedAt: new Date().toISOString(),
      invocation: req.invocation ?? null,
      contexts: contexts.map((c) => c.name),
      clusters,
      edges: Object.fromEntries(edges.map((e) => [e.id, e])),
      summary: {
        clusters: members.length,
        unreadable: unreadable.length,
        contexts: contexts.length,
        edges: edges.length,
        byClass: count(EDGE_CLASSES, (e) => e.class),
        byVerdict: count(EDGE_VERDICTS, (e) => e.verdict),
      },
      exitCode: judgedAny ? exit : 3,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    if (!req.keepOpen) await Promise.all(reads.map((r) => r.source?.close()));
  }
}

/** The context a cluster of the fleet is reached through (for the findings' commands). */
function contextOf(members: readonly FleetMember[], name: string): string {
  return members.find((m) => m.name === name)?.read.context.name ?? name;
}

/** A planned edge with its report, finding and verdict. */
function edgeOf(e: PlannedEdge, report: Report | null, members: readonly FleetMember[]): FleetEdge {
  const finding = findingOf(e, members);
  const findingExit = finding ? (finding.status === "fail" ? 2 : 1) : 0;
  const exitCode = worseExit((report?.exitCode ?? 0) as 0 | 1 | 2, findingExit);
  const warned = (report?.summary.warn ?? 0) > 0 || finding?.status === "warn";
  const firstBroken = finding && (finding.status === "fail" || !report?.diagnosis)
    ? {
      id: finding.id,
      summary: finding.summary,
      cluster: e.asymmetric?.recorder ?? e.orphan?.cluster ?? null,
    }
    : report?.diagnosis
    ? { id: report.diagnosis.id, summary: report.diagnosis.summary, cluster: report.diagnosis.cluster }
    : null;
  return {
    id: e.id,
    class: e.class,
    reason: e.reason,
    consumer: e.consumer,
    provider: e.provider,
    ends: e.ends,
    direction: e.direction,
    network: e.network,
    verdict: verdictOf(exitCode, warned),
    exitCode,
    firstBroken,
    finding,
    report,
  };
}

/** The fleet's own finding on an asymmetric or orphan edge. */
function findingOf(e: PlannedEdge, members: readonly FleetMember[]): EdgeFinding | null {
  if (e.asymmetric) {
    const { recorder, missing, role } = e.asymmetric;
    const ctx = contextOf(members, recorder);
    const other = contextOf(members, missing);
    const fcId = e.ends[0] === recorder ? e.ends[1] : e.ends[0];
    const peerId = members.find((m) => m.name === missing)?.read.view?.clusterId ?? fcId;
    return {
      id: "FLEET-ASYM",
      status: "fail",
      summary:
        `${recorder} records a peering with ${missing} (role ${role}) that ${missing} has no record of`,
      evidence: [
        `${recorder}: ForeignCluster ${peerId} (role ${role})`,
        `${missing}: no ForeignCluster for ${
          members.find((m) => m.name === recorder)?.read.view?.clusterId ?? recorder
        }`,
        ...(e.asymmetric.leftovers?.length
          ? [`${missing} still keeps, without a ForeignCluster: ${e.asymmetric.leftovers.join(", ")}`]
          : []),
        "typical causes: leftovers after an unpeer on one side only, or one cluster reset/reinstalled",
      ],
      remediation: [
        {
          command: `kubectl --context ${ctx} get foreignclusters ${peerId} -o yaml`,
          comment: `see what ${recorder} still holds of the peering`,
        },
        {
          command: `liqoctl --context ${ctx} peer --remote-context ${other}`,
          comment: "the peering is still wanted: peer the two clusters again",
        },
        {
          command: `liqoctl --context ${ctx} unpeer --remote-context ${other} --skip-confirm`,
          comment: `it is not: remove the leftovers (unpeer on ${recorder}'s side)`,
        },
      ],
    };
  }
  if (e.orphan) {
    const ctx = contextOf(members, e.orphan.cluster);
    return {
      id: "FLEET-ORPHAN",
      status: "warn",
      summary:
        `${e.orphan.objects.length} Liqo object(s) on ${e.orphan.cluster} for cluster ID ${e.orphan.peerId}, ` +
        `which no ForeignCluster references`,
      evidence: e.orphan.objects,
      remediation: [{
        command:
          `kubectl --context ${ctx} get namespaces,gatewayservers,gatewayclients,publickeies -A -l ${REMOTE_ID_LABEL}=${e.orphan.peerId}`,
        comment: "leftovers of a removed peering: check nothing uses them, then delete them",
      }],
    };
  }
  return null;
}
