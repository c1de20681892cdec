/**
 * Completion through the CLI: `flyingfish __complete <words…>` in Cobra's protocol, and the
 * `bin/kubectl_complete-flyingfish` kubectl (≥1.26) runs for `kubectl flyingfish <TAB>`. A fake
 * `kubectl` on PATH logs its arguments, so the kubeconfig typed on the line is seen to be used.
 */
import assert from "node:assert/strict";
import { CLI_PERMISSIONS, runCli } from "./harness.ts";

const BIN = decodeURIComponent(new URL("../../bin/", import.meta.url).pathname);

async function withFakeKubectl<T>(fn: (dir: string, env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "ff-complete-" });
  try {
    await Deno.writeTextFile(
      `${dir}/kubectl`,
      `#!/bin/sh\necho "$*" >> '${dir}/argv'\ncase "$*" in\n  *get-contexts*) echo rome; echo milan ;;\n  *foreignclusters*) printf 'milan-8d1f03 paris-5c3e71' ;;\nesac\n`,
    );
    await Deno.chmod(`${dir}/kubectl`, 0o755);
    return await fn(dir, { PATH: `${dir}:${Deno.env.get("PATH")}` });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const lines = (s: string) => s.trimEnd().split("\n");

Deno.test("__complete: IDs in any case and layers for --only, no file completion; files for --kubeconfig", async () => {
  const only = await runCli(["__complete", "check", "--only", "tun-0"]);
  assert.equal(only.code, 0, only.stderr);
  const got = lines(only.stdout);
  assert.equal(got.at(-1), ":4", "no file completion");
  assert.ok(got.includes("TUN-02") && got.every((l) => l === ":4" || l.startsWith("TUN-0")), only.stdout);
  const comma = lines((await runCli(["__complete", "check", "--skip", "TUN-02,gatew"])).stdout);
  assert.deepEqual(comma, ["TUN-02,gateway", ":4"]);
  const file = lines((await runCli(["__complete", "check", "--kubeconfig", ""])).stdout);
  assert.deepEqual(file, [":0"], "a kubeconfig is a file: the shell's file completion");
  const explain = lines((await runCli(["__complete", "explain", "gw-0"])).stdout);
  assert.ok(explain.includes("GW-01") && explain.at(-1) === ":4", explain.join(" "));
});

Deno.test("kubectl_complete-flyingfish: contexts and peers from the kubeconfig on the line", async () => {
  await withFakeKubectl(async (dir, env) => {
    const ctx = await runCli(["__complete", "check", "--kubeconfig", "rome.yaml", "--context", ""], {
      env,
      permissions: [...CLI_PERMISSIONS, "--allow-run=kubectl"],
    });
    assert.deepEqual(lines(ctx.stdout), ["rome", "milan", ":4"], ctx.stderr);
    // The plugin's completion script, as kubectl runs it (bin/flyingfish grants --allow-run=kubectl).
    const out = await new Deno.Command(`${BIN}kubectl_complete-flyingfish`, {
      args: ["check", "--kubeconfig=rome.yaml", "--context", "rome", "--peer", "milan-8d1f03,p"],
      env: { ...env, DENO: Deno.execPath() },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.deepEqual(lines(stdout), ["milan-8d1f03,paris-5c3e71", ":4"]);
    const argv = lines(await Deno.readTextFile(`${dir}/argv`));
    assert.deepEqual(argv, [
      "--kubeconfig rome.yaml config get-contexts -o name",
      "--kubeconfig rome.yaml --context rome get foreignclusters.core.liqo.io -o jsonpath={.items[*].metadata.name}",
    ]);
  });
});
