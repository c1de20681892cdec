/**
 * The active-scenario matrix as a whole (the scenarios themselves run in the shard files
 * tests/e2e/matrix/shard_<k>_test.ts, whose guard checks every scenario lands in exactly one): a
 * PASSIVE run of every active scenario stays read-only — the same GET-only, listed-once request-log assertion as the passive matrix, on the
 * fake servers that learned writes.
 */
import assert from "node:assert/strict";
import { activeScenarios, probeObjects } from "./active_matrix.ts";
import { activeScenariosRoot, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { createLiveSource } from "../../kube/live/source.ts";
import { diagnoseSources, runOptionsFrom } from "../../cli/check.ts";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { assertPassiveAndListedOnce } from "./scenario_matrix.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "a passive check of every active scenario issues GETs only (each list once)",
  ...sanitizers,
  fn: async () => {
    const options = runOptionsFrom({ networkProbes: false, sampleInterval: SAMPLE_INTERVAL, timeout: "30s" });
    for (const name of await activeScenarios()) {
      // In process, plain HTTP: what is judged is the request log; the same product code runs.
      const s = await loadScenario(name, activeScenariosRoot());
      const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
      try {
        const open = (c: string) =>
          createLiveSource({ kubeconfigYaml: served.kubeconfigYaml(c), context: c });
        const local = await open(s.run.local);
        const remote = s.run.remote ? { source: await open(s.run.remote) } : null;
        try {
          const report = await diagnoseSources(local, remote, options, undefined);
          assert.equal(report.active, undefined, `${name}: a passive run has no active block`);
          assert.ok(
            report.results.every((r) => r.layer !== "probe"),
            `${name}: a passive run has no probe result`,
          );
        } finally {
          await local.close();
          await remote?.source.close();
        }
        for (const c of Object.values(served.clusters)) if (c) assertPassiveAndListedOnce(name, c);
      } finally {
        await served.close();
      }
    }
  },
});

Deno.test({
  name:
    "demo --active <name> runs check --active on the scenario and shows the matrix with the bad node; alone it lists",
  ...sanitizers,
  fn: async () => {
    const [run, list] = await Promise.all([
      runCli(["demo", "--active", "remote-node-blackholed"]),
      runCli(["demo", "--active"]),
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stdout, /demo: active\/remote-node-blackholed/);
    assert.match(run.stdout, / CONTROL PLANE\n[\s\S]* ACTIVE PROBES\n/, "passive catalog, then the probes");
    assert.match(run.stdout, /rome-worker-1 +✓ +✗\n +rome-worker-2 +✓ +✗\n/, run.stdout);
    assert.match(run.stdout, /Removed\n/);
    // FAB-03's active half: milan-worker-2 is red both ways while milan reaches it — its Geneve path.
    assert.match(
      run.stdout,
      /diagnosis ✗ FAB-03 \[FABRIC\] milan-8d1f03 · peer rome-4b2a9e: active: from milan-worker-2/,
    );
    assert.match(run.stdout, /also failing: ✗ PROBE-MATRIX/);
    assert.equal(list.code, 0, list.stderr);
    for (const name of await activeScenarios()) assert.match(list.stdout, new RegExp(`^${name} `, "m"));
  },
});

Deno.test({
  name:
    "check --active --probes matrix: the passive catalog, then PROBE-MATRIX, one report, FAB-03 amended by it; nothing left",
  ...sanitizers,
  fn: async () => {
    const s = await loadScenario("remote-node-blackholed", activeScenariosRoot());
    const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
    const dir = await Deno.makeTempDir({ prefix: "ff-check-active-" });
    try {
      await Deno.writeTextFile(`${dir}/l.yaml`, served.kubeconfigYaml(s.run.local));
      await Deno.writeTextFile(`${dir}/r.yaml`, served.kubeconfigYaml(s.run.remote!));
      const r = await runCli([
        "check",
        "--active",
        "--probes",
        "matrix",
        "--kubeconfig",
        `${dir}/l.yaml`,
        "--remote-kubeconfig",
        `${dir}/r.yaml`,
        "--no-network-probes",
        "--sample-interval",
        SAMPLE_INTERVAL,
        "-o",
        "json",
      ]);
      assert.equal(r.code, 2, r.stderr);
      const report = JSON.parse(r.stdout);
      const layers = report.results.map((x: { layer: string }) => x.layer);
      assert.ok(layers.includes("tunnel") && layers.at(-1) === "probe", "passive results, then the probe");
      assert.deepEqual(
        report.results.filter((x: { layer: string }) => x.layer === "probe").map((x: { id: string }) => x.id),
        ["PROBE-MATRIX"],
      );
      // One FAB-03 per cluster, amended in place by the matrix: milan's fails naming the node (and
      // leads the diagnosis, PROBE-MATRIX also failing); rome's keeps its pass, with the active line.
      const fab03 = report.results.filter((x: { id: string }) => x.id === "FAB-03");
      assert.deepEqual(
        fab03.map((x: { cluster: string; status: string }) => `${x.cluster} ${x.status}`),
        ["rome-4b2a9e pass", "milan-8d1f03 fail"],
      );
      assert.match(fab03[1].summary, /^active: from milan-worker-2 nothing reaches rome-4b2a9e/);
      assert.ok(
        fab03[0].evidence.includes(
          "active: every probed node of rome-4b2a9e reached milan-8d1f03 through its Geneve path (PROBE-MATRIX)",
        ),
        fab03[0].evidence.join("\n"),
      );
      assert.equal(report.diagnosis.id, "FAB-03");
      assert.equal(report.diagnosis.cluster, "milan-8d1f03");
      assert.deepEqual(report.diagnosis.alsoFailing.map((x: { id: string }) => x.id), ["PROBE-MATRIX"]);
      assert.deepEqual(report.active.probes, ["matrix"]);
      assert.ok(report.active.cleanup.every((c: { status: string }) => c.status === "removed"));
      for (const c of Object.values(served.clusters)) if (c) assert.deepEqual(probeObjects(c.objects()), []);
    } finally {
      await served.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
