/**
 * One cluster a probe run writes to: its side, display name, client, writer and exec, and the
 * cluster flags that select it again on the command line (for the printed `--cleanup` command).
 */
import { shellQuote } from "../../kube/rerun.ts";
import type { KubeClient } from "../../kube/live/client.ts";
import { type KubeWriter, kubeWriter } from "../../kube/live/write.ts";
import type { PodExec, Side } from "../model.ts";

/** A cluster the run creates probe objects in. */
export interface ProbeTarget {
  side: Side;
  /** Display name (the context, or the cluster name of the report). */
  name: string;
  client: KubeClient;
  writer: KubeWriter;
  exec: PodExec;
  /** The cluster flags for printed commands, e.g. `--kubeconfig rome.yaml --context rome`. */
  flags: string;
}

/** Builds a {@link ProbeTarget} over a client (the writer is the client's). */
export function probeTarget(t: Omit<ProbeTarget, "writer"> & { writer?: KubeWriter }): ProbeTarget {
  return { ...t, writer: t.writer ?? kubeWriter(t.client) };
}

/** The cluster flags of a target from its kubeconfig path and context (`remote`: the --remote-* flags). */
export function clusterFlags(
  side: Side,
  kubeconfig: string | undefined,
  context: string | undefined,
): string {
  const prefix = side === "remote" ? "--remote-" : "--";
  const out: string[] = [];
  if (kubeconfig) out.push(`${prefix}kubeconfig`, shellQuote(kubeconfig));
  if (context) out.push(`${prefix}context`, shellQuote(context));
  return out.join(" ");
}

/** `flyingfish probe --cleanup --run-id <id> <cluster flags of every target>`. */
export function cleanupCommand(runId: string, targets: readonly Pick<ProbeTarget, "flags">[]): string {
  const flags = targets.map((t) => t.flags.trim()).filter((f) => f !== "");
  return ["flyingfish probe --cleanup --run-id", runId, ...flags].join(" ");
}
