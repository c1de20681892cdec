/**
 * Through the real CLI: with the default kubeconfig ($KUBECONFIG, no --kubeconfig) every remediation
 * command names its cluster by `--context` alone, the report records the command line, and the
 * probe host is there with --allow-sys (hostname) and null without it — never a prompt. The
 * `--kubeconfig` and dual-mode (`--remote-kubeconfig`) spellings are pinned by the goldens; a
 * `liqoctl peer` seen from the provider runs on the consumer (single run: a placeholder; dual run:
 * the consumer's kubeconfig, the provider's as `--remote-kubeconfig`).
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
        if (/^liqoctl \S.* peer /.test(c)) {
          // Peering runs on the consumer, outside this run (milan is the provider): a placeholder;
          // milan is the remote end, by its context (the file is the default kubeconfig, unnamed).
          assert.match(
            c,
            /^liqoctl --kubeconfig <consumer kubeconfig> peer --remote-kubeconfig <\S+ kubeconfig> --remote-context milan /,
            c,
          );
          continue;
        }
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

/** gw-lb-pending (milan, the provider, with its gateway LoadBalancer <pending>) with rome beside it. */
async function dualProviderScenario(root: string): Promise<void> {
  const src = new URL("../../testdata/scenarios/gw-lb-pending/", import.meta.url);
  const dir = `${root}/dual-provider-lb-pending`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.copyFile(new URL("milan.objects.yaml", src), `${dir}/milan.objects.yaml`);
  const scenario = await Deno.readTextFile(new URL("scenario.yaml", src));
  const clusters = scenario.replace(/^clusters:\n/m, "clusters:\n  rome:\n    base: rome\n");
  await Deno.writeTextFile(
    `${dir}/scenario.yaml`,
    clusters.replace(/^run:\n {2}local: milan\n/m, "run:\n  local: milan\n  remote: rome\n"),
  );
}

Deno.test({
  name: "CLI: GW-02 seen from the provider (dual run) prints a liqoctl peer that runs on the consumer",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "ff-remediation-dual-" });
    try {
      await dualProviderScenario(tmp);
      const s = await loadScenario("dual-provider-lb-pending", new URL(`file://${tmp}/`));
      assert.deepEqual([s.run.local, s.run.remote], ["milan", "rome"]);
      const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
      try {
        const milan = `${tmp}/milan.kubeconfig`, rome = `${tmp}/rome.kubeconfig`;
        await Deno.writeTextFile(milan, served.kubeconfigYaml("milan"));
        await Deno.writeTextFile(rome, served.kubeconfigYaml("rome"));
        const run = await runCli([
          "check",
          "-o",
          "json",
          "--no-network-probes",
          "--sample-interval",
          SAMPLE_INTERVAL,
          "--kubeconfig",
          milan,
          "--remote-kubeconfig",
          rome,
        ]);
        const report = JSON.parse(run.stdout);
        const milanId = report.clusters.find((c: { role: string }) => c.role === "local").name;
        const gw02 = report.results.find((r: { id: string; cluster: string; status: string }) =>
          r.id === "GW-02" && r.cluster === milanId
        );
        assert.equal(gw02?.status, "fail", run.stderr);
        const peers = (gw02.remediation as Step[]).flatMap((x) => x.command ?? []).filter((c) =>
          / peer /.test(c)
        );
        assert.ok(peers.length > 0, JSON.stringify(gw02.remediation));
        for (const c of peers) {
          // On the consumer (rome), naming the provider (milan) as the remote end: never milan's own kubeconfig.
          assert.match(c, /^liqoctl --kubeconfig \S*rome\.kubeconfig --context \S+ peer /, c);
          assert.match(c, / --remote-kubeconfig \S*milan\.kubeconfig --remote-context \S+ /, c);
          assert.ok(!c.startsWith(`liqoctl --kubeconfig ${milan}`), c);
        }
      } finally {
        await served.close();
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
