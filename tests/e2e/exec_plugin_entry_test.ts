/**
 * Issue 21: a managed cluster (a kubeconfig whose user runs an exec credential plugin) works on the
 * FIRST run from every documented entry point: `deno task flyingfish`, bin/flyingfish,
 * bin/kubectl-flyingfish, the README's `deno install -g` line (all through cli/launch.ts, which grants
 * the plugins the kubeconfig names) and the bundle's shebang (`--allow-run`); bin/compile builds with
 * `--allow-run` (building needs the internet, so only its flags are checked). A locked-down run still
 * narrows: `FLYINGFISH_ALLOW_RUN=kubectl` through the launcher is the missing-permission line, exit 3.
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";
import { opts, REPO, run, show, withTmp } from "./dist_support.ts";

/** The kubeconfig of the served cluster with its token replaced by the exec plugin `plugin`. */
function withExecUser(yaml: string, token: string, plugin: string): string {
  const exec = [
    "exec:",
    "        apiVersion: client.authentication.k8s.io/v1",
    `        command: ${plugin}`,
    "        interactiveMode: Never",
  ].join("\n");
  const out = yaml.replace(`token: ${token}`, exec);
  assert.ok(!out.includes(token) && out.includes(plugin), out);
  return out;
}

/** The documented `deno install -g` line (docs/install.md, section "Install"). */
async function readmeInstallLine(): Promise<string> {
  const readme = await Deno.readTextFile(`${REPO}/docs/install.md`);
  const section = readme.split(/^## /m).find((s) => s.startsWith("Install"));
  const line = section?.split("\n").find((l) => /^\S*deno install -g /.test(l));
  assert.ok(line, 'docs/install.md "Install" has no `deno install -g` line');
  return line;
}

Deno.test({
  name:
    "exec credential plugin, first run: deno task, bin/flyingfish, kubectl-flyingfish, the install line and the bundle all pass",
  ...opts,
  fn: () =>
    withTmp(async (tmp) => {
      const s = await loadScenario("healthy-consumer");
      const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
      try {
        const cluster = served.clusters[s.run.local]!;
        const plugin = `${await Deno.realPath(tmp)}/fake-auth-plugin`;
        await Deno.writeTextFile(
          plugin,
          `#!/bin/sh\nprintf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${cluster.token}"}}'\n`,
        );
        await Deno.chmod(plugin, 0o755);
        const kc = `${tmp}/kubeconfig`;
        await Deno.writeTextFile(kc, withExecUser(served.kubeconfigYaml(s.run.local), cluster.token, plugin));
        const args = [
          "check",
          "--kubeconfig",
          kc,
          "--no-network-probes",
          "--sample-interval",
          SAMPLE_INTERVAL,
        ];
        const home = await Deno.makeTempDir({ dir: tmp, prefix: "home-" });
        const env = { HOME: home, DENO_INSTALL_ROOT: `${tmp}/root` };

        const [install, bundle] = await Promise.all([
          run("sh", ["-c", await readmeInstallLine()], { cwd: REPO, env }),
          run(`${REPO}/bin/bundle`, [`${tmp}/dist`], { cwd: tmp, env: { DENO: Deno.execPath() } }),
        ]);
        assert.equal(install.code, 0, show(install));
        assert.equal(bundle.code, 0, show(bundle));

        const entries: [string, string, string[]][] = [
          ["deno task flyingfish", Deno.execPath(), ["task", "--quiet", "flyingfish", ...args]],
          ["bin/flyingfish", `${REPO}/bin/flyingfish`, args],
          ["bin/kubectl-flyingfish", `${REPO}/bin/kubectl-flyingfish`, args],
          ["the README's install line", `${tmp}/root/bin/flyingfish`, args],
          ["the bundle's shebang", `${tmp}/dist/flyingfish.js`, args],
        ];
        const runs = await Promise.all(
          entries.map(([, cmd, a]) => run(cmd, a, { cwd: cmd === Deno.execPath() ? REPO : home, env })),
        );
        entries.forEach(([what], i) => {
          const r = runs[i];
          assert.equal(r.code, s.expect.exitCode, `${what}: ${show(r)}`);
          assert.doesNotMatch(r.stderr, /missing Deno permission/, `${what}: ${show(r)}`);
          assert.match(r.stdout, /passed/, `${what}: ${show(r)}`);
        });
        const tokens = cluster.requests.filter((q) => q.path === "/version" && q.status === 200);
        assert.ok(tokens.length >= entries.length, "every entry point authenticated with the plugin's token");

        // Locked down: the launcher grants only what FLYINGFISH_ALLOW_RUN names.
        const narrow = await run(`${REPO}/bin/flyingfish`, args, {
          cwd: home,
          env: { ...env, FLYINGFISH_ALLOW_RUN: "kubectl" },
        });
        assert.equal(narrow.code, 3, show(narrow));
        assert.match(narrow.stderr, new RegExp(`missing Deno permission --allow-run=${plugin} `));
      } finally {
        await served.close();
      }
    }),
});

Deno.test("compile: the binary is built with --allow-run (its permissions are fixed before any kubeconfig is known)", async () => {
  const script = await Deno.readTextFile(`${REPO}/bin/compile`);
  const line = script.split("\n").find((l) => /"\$deno" compile /.test(l));
  assert.ok(line, script);
  assert.match(line, / --allow-run( |$)/);
});
