/**
 * The active phase of one run: what the engine's active checks (active/catalog.ts) read their
 * outcomes from. The first active check that runs starts ONE session (active/session.ts: fleet,
 * every selected probe in parallel, cleanup on every exit path, signals); the others get their
 * outcome from the same session. It also hands FAB-03 the matrix's reading of each end of the
 * probed peering (PROBE-MATRIX's facts), and keeps what the report and the exit code need: the
 * run record, what stopped the run early, and a tool error to rethrow once the run is reported.
 */
import type { ClusterView, Outcome } from "../checks/types.ts";
import { fix, flyingfish } from "../checks/remediation.ts";
import type { GenevePathReading } from "../checks/facts.ts";
import { PROBE_CHECKS } from "./catalog.ts";
import type { ProbeTarget } from "./fleet/target.ts";
import { RunStopped, type StopCause } from "./fleet/signals.ts";
import { genevePathReading } from "./matrix/judge.ts";
import { type ActiveRunRecord, PROBE_CHECK_IDS, type ProbeName } from "./model.ts";
import { type ActiveControl, type ActiveOptions, runActive } from "./session.ts";

/** What opens an active phase: the run's options, the clusters to write to, and how it is steered. */
export interface ActivePhaseInput {
  options: ActiveOptions;
  local: ProbeTarget;
  /** The remote cluster's target (direct mode, or offload mode with the remote kubeconfig). */
  remote: ProbeTarget | null;
  /** Why the remote cluster is not usable, when it is not. */
  remoteError?: string;
  control: ActiveControl;
  /** How the run's time limit is named in a result ("--timeout 2m"). */
  timeoutLabel: string;
}

/** The active phase of a run, and what it leaves for the report. */
export interface ActiveRun {
  /** The outcome of active check `id` (the session runs once, on the first call). */
  outcome(id: string, views: { local: ClusterView; remote: ClusterView | null }): Promise<Outcome>;
  /** The report's `active` block (null: no session ran). */
  record(): ActiveRunRecord | null;
  /** What stopped the session early (a signal, the run's timeout); null: it ran to its end. */
  stoppedBy(): StopCause | null;
  /** A tool error the session ended with (e.g. the pre-flight refused): the run is exit 3. */
  error(): unknown;
}

/** The outcomes of one session, by check ID. */
type Outcomes = ReadonlyMap<string, Outcome>;

/** Opens the active phase of a run (nothing happens until an active check asks for its outcome). */
export function createActivePhase(input: ActivePhaseInput): ActiveRun {
  let session: Promise<Outcomes> | null = null;
  let record: ActiveRunRecord | null = null;
  let stoppedBy: StopCause | null = null;
  let error: unknown = null;
  const probes = input.options.probes;

  const run = async (views: { local: ClusterView; remote: ClusterView | null }): Promise<Outcomes> => {
    if (input.options.mode === "direct" && (!views.remote || !input.remote)) {
      const why = `direct mode needs the remote cluster${input.remoteError ? ` (${input.remoteError})` : ""}`;
      return every(probes, {
        status: "unknown",
        summary: `not probed: ${why}`,
        remediation: fix(
          "fix access to the remote cluster, or probe through Liqo with one kubeconfig:",
          flyingfish("probe", "--mode", "offload"),
        ),
      });
    }
    try {
      // Targets are named like the report names their clusters (records, progress lines).
      const out = await runActive(
        { side: "local", view: views.local, target: { ...input.local, name: views.local.name } },
        views.remote && input.remote
          ? { side: "remote", view: views.remote, target: { ...input.remote, name: views.remote.name } }
          : null,
        input.options,
        input.control,
      );
      record = out.record;
      stoppedBy = out.stoppedBy ?? null;
      const outcomes = new Map(out.results.map((r) => {
        const o: Outcome = {
          status: r.status,
          summary: r.summary,
          evidence: r.evidence,
          ...(r.remediation.length ? { remediation: r.remediation } : {}),
          ...(r.skipKind ? { skipKind: r.skipKind } : {}),
          where: { cluster: r.cluster, peer: r.peer },
        };
        return [r.id, o] as const;
      }));
      const matrix = outcomes.get(PROBE_CHECK_IDS.matrix);
      if (matrix && out.record?.matrix) {
        outcomes.set(PROBE_CHECK_IDS.matrix, {
          ...matrix,
          facts: { genevePaths: readings(out.record, views) },
        });
      }
      return outcomes;
    } catch (err) {
      const by = stopCause(err);
      if (by === null) {
        // A tool error (pre-flight refused, a bad --peer): the run reports it as exit 3.
        error = err;
        return every(probes, { status: "unknown", summary: `not probed: ${errorText(err)}` });
      }
      // Stopped before any result (e.g. while the pods started): the session removed what it made.
      stoppedBy = by;
      const why = by === "timeout" ? `${input.timeoutLabel} reached` : `interrupted by ${by}`;
      return every(probes, { status: "unknown", summary: `not probed: ${why}; what it created was removed` });
    }
  };

  return {
    async outcome(id, views) {
      session ??= run(views);
      const o = (await session).get(id);
      return o ?? { status: "unknown", summary: "not probed in this run" };
    },
    record: () => record,
    stoppedBy: () => stoppedBy,
    error: () => error,
  };
}

/** The same outcome for every probe of the run, by check ID. */
function every(probes: readonly ProbeName[], o: Outcome): Outcomes {
  return new Map(PROBE_CHECKS.filter((c) => probes.includes(c.active.probe)).map((c) => [c.id, o]));
}

/**
 * The matrix's reading of each end of the probed peering, for FAB-03: the local cluster (its
 * results name the peer by the probed cluster ID) and, in direct mode, the remote one (whose
 * results name the local cluster by its ID).
 */
function readings(
  record: ActiveRunRecord,
  views: { local: ClusterView; remote: ClusterView | null },
): GenevePathReading[] {
  const matrix = record.matrix!;
  const ends = [{ cluster: views.local.name, peer: record.peer }];
  if (views.remote) {
    ends.push({ cluster: views.remote.name, peer: views.local.clusterId ?? views.local.name });
  }
  return ends.map((e) => genevePathReading(matrix, e));
}

/** What stopped the run, when `err` is (or wraps) the session's stop. */
function stopCause(err: unknown): StopCause | null {
  const e = err instanceof RunStopped ? err : (err as { cause?: unknown })?.cause;
  return e instanceof RunStopped ? e.by : null;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
