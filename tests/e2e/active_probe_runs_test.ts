/**
 * Active probes through the CLI where one run is not enough to show the fault: two runs against
 * the same served scenario (the fake data plane keeps the state the real one keeps, e.g. the
 * gateway kernel's path-MTU cache), and the flags a probe's budget depends on.
 */
import assert from "node:assert/strict";
import { activeScenariosRoot, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { probeObjects } from "./active_matrix.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

/** The parts of the JSON report these tests read. */
interface Result {
  id: string;
  status: string;
  summary: string;
  evidence: string[];
}
interface Doc {
  results: Result[];
  active?: { matrix?: { reading?: string[] } };
}

/** Serves `name` and hands `fn` a function running `flyingfish <args>` against it (-o json). */
async function withServed(
  name: string,
  fn: (
    run: (args: string[]) => Promise<{ code: number; report: Doc; stderr: string }>,
    served: Awaited<ReturnType<typeof serveScenario>>,
  ) => Promise<void>,
): Promise<void> {
  const s = await loadScenario(name, activeScenariosRoot());
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const dir = await Deno.makeTempDir({ prefix: `ff-runs-${name}-` });
  try {
    const flags = ["--kubeconfig", `${dir}/l.yaml`];
    await Deno.writeTextFile(`${dir}/l.yaml`, served.kubeconfigYaml(s.run.local));
    if (s.run.remote) {
      await Deno.writeTextFile(`${dir}/r.yaml`, served.kubeconfigYaml(s.run.remote));
      flags.push("--remote-kubeconfig", `${dir}/r.yaml`);
    }
    await fn(async (args) => {
      const r = await runCli([
        ...args,
        ...flags,
        "-o",
        "json",
        "--no-network-probes",
        "--sample-interval",
        SAMPLE_INTERVAL,
      ]);
      let report: Doc | null = null;
      try {
        report = JSON.parse(r.stdout);
      } catch {
        // asserted by the caller
      }
      assert.ok(report, `no JSON document; exit ${r.code}\n${r.stderr.slice(0, 2000)}`);
      return { code: r.code, report: report!, stderr: r.stderr };
    }, served);
    for (const c of Object.values(served.clusters)) if (c) assert.deepEqual(probeObjects(c.objects()), []);
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const resultOf = (report: Doc, id: string): Result => report.results.find((x) => x.id === id)!;

Deno.test({
  name: "probe mtu run twice within ten minutes: the re-run's cached path MTU is not blamed on the interface",
  ...sanitizers,
  fn: () =>
    withServed("path-mtu-below-tunnel", async (run) => {
      const first = await run(["probe", "mtu"]);
      const second = await run(["probe", "mtu"]);
      const a = resultOf(first.report, "PROBE-MTU");
      const b = resultOf(second.report, "PROBE-MTU");
      assert.equal(first.code, 2, first.stderr);
      assert.equal(second.code, 2, second.stderr);
      assert.equal(a.status, "fail");
      assert.equal(b.status, "fail");
      // First run: the router's "frag needed" teaches the gateway's kernel the path MTU.
      assert.match(
        a.summary,
        /set spec\.mtu ≤ 1280 \(a router \(169\.254\.18\.\d\) answered "frag needed", mtu 1280\)/,
      );
      // Re-run: iputils reports the cached 1280 as a local error; liqo-tunnel itself is 1340.
      assert.doesNotMatch(b.summary, /own interface/, b.summary);
      assert.match(
        b.summary,
        /set spec\.mtu ≤ 1280 \(a router on the path limits it: .*path MTU of 1280 learnt from an earlier "frag needed" — its liqo-tunnel is 1340\)/,
      );
      assert.ok(
        b.evidence.some((l: string) =>
          /liqo-tunnel MTU is 1340: the local refusal at mtu=1280 is a path MTU the kernel cached/.test(l)
        ),
        b.evidence.join("\n"),
      );
    }),
});

Deno.test({
  name: "probe matrix trace, UDP filtered and TCP crossing: no 'everything red', no keys/AllowedIPs blame",
  ...sanitizers,
  fn: () =>
    withServed("udp-filtered-gateways", async (run) => {
      const r = await run(["probe", "matrix", "trace"]);
      assert.equal(r.code, 2, r.stderr);
      const matrix = resultOf(r.report, "PROBE-MATRIX");
      const trace = resultOf(r.report, "PROBE-TRACE");
      const all = JSON.stringify([matrix, trace, r.report.active?.matrix?.reading]);
      assert.doesNotMatch(
        all,
        /everything red: the tunnel or a gateway|no node of .* reaches|keys or AllowedIPs/,
      );
      assert.match(matrix.summary, /^rome-4b2a9e → milan-8d1f03: every cell red on UDP only, TCP ok/);
      assert.match(trace.summary, /while TCP crossed the same pair: a filter on UDP there/);
    }),
});

Deno.test({
  name: "probe mtu creates nothing: no namespace, no pod, no dry run; only access reviews and gateway execs",
  ...sanitizers,
  fn: () =>
    withServed("mtu-without-pod-rbac", async (run, served) => {
      const r = await run(["probe", "mtu"]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(resultOf(r.report, "PROBE-MTU").status, "pass");
      assert.doesNotMatch(r.stderr, /namespace flyingfish-probe-\S+ created|dry run/);
      for (const [name, c] of Object.entries(served.clusters)) {
        if (!c) continue;
        const writes = c.requests.filter((q) =>
          q.method !== "GET" && !q.path.endsWith("/selfsubjectaccessreviews")
        );
        assert.deepEqual(writes.map((q) => `${q.method} ${q.path}`), [], `${name}: writes`);
        const execs = c.requests.filter((q) => q.path.endsWith("/exec"));
        assert.ok(execs.length > 0 || name === "milan", `${name}: the gateway was exec'd`);
        for (const q of execs) assert.match(q.path, /\/namespaces\/liqo-tenant-[^/]+\/pods\/gw-/, q.path);
      }
    }),
});
