/**
 * Every command × every way a credential or a connection fails, through the CLI (issue 21): a
 * rejected token (401), one rejected after /version answered (401 on every list: revoked mid-run),
 * a credential that may not even read discovery (403 on /version, /api,
 * /apis, like an unbound user), a TLS error (a CA that did not sign the server) and a hang (an API
 * server that accepts the connection and never answers, bounded by --request-timeout, or by
 * --timeout alone).
 *
 * - `check`, `report`, `collect`, `version --kubeconfig`, `probe`: exit 3, ONE error line on stderr
 *   (no stack trace), with `-o json` the error document carrying the same message; nothing partial
 *   on stdout (report) or on disk (collect).
 * - `watch`: an error event per round, and the rounds go on.
 * - `serve`: keeps running; /metrics counts the failed rounds, /readyz says why it is not ready.
 * - the same faults on the `--remote-kubeconfig` degrade a dual run exactly like a refused remote:
 *   "… — checking rome alone", the same exit code and summary.
 */
import assert from "node:assert/strict";
import { type FakeCluster, generateTlsMaterial, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { type CliRun, FAKE_CLOCK, runCli } from "./harness.ts";

type Fault = "401" | "401-lists" | "403-discovery" | "tls" | "hang";
const FAULTS: readonly Fault[] = ["401", "401-lists", "403-discovery", "tls", "hang"];

/** What the one error line says for each fault. */
const REASON: Record<Fault, RegExp> = {
  "401": /rejected the credentials of context \w+ \(401\)/,
  "401-lists": /rejected the credentials of context \w+ \(401\) while /,
  "403-discovery": /rejected the credentials of context \w+ \(403\)/,
  tls: /unable to verify the first certificate/,
  hang: /request timed out after 3000 ms|did not finish within --timeout/,
};

/** Discovery paths (what an authenticated user with no role binding is refused). */
const DISCOVERY = "^/(version|api(/v1)?|apis(/[^/]+/[^/]+)?)/?$";

const PERMISSIONS = ["--allow-env", "--allow-read", "--allow-write", "--allow-net=127.0.0.1"];
const PASSIVE = ["--no-network-probes", "--sample-interval", "100ms"];

/** One kubeconfig per fault (and the healthy and refused ones) for one fake cluster. */
interface Faulted {
  dir: string;
  good: string;
  refused: string;
  path: Record<Fault | "good" | "refused", string>;
  close(): Promise<void>;
}

/** A listener that accepts every connection and never answers: the TLS handshake never completes. */
function hangingServer(): { port: number; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  (async () => {
    try {
      for await (const c of listener) conns.push(c);
    } catch {
      // closed
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close: () => {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
    },
  };
}

function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Writes the kubeconfigs of `cluster` (served twice: the second copy refuses discovery). */
async function faulted(
  cluster: FakeCluster,
  forbidding: FakeCluster,
  revoking: FakeCluster,
): Promise<Faulted> {
  const dir = await Deno.makeTempDir({ prefix: "ff-tool-errors-" });
  const good = cluster.kubeconfigYaml();
  const otherCa = btoa((await generateTlsMaterial()).caPem);
  const hang = hangingServer();
  forbidding.setFaults([{ path: DISCOVERY, type: "status", status: 403 }]);
  // /version answers, then every list and discovery read is refused: credentials revoked mid-run.
  revoking.setFaults([{ path: "^/apis?/.+", type: "status", status: 401 }]);
  const yaml: Record<Fault | "good" | "refused", string> = {
    good,
    refused: good.replace(cluster.url, `https://127.0.0.1:${closedPort()}`),
    "401": good.replace(cluster.token, "ff-not-the-token"),
    "401-lists": revoking.kubeconfigYaml(),
    "403-discovery": forbidding.kubeconfigYaml(),
    tls: good.replace(/certificate-authority-data: .*/, `certificate-authority-data: ${otherCa}`),
    hang: good.replace(cluster.url, `https://127.0.0.1:${hang.port}`),
  };
  const path = {} as Record<Fault | "good" | "refused", string>;
  for (const [k, v] of Object.entries(yaml) as [Fault | "good" | "refused", string][]) {
    path[k] = `${dir}/${k}.kubeconfig`;
    await Deno.writeTextFile(path[k], v);
  }
  return {
    dir,
    good: path.good,
    refused: path.refused,
    path,
    close: async () => {
      hang.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The two fake servers of one scenario cluster and its kubeconfigs; `fn` runs with them. */
async function withFaults(
  scenario: string,
  cluster: "local" | "remote",
  fn: (k: Faulted, local: string | null) => Promise<void>,
): Promise<void> {
  const s = await loadScenario(scenario);
  const served = await serveScenario(s, FAKE_CLOCK);
  const twin = await serveScenario(s, FAKE_CLOCK);
  const third = await serveScenario(s, FAKE_CLOCK);
  const name = cluster === "local" ? s.run.local : s.run.remote!;
  const k = await faulted(served.clusters[name]!, twin.clusters[name]!, third.clusters[name]!);
  let local: string | null = null;
  try {
    if (cluster === "remote") {
      local = `${k.dir}/local.kubeconfig`;
      await Deno.writeTextFile(local, served.kubeconfigYaml(s.run.local));
    }
    await fn(k, local);
  } finally {
    await k.close();
    await served.close();
    await twin.close();
    await third.close();
  }
}

/** Runs `jobs` two at a time (the CI machine has few cores). */
async function pool<T>(jobs: (() => Promise<T>)[], width = 2): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  }));
  return out;
}

/** The stderr lines that are not the "connecting to …" progress line. */
function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("connecting to "));
}

/** Exit 3, exactly one `flyingfish: …` line naming the fault, no stack trace. */
function assertOneLine(r: CliRun, fault: Fault, ctx: string): string {
  const lines = errorLines(r.stderr);
  assert.equal(r.code, 3, `${ctx}: exit code\n${r.stderr}`);
  assert.equal(lines.length, 1, `${ctx}: one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], /^flyingfish: /, ctx);
  assert.match(lines[0], REASON[fault], `${ctx}: ${lines[0]}`);
  assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace`);
  return lines[0].slice("flyingfish: ".length);
}

/** The error document on stdout: code 3 and the message of the stderr line. */
function assertErrorDocument(r: CliRun, message: string, ctx: string): void {
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.error?.code, 3, `${ctx}: error document`);
  assert.equal(doc.error?.message, message, `${ctx}: the document's message is the line's`);
  assert.equal(doc.results, undefined, `${ctx}: no partial report`);
}

/**
 * The bound of each run: a hang is cut by a 1 s --request-timeout; the other faults answer at once,
 * and get room for a loaded machine (a 1 s bound would time out a slow healthy answer).
 */
const BOUND = ["--request-timeout", "10s", "--timeout", "30s"];
const bounded = (args: string[], fault: Fault | "refused" | "good"): string[] =>
  fault === "hang" ? args.map((a, i) => args[i - 1] === "--request-timeout" ? "3s" : a) : args;

/** One-shot commands, each with its flags: `json` when `-o json` gives the error document. */
const ONE_SHOT: { name: string; args: (dir: string) => string[]; json: boolean }[] = [
  { name: "check", args: () => ["check", "-o", "json", ...PASSIVE, ...BOUND], json: true },
  { name: "report", args: () => ["report", ...PASSIVE, ...BOUND], json: false },
  {
    name: "collect",
    args: (dir) => ["collect", "-q", "--sample-interval", "100ms", "-f", `${dir}/bundle.tar.gz`, ...BOUND],
    json: false,
  },
  { name: "version", args: () => ["version", "--request-timeout", "10s"], json: false },
  { name: "probe", args: () => ["probe", "-o", "json", "--no-network-probes", ...BOUND], json: true },
];

Deno.test({
  name:
    "tool errors: check, report, collect, version and probe × {401, 401 on the lists, 403 on discovery, TLS, hang}: exit 3, one line, the error document",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      const jobs = ONE_SHOT.flatMap((cmd) =>
        FAULTS.map((fault) => async () => {
          const args = bounded([...cmd.args(k.dir), "--kubeconfig", k.path[fault]], fault);
          const r = await runCli(args, { permissions: PERMISSIONS });
          return { cmd, fault, r };
        })
      );
      for (const { cmd, fault, r } of await pool(jobs)) {
        const ctx = `${cmd.name} × ${fault}`;
        const message = assertOneLine(r, fault, ctx);
        if (cmd.json) assertErrorDocument(r, message, ctx);
        if (cmd.name === "report") assert.equal(r.stdout, "", `${ctx}: no partial report`);
        if (cmd.name === "version") {
          assert.match(r.stdout, /^flyingfish /, `${ctx}: its own version still shown`);
        }
      }
      const bundles = [...Deno.readDirSync(k.dir)].filter((e) => e.name.endsWith(".tar.gz"));
      assert.deepEqual(bundles, [], "collect wrote no bundle");
    });
  },
});

Deno.test({
  name:
    "tool errors: a hang bounded by --timeout alone (no --request-timeout) ends within it, exit 3 (check, report, collect, probe)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      const bound = ["--request-timeout", "0", "--timeout", "2s"];
      const cmds: [string, string[], boolean][] = [
        ["check", ["check", "-o", "json", ...PASSIVE], true],
        ["report", ["report", ...PASSIVE], false],
        ["collect", ["collect", "-q", "-f", `${k.dir}/b.tar.gz`], false],
        // probe used to wait its cleanup budget (30 s) on top, though no probe could have started.
        ["probe", ["probe", "-o", "json", "--no-network-probes"], true],
      ];
      const runs = await pool(cmds.map(([name, args, json]) => async () => {
        const t0 = performance.now();
        const r = await runCli([...args, ...bound, "--kubeconfig", k.path.hang], {
          permissions: PERMISSIONS,
        });
        return { name, json, r, ms: performance.now() - t0 };
      }));
      for (const { name, json, r, ms } of runs) {
        const message = assertOneLine(r, "hang", name);
        assert.match(message, /did not finish within --timeout 2s/, name);
        assert.ok(ms < 12_000, `${name}: ended ${Math.round(ms)} ms after start, --timeout was 2s`);
        if (json) assertErrorDocument(r, message, name);
      }
    });
  },
});

Deno.test({
  name:
    "tool errors: watch × {401, 401 on the lists, 403 on discovery, TLS, hang}: an error event per round, the rounds go on, no crash",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      const runs = await pool(FAULTS.map((fault) => async () => ({
        fault,
        r: await runCli([
          "watch",
          "-o",
          "jsonl",
          ...PASSIVE,
          "--interval",
          "1100ms",
          "--request-timeout",
          fault === "hang" ? "3s" : "10s",
          // Watch this long, then stop (`--timeout` past its bound is exit 3 in every command).
          "--wait",
          "12s",
          "--kubeconfig",
          k.path[fault],
        ], { permissions: PERMISSIONS }),
      })));
      for (const { fault, r } of runs) {
        const ctx = `watch × ${fault}`;
        assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace\n${r.stderr}`);
        const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
        const errors = events.filter((e) => e.type === "error");
        assert.ok(errors.length >= 2, `${ctx}: an error event per round, and it goes on:\n${r.stdout}`);
        for (const e of errors) assert.match(e.message, REASON[fault], ctx);
        assert.equal(events.at(-1).type, "end", `${ctx}: ends at --wait`);
        assert.notEqual(r.code, 3, `${ctx}: a failed round is not the end of the watch`);
      }
    });
  },
});

/** A running `flyingfish serve` CLI: its address, and how it ended. */
async function startServe(args: string[]): Promise<{ base: string; stop(): Promise<CliRun> }> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--frozen",
      "--config",
      decodeURIComponent(new URL("../../deno.json", import.meta.url).pathname),
      ...PERMISSIONS,
      decodeURIComponent(new URL("../../cli/main.ts", import.meta.url).pathname),
      "serve",
      "--listen",
      "127.0.0.1:0",
      ...args,
    ],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const child = cmd.spawn();
  const stdout = new Response(child.stdout).text();
  let stderr = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let base: string | null = null;
  while (base === null) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve ended before listening:\n${stderr}`);
    stderr += value;
    base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1] ?? null;
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      stderr += value;
    }
  })();
  return {
    base,
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      await rest;
      return { code: status.code, stdout: await stdout, stderr };
    },
  };
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.text() };
}

function roundsTotal(metrics: string, result: "success" | "error"): number {
  const m = new RegExp(`^flyingfish_rounds_total\\{result="${result}"\\} (\\d+)$`, "m").exec(metrics);
  return m ? Number(m[1]) : NaN;
}

Deno.test({
  name:
    "tool errors: serve × {401, 401 on the lists, 403 on discovery, TLS, hang} keeps running, counts the failed rounds in /metrics, /readyz says why",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      await pool(FAULTS.map((fault) => async () => {
        const ctx = `serve × ${fault}`;
        const serve = await startServe([
          ...PASSIVE,
          "--interval",
          "1100ms",
          "--request-timeout",
          fault === "hang" ? "3s" : "10s",
          "--kubeconfig",
          k.path[fault],
        ]);
        let metrics = "";
        const end = Date.now() + 20_000;
        while (Date.now() < end) {
          metrics = (await get(`${serve.base}/metrics`)).body;
          if (roundsTotal(metrics, "error") >= 2) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        const ready = await get(`${serve.base}/readyz`);
        const health = await get(`${serve.base}/healthz`);
        const r = await serve.stop();
        assert.ok(
          roundsTotal(metrics, "error") >= 2,
          `${ctx}: failed rounds counted, still serving:\n${metrics}`,
        );
        assert.equal(roundsTotal(metrics, "success"), 0, ctx);
        assert.equal(ready.status, 503, ctx);
        assert.match(ready.body, REASON[fault], `${ctx}: /readyz says why`);
        assert.equal(health.status, 200, `${ctx}: alive`);
        assert.equal(r.code, 0, `${ctx}: SIGTERM stops it cleanly\n${r.stderr}`);
        assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace`);
        assert.match(r.stderr, /round failed: /, ctx);
      }));
    });
  },
});

Deno.test({
  name:
    "tool errors: a remote that answers 401 (on /version or on the lists), 403 on discovery, a TLS error or nothing degrades the dual run like a refused one (check, report, collect, watch, probe, serve)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("dual-healthy", "remote", async (k, local) => {
      const remotes: (Fault | "refused")[] = ["refused", ...FAULTS];
      const kc = (f: Fault | "refused") => ["--kubeconfig", local!, "--remote-kubeconfig", k.path[f]];
      const cmds: { name: string; args: string[]; alone: string }[] = [
        { name: "check", args: ["check", "-o", "json", ...PASSIVE, ...BOUND], alone: "checking rome alone" },
        { name: "report", args: ["report", ...PASSIVE, ...BOUND], alone: "checking rome alone" },
        {
          name: "collect",
          args: ["collect", "-q", "--sample-interval", "100ms", ...BOUND, "-f"],
          alone: "collecting rome alone",
        },
        {
          name: "watch",
          args: [
            "watch",
            "-o",
            "jsonl",
            ...PASSIVE,
            "--interval",
            "2s",
            "--request-timeout",
            "10s",
            "--timeout",
            "6s",
          ],
          alone: "checking rome alone",
        },
        {
          name: "probe",
          args: ["probe", "-o", "json", "--no-network-probes", "--mode", "direct", ...BOUND],
          alone: "checking rome alone",
        },
      ];
      const jobs = cmds.flatMap((cmd) =>
        remotes.map((f) => async () => {
          const args = cmd.name === "collect" ? [...cmd.args, `${k.dir}/${f}.tar.gz`] : cmd.args;
          return { cmd, f, r: await runCli(bounded([...args, ...kc(f)], f), { permissions: PERMISSIONS }) };
        })
      );
      const runs = await pool(jobs);
      for (const cmd of cmds) {
        const mine = runs.filter((x) => x.cmd === cmd);
        const refused = mine.find((x) => x.f === "refused")!.r;
        for (const { f, r } of mine) {
          const ctx = `${cmd.name} with a remote × ${f}`;
          assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace\n${r.stderr}`);
          assert.match(
            r.stderr,
            new RegExp(`remote cluster unavailable: .* — ${cmd.alone}`),
            `${ctx}\n${r.stderr}`,
          );
          if (f !== "refused") assert.match(r.stderr, REASON[f], ctx);
          if (cmd.name === "watch") {
            // A round with the local cluster alone (its verdict depends on timing under load: not compared).
            const first = JSON.parse(r.stdout.split("\n")[0]);
            assert.equal(first.type, "snapshot", `${ctx}\n${r.stdout}`);
            assert.equal(
              first.clusters.find((c: { role: string }) => c.role === "remote")?.name,
              "remote",
              ctx,
            );
          } else {
            assert.equal(r.code, refused.code, `${ctx}: the exit code of a refused remote\n${r.stderr}`);
          }
          if (cmd.name === "check" || cmd.name === "probe") {
            const doc = JSON.parse(r.stdout);
            assert.deepEqual(
              doc.summary,
              JSON.parse(refused.stdout).summary,
              `${ctx}: the refused remote's summary`,
            );
          }
          if (cmd.name === "collect") assert.ok(Deno.statSync(`${k.dir}/${f}.tar.gz`).isFile, ctx);
        }
      }

      // serve: ready with the local cluster's report, the remote's reason in it.
      for (const f of FAULTS) {
        const ctx = `serve with a remote × ${f}`;
        const serve = await startServe(
          bounded([...PASSIVE, "--interval", "30s", "--request-timeout", "10s", ...kc(f)], f),
        );
        let ready = await get(`${serve.base}/readyz`);
        const end = Date.now() + 20_000;
        while (ready.status !== 200 && Date.now() < end) {
          await new Promise((r) => setTimeout(r, 200));
          ready = await get(`${serve.base}/readyz`);
        }
        const report = await get(`${serve.base}/report`);
        const r = await serve.stop();
        assert.equal(ready.status, 200, `${ctx}: a round completed with the local cluster\n${r.stderr}`);
        assert.match(report.body, REASON[f], `${ctx}: the report says why the remote is missing`);
        assert.equal(r.code, 0, ctx);
      }
    });
  },
});
