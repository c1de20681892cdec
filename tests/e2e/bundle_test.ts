/**
 * The single-file bundle (`deno task bundle`, bin/bundle): one JavaScript file that runs `demo`
 * (its scenarios loaded from beside it), `check`, `collect` and `report`, from a directory outside
 * the checkout.
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";
import { opts, REPO, run, show, withTmp } from "./dist_support.ts";

Deno.test({
  name: "bundle: one JavaScript file runs check, collect, report and demo from another directory",
  ...opts,
  fn: () =>
    withTmp(async (tmp) => {
      const out = `${tmp}/dist`;
      const build = await run(`${REPO}/bin/bundle`, [out], { cwd: tmp, env: { DENO: Deno.execPath() } });
      assert.equal(build.code, 0, show(build));
      const js = `${out}/flyingfish.js`;
      const elsewhere = await Deno.makeTempDir({ dir: tmp, prefix: "cwd-" });

      // demo: through the bundle's shebang, its scenarios loaded from beside it
      const demo = await run(js, ["demo", "dual-healthy"], { cwd: elsewhere });
      assert.equal(demo.code, 0, show(demo));
      assert.match(demo.stdout, /no failure found/, show(demo));

      const s = await loadScenario("dual-healthy");
      const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK }); // the bundle is the subject, not the transport
      try {
        const local = `${elsewhere}/local.kubeconfig`;
        const remote = `${elsewhere}/remote.kubeconfig`;
        await Deno.writeTextFile(local, served.kubeconfigYaml(s.run.local));
        await Deno.writeTextFile(remote, served.kubeconfigYaml(s.run.remote!));
        const bundle = (args: string[]) =>
          run(Deno.execPath(), [
            "run",
            "--allow-env",
            "--allow-read",
            "--allow-write",
            "--allow-net=127.0.0.1",
            js,
            ...args,
          ], { cwd: elsewhere });
        const kube = ["--kubeconfig", local, "--remote-kubeconfig", remote];
        const check = await bundle([
          "check",
          ...kube,
          "-o",
          "json",
          "--no-network-probes",
          "--sample-interval",
          SAMPLE_INTERVAL,
        ]);
        assert.equal(check.code, 0, show(check));
        assert.equal(JSON.parse(check.stdout).diagnosis, null);
        const collect = await bundle([
          "collect",
          ...kube,
          "--output-file",
          "peering.tar.gz",
          "-q",
          "--sample-interval",
          SAMPLE_INTERVAL,
        ]);
        assert.equal(collect.code, 0, show(collect));
        const report = await bundle(["report", "--snapshot", "peering.tar.gz", "-o", "html"]);
        assert.equal(report.code, 0, show(report));
        assert.match(report.stdout, /^<!doctype html>/i);
      } finally {
        await served.close();
      }
    }),
});
