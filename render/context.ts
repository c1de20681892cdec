/**
 * What a run looks at, in one line each: the header of the text report (and of stderr for the
 * machine formats), and the "connecting to …" line shown while the first requests are pending.
 */
import type { ClusterInfo, Report } from "../report/model.ts";

/** A cluster connection as the CLI knows it before the first request (kubeconfig or snapshot). */
export interface ConnectTarget {
  context: string;
  server: string;
  /** A collected bundle replayed offline, not a live API server. */
  snapshot: boolean;
}

/** Control characters out, newlines folded: cluster-supplied strings stay on their line. */
function clean(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/[\x00-\x1f\x7f-\x9f]/g, " ");
}

/**
 * `connecting to https://… (context rome)…`, with `and …` for the remote cluster of a dual run;
 * `reading snapshot of …` for a collected bundle.
 */
export function connectingLine(targets: readonly ConnectTarget[]): string {
  const one = (t: ConnectTarget) => `${clean(t.server) || "?"} (context ${clean(t.context) || "?"})`;
  const verb = targets.some((t) => t.snapshot) ? "reading snapshot of" : "connecting to";
  return `${verb} ${targets.map(one).join(" and ")}…`;
}

/**
 * One line per cluster of the report: its Liqo cluster ID, kubeconfig context, API server and Liqo
 * version (`in <namespace>` too when `verbose`). In dual mode each line says which end it is.
 */
export function clusterLines(report: Pick<Report, "clusters" | "preflight">, verbose = false): string[] {
  const dual = report.clusters.length > 1;
  // Before peering (preflight), the ends are the would-be consumer (local) and provider (remote).
  const names = report.preflight
    ? { local: "consumer", remote: "provider" }
    : { local: "local", remote: "remote" };
  return report.clusters.map((c) => {
    const role = dual ? `${names[c.role]} ` : "";
    if (!c.context && !c.server && c.clusterId === null) return `${role}cluster unavailable`;
    return `${role}cluster ${clusterFacts(c, verbose)}`;
  });
}

function clusterFacts(c: ClusterInfo, verbose: boolean): string {
  const liqo = c.liqoVersion
    ? `Liqo ${clean(c.liqoVersion)}${verbose && c.liqoNamespace ? ` in ${clean(c.liqoNamespace)}` : ""}`
    : c.liqoNamespace
    ? `Liqo version unknown (namespace ${clean(c.liqoNamespace)})`
    : c.liqoUnreadable
    // Unreadable is never absent: say what could not be read, and why.
    ? `Liqo's installation could not be read (${clean(c.liqoUnreadable)})`
    : "Liqo not found";
  return [
    clean(c.clusterId ?? "(no Liqo cluster ID)"),
    `context ${clean(c.context) || "?"}`,
    clean(c.server) || "?",
    liqo,
  ].join(" · ");
}
