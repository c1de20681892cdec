/**
 * A kubeconfig `server: https://user:password@host:6443` never shows its password: not on stderr,
 * not in `-o json`, not in the HTML report, not in a bundle's manifest (kube/display_url.ts).
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { checkArgs, opts, withTmp } from "./snapshot_matrix.ts";
import { readManifest, unpackBundle } from "../../kube/bundle.ts";

const USER = "ffuser-7c1d";
const PASSWORD = "ffSrvPassw0rd-93ab";

function assertNoUserinfo(what: string, text: string): void {
  assert.ok(!text.includes(PASSWORD), `${what}: the server URL's password is shown`);
  assert.ok(!text.includes(`${USER}:`), `${what}: the server URL's user is shown`);
}

Deno.test({
  name: "server URL userinfo: stripped from -o json, the HTML report and the collect manifest",
  ...opts,
  fn: () =>
    withTmp("ff-userinfo-", async (dir) => {
      const s = await loadScenario("healthy-consumer");
      const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
      const kc = `${dir}/local.kubeconfig`;
      const bundle = `${dir}/bundle.tar.gz`;
      try {
        const url = served.clusters[s.run.local]!.url;
        const withUserinfo = url.replace("https://", `https://${USER}:${PASSWORD}@`);
        await Deno.writeTextFile(kc, served.kubeconfigYaml(s.run.local).replace(url, withUserinfo));
        const [json, html, collect] = await Promise.all([
          runCli(["check", "--kubeconfig", kc, "-o", "json", ...checkArgs(s)]),
          runCli(["check", "--kubeconfig", kc, "-o", "html", ...checkArgs(s)]),
          runCli(
            ["collect", "--kubeconfig", kc, "--output-file", bundle, "--sample-interval", SAMPLE_INTERVAL],
            { permissions: [...CLI_PERMISSIONS, `--allow-write=${dir}`] },
          ),
        ]);
        assert.equal(json.code, s.expect.exitCode, json.stderr);
        assert.equal(JSON.parse(json.stdout).clusters[0].server, url);
        for (const [what, r] of [["json", json], ["html", html], ["collect", collect]] as const) {
          assertNoUserinfo(`${what} stdout`, r.stdout);
          assertNoUserinfo(`${what} stderr`, r.stderr);
        }
        assert.equal(collect.code, 0, collect.stderr);
        const files = await unpackBundle(await Deno.readFile(bundle));
        assert.equal(readManifest(files).clusters[0].server, url);
        for (const [path, data] of files) assertNoUserinfo(path, new TextDecoder().decode(data));
        // The offline report of that bundle names the server without credentials too.
        const offline = await runCli(["check", "--snapshot", bundle, "-o", "json", ...checkArgs(s)]);
        assert.equal(JSON.parse(offline.stdout).clusters[0].server, url);
      } finally {
        await served.close();
      }
    }),
});

Deno.test({
  name: "server URL userinfo: stripped from the one-line error on stderr of an unreachable server",
  ...opts,
  fn: () =>
    withTmp("ff-userinfo-", async (dir) => {
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (l.addr as Deno.NetAddr).port;
      l.close();
      const kc = `${dir}/down.kubeconfig`;
      await Deno.writeTextFile(
        kc,
        [
          "apiVersion: v1",
          "kind: Config",
          "clusters:",
          `- name: down\n  cluster:\n    server: http://${USER}:${PASSWORD}@127.0.0.1:${port}`,
          "    insecure-skip-tls-verify: true",
          "users:\n- name: down\n  user:\n    token: ff-token-0123456789",
          "contexts:\n- name: down\n  context:\n    cluster: down\n    user: down",
          "current-context: down",
          "",
        ].join("\n"),
      );
      const r = await runCli(["check", "--kubeconfig", kc, "-o", "json", "--no-network-probes"]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, new RegExp(`http://127\\.0\\.0\\.1:${port}`));
      assertNoUserinfo("stderr", r.stderr);
      assertNoUserinfo("stdout", r.stdout);
    }),
});
