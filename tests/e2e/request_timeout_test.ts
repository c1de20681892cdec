/**
 * `--request-timeout` through the CLI (kube/http.ts): a request's timeout starts when it is sent,
 * never while it waits for one of the cluster's connection slots, and every attempt gets all of it.
 * An API server that answers every request in 1.5 s passes with `--request-timeout 3s` (as kubectl
 * would), and lists that hang while `/version` answers are `unknown` (exit 1) on every run, whatever
 * the order the requests were scheduled in.
 */
import assert from "node:assert/strict";
import { type FaultRule, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Every list (core and API groups, cluster-wide and namespaced) is held back a minute. */
const HUNG_LISTS: FaultRule[] = [
  { path: "^/api/v1/(namespaces/[^/]+/)?[a-z]+$", type: "delay", ms: 60_000 },
  { path: "^/apis/[^/]+/[^/]+/(namespaces/[^/]+/)?[a-z]+$", type: "delay", ms: 60_000 },
];

async function checkWith(
  setup: { latencyMs?: number; faults?: FaultRule[] },
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const s = await loadScenario("healthy-consumer");
  if (setup.latencyMs) s.clusters[s.run.local]!.latencyMs = setup.latencyMs;
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const dir = await Deno.makeTempDir({ prefix: "ff-request-timeout-" });
  try {
    served.clusters[s.run.local]!.setFaults(setup.faults ?? []);
    await Deno.writeTextFile(`${dir}/kc`, served.kubeconfigYaml(s.run.local));
    const t0 = Date.now();
    const r = await runCli([
      "check",
      "--kubeconfig",
      `${dir}/kc`,
      "--no-network-probes",
      "--sample-interval",
      SAMPLE_INTERVAL,
      ...args,
    ]);
    return { ...r, ms: Date.now() - t0 };
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "--request-timeout 3s against an API server answering in 1.5 s: the run passes (exit 0)",
  ...opts,
  fn: async () => {
    const r = await checkWith({ latencyMs: 1_500 }, ["--request-timeout", "3s", "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).exitCode, 0);
    assert.doesNotMatch(r.stderr, /timed out/);
  },
});

Deno.test({
  name: "lists hang, /version answers: unknown and exit 1 on every run, never a tool error",
  ...opts,
  fn: async () => {
    const runs = await Promise.all(
      [0, 1].map(() => checkWith({ faults: HUNG_LISTS }, ["--request-timeout", "1s", "-o", "json"])),
    );
    for (const r of runs) {
      assert.equal(r.code, 1, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.equal(report.exitCode, 1);
      const statuses = new Set(report.results.map((x: { status: string }) => x.status));
      assert.ok(statuses.has("unknown"), "the unread kinds are unknown");
      assert.match(r.stdout, /timed out after 1000 ms/);
    }
  },
});
