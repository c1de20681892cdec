/** Peers whose ForeignCluster does not fit its view: kept, flagged, and their checks unknown. */
import assert from "node:assert/strict";
import { runDiagnosis } from "./run.ts";
import { baseObjects, find, TEST_OPTIONS } from "../tests/support/fixtures.ts";
import { listsOf, memorySource } from "../tests/support/fuzz.ts";
import { probes } from "../tests/support/tunnel_checks.ts";

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

Deno.test("ForeignClusters forbidden: peers come from the remote-cluster-id labels; FC checks unknown, others judge", async () => {
  const rome = await baseObjects("rome");
  const base = memorySource(listsOf(rome), "rome");
  const local = {
    ...base,
    list: (spec: Parameters<typeof base.list>[0]) =>
      spec.plural === "foreignclusters"
        ? Promise.resolve({ ok: false as const, reason: "forbidden" as const, message: "RBAC: forbidden" })
        : base.list(spec),
  };
  const report = await runDiagnosis({ local, options: TEST_OPTIONS, probes: () => probes() });
  assert.deepEqual(report.peers.map((p) => p.clusterId), ["milan-8d1f03"]);
  const of = (id: string) => report.results.find((r) => r.id === id && r.peer === "milan-8d1f03");
  assert.equal(of("FC-01")?.status, "unknown");
  assert.match(of("FC-01")?.summary ?? "", /forbidden: foreignclusters/);
  assert.equal(of("GW-01")?.status, "pass", "the gateway is still judged for the peer");
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
