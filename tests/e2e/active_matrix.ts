/**
 * Every active scenario (testdata/active/<name>/scenario.yaml) through the REAL CLI against the
 * fake API servers over HTTPS: `flyingfish <run.args> --kubeconfig … [--remote-kubeconfig …] -o json`
 * in a subprocess restricted to 127.0.0.1. Asserted: exit code, diagnosis, per-PROBE status,
 * evidence phrases, the red rows/columns of the local → remote matrix grid, and — from the servers'
 * state (`FakeCluster.objects()`), never from the CLI's output — that nothing labelled as
 * FlyingFish's is left in either cluster afterwards (a namespace the scenario keeps from going away
 * is the one exception: it must be Terminating and reported `stuck`).
 *
 * One CLI process per scenario; the scenarios are spread over the shard files
 * tests/e2e/matrix/shard_<k>_test.ts (see shards.ts) so `deno test --parallel` runs them concurrently.
 */
import assert from "node:assert/strict";
import {
  activeScenariosRoot,
  listScenarios,
  loadScenario,
  type Scenario,
  serveScenario,
} from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { PROBE_LABELS } from "../../active/model.ts";
import type { ActiveRunRecord, MatrixGrid } from "../../report/model.ts";
import { cellState } from "../../report/model.ts";
import { assertExpected, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";

/** The active scenarios, sorted. */
export function activeScenarios(): Promise<string[]> {
  return listScenarios(activeScenariosRoot());
}

/** Objects a probe run made: labelled managed-by=flyingfish, a flyingfish-probe-* namespace, or inside one. */
export function probeObjects(objects: readonly K8sObject[]): K8sObject[] {
  const ours = (ns: string | undefined) => ns?.startsWith("flyingfish-probe-") ?? false;
  return objects.filter((o) =>
    o.metadata.labels?.[PROBE_LABELS.managedBy] === PROBE_LABELS.managedByValue ||
    (o.kind === "Namespace" && ours(o.metadata.name)) || ours(o.metadata.namespace)
  );
}

function describeObj(o: K8sObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
}

/** The local → remote grid (not a control grid): what `expect.matrix` speaks of. */
function crossGrid(active: ActiveRunRecord | null | undefined, local: string): MatrixGrid | undefined {
  const grids = active?.matrix?.grids.filter((g) => !g.control) ?? [];
  return grids.find((g) => g.fromCluster !== g.toCluster && g.title.startsWith(local)) ?? grids[0];
}

/** Rows and columns whose every cell failed (TCP or UDP). */
export function redLines(g: MatrixGrid): { rows: string[]; cols: string[]; all: boolean } {
  const red = g.cells.map((row) => row.map((c) => cellState(c) === "fail"));
  const rows = g.rows.filter((_, i) => red[i].length > 0 && red[i].every(Boolean));
  const cols = g.cols.filter((_, j) => red.length > 0 && red.every((row) => row[j]));
  return { rows, cols, all: red.length > 0 && red.every((row) => row.every(Boolean)) };
}

function assertMatrix(
  s: Scenario,
  report: { active?: ActiveRunRecord | null; clusters: { name: string }[] },
): void {
  const want = s.expect.matrix;
  if (!want) return;
  const local = report.clusters[0]?.name ?? "";
  const g = crossGrid(report.active, local);
  assert.ok(g, `${s.name}: no local → remote matrix grid in the report`);
  const red = redLines(g);
  const ctx = `${s.name}: grid ${g.title}\n${
    g.rows.map((r, i) => `${r}: ${g.cells[i].map(cellState).join(" ")}`).join("\n")
  }`;
  if (want.allRed !== undefined) assert.equal(red.all, want.allRed, `${ctx}\n=> all red`);
  if (want.allRed) return;
  if (want.redRows) assert.deepEqual(red.rows, want.redRows, `${ctx}\n=> red rows`);
  if (want.redCols) assert.deepEqual(red.cols, want.redCols, `${ctx}\n=> red columns`);
}

/** Registers the test of one active scenario. */
export async function registerActiveScenarioTest(name: string): Promise<void> {
  const scenario = await loadScenario(name, activeScenariosRoot());
  Deno.test({
    name: `active scenario ${name}: ${scenario.description ?? ""}`.trim(),
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const served = await serveScenario(scenario, { tls: true, ...FAKE_CLOCK });
      const dir = await Deno.makeTempDir({ prefix: `ff-active-${name}-` });
      try {
        const flags = ["--kubeconfig", `${dir}/${scenario.run.local}.yaml`];
        await Deno.writeTextFile(flags[1], served.kubeconfigYaml(scenario.run.local));
        if (scenario.run.remote) {
          const remote = `${dir}/${scenario.run.remote}.yaml`;
          await Deno.writeTextFile(remote, served.kubeconfigYaml(scenario.run.remote));
          flags.push("--remote-kubeconfig", remote);
        }
        const extra = ["-o", "json", "--sample-interval", SAMPLE_INTERVAL];
        if (!scenario.run.networkProbes) extra.push("--no-network-probes");
        const r = await runCli([...scenario.run.args, ...flags, ...extra]);
        let report = null;
        try {
          report = JSON.parse(r.stdout);
        } catch {
          // asserted below
        }
        assert.ok(report, `${name}: no JSON document; exit ${r.code}\nstderr: ${r.stderr.slice(0, 3000)}`);
        const ctx = `${name}: exit ${r.code}\nstderr: ${r.stderr.slice(0, 3000)}`;
        if (r.code === 3) {
          // A tool error (pre-flight refused, bad flags): the error document, and nothing created.
          assert.equal(scenario.expect.exitCode, 3, ctx);
          assert.ok(report.error, `${ctx}\n=> an exit 3 prints the error document`);
          // `expect.evidence.error`: phrases the error must carry (e.g. the verb the pre-flight refused).
          for (const phrase of scenario.expect.evidence.error ?? []) {
            assert.ok(JSON.stringify(report.error).includes(phrase), `${ctx}\n=> error lacks "${phrase}"`);
          }
        } else {
          assertExpected(scenario, { code: r.code, report });
          if (scenario.run.args[0] === "probe") {
            // `probe` reports the PROBE results, and FAB-03 only when its active half (the matrix) failed it.
            for (const x of report.results) {
              assert.ok(
                x.layer === "probe" || (x.id === "FAB-03" && x.status === "fail"),
                `${ctx}\n=> probe reports only PROBE results (and a FAB-03 the probes failed): ${x.id} ${x.status}`,
              );
            }
          } else {
            // `check --active`: the passive catalog, then the probes, in one report.
            const layers: string[] = report.results.map((x: { layer: string }) => x.layer);
            assert.ok(
              layers.includes("fabric") && layers.at(-1) === "probe",
              `${ctx}\n=> passive, then probes`,
            );
          }
          assertMatrix(scenario, report);
        }
        // Hygiene, from the servers' state.
        const stuck = new Set<string>(
          (report.active?.cleanup ?? []).filter((c: { status: string }) => c.status === "stuck").map((
            c: { namespace: string },
          ) => c.namespace),
        );
        for (const [cluster, fake] of Object.entries(served.clusters)) {
          if (!fake) continue;
          const left = probeObjects(fake.objects()).filter((o) =>
            !(stuck.has(o.metadata.namespace ?? "") || (o.kind === "Namespace" && stuck.has(o.metadata.name)))
          );
          assert.deepEqual(left.map(describeObj), [], `${ctx}\n=> left in ${cluster}`);
          for (const ns of stuck) {
            const obj = fake.objects().find((o) => o.kind === "Namespace" && o.metadata.name === ns);
            if (obj) {
              assert.ok(
                obj.metadata.deletionTimestamp,
                `${ctx}\n=> ${cluster}: ${ns} reported stuck is not Terminating`,
              );
            }
          }
          if (scenario.expect.exitCode === 3) {
            // Refused before anything was created: no write but the access reviews.
            const writes = fake.requests.filter((q) =>
              q.method !== "GET" && !q.path.endsWith("/selfsubjectaccessreviews")
            );
            assert.deepEqual(
              writes.map((q) => `${q.method} ${q.path}?${q.query}`),
              [],
              `${ctx}\n=> ${cluster}: writes`,
            );
          }
        }
      } finally {
        await served.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

/** Registers every active scenario in `names` (one shard's share, see shards.ts). */
export async function registerActiveShare(names: readonly string[]): Promise<void> {
  for (const name of names) await registerActiveScenarioTest(name);
}
