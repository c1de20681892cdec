/**
 * `/metrics`: the serve state in the Prometheus text exposition format (version 0.0.4), with the
 * naming conventions of the Prometheus docs: a `flyingfish_` prefix, base units in the name
 * (`_seconds`), `_total` on counters, `_info` for the build, a HELP and a TYPE line per family.
 *
 * `flyingfish_check_status` follows kube-state-metrics' `kube_pod_status_phase`: every check
 * instance has one series per status, 1 for the current one and 0 for the others, so a status that
 * ends goes to 0 (an alert resolves) instead of disappearing into staleness.
 */
import { type Report, type ReportResult, STATUSES } from "../report/model.ts";
import type { ServeSnapshot } from "./state.ts";

/** The Content-Type of the text format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** The metric families `/metrics` exports (the PrometheusRule and the README name only these). */
export const METRIC_NAMES = [
  "flyingfish_build_info",
  "flyingfish_check_status",
  "flyingfish_check_transitions_total",
  "flyingfish_check_results",
  "flyingfish_peer_broken",
  "flyingfish_peer_first_broken",
  "flyingfish_round_duration_seconds",
  "flyingfish_rounds_total",
  "flyingfish_last_successful_round_timestamp_seconds",
  "flyingfish_api_errors_total",
] as const;

/** A metric family name. */
export type MetricName = typeof METRIC_NAMES[number];

/** The labels of each family's samples (the README documents them; the alert rules may use only these). */
export const METRIC_LABELS: Readonly<Record<MetricName, readonly string[]>> = {
  flyingfish_build_info: ["version", "deno", "report_schema"],
  flyingfish_check_status: ["check", "layer", "peer", "cluster", "status"],
  flyingfish_check_transitions_total: ["check", "layer", "peer", "cluster"],
  flyingfish_check_results: ["status"],
  flyingfish_peer_broken: ["peer", "cluster"],
  flyingfish_peer_first_broken: ["peer", "cluster", "check", "layer"],
  flyingfish_round_duration_seconds: [],
  flyingfish_rounds_total: ["result"],
  flyingfish_last_successful_round_timestamp_seconds: [],
  flyingfish_api_errors_total: ["cluster", "operation", "resource", "reason"],
};

/** What the build info reports. */
export interface BuildInfo {
  /** FlyingFish version. */
  version: string;
  /** Deno version. */
  deno: string;
  /** Version of the report document (`/report`). */
  reportSchema: string;
}

type Labels = Record<string, string>;

/** Escapes a label value: backslash, double quote and line feed (the format's three escapes). */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function sample(name: string, labels: Labels, value: number): string {
  const entries = Object.entries(labels);
  const body = entries.length
    ? `{${entries.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`
    : "";
  return `${name}${body} ${formatValue(value)}`;
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

/** Collects families in order; a family with no sample still gets its HELP and TYPE lines. */
class Exposition {
  #lines: string[] = [];
  family(name: MetricName, type: "gauge" | "counter", help: string, samples: string[]): void {
    this.#lines.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`);
    this.#lines.push(`# TYPE ${name} ${type}`);
    this.#lines.push(...samples);
  }
  text(): string {
    return this.#lines.join("\n") + "\n";
  }
}

/** The clusters a result speaks for: one, or both ends of a dual check's "A ↔ B". */
function clustersOf(cluster: string): string[] {
  return cluster.split(" ↔ ");
}

/** A root failure (the diagnosis or one of the other root failures) or a failed result. */
interface Broken {
  id: string;
  layer: string;
  peer: string | null;
  cluster: string;
}

/**
 * The first broken link of each peer (ForeignCluster) of the report, or null when none: the first
 * root failure of the diagnosis (in dependency order) that is about this peer or is cluster-wide on
 * its cluster; failing that, its first failed result in catalog order.
 */
export function firstBrokenPerPeer(
  report: Report,
): { peer: string; cluster: string; broken: Broken | null }[] {
  const roots: Broken[] = report.diagnosis ? [report.diagnosis, ...(report.diagnosis.alsoFailing ?? [])] : [];
  const fails: Broken[] = report.results.filter((r: ReportResult) => r.status === "fail");
  return report.peers.map((p) => {
    const about = (b: Broken) =>
      (b.peer === p.clusterId || b.peer === null) && clustersOf(b.cluster).includes(p.cluster);
    return { peer: p.clusterId, cluster: p.cluster, broken: roots.find(about) ?? fails.find(about) ?? null };
  });
}

function statusSamples(report: Report | null): string[] {
  if (!report) return [];
  return report.results.flatMap((r) =>
    STATUSES.map((s) =>
      sample(
        "flyingfish_check_status",
        { check: r.id, layer: r.layer, peer: r.peer ?? "", cluster: r.cluster, status: s },
        r.status === s ? 1 : 0,
      )
    )
  );
}

/** Renders the serve state as a Prometheus text exposition. */
export function renderMetrics(state: ServeSnapshot, build: BuildInfo): string {
  const out = new Exposition();
  const report = state.report;
  out.family(
    "flyingfish_build_info",
    "gauge",
    "FlyingFish build: version, Deno version, report schema; always 1.",
    [
      sample("flyingfish_build_info", {
        version: build.version,
        deno: build.deno,
        report_schema: build.reportSchema,
      }, 1),
    ],
  );
  out.family(
    "flyingfish_check_status",
    "gauge",
    "Status of each check instance in the latest round: 1 for the current status, 0 for the others. peer is empty for cluster-wide checks.",
    statusSamples(report),
  );
  out.family(
    "flyingfish_check_transitions_total",
    "counter",
    "Status changes of each check instance since the process started (a flapping tunnel counts up here).",
    state.transitions.map((t) =>
      sample(
        "flyingfish_check_transitions_total",
        { check: t.check, layer: t.layer, peer: t.peer, cluster: t.cluster },
        t.count,
      )
    ),
  );
  out.family(
    "flyingfish_check_results",
    "gauge",
    "Check results of the latest round by status.",
    report ? STATUSES.map((s) => sample("flyingfish_check_results", { status: s }, report.summary[s])) : [],
  );
  const peers = report ? firstBrokenPerPeer(report) : [];
  out.family(
    "flyingfish_peer_broken",
    "gauge",
    "1 when the peering with peer, seen from cluster, has a failed check in the latest round; 0 otherwise.",
    peers.map((p) =>
      sample("flyingfish_peer_broken", { peer: p.peer, cluster: p.cluster }, p.broken ? 1 : 0)
    ),
  );
  out.family(
    "flyingfish_peer_first_broken",
    "gauge",
    "The diagnosis per peer: the first broken link (check and layer) of each broken peering; absent for healthy ones.",
    peers.flatMap((p) =>
      p.broken
        ? [sample(
          "flyingfish_peer_first_broken",
          { peer: p.peer, cluster: p.cluster, check: p.broken.id, layer: p.broken.layer },
          1,
        )]
        : []
    ),
  );
  out.family(
    "flyingfish_round_duration_seconds",
    "gauge",
    "Duration of the latest round (lists, execs, checks), successful or not.",
    state.lastRoundMs === null
      ? []
      : [sample("flyingfish_round_duration_seconds", {}, Math.round(state.lastRoundMs) / 1000)],
  );
  out.family(
    "flyingfish_rounds_total",
    "counter",
    "Rounds run, by result: success (a report was produced, whatever it found) or error (no report: unreachable API server, rejected credentials, ...).",
    [
      sample("flyingfish_rounds_total", { result: "success" }, state.rounds.success),
      sample("flyingfish_rounds_total", { result: "error" }, state.rounds.error),
    ],
  );
  out.family(
    "flyingfish_last_successful_round_timestamp_seconds",
    "gauge",
    "Unix time at which the latest successful round finished.",
    state.lastSuccessAt === null ? [] : [
      sample(
        "flyingfish_last_successful_round_timestamp_seconds",
        {},
        state.lastSuccessAt.getTime() / 1000,
      ),
    ],
  );
  // The errors are counted by kubeconfig context; the other families name a cluster as the report
  // does (its Liqo cluster ID when known).
  const names = new Map(report?.clusters.map((c) => [c.context, c.name]) ?? []);
  const clusterName = (context: string): string => names.get(context) ?? context;
  out.family(
    "flyingfish_api_errors_total",
    "counter",
    "Kubernetes API reads that failed, by cluster (named as in the report; its kubeconfig context before the first report), operation (list, watch, discovery, exec, logs), resource and reason (forbidden, missing, error; watches: expired, refused).",
    state.apiErrors.map((e) =>
      sample(
        "flyingfish_api_errors_total",
        { cluster: clusterName(e.cluster), operation: e.operation, resource: e.resource, reason: e.reason },
        e.count,
      )
    ),
  );
  return out.text();
}
