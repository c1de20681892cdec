/**
 * Through the real CLI: with the default kubeconfig ($KUBECONFIG, no --kubeconfig) every remediation
 * command names its cluster by `--context` alone, the report records the command line, and the
 * probe host is there with --allow-sys (hostname) and null without it — never a prompt. The
 * `--kubeconfig` and dual-mode (`--remote-kubeconfig`) spellings are pinned by the goldens.
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";

interface Step {
  command: string | null;
  comment: string | null;
}

Deno.test({
  name: "CLI: default kubeconfig → remediation commands name the cluster with --context alone; host recorded",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await loadScenario("gw-lb-pending");
    const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
    const tmp = await Deno.makeTempDir({ prefix: "ff-remediation-" });
    try {
      const kubeconfig = `${tmp}/config`;
      await Deno.writeTextFile(kubeconfig, served.kubeconfigYaml(s.run.local));
      const args = ["check", "-o", "json", "--no-network-probes", "--sample-interval", SAMPLE_INTERVAL];
      const [plain, withSys] = await Promise.all([
        runCli(args, { env: { KUBECONFIG: kubeconfig } }),
        runCli(args, {
          env: { KUBECONFIG: kubeconfig },
          permissions: [...CLI_PERMISSIONS, "--allow-sys=hostname"],
        }),
      ]);
      assert.equal(plain.code, 2, plain.stderr);
      const report = JSON.parse(plain.stdout);
      assert.equal(report.schemaVersion, "2");
      assert.deepEqual(report.invocation, {
        commandLine: `flyingfish ${args.join(" ")}`,
        host: null,
        kubeconfig: { local: null, remote: null },
      });
      const gw02 = report.results.find((r: { id: string }) => r.id === "GW-02");
      const commands = (gw02.remediation as Step[]).flatMap((x) => x.command ?? []);
      assert.ok(commands.length >= 2, JSON.stringify(gw02.remediation));
      for (const c of commands) {
        assert.match(c, /^(kubectl|liqoctl) --context milan /, c);
        assert.ok(!c.includes("--kubeconfig"), c);
      }
      assert.deepEqual(report.diagnosis.remediation, gw02.remediation);
      assert.equal(JSON.parse(withSys.stdout).invocation.host, Deno.hostname());
      assert.ok(!/prompt|NotCapable|Requires sys access/i.test(plain.stderr + withSys.stderr), plain.stderr);
    } finally {
      await served.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
