/**
 * Planning one probe run from the passive inventory, before anything is created: which peer, which
 * nodes get a probe pod in each cluster (active/fleet/nodes.ts), what is offloaded (active/offload.ts),
 * which gateway namespaces the MTU and trace probes exec in — the {@link FleetPlan} openFleet executes.
 */
import { ToolError } from "../errors.ts";
import type { ClusterView } from "../checks/types.ts";
import type { K8sObject } from "../kube/source.ts";
import { gatewayOf } from "../liqo/lookups.ts";
import type { FleetPlan, FleetSidePlan } from "./fleet/fleet.ts";
import { selectNodes } from "./fleet/nodes.ts";
import type { ExcludedNode, ProbeMode, ProbeName, Side } from "./model.ts";
import type { ActiveCluster, ActiveOptions } from "./context.ts";
import { offloadingWanted, offloadSpread, planOffload } from "./offload.ts";

/** A ForeignCluster as a probe candidate. */
export interface PeerCandidate {
  id: string;
  networking: boolean;
}

/** The peers a cluster knows (ForeignClusters), with whether their networking module is enabled; null: unreadable. */
export function peerCandidates(view: ClusterView): PeerCandidate[] | null {
  const fcs = view.inv.tryItems("foreignclusters");
  if (fcs === null) return null;
  return fcs.map((fc) => ({
    id: fc.spec?.clusterID ?? fc.metadata.name,
    networking: fc.status?.modules?.networking?.enabled === true,
  })).sort((a, b) => a.id.localeCompare(b.id));
}

/** The peer to probe, or why there is none to probe (the probes are then `unknown` with it). */
export type PeerChoice = { ok: true; peer: string } | { ok: false; reason: string };

/**
 * Picks the peer: `--peer` when given (it must be a known ForeignCluster; unknown → ToolError, exit 3),
 * else the only ForeignCluster with networking enabled. Several → ToolError asking for `--peer`;
 * none → not ok with the reason. A `--peer` whose networking module is disabled is not ok: there
 * is no data path to probe (the passive FC checks say why).
 */
export function choosePeer(view: ClusterView, requested: string | null): PeerChoice {
  const all = peerCandidates(view);
  if (all === null) {
    if (requested) return { ok: true, peer: requested };
    throw new ToolError(
      `cannot read the ForeignClusters of ${view.name} to pick the peer to probe: name it with --peer <cluster ID>`,
    );
  }
  if (requested) {
    const fc = all.find((c) => c.id === requested);
    if (!fc) {
      throw new ToolError(
        `--peer ${requested}: no ForeignCluster with that cluster ID on ${view.name}${
          all.length ? ` (peers: ${all.map((c) => c.id).join(", ")})` : ""
        }`,
      );
    }
    if (!fc.networking) {
      return {
        ok: false,
        reason:
          `peer ${requested} has networking disabled (ForeignCluster status.modules.networking.enabled ` +
          `is not true): there is no data path to probe`,
      };
    }
    return { ok: true, peer: requested };
  }
  const withNet = all.filter((c) => c.networking);
  if (withNet.length === 1) return { ok: true, peer: withNet[0].id };
  if (withNet.length > 1) {
    throw new ToolError(
      `${view.name} has ${withNet.length} peers with networking (${
        withNet.map((c) => c.id).join(", ")
      }): choose one with --peer <cluster ID>`,
    );
  }
  return {
    ok: false,
    reason: all.length === 0
      ? `${view.name} has no ForeignCluster: no peer to probe`
      : `no peer of ${view.name} has networking enabled (${
        all.map((c) => c.id).join(", ")
      }): nothing to probe`,
  };
}

/**
 * Checks the mode against the clusters given: direct needs the remote kubeconfig, and the remote
 * cluster must be the peer probed (when its cluster ID is known). Throws ToolError (exit 3).
 */
export function checkModeAndRemote(mode: ProbeMode, remote: ClusterView | null, peer: string): void {
  if (mode === "direct" && !remote) {
    throw new ToolError(
      "--mode direct needs --remote-kubeconfig (the probe pods are created in each cluster with its own " +
        "kubeconfig); without it use --mode offload",
    );
  }
  if (remote && remote.clusterId !== null && remote.clusterId !== peer) {
    throw new ToolError(
      `the --remote-kubeconfig cluster is ${remote.clusterId}, but the peer probed is ${peer}: ` +
        `point --remote-kubeconfig at ${peer} or choose --peer ${remote.clusterId}`,
    );
  }
}

/** The plan of a run, or why no fleet can be planned (every probe that needs one is then unknown). */
export type RunPlan =
  | {
    ok: true;
    plan: FleetPlan;
    /** Facts worth printing as progress (how many pods are offloaded and why). */
    notes: string[];
    /** Probes that cannot run with this plan, and why (e.g. service without a virtual node). */
    unavailable: Partial<Record<ProbeName, string>>;
  }
  | { ok: false; reason: string; excluded: ExcludedNode[] };

/** The tenant namespace of the gateway pod for `peerId` on a cluster, null when unknown or unreadable. */
export function gatewayNamespace(view: ClusterView | null, peerId: string | null): string | null {
  if (!view || !peerId) return null;
  try {
    return gatewayOf(view.inv, peerId)?.namespace ?? null;
  } catch {
    return null;
  }
}

function nodesOf(view: ClusterView): K8sObject[] | null {
  const nodes = view.inv.tryItems("nodes");
  return nodes === null ? null : nodes as unknown as K8sObject[];
}

/** Node selection of one side, or why it cannot be made. */
function sidePlan(c: ActiveCluster, tolerate: readonly string[]):
  | { ok: true; side: FleetSidePlan; excluded: ExcludedNode[] }
  | { ok: false; reason: string } {
  const nodes = nodesOf(c.view);
  if (nodes === null) return { ok: false, reason: `the Nodes of ${c.view.name} could not be read` };
  const sel = selectNodes(nodes, c.side, tolerate);
  return {
    ok: true,
    side: { target: c.target, nodes: sel.nodes, hostnames: sel.hostnames },
    excluded: sel.excluded,
  };
}

/** Inputs of {@link planRun}. */
export interface PlanInput {
  runId: string;
  peer: string;
  local: ActiveCluster;
  remote: ActiveCluster | null;
  options: ActiveOptions;
  now: Date;
}

/**
 * The FleetPlan of a run: one probe pod per schedulable node of each cluster (direct mode: both;
 * offload mode: the consumer's, plus the pods offloaded to the peer), the run namespace offloaded
 * when the mode or the service probe needs it, and the gateway namespaces for mtu/trace.
 */
export function planRun(input: PlanInput): RunPlan {
  const { local, remote, options, peer } = input;
  const mode = options.mode;
  const excluded: ExcludedNode[] = [];
  const notes: string[] = [];
  const unavailable: Partial<Record<ProbeName, string>> = {};
  const l = sidePlan(local, options.tolerate);
  if (!l.ok) return { ok: false, reason: l.reason, excluded };
  excluded.push(...l.excluded);
  let r: FleetSidePlan | null = null;
  let providerNodes: string[] | null = null;
  if (remote) {
    const rp = sidePlan(remote, options.tolerate);
    if (!rp.ok) {
      if (mode === "direct") return { ok: false, reason: rp.reason, excluded };
      notes.push(rp.reason);
    } else {
      providerNodes = rp.side.nodes;
      if (mode === "direct") {
        r = rp.side;
        excluded.push(...rp.excluded);
      }
    }
  }
  let offload: FleetPlan["offload"] = null;
  if (offloadingWanted(mode, options.probes)) {
    const o = planOffload(local.view, peer, providerNodes);
    if (o.ok) {
      offload = {
        pods: o.plan.pods.map((p) => ({
          virtualNode: p.virtualNode,
          index: p.index,
          spread: offloadSpread(p.preset),
        })),
      };
      notes.push(o.plan.countReason);
    } else if (mode === "offload") {
      return { ok: false, reason: o.reason, excluded };
    } else {
      unavailable.service = o.reason;
    }
  }
  const localId = local.view.clusterId;
  const gatewayNamespaces: Partial<Record<Side, string | null>> = {};
  if (options.probes.some((p: ProbeName) => p === "mtu" || p === "trace")) {
    gatewayNamespaces.local = gatewayNamespace(local.view, peer);
    if (remote && mode === "direct") gatewayNamespaces.remote = gatewayNamespace(remote.view, localId);
  }
  return {
    ok: true,
    notes,
    unavailable,
    plan: {
      runId: input.runId,
      mode,
      peer,
      probes: options.probes,
      images: options.images,
      tolerate: options.tolerate,
      probeTimeoutMs: options.probeTimeoutMs,
      local: l.side,
      remote: r,
      offload,
      excluded,
      service: options.probes.includes("service") && offload !== null,
      gatewayNamespaces,
      now: input.now,
    },
  };
}
