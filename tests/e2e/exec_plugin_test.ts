/**
 * Issue 13: a kubeconfig whose user runs an exec credential plugin works from the documented entry
 * point. Without the plugin in --allow-run the CLI exits 3 with one line naming the command that
 * works; running exactly that command works (the fake plugin prints a token the fake server takes).
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";

/** A kubeconfig for `name` whose user gets its token from `plugin` (client.authentication.k8s.io/v1). */
function withExecUser(yaml: string, token: string, plugin: string): string {
  const exec = [
    "exec:",
    "        apiVersion: client.authentication.k8s.io/v1",
    `        command: ${plugin}`,
    "        interactiveMode: Never",
    "        provideClusterInfo: true",
  ].join("\n");
  const out = yaml.replace(`token: ${token}`, exec);
  assert.ok(!out.includes(token) && out.includes(plugin), out);
  return out;
}

Deno.test("exec credential plugin not in --allow-run: exit 3, one line with the command that works; that command works", async () => {
  const s = await loadScenario("healthy-consumer");
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "ff-exec-plugin-" }));
  try {
    const cluster = served.clusters[s.run.local]!;
    const plugin = `${dir}/fake-auth-plugin`;
    // The plugin checks that it was given the cluster's details, as provideClusterInfo asks.
    await Deno.writeTextFile(
      plugin,
      `#!/bin/sh
case "$KUBERNETES_EXEC_INFO" in *'"server":"${cluster.url}"'*) ;; *) echo "no cluster info" >&2; exit 1;; esac
printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${cluster.token}"}}'
`,
    );
    await Deno.chmod(plugin, 0o755);
    const kc = `${dir}/kubeconfig`;
    await Deno.writeTextFile(kc, withExecUser(served.kubeconfigYaml(s.run.local), cluster.token, plugin));
    const args = ["check", "--kubeconfig", kc, "--no-network-probes", "--sample-interval", SAMPLE_INTERVAL];

    const denied = await runCli(args, {
      permissions: ["--allow-env", "--allow-read", "--allow-net=127.0.0.1"],
    });
    assert.equal(denied.code, 3, denied.stdout + denied.stderr);
    // One error line (progress lines such as "connecting to …" may come before it).
    const lines = denied.stderr.trim().split("\n").filter((l) => l.startsWith("flyingfish:"));
    assert.equal(lines.length, 1, denied.stderr);
    assert.match(
      lines[0],
      new RegExp(`missing Deno permission --allow-run=${plugin} .*exec credential plugin`),
    );
    const command = /; run: (.*)$/.exec(lines[0])?.[1];
    assert.ok(command, lines[0]);
    assert.match(command, new RegExp(`--allow-run=kubectl,${plugin} `));
    assert.match(command, /--allow-net=127\.0\.0\.1 /);
    assert.ok(command.endsWith(args.join(" ")), command);
    assert.equal(cluster.requests.length, 0, "nothing was sent without credentials");

    // The printed command, as the user would paste it into a shell.
    const out = await new Deno.Command("sh", {
      args: ["-c", command],
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, s.expect.exitCode, stdout + stderr);
    assert.notEqual(out.code, 3);
    assert.match(stdout, /diagnosis|passed/);
    assert.ok(cluster.requests.some((r) => r.path === "/version" && r.status === 200));
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
});
