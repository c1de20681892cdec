/**
 * An error shared by many checks (one unreadable kind) is printed once. (That every scenario's report
 * fits 80 and 100 columns, one header per layer in catalog order, is asserted by the scenario matrix
 * on the report it already has: tests/e2e/scenario_matrix.ts, text_layout.ts.)
 *
 * The reports come from the real pipeline in this process (fake API server over plain HTTP,
 * `openSources` + `diagnose` as `flyingfish check` runs them), rendered with `renderText` as
 * `diagnoseAndPrint` does: the CLI boundary adds nothing to a question of layout, and tty_test.ts
 * covers the terminal end to end.
 */
import assert from "node:assert/strict";
import { loadScenario, type Scenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";
import { renderText } from "../../render/text.ts";
import type { Report } from "../../report/model.ts";

/** Serves `s` and diagnoses it in this process, like `flyingfish check` with the scenario's flags. */
async function diagnoseScenario(s: Scenario): Promise<Report> {
  const { openSources, diagnoseSources, runOptionsFrom } = await import("../../cli/check.ts");
  const options = runOptionsFrom({
    networkProbes: s.run.networkProbes,
    sampleInterval: SAMPLE_INTERVAL,
    timeout: "30s",
  });
  const peerAt = s.run.args.indexOf("--peer");
  const peers = peerAt >= 0 ? [s.run.args[peerAt + 1]] : undefined;
  const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
  const dir = await Deno.makeTempDir({ prefix: `ff-width-${s.name}-` });
  try {
    const flags: { kubeconfig: string; remoteKubeconfig?: string } = {
      kubeconfig: `${dir}/local.kubeconfig`,
    };
    await Deno.writeTextFile(flags.kubeconfig, served.kubeconfigYaml(s.run.local));
    if (s.run.remote) {
      flags.remoteKubeconfig = `${dir}/remote.kubeconfig`;
      await Deno.writeTextFile(flags.remoteKubeconfig, served.kubeconfigYaml(s.run.remote));
    }
    const src = await openSources(flags, options.checkTimeoutMs);
    try {
      return await diagnoseSources(src.local, src.remote, options, peers);
    } finally {
      await src.local.close();
      await src.remote?.source?.close();
    }
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const opts = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "text: one unreadable kind (gatewayclients forbidden) — its error is printed once, the checks it " +
    "blocks point at it",
  ...opts,
  fn: async () => {
    const s = await loadScenario("healthy-consumer");
    s.clusters[s.run.local].forbid.push("gatewayclients");
    const report = await diagnoseScenario(s);
    const message = 'cannot list resource "gatewayclients"';
    const unknown = report.results.filter((r) => r.status === "unknown" && r.summary.includes(message));
    assert.ok(unknown.length >= 3, `checks reading gatewayclients: ${unknown.map((r) => r.id)}`);
    for (const width of [80, 100]) {
      const out = renderText(report, { color: false, verbose: false, quiet: false, width });
      assert.equal(out.replace(/\n +/g, " ").split(message).length - 1, 1, out);
      const refs = out.split("\n").filter((l) => l.includes("same error as"));
      assert.equal(refs.length, unknown.length - 1, out);
      assert.ok(refs.every((l) => l.includes(`same error as ${unknown[0].id}`)), refs.join("\n"));
    }
  },
});
