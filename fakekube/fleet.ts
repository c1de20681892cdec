/**
 * Fleets: many fake clusters in one process behind one merged kubeconfig (a context per cluster),
 * for fleet mode (`check --all-contexts`). A fleet (testdata/fleet/<name>.yaml) is made of
 * clusters of existing scenarios — CRD-valid data already — each optionally given new cluster IDs
 * by renaming them everywhere they appear (objects, tenant namespaces, pod names, WireGuard
 * state), so several copies of one peering can live side by side. Per cluster: extra contexts
 * (a second way to one cluster), a rejected token, a server that never answers, latency.
 */
import { parse, stringify } from "yaml";
import { z } from "zod";
import { buildClusterConfig, fleetRoot, loadScenario, readText } from "./scenario.ts";
import { type FakeCluster, startFakeCluster } from "./server.ts";

/** One cluster of a fleet file. */
export interface FleetCluster {
  scenario: string;
  cluster: string;
  rename: Record<string, string>;
  extraContexts: string[];
  refusedContexts: string[];
  rejectToken: boolean;
  hangMs?: number;
  latencyMs: number;
}

/** What a fleet file expects of one edge. */
export interface FleetEdgeExpect {
  class: "paired" | "half-visible" | "asymmetric" | "orphan";
  verdict: "pass" | "warn" | "fail" | "unknown";
  firstBroken: string | null;
  results: Record<string, string>;
  says: string[];
}

/** A fleet file (testdata/fleet/<name>.yaml) after validation. */
export interface FleetFile {
  description: string;
  clusters: Record<string, FleetCluster>;
  expect: {
    exitCode: number;
    clusters: number;
    edges: Record<string, FleetEdgeExpect>;
    errors: Record<string, string>;
    contexts: Record<string, string[]>;
  };
}

const FleetClusterSchema: z.ZodType<FleetCluster, unknown> = z.strictObject({
  /** The scenario (testdata/scenarios/<name>) and its cluster this fleet cluster serves. */
  scenario: z.string(),
  cluster: z.string(),
  /** Text renamed everywhere in the served objects and WireGuard state (e.g. a cluster ID). */
  rename: z.record(z.string(), z.string()).default({}),
  /** More contexts reaching this cluster (same server and CA), with their own user entry. */
  extraContexts: z.array(z.string()).default([]),
  /** Contexts before the cluster's own, reaching it with a token it rejects (401): a stale credential. */
  refusedContexts: z.array(z.string()).default([]),
  /** The kubeconfig carries a token the server rejects (401). */
  rejectToken: z.boolean().default(false),
  /** Every request is held back this long (a server that never answers). */
  hangMs: z.number().int().positive().optional(),
  latencyMs: z.number().int().nonnegative().default(0),
});

const FleetEdgeExpectSchema: z.ZodType<FleetEdgeExpect, unknown> = z.strictObject({
  class: z.enum(["paired", "half-visible", "asymmetric", "orphan"]),
  verdict: z.enum(["pass", "warn", "fail", "unknown"]),
  /** The first broken link's id (a check ID or FLEET-*), when the edge is not passing. */
  firstBroken: z.string().nullable().default(null),
  /** Check ID → expected status in the edge's report. */
  results: z.record(z.string(), z.string()).default({}),
  /** Substrings of the edge's reason or finding. */
  says: z.array(z.string()).default([]),
});

const FleetFileSchema: z.ZodType<FleetFile, unknown> = z.strictObject({
  description: z.string(),
  /** Fleet cluster name = its kubeconfig context. */
  clusters: z.record(z.string(), FleetClusterSchema),
  expect: z.strictObject({
    exitCode: z.number().int(),
    clusters: z.number().int(),
    edges: z.record(z.string(), FleetEdgeExpectSchema),
    /** Cluster name → substring of its error (unreadable clusters). */
    errors: z.record(z.string(), z.string()).default({}),
    /** Cluster name → the contexts that reach it, the one used first. */
    contexts: z.record(z.string(), z.array(z.string())).default({}),
  }),
});

/** Loads and validates testdata/fleet/<name>.yaml. */
export async function loadFleet(
  name: string,
  root: URL = fleetRoot(),
): Promise<FleetFile & { name: string }> {
  const url = new URL(`${name}.yaml`, root);
  const parsed = FleetFileSchema.safeParse(parse(await readText(url)));
  if (!parsed.success) throw new Error(`${url.href}: ${parsed.error.message}`);
  return { ...parsed.data, name };
}

/** A fleet being served. */
export interface ServedFleet {
  /** The running clusters by fleet name (null: none was started). */
  clusters: Record<string, FakeCluster | null>;
  /** One kubeconfig with a context per cluster (and the extra ones). */
  kubeconfigYaml: string;
  close(): Promise<void>;
}

function renamed<T>(v: T, rename: Record<string, string>): T {
  const pairs = Object.entries(rename);
  if (!pairs.length) return v;
  let text = JSON.stringify(v);
  for (const [from, to] of pairs) text = text.split(from).join(to);
  return JSON.parse(text) as T;
}

/** Starts every cluster of a fleet and writes their merged kubeconfig. */
export async function serveFleet(
  fleet: FleetFile,
  opts: { now?: Date; execClockStepSeconds?: number; latencyMs?: number } = {},
): Promise<ServedFleet> {
  const clusters: Record<string, FakeCluster | null> = {};
  const kc = { clusters: [] as unknown[], users: [] as unknown[], contexts: [] as unknown[] };
  try {
    for (const [name, c] of Object.entries(fleet.clusters)) {
      const s = await loadScenario(c.scenario);
      const cfg = await buildClusterConfig(s, c.cluster, opts.now);
      const served = await startFakeCluster({
        ...cfg,
        name,
        objects: renamed(cfg.objects, c.rename),
        wireguard: renamed(cfg.wireguard, c.rename),
        ...(cfg.logs ? { logs: renamed(cfg.logs, c.rename) } : {}),
        latencyMs: opts.latencyMs ?? (c.latencyMs || cfg.latencyMs),
        ...(c.hangMs ? { faults: [{ path: ".", type: "delay" as const, ms: c.hangMs }] } : {}),
        execClockStepSeconds: opts.execClockStepSeconds,
      });
      clusters[name] = served;
      const one = parse(served.kubeconfigYaml()) as {
        clusters: { name: string; cluster: unknown }[];
        users: { name: string; user: { token: string } }[];
      };
      const token = c.rejectToken ? "ff-rejected-token" : one.users[0].user.token;
      kc.clusters.push({ name, cluster: one.clusters[0].cluster });
      for (const ctx of c.refusedContexts) {
        kc.users.push({ name: ctx, user: { token: "ff-stale-token" } });
        kc.contexts.push({ name: ctx, context: { cluster: name, user: ctx } });
      }
      for (const ctx of [name, ...c.extraContexts]) {
        kc.users.push({ name: ctx, user: { token } });
        kc.contexts.push({ name: ctx, context: { cluster: name, user: ctx } });
      }
    }
  } catch (e) {
    await Promise.all(Object.values(clusters).map((c) => c?.close()));
    throw e;
  }
  const first = Object.keys(fleet.clusters)[0];
  return {
    clusters,
    kubeconfigYaml: stringify({ apiVersion: "v1", kind: "Config", ...kc, "current-context": first }),
    close: async () => {
      await Promise.all(Object.values(clusters).map((c) => c?.close()));
    },
  };
}
