/**
 * The tool-error matrix's fixtures (the tool_error_*_test.ts files, one per command family, so that
 * `deno test --parallel` runs them side by side — most of their time is waiting for timeouts and
 * rounds). Every command × every way a credential or a connection fails, through the CLI (issue 21): a
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
import { type CliRun, FAKE_CLOCK } from "./harness.ts";

export type Fault = "401" | "401-lists" | "403-discovery" | "tls" | "hang";
export const FAULTS: readonly Fault[] = ["401", "401-lists", "403-discovery", "tls", "hang"];

/** What the one error line says for each fault. */
export const REASON: Record<Fault, RegExp> = {
  "401": /rejected the credentials of context \w+ \(401\)/,
  "401-lists": /rejected the credentials of context \w+ \(401\) while /,
  "403-discovery": /rejected the credentials of context \w+ \(403\)/,
  tls: /unable to verify the first certificate/,
  hang: /request timed out after 3000 ms|did not finish within --timeout/,
};

/** Discovery paths (what an authenticated user with no role binding is refused). */
export const DISCOVERY = "^/(version|api(/v1)?|apis(/[^/]+/[^/]+)?)/?$";

export const PERMISSIONS = ["--allow-env", "--allow-read", "--allow-write", "--allow-net=127.0.0.1"];
export const PASSIVE = ["--no-network-probes", "--sample-interval", "100ms"];

/** One kubeconfig per fault (and the healthy and refused ones) for one fake cluster. */
export interface Faulted {
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
export async function withFaults(
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
export async function pool<T>(jobs: (() => Promise<T>)[], width = 2): Promise<T[]> {
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
export function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("connecting to "));
}

/** Exit 3, exactly one `flyingfish: …` line naming the fault, no stack trace. */
export function assertOneLine(r: CliRun, fault: Fault, ctx: string): string {
  const lines = errorLines(r.stderr);
  assert.equal(r.code, 3, `${ctx}: exit code\n${r.stderr}`);
  assert.equal(lines.length, 1, `${ctx}: one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], /^flyingfish: /, ctx);
  assert.match(lines[0], REASON[fault], `${ctx}: ${lines[0]}`);
  assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace`);
  return lines[0].slice("flyingfish: ".length);
}

/** The error document on stdout: code 3 and the message of the stderr line. */
export function assertErrorDocument(r: CliRun, message: string, ctx: string): void {
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.error?.code, 3, `${ctx}: error document`);
  assert.equal(doc.error?.message, message, `${ctx}: the document's message is the line's`);
  assert.equal(doc.results, undefined, `${ctx}: no partial report`);
}

/**
 * The bound of each run: a hang is cut by a 1 s --request-timeout; the other faults answer at once,
 * and get room for a loaded machine (a 1 s bound would time out a slow healthy answer).
 */
export const BOUND = ["--request-timeout", "10s", "--timeout", "30s"];
export const bounded = (args: string[], fault: Fault | "refused" | "good"): string[] =>
  fault === "hang" ? args.map((a, i) => args[i - 1] === "--request-timeout" ? "3s" : a) : args;

/** A running `flyingfish serve` CLI: its address, and how it ended. */
export async function startServe(args: string[]): Promise<{ base: string; stop(): Promise<CliRun> }> {
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

export async function get(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.text() };
}

export function roundsTotal(metrics: string, result: "success" | "error"): number {
  const m = new RegExp(`^flyingfish_rounds_total\\{result="${result}"\\} (\\d+)$`, "m").exec(metrics);
  return m ? Number(m[1]) : NaN;
}
