/**
 * Container logs as evidence for a failing Liqo component (not a check): which instance to read (the
 * previous one after a restart: Liqo's pods write why they stopped to their log, not to
 * `lastState.terminated.message`), the relevant lines as indented evidence, and one line to cite in a
 * summary. A log that cannot be read says why (the missing permission, "not captured" offline).
 */
import type { CheckContext } from "../types.ts";
import type { Pod } from "../../liqo/views/core.ts";
import { logMessage } from "../../probes/logs.ts";

/** Longest log message cited in a summary. */
const CITE_MAX = 160;

/** What a container's log adds to a finding. */
export interface ContainerLog {
  /** Indented evidence lines (a header, then the relevant lines), or one line saying why there are none. */
  evidence: string[];
  /** The last error-like line's message, cut, for the summary; null when the log holds none. */
  cite: string | null;
}

/** True when the container restarted and its last instance terminated: read the previous log. */
export function restartedContainer(pod: Pod, container: string): boolean {
  const s = (pod.status?.containerStatuses ?? []).find((c) => c?.name === container);
  return (s?.restartCount ?? 0) > 0 && !!s?.lastState?.terminated;
}

/** The relevant recent log lines of one container of a pod on the check's cluster. Never throws. */
export async function containerLog(
  ctx: CheckContext,
  pod: Pod,
  container: string,
  indent = "  ",
): Promise<ContainerLog> {
  const ns = pod.metadata.namespace ?? "";
  const name = pod.metadata.name;
  if (typeof ctx.probes.logs !== "function") {
    return { evidence: [`${indent}log of ${container}: not available in this run`], cite: null };
  }
  const previous = restartedContainer(pod, container);
  let ev;
  try {
    ev = await ctx.probes.logs(ctx.cluster.name, ns, name, container, { previous });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { evidence: [`${indent}log of ${container}: not readable (${msg})`], cite: null };
  }
  if (!ev.ok) {
    const why = ev.reason === "forbidden" ? `not readable — ${ev.message}` : ev.message;
    return { evidence: [`${indent}log of ${container}: ${why}`], cite: null };
  }
  if (ev.lines.length === 0) {
    return {
      evidence: [`${indent}log of ${container}${ev.previous ? " (previous instance)" : ""}: empty`],
      cite: null,
    };
  }
  const what = [
    ev.previous ? "previous instance" : null,
    ev.matched
      ? `last ${ev.lines.length} error line${ev.lines.length === 1 ? "" : "s"}`
      : `last ${ev.lines.length} lines`,
    ev.note ?? null,
  ].filter((x) => x !== null).join(", ");
  const evidence = [`${indent}log of ${container} (${what}):`, ...ev.lines.map((l) => `${indent}  ${l}`)];
  let cite: string | null = null;
  if (ev.matched) {
    const m = logMessage(ev.lines[ev.lines.length - 1]).trim();
    cite = m.length > CITE_MAX ? `${m.slice(0, CITE_MAX - 1)}…` : m;
  }
  return { evidence, cite };
}
