/** The library surface of mod.ts: `diagnose` like `flyingfish check`, `renderReport`, `listChecks`. */
import assert from "node:assert/strict";
import { diagnose, listChecks, renderReport } from "./mod.ts";
import { loadScenario, serveScenario } from "./fakekube/mod.ts";

/** Serves scenario `name` and diagnoses it through the library, as `check` would with its kubeconfigs. */
async function diagnoseScenario(name: string) {
  const s = await loadScenario(name);
  const served = await serveScenario(s, { tls: true, execClockStepSeconds: 1 });
  const dir = await Deno.makeTempDir({ prefix: "ff-mod-" });
  try {
    const kubeconfig = `${dir}/local.kubeconfig`;
    await Deno.writeTextFile(kubeconfig, served.kubeconfigYaml(s.run.local));
    let remoteKubeconfig: string | undefined;
    if (s.run.remote) {
      remoteKubeconfig = `${dir}/remote.kubeconfig`;
      await Deno.writeTextFile(remoteKubeconfig, served.kubeconfigYaml(s.run.remote));
    }
    return await diagnose({ kubeconfig, remoteKubeconfig, networkProbes: false, sampleIntervalMs: 100 });
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "mod: diagnose() returns the report of `check`, renderReport() prints it",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const report = await diagnoseScenario("gw-lb-pending");
    assert.equal(report.exitCode, 2);
    assert.equal(report.diagnosis?.id, "GW-02");
    assert.match(renderReport(report, "text"), /diagnosis ✗ GW-02/);
    assert.ok(!renderReport(report, "text").includes("\x1b["), "colour by default");
    assert.equal(JSON.parse(renderReport(report, "json")).diagnosis.id, "GW-02");
  },
});

Deno.test({
  name: "mod: an unreachable remote end is left out and said in the report, not thrown",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const report = await diagnoseScenario("dual-remote-unreachable");
    assert.equal(report.exitCode, 1);
    const env02 = report.results.find((r) => r.id === "ENV-02");
    assert.equal(env02?.status, "unknown");
    assert.match([env02?.summary, ...(env02?.evidence ?? [])].join("\n"), /remote cluster unavailable/);
  },
});

Deno.test("mod: listChecks() is the catalog, marking the checks that need both ends", async () => {
  const checks = await listChecks();
  assert.ok(checks.some((c) => c.id === "GW-02" && !c.needsRemote));
  assert.ok(checks.some((c) => c.id === "GW-04" && c.needsRemote));
});
