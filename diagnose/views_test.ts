/** Peers whose ForeignCluster does not fit its view: kept, flagged, and their checks unknown. */
import assert from "node:assert/strict";
import { runDiagnosis } from "./run.ts";
import { baseObjects, find, TEST_OPTIONS } from "../tests/support/fixtures.ts";
import { listsOf, memorySource } from "../tests/support/fuzz.ts";
import { probes } from "../tests/support/tunnel_checks.ts";
import { REMOTE_ID_LABEL, TENANT_NAMESPACE_LABEL } from "../liqo/names.ts";

Deno.test("a malformed ForeignCluster keeps its peer; the peer's checks are unknown naming the field", async () => {
  // Shrunk by tests/fuzz/objects_fuzz_test.ts: a module condition whose status is an array made the
  // ForeignCluster fail its view, and the peer silently disappeared from the run.
  const rome = await baseObjects("rome");
  const fc = find(rome, "ForeignCluster", "milan-8d1f03");
  const mod = Object.values(fc.status.modules).find((m) =>
    (m as { conditions?: unknown[] }).conditions?.length
  );
  (mod as { conditions: { status: unknown }[] }).conditions[0].status = ["True"];
  const report = await runDiagnosis({
    local: memorySource(listsOf(rome), "rome"),
    options: TEST_OPTIONS,
    probes: () => probes(),
  });
  assert.deepEqual(report.peers.map((p) => p.clusterId), ["milan-8d1f03"]);
  const perPeer = report.results.filter((r) => r.peer === "milan-8d1f03");
  assert.ok(perPeer.length > 10);
  for (const r of perPeer) assert.ok(r.status === "unknown" || r.status === "skip", `${r.id}: ${r.status}`);
  const fc01 = perPeer.find((r) => r.id === "FC-01")!;
  assert.equal(fc01.status, "unknown");
  assert.match(
    fc01.summary,
    /^malformed foreignclusters on rome-4b2a9e: milan-8d1f03 — status\.modules\.\w+\.conditions\.0\.status: /,
  );
  // The report still validates and says the peering dump was built from partial data.
  assert.match(report.incomplete.map((g) => g.reason).join("\n"), /malformed foreignclusters on rome-4b2a9e/);
});

Deno.test("ForeignClusters forbidden: peers found by labels are listed, every check of theirs unknown naming the read (a stale tenant namespace is no broken peer)", async () => {
  const rome = await baseObjects("rome");
  // A tenant namespace left behind by a peering that is gone: with the ForeignClusters readable it
  // is no peer at all; unreadable, it must not become a "broken peer" (GW-01 fail, exit 2).
  rome.push({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: "liqo-tenant-paris-0a0a0a",
      labels: { [REMOTE_ID_LABEL]: "paris-0a0a0a", [TENANT_NAMESPACE_LABEL]: "true" },
    },
  });
  const base = memorySource(listsOf(rome), "rome");
  const clean = await runDiagnosis({ local: base, options: TEST_OPTIONS, probes: () => probes() });
  assert.deepEqual(clean.peers.map((p) => p.clusterId), ["milan-8d1f03"]);
  assert.ok(clean.exitCode < 2, "the stale namespace is debris (a warning at most), not a failed peering");
  const local = {
    ...base,
    list: (spec: Parameters<typeof base.list>[0]) =>
      spec.plural === "foreignclusters"
        ? Promise.resolve({ ok: false as const, reason: "forbidden" as const, message: "RBAC: forbidden" })
        : base.list(spec),
  };
  const report = await runDiagnosis({ local, options: TEST_OPTIONS, probes: () => probes() });
  assert.deepEqual(report.peers.map((p) => p.clusterId).sort(), ["milan-8d1f03", "paris-0a0a0a"]);
  for (const peer of ["milan-8d1f03", "paris-0a0a0a"]) {
    const perPeer = report.results.filter((r) => r.peer === peer);
    assert.ok(perPeer.length > 10);
    for (const r of perPeer) {
      assert.ok(
        r.status === "unknown" || (r.status === "skip" && r.skipKind !== "not-applicable"),
        `${r.id}#${peer}: ${r.status} ${r.summary}`,
      );
      if (r.status === "unknown") assert.match(r.summary, /forbidden: foreignclusters on rome/);
    }
  }
  assert.equal(report.exitCode, 1, "unknown, not a failed peering");
});

Deno.test("read plan: every check that reads pods or configmaps says where; a kind read everywhere needs no narrower request", async () => {
  const { PASSIVE_CHECKS: CATALOG } = await import("../checks/catalog.ts");
  const { planFor } = await import("./views.ts");
  for (const c of CATALOG) {
    for (const k of ["pods", "configmaps"] as const) {
      if ([...c.reads, ...(c.optionalReads ?? [])].includes(k)) {
        assert.ok(c.readsIn?.[k]?.length, `${c.id} reads ${k} without saying where (readsIn)`);
      }
    }
  }
  const plan = planFor([
    { reads: ["pods"], readsIn: { pods: ["tenants"] } },
    { reads: ["services"], readsIn: { services: ["liqo"] } },
    { reads: ["services"] },
  ]);
  assert.deepEqual([...plan.get("pods")!], ["virtual-nodes", "gateways", "tenants"]);
  assert.deepEqual([...plan.get("services")!], ["cluster"]);
  // The scopes' inputs are read everywhere.
  for (
    const k of [
      "foreignclusters",
      "namespaces",
      "gatewayservers",
      "gatewayclients",
      "virtualnodes",
      "nodes",
    ] as const
  ) {
    assert.deepEqual([...plan.get(k)!], ["cluster"], k);
  }
});
