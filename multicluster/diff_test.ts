import assert from "node:assert/strict";
import type { FleetCluster, FleetEdge, FleetReport } from "../report/fleet.ts";
import { fleetDiffJsonSchema, FleetDiffReportSchema } from "../report/fleet_diff.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import { renderFleetDiff } from "../render/fleet_diff.ts";
import { FORMATS } from "../render/render.ts";
import { alignRoles, diffFleets, type FleetSide } from "./diff.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";

const cluster = (name: string, error: string | null = null): FleetCluster => ({
  name,
  clusterId: error ? null : name,
  identity: "cluster-id",
  context: error ? null : `ctx-${name}`,
  contexts: [`ctx-${name}`],
  chosenBecause: null,
  server: `https://${name}`,
  ca: "system",
  error,
  liqoVersion: "v1.2.0",
  serverVersion: null,
  edges: [],
  report: null,
});

const edge = (id: string, ends: [string, string], over: Partial<FleetEdge> = {}): FleetEdge => ({
  id,
  class: "orphan",
  reason: "r",
  consumer: null,
  provider: null,
  ends,
  direction: "unknown",
  network: { server: null, client: null },
  verdict: "warn",
  exitCode: 1,
  firstBroken: null,
  finding: null,
  report: null,
  ...over,
});

const side = (label: string, clusters: FleetCluster[], edges: FleetEdge[]): FleetSide => ({
  label,
  mode: "snapshot",
  takenAt: "2026-01-01T00:00:00Z",
  captures: new Map(),
  report: {
    schemaVersion: "1",
    kind: "fleet",
    tool: { name: "flyingfish", version: "0" },
    generatedAt: "2026-01-01T00:00:00Z",
    invocation: null,
    contexts: clusters.map((c) => `ctx-${c.name}`),
    clusters,
    edges: Object.fromEntries(edges.map((e) => [e.id, e])),
    summary: {
      clusters: clusters.length,
      unreadable: 0,
      contexts: clusters.length,
      edges: edges.length,
      byClass: { paired: 0, "half-visible": 0, asymmetric: 0, orphan: 0 },
      byVerdict: { pass: 0, warn: 0, fail: 0, unknown: 0 },
    },
    exitCode: 1,
    durationMs: 1,
  } satisfies FleetReport,
});

const asym = {
  id: "FLEET-ASYM" as const,
  status: "fail" as const,
  summary: "a records b",
  evidence: [],
  remediation: [],
};

Deno.test("diffFleets: edges by their ends (an id that changed is the same edge), clusters by ID; what came, went or newly fails", () => {
  const before = side("b.tar.gz", [cluster("a"), cluster("b"), cluster("c")], [
    edge("a–b", ["a", "b"], { class: "half-visible", verdict: "pass", exitCode: 0 }),
    edge("c⇢x", ["c", "x"]),
  ]);
  const after = side("a.tar.gz", [cluster("b"), cluster("a"), cluster("d")], [
    // The same two ends, seen from the other side now, asymmetric.
    edge("b→a", ["b", "a"], {
      class: "asymmetric",
      verdict: "fail",
      exitCode: 2,
      finding: asym,
      firstBroken: { id: "FLEET-ASYM", summary: "a records b", cluster: "b" },
    }),
    edge("a→d", ["a", "d"], { class: "paired", verdict: "fail", exitCode: 2 }),
  ]);
  const d = diffFleets(before, after, PASSIVE_CHECKS, new Date(0));
  FleetDiffReportSchema.parse(d);
  assert.equal(d.exitCode, 2);
  const by = Object.fromEntries(d.edges.map((e) => [e.id, e]));
  assert.equal(by["b→a"].change, "kept");
  assert.equal(by["b→a"].exitCode, 2);
  assert.match(by["b→a"].changes.join("\n"), /class half-visible → asymmetric/);
  assert.match(by["b→a"].changes.join("\n"), /FLEET-ASYM fail: a records b/);
  assert.deepEqual([by["a→d"].change, by["a→d"].exitCode], ["added", 2]);
  assert.deepEqual([by["c⇢x"].change, by["c⇢x"].exitCode], ["removed", 1]);
  assert.deepEqual(d.edges.map((e) => e.exitCode), [2, 2, 1], "worst first");
  assert.deepEqual(
    d.clusters.map((c) => `${c.name} ${c.change} ${c.exitCode}`),
    ["b kept 0", "a kept 0", "d added 1", "c removed 1"],
  );
  assert.deepEqual(d.summary, {
    edges: 3,
    changed: 3,
    newlyFailing: 2,
    edgesAdded: 1,
    edgesRemoved: 1,
    clustersAdded: 1,
    clustersRemoved: 1,
  });
  for (const f of FORMATS) assert.match(renderFleetDiff(d, f, { color: false }), /b→a/, f);
  // Nothing moved: exit 0.
  const same = diffFleets(before, before, PASSIVE_CHECKS, new Date(0));
  assert.equal(same.exitCode, 0);
  assert.ok(same.edges.every((e) => e.change === "kept" && e.changes.length === 0));
});

Deno.test("the shipped schema/fleet-diff.v1.schema.json is the fleet diff's schema (`flyingfish schema --diff --fleet`)", async () => {
  const shipped = JSON.parse(
    await Deno.readTextFile(new URL("../schema/fleet-diff.v1.schema.json", import.meta.url)),
  );
  assert.deepEqual(shipped, JSON.parse(JSON.stringify(fleetDiffJsonSchema())), "run `deno task schema`");
});

Deno.test("alignRoles: an edge judged from its other end now keeps each cluster's role of before", () => {
  const base = sampleReport();
  const c = base.clusters[0];
  const before = { ...base, clusters: [{ ...c, name: "a" }, { ...c, name: "b", role: "remote" as const }] };
  const after = { ...base, clusters: [{ ...c, name: "b" }, { ...c, name: "a", role: "remote" as const }] };
  assert.deepEqual(alignRoles(before, after).clusters.map((x) => `${x.name} ${x.role}`), [
    "b remote",
    "a local",
  ]);
  assert.equal(alignRoles(before, before), before, "unchanged roles: the report itself");
});
