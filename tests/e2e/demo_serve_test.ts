/**
 * `flyingfish demo --serve [scenario]` through the CLI: the fake cluster(s) stay up on 127.0.0.1,
 * the printed kubeconfigs work for a real kubectl (the machine's, or Debian's `kubernetes-client`
 * that .ci/run installs where it can; skipped with a message where there is none) — it lists, gets
 * and execs `wg show` in a gateway pod — and the printed flyingfish commands run against them. Ctrl-C
 * stops it with exit 0 and removes the kubeconfigs; without --allow-write it is exit 3 naming it.
 */
import assert from "node:assert/strict";
import { CLI_PERMISSIONS, runCli } from "./harness.ts";

const PERMISSIONS = [...CLI_PERMISSIONS, "--allow-write"];
const REPO = new URL("../../", import.meta.url);

/** A running `demo --serve`: what it printed up to "Serving until Ctrl-C", and how to stop it. */
async function startDemoServe(args: string[]): Promise<{ text: string; stop(): Promise<number> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--frozen",
      "--config",
      decodeURIComponent(new URL("deno.json", REPO).pathname),
      ...PERMISSIONS,
      decodeURIComponent(new URL("cli/main.ts", REPO).pathname),
      "demo",
      "--serve",
      ...args,
    ],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("Serving until Ctrl-C")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`demo --serve ended before serving:\n${text}\n${await stderr}`);
    text += value;
  }
  const rest = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return {
    text,
    async stop() {
      child.kill("SIGINT");
      const { code } = await child.status;
      await rest;
      await stderr;
      return code;
    },
  };
}

/** The pasteable lines of the printout (two-space indent), by their first word. */
function pasted(text: string, first: string): string[][] {
  return text.split("\n").filter((l) => l.startsWith(`  ${first} `)).map((l) => l.trim().split(/\s+/));
}

/** kubectl's client minor version, or null where there is no kubectl. */
async function kubectlMinor(): Promise<number | null> {
  try {
    const out = await new Deno.Command("kubectl", {
      args: ["version", "--client", "-o", "json"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    if (!out.success) return null;
    const v = JSON.parse(new TextDecoder().decode(out.stdout)).clientVersion;
    return Number(String(v.minor).replace(/\D.*$/, ""));
  } catch {
    return null;
  }
}

async function kubectl(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const o = await new Deno.Command("kubectl", { args, env, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout) + dec.decode(o.stderr) };
}

Deno.test({
  name:
    "demo --serve dual-healthy: kubectl lists, gets and execs against the printed kubeconfig; the printed check and collect run; Ctrl-C removes the kubeconfigs",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const demo = await startDemoServe(["dual-healthy"]);
    const home = await Deno.makeTempDir({ prefix: "ff-demo-serve-home-" });
    let code: number | null = null;
    let kubeconfig = "";
    try {
      kubeconfig = /^\s+kubeconfig\s+(\S+)/m.exec(demo.text)?.[1] ?? "";
      const remote = /^\s+remote-kubeconfig\s+(\S+)/m.exec(demo.text)?.[1] ?? "";
      assert.ok(kubeconfig && remote, `both kubeconfigs printed:\n${demo.text}`);
      assert.match(Deno.readTextFileSync(kubeconfig), /server: https:\/\/127\.0\.0\.1:\d+/);
      assert.match(demo.text, new RegExp(`export KUBECONFIG=${kubeconfig}`));
      const env = { KUBECONFIG: kubeconfig, HOME: home, PATH: Deno.env.get("PATH") ?? "" };

      const minor = await kubectlMinor();
      if (minor === null) {
        console.log(
          "demo --serve: no kubectl on this machine (.ci/run installs Debian's kubernetes-client): kubectl part skipped",
        );
      } else {
        const pods = await kubectl(["get", "pods", "-A"], env);
        assert.equal(pods.code, 0, pods.out);
        assert.match(pods.out, /liqo-tenant-milan-\S+\s+gw-milan-/);
        const fcs = await kubectl(["get", "foreignclusters"], env);
        assert.equal(fcs.code, 0, fcs.out);
        assert.match(fcs.out, /^milan-\S+/m);
        const [exec] = pasted(demo.text, "kubectl").filter((w) => w[1] === "exec");
        assert.ok(exec, `a kubectl exec line:\n${demo.text}`);
        assert.deepEqual(exec.slice(-2), ["wg", "show"]);
        if (minor < 30) {
          // Before 1.30 kubectl execs over SPDY; the fake (like current API servers) speaks WebSocket.
          console.log(`demo --serve: kubectl 1.${minor} execs over SPDY only: the exec part skipped`);
        } else {
          const wg = await kubectl(exec.slice(1), env);
          assert.equal(wg.code, 0, wg.out);
          assert.match(wg.out, /interface: liqo-tunnel[\s\S]*peer: /);
        }
      }

      // The printed flyingfish commands, as pasted (KUBECONFIG exported), in a scratch directory.
      const [check] = pasted(demo.text, "flyingfish").filter((w) => w[1] === "check");
      const r = await runCli([...check.slice(1), "-o", "json"], { env: { KUBECONFIG: kubeconfig } });
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.equal(report.clusters.length, 2, "both ends checked");
      const [collect] = pasted(demo.text, "flyingfish").filter((w) => w[1] === "collect");
      const c = await runCli([...collect.slice(1), "-q"], {
        env: { KUBECONFIG: kubeconfig },
        permissions: PERMISSIONS,
        cwd: home,
      });
      assert.equal(c.code, 0, c.stderr);
      assert.ok(Deno.statSync(`${home}/demo-bundle.tar.gz`).size > 0);
      for (const cmd of ["watch", "report"]) {
        assert.ok(pasted(demo.text, "flyingfish").some((w) => w[1] === cmd), `a ${cmd} line`);
      }
    } finally {
      code = await demo.stop();
      await Deno.remove(home, { recursive: true });
    }
    assert.equal(code, 0, "Ctrl-C stops it cleanly");
    assert.throws(() => Deno.statSync(kubeconfig), Deno.errors.NotFound, "the kubeconfigs are removed");
  },
});

Deno.test({
  name: "demo --serve --active healthy: the printed probe command runs the probes against the served fake",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const demo = await startDemoServe(["--active", "healthy"]);
    try {
      const kubeconfig = /^\s+kubeconfig\s+(\S+)/m.exec(demo.text)?.[1] ?? "";
      const [probe] = pasted(demo.text, "flyingfish").filter((w) => w[1] === "probe");
      assert.ok(probe, `a probe line:\n${demo.text}`);
      const r = await runCli([...probe.slice(1), "-o", "json"], {
        env: { KUBECONFIG: kubeconfig },
        permissions: PERMISSIONS,
      });
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.ok(
        report.results.length > 0 && report.results.every((x: { status: string }) => x.status === "pass"),
      );
    } finally {
      assert.equal(await demo.stop(), 0);
    }
  },
});

Deno.test("demo --serve without --allow-write: exit 3 naming the permission, nothing served", async () => {
  const r = await runCli(["demo", "--serve"]);
  assert.equal(r.code, 3);
  assert.match(
    r.stderr,
    /^flyingfish: missing Deno permission --allow-write \(needed to write the demo kubeconfigs/m,
  );
  assert.equal(r.stdout, "");
});

Deno.test("`deno task demo --serve` (the task grants no --allow-write): exit 3, the one line naming the flag", async () => {
  // Through the task exactly as the README's readers would type it: its permissions, not the test's.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "task",
      "--quiet",
      "--config",
      decodeURIComponent(new URL("deno.json", REPO).pathname),
      "demo",
      "--serve",
    ],
    cwd: decodeURIComponent(REPO.pathname),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 3, stderr);
  const lines = stderr.split("\n").filter((l) => l.trim() !== "");
  assert.equal(lines.length, 1, stderr);
  assert.match(
    lines[0],
    /^flyingfish: missing Deno permission --allow-write \(needed to write the demo kubeconfigs/,
  );
  assert.equal(new TextDecoder().decode(out.stdout), "");
});

Deno.test("demo --serve with an unknown scenario: exit 3 pointing at the list", async () => {
  const r = await runCli(["demo", "--serve", "no-such-scenario"], { permissions: PERMISSIONS });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no demo scenario "no-such-scenario" \((try|see) `flyingfish demo --list`\)/);
});
