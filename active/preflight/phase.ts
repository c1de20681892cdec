/**
 * The active phase of `flyingfish preflight --probe`: one session for every PF-[P] check of the run,
 * started by the first check that asks, over the active wing's fleet (namespaces labelled
 * `flyingfish-preflight-<run id>`, cleanup on every exit path, the one signal handling).
 */
import type { ActivePhase } from "../../checks/types.ts";
import type { ActiveControl } from "../session.ts";
import type { ProbeTarget } from "../fleet/target.ts";
import type { StopCause } from "../fleet/signals.ts";

/** What the preflight probes may be told by the command line. */
export interface PreflightProbeOptions {
  /** `--service-type`: the UDP Service type to try; null: LoadBalancer, then NodePort. */
  serviceType: "LoadBalancer" | "NodePort" | null;
  /** `--server-side`: where the gateway server would live; null: try both directions. */
  serverSide: "consumer" | "provider" | null;
  /** `--port`: the gateway port to expose (Liqo's default 51840). */
  port: number;
  /** The tunnel MTU Liqo will use (`--mtu`, default 1340). */
  mtu: number;
  /** Images by role, resolved (overrides, registry mirror). */
  images: Record<string, string>;
  /** Bound on each probe (and on a LoadBalancer address). */
  probeTimeoutMs: number;
  /** Cleanup's own budget. */
  cleanupTimeoutMs: number;
  /** `--keep`: leave everything in place and print the cleanup command. */
  keep: boolean;
  /** A fixed run id (tests); default: a fresh one. */
  runId?: string;
}

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
}

/** The preflight phase of a run, and what it leaves for the report. */
export interface PreflightRun extends ActivePhase {
  /** What stopped the session early (a signal, the run's timeout); null: it ran to its end. */
  stoppedBy(): StopCause | null;
  /** A tool error the session ended with: the run is exit 3. */
  error(): unknown;
}

/** Opens the preflight phase; nothing is created before the first PF-[P] check asks. */
export function createPreflightPhase(_input: PreflightPhaseInput): PreflightRun {
  throw new Error("preflight probes: not built yet");
}
