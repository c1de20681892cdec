/**
 * Unreadable is never absent, in the header too (issue 21): with Deployments forbidden the run cannot
 * find Liqo's controller-manager, so it may not say "Liqo not found" — it says Liqo's installation
 * could not be read, naming the kind and the status, on the header line and in the JSON document.
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { listPattern } from "./fault_support.ts";

Deno.test({
  name:
    "Deployments forbidden: the header says Liqo's installation could not be read (403), never 'Liqo not found'",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const s = await loadScenario("healthy-consumer");
    s.clusters[s.run.local].faults = [{ path: listPattern("deployments"), type: "status", status: 403 }];
    const served = await serveScenario(s, FAKE_CLOCK);
    const tmp = await Deno.makeTempDir({ prefix: "ff-liqo-unreadable-" });
    try {
      const kc = `${tmp}/kubeconfig`;
      await Deno.writeTextFile(kc, served.kubeconfigYaml(s.run.local));
      const r = await runCli([
        "check",
        "--kubeconfig",
        kc,
        "-o",
        "json",
        "--no-network-probes",
        "--sample-interval",
        SAMPLE_INTERVAL,
      ]);
      assert.ok(r.code === 1 || r.code === 2, `exit ${r.code}\n${r.stderr}`);
      // -o json puts the header on stderr: the same line the text report starts with.
      const header = r.stderr.split("\n").find((l) => l.trim().startsWith("cluster "));
      assert.ok(header, r.stderr);
      assert.doesNotMatch(header, /Liqo not found/);
      assert.match(header, /Liqo's installation could not be read \(deployments forbidden \(403\): /);
      const doc = JSON.parse(r.stdout);
      assert.equal(doc.clusters[0].liqoNamespace, null);
      assert.match(doc.clusters[0].liqoUnreadable, /^deployments forbidden \(403\): /);
    } finally {
      await served.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
