/**
 * The active phase of `flyingfish preflight --probe`: one session for every PF-[P] check of the run,
 * started by the first check that asks, over the active wing's fleet (namespaces labelled
 * `flyingfish-preflight-<run id>`, cleanup on every exit path, the one signal handling).
 */
import type { ActivePhase, ClusterView, Outcome } from "../../checks/types.ts";
import type { TlsDialResult } from "../../probes/hub.ts";
import type { ActiveControl } from "../session.ts";
import type { ProbeTarget } from "../fleet/target.ts";
import { RunStopped, type StopCause } from "../fleet/signals.ts";
import type { ActiveRunRecord, CleanupRecord, CreatedObject } from "../model.ts";
import { PF_IDS, type PreflightProbeOptions } from "./model.ts";

export type { PreflightProbeOptions } from "./model.ts";
import { runPreflight } from "./session.ts";

export type { GatewayPlacement } from "../fleet/templates.ts";

/** The input of a preflight phase: the would-be consumer and provider. */
export interface PreflightPhaseInput {
  /** The would-be consumer (`--kubeconfig`/`--context`): side "local". */
  consumer: ProbeTarget;
  /** The would-be provider (`--remote-kubeconfig`/`--remote-context`): side "remote". */
  provider: ProbeTarget;
  options: PreflightProbeOptions;
  control: ActiveControl;
  /** How the run's time limit is named in a result ("--timeout 2m"). */
  timeoutLabel: string;
  /** The host's TCP+TLS dial of the provider API URL (tests); default probes/tls.ts. */
  hostDial?: (url: string) => Promise<TlsDialResult>;
}

/** The preflight phase of a run, and what it leaves for the report. */
export interface PreflightRun extends ActivePhase {
  /** What stopped the session early (a signal, the run's timeout); null: it ran to its end. */
  stoppedBy(): StopCause | null;
  /** A tool error the session ended with: the run is exit 3. */
  error(): unknown;
  /**
   * The report's `active` block: what the run created and what became of it (null: no session
   * ran). `probes` is empty: the PF-[P] checks are not `flyingfish probe` probes.
   */
  record(): ActiveRunRecord | null;
  /** The run's id, what it created and removed, and the wall time of each stage (benchmarks). */
  preflightRecord(): {
    runId: string;
    created: CreatedObject[];
    cleanup: CleanupRecord[];
    phases: Record<string, number>;
  } | null;
}

/** Opens the preflight phase; nothing is created before the first PF-[P] check asks. */
export function createPreflightPhase(input: PreflightPhaseInput): PreflightRun {
  let session: Promise<Map<string, Outcome>> | null = null;
  let stoppedBy: StopCause | null = null;
  let error: unknown = null;
  let record: ReturnType<PreflightRun["preflightRecord"]> = null;
  let provider = "";

  const run = async (
    views: { local: ClusterView; remote: ClusterView | null },
  ): Promise<Map<string, Outcome>> => {
    provider = views.remote?.name ?? "";
    if (!views.remote) {
      return every({
        status: "unknown",
        summary: "not probed: the provider's kubeconfig is needed (--remote-kubeconfig)",
      });
    }
    // Nothing to probe between one cluster and itself, or between clusters peered already (PF-ID says which).
    const pointless = pointlessPair(views.local, views.remote);
    if (pointless) {
      return every({ status: "skip", skipKind: "not-applicable", summary: `not probed: ${pointless}` });
    }
    try {
      const out = await runPreflight(
        { view: views.local, target: input.consumer },
        { view: views.remote, target: input.provider },
        input.options,
        input.control,
        { hostDial: input.hostDial },
      );
      stoppedBy = out.stoppedBy;
      record = { runId: out.runId, created: out.created, cleanup: out.cleanup, phases: out.phases };
      if (out.stoppedBy) {
        const why = out.stoppedBy === "timeout"
          ? `${input.timeoutLabel} reached`
          : `interrupted by ${out.stoppedBy}`;
        return every({ status: "unknown", summary: `not probed: ${why}; what it created was removed` });
      }
      // Observed between the two clusters, like a probe of both ("A ↔ B").
      const where = { cluster: `${views.local.name} ↔ ${views.remote.name}`, peer: null };
      return new Map([...out.outcomes].map(([id, o]) => [id, { ...o, where }]));
    } catch (err) {
      const by = err instanceof RunStopped ? err.by : null;
      if (by) {
        stoppedBy = by;
        return every({
          status: "unknown",
          summary: `not probed: interrupted by ${by}; what it created was removed`,
        });
      }
      // A tool error (the pre-flight refused): the run reports it as exit 3.
      error = err;
      return every({
        status: "unknown",
        summary: `not probed: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  };

  return {
    async outcome(id, views) {
      session ??= run(views);
      return (await session).get(id) ?? { status: "unknown", summary: "not probed in this run" };
    },
    stoppedBy: () => stoppedBy,
    error: () => error,
    preflightRecord: () => record,
    record: () =>
      record && {
        runId: record.runId,
        mode: "direct",
        peer: provider,
        probes: [],
        created: record.created,
        cleanup: record.cleanup,
        excluded: [],
        images: { ...input.options.images },
        matrix: null,
      },
  };
}

/** The same outcome for every PF-[P] check. */
function every(o: Outcome): Map<string, Outcome> {
  return new Map(Object.values(PF_IDS).map((id) => [id, o]));
}

/** Why probing this pair is pointless (the same cluster twice, or peered already), or null. */
export function pointlessPair(consumer: ClusterView, provider: ClusterView): string | null {
  if (consumer.clusterId !== null && consumer.clusterId === provider.clusterId) {
    return `both sides are cluster ${consumer.clusterId} (PF-ID); nothing was created`;
  }
  if (consumer.server === provider.server && consumer.context === provider.context) {
    return `both sides are ${consumer.server} (PF-ID); nothing was created`;
  }
  const peers = (v: ClusterView) => (v.inv.tryItems("foreignclusters") ?? []).map((f) => f.spec?.clusterID);
  const peered = (provider.clusterId !== null && peers(consumer).includes(provider.clusterId)) ||
    (consumer.clusterId !== null && peers(provider).includes(consumer.clusterId));
  return peered
    ? `${consumer.name} and ${provider.name} are peered already: run flyingfish check; nothing was created`
    : null;
}
