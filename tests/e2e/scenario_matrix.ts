/**
 * Every scenario in testdata/scenarios/, run through the real CLI against the fake API server
 * over HTTPS: the expected diagnosis, statuses and evidence are asserted, and so is passivity
 * (GET requests and exec upgrades only) and "each kind listed at most once per cluster per run".
 *
 * The scenarios are spread over the shard files tests/e2e/matrix/shard_<k>_test.ts (see shards.ts)
 * so that `deno test --parallel` runs them concurrently; this module is the one place defining the test.
 */
import assert from "node:assert/strict";
import { type FakeCluster, loadScenario } from "../../fakekube/mod.ts";
import { assertExpected, runScenario } from "./harness.ts";
import { assertAllFormats } from "./formats.ts";
import { assertTextLayout } from "./text_layout.ts";
import { assertDiagnosis, diagnosisExpectation } from "./diagnosis_expect.ts";

/**
 * Asserts a passive run: only GETs (exec is a GET upgrade), and each list — a (path, selectors),
 * namespaced lists included — requested once (continuation pages excepted).
 */
export function assertPassiveAndListedOnce(name: string, cluster: FakeCluster): void {
  const writes = cluster.requests.filter((r) => r.method !== "GET");
  assert.deepEqual(writes, [], `${name}/${cluster.name}: a passive run issued non-GET requests`);
  const lists = new Map<string, number>();
  for (const r of cluster.requests) {
    if (r.upgrade || r.path.endsWith("/log") || r.path.endsWith("/version")) continue;
    const q = new URLSearchParams(r.query);
    if (q.get("continue") || !q.has("limit")) continue; // later pages; discovery documents
    const key = `${r.path}?${q.get("labelSelector") ?? ""}&${q.get("fieldSelector") ?? ""}`;
    lists.set(key, (lists.get(key) ?? 0) + 1);
  }
  for (const [key, n] of lists) {
    assert.equal(n, 1, `${name}/${cluster.name}: ${key} listed ${n} times in one run`);
  }
}

/** Registers the scenario test of every scenario in `names` (one shard's share, see shards.ts). */
export async function registerScenarioTests(names: readonly string[]): Promise<void> {
  for (const name of names) await registerScenarioTest(name);
}

async function registerScenarioTest(name: string): Promise<void> {
  const scenario = await loadScenario(name);
  Deno.test({
    name: `scenario ${name}: ${scenario.description ?? ""}`.trim(),
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      // Plain HTTP: what is judged here is the diagnosis; HTTPS has its own tests (cli, golden, vantage).
      const run = await runScenario(name, { inProcess: true, tls: false });
      assert.ok(
        run.report,
        `${name}: no JSON report; exit ${run.code}\nstderr: ${run.stderr.slice(0, 2000)}\nstdout: ${
          run.stdout.slice(0, 500)
        }`,
      );
      assertExpected(scenario, run);
      const diagnosis = await diagnosisExpectation(name);
      if (diagnosis) assertDiagnosis(name, diagnosis, run);
      const keys = run.report.results.map((r: { id: string; cluster: string; peer: string | null }) =>
        `${r.id}@${r.cluster}#${r.peer ?? ""}`
      );
      assert.deepEqual(keys.filter((k: string, i: number) => keys.indexOf(k) !== i), [], "each result once");
      assertAllFormats(run.report, name);
      assertTextLayout(run.report, name);
      for (const c of Object.values(run.served.clusters)) if (c) assertPassiveAndListedOnce(name, c);
    },
  });
}
