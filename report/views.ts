/**
 * Views over the report model for the renderers: status counts, the canonical key order, the
 * ForeignCluster and run-metadata tables, which label parts vary, durations. Pure, no I/O.
 */
import type { CheckResult } from "../checks/types.ts";
import { z } from "zod";
import {
  type DumpTable,
  type ForeignClusterRow,
  type Report,
  REPORT_KEYS,
  REPORT_SHAPE,
  ReportSchema,
  type ReportSummary,
} from "./schema.ts";

/** Counts results per status, plus the total. */
export function summarize(results: readonly Pick<CheckResult, "status">[]): ReportSummary {
  const s: ReportSummary = { pass: 0, warn: 0, fail: 0, skip: 0, unknown: 0, total: results.length };
  for (const r of results) s[r.status]++;
  return s;
}

/** The report with keys in schema order (stable output); returned unchanged if it does not validate. */
export function canonical(report: Report): Report {
  const parsed = ReportSchema.safeParse(report);
  return parsed.success ? parsed.data : report;
}

/**
 * What a report is about, for its title: the local cluster (`check`), or the would-be consumer and
 * provider (`preflight`: two clusters, no peering yet). Null when no cluster was named.
 */
export function reportSubject(
  report: Pick<Report, "clusters" | "preflight">,
): { kind: string; about: string | null } {
  if (report.preflight) {
    return { kind: "preflight", about: `${report.preflight.consumer} → ${report.preflight.provider}` };
  }
  const local = report.clusters.find((c) => c.role === "local")?.name ?? report.clusters[0]?.name;
  return { kind: "report", about: local || null };
}

/** One top-level entry of the report in schema order: its value, or the elements of a long array. */
export type CanonicalEntry =
  | { key: string; value: unknown }
  | { key: string; elements: Generator<unknown>; length: number };

/** The top-level arrays handed out element by element (the ones that grow with the peers). */
const LONG_ARRAYS: ReadonlySet<string> = new Set(["results", "peers", "cheatSheet"]);

/**
 * {@link canonical}, piece by piece: each top-level value of the report in schema order, and each
 * element of the long arrays (results, peers, cheat sheet) put in order only when it is asked for —
 * so printing a report over thousands of peers never holds a second copy of it. A piece that does
 * not fit its schema comes as it is; absent keys are left out.
 */
export function* canonicalEntries(report: Report): Generator<CanonicalEntry> {
  const raw = report as unknown as Record<string, unknown>;
  const fit = (schema: z.ZodType, v: unknown): unknown => {
    const parsed = schema.safeParse(v);
    return parsed.success ? parsed.data : v;
  };
  for (const key of REPORT_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    const schema = REPORT_SHAPE[key];
    if (LONG_ARRAYS.has(key) && Array.isArray(value) && schema instanceof z.ZodArray) {
      const element = schema.element as z.ZodType;
      yield {
        key,
        length: value.length,
        elements: (function* () {
          for (const v of value) yield fit(element, v);
        })(),
      };
      continue;
    }
    const part = fit(schema, value);
    if (part !== undefined) yield { key, value: part };
  }
}

/** The ForeignCluster rows as a titled table (module column: `name ✓/✗ cond=status…`). */
export function foreignClusterTable(rows: readonly ForeignClusterRow[]): DumpTable {
  return {
    title: "ForeignClusters",
    columns: ["Cluster", "Name", "Role", "Age", "Modules"],
    rows: rows.map((fc) => [
      fc.cluster,
      fc.name,
      fc.role,
      fc.age,
      fc.modules.map((m) => {
        const conds = m.conditions.map((c) => `${c.type}=${c.status}${c.since ? ` (since ${c.since})` : ""}`);
        return `${m.name}${m.enabled ? "" : " (disabled)"}${conds.length ? `: ${conds.join(", ")}` : ""}`;
      }).join("; "),
    ]),
  };
}

/**
 * The run metadata as tables: the clusters (name, role, ID, context, API server, Kubernetes and
 * Liqo versions, Liqo namespace), then the peers (cluster, peer ID, role, tenant namespace) when there are any.
 */
export function runTables(report: Pick<Report, "clusters" | "peers" | "preflight">): DumpTable[] {
  // A preflight's two clusters are the would-be consumer and provider, not a local and a remote end.
  const role = (r: string) => report.preflight ? (r === "local" ? "consumer" : "provider") : r;
  const tables: DumpTable[] = [{
    title: "Clusters",
    columns: ["Cluster", "Role", "Cluster ID", "Context", "API server", "Kubernetes", "Liqo", "Namespace"],
    rows: report.clusters.map((c) => [
      c.name,
      role(c.role),
      c.clusterId ?? "—",
      c.context,
      c.server,
      c.serverVersion ?? "—",
      c.liqoVersion ?? (c.liqoUnreadable ? "unknown" : "—"),
      c.liqoNamespace ?? (c.liqoUnreadable ? "unknown" : "—"),
    ]),
  }];
  if (report.peers.length) {
    tables.push({
      title: "Peers",
      columns: ["Cluster", "Peer", "Role", "Tenant namespace"],
      rows: report.peers.map((p) => [p.cluster, p.clusterId, p.role, p.tenantNamespace ?? "—"]),
    });
  }
  return tables;
}

/** Which label parts vary across the results: more than one cluster, more than one peer. */
export function varyingScopes(
  results: readonly Pick<CheckResult, "cluster" | "peer">[],
): { cluster: boolean; peer: boolean } {
  const clusters = new Set(results.map((r) => r.cluster));
  const peers = new Set(results.flatMap((r) => (r.peer === null ? [] : [r.peer])));
  return { cluster: clusters.size > 1, peer: peers.size > 1 };
}

/** Formats a duration in ms as `850ms` / `4.8s` / `2m03s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
