/**
 * `flyingfish preflight` through the real CLI over HTTPS, one run per scenario of
 * testdata/preflight/: each check's outcome and evidence (the scenario's `expect`, as for `check`),
 * the verdict, the `liqoctl peer` line and the exit code. The healthy pair is all-pass, exit 0.
 */
import assert from "node:assert/strict";
import { listScenarios } from "../../fakekube/mod.ts";
import { assertExpected, CLI_PERMISSIONS } from "./harness.ts";
import { assertAllFormats } from "./formats.ts";
import {
  assertPreflightSections,
  PREFLIGHT_ROOT,
  type PreflightRun,
  runPreflight,
} from "./preflight_support.ts";

/** Per scenario: the verdict, and words the liqoctl line must hold (null: no line). */
const VERDICTS: Record<string, { verdict: string; line: readonly string[] | null }> = {
  "healthy": {
    verdict: "can-peer",
    line: [
      "liqoctl peer --kubeconfig rome.kubeconfig --context rome --remote-kubeconfig milan.kubeconfig " +
      "--remote-context milan --gw-server-service-location Provider --gw-server-service-type LoadBalancer",
    ],
  },
  "liqo-absent-provider": { verdict: "can-peer", line: ["--remote-kubeconfig milan.kubeconfig"] },
  "liqo-other-namespace": { verdict: "can-peer", line: ["--liqo-namespace liqo-system"] },
  "same-cluster-twice": { verdict: "cannot-peer", line: ["--remote-kubeconfig rome.kubeconfig"] },
  "same-cluster-id": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "already-peered": { verdict: "already-peered", line: null },
  "old-kernel": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "k8s-outside-window": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "liqo-minor-skew": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "rbac-denied": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "rbac-admission-refused": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "rbac-tenant-namespace-left": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "rbac-review-forbidden": { verdict: "could-not-judge", line: ["liqoctl peer"] },
  "template-missing-field": { verdict: "can-peer-with-changes", line: ["--gw-server-service-type NodePort"] },
  "ipam-exhaustion": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "ipam-collision": { verdict: "cannot-peer", line: ["liqoctl peer"] },
  "clock-skew": { verdict: "can-peer-with-changes", line: ["liqoctl peer"] },
  "provider-unreachable": { verdict: "could-not-judge", line: ["--remote-kubeconfig milan.kubeconfig"] },
};

/** What varies from run to run: the run ID and the times. */
function steady(s: string): string {
  return s.replace(/flyingfish-preflight-[a-z0-9]{8}/g, "flyingfish-preflight-<id>")
    .replace(/PROBE RUN [a-z0-9]{8}/g, "PROBE RUN <id>")
    .replace(/\b\d+(\.\d+)? ?m?s\b/g, "<t>");
}

/**
 * The first fenced block after `marker` in `page` is the demo's output, save the lines it leaves
 * out (`…`): each of its other lines is a line of `stdout`, in the same order.
 */
async function assertSample(stdout: string, page: string, marker: string): Promise<void> {
  const md = await Deno.readTextFile(new URL(`../../${page}`, import.meta.url));
  const at = md.indexOf(marker);
  assert.ok(at >= 0, `${page}: no ${marker}`);
  const block = /^```\n([\s\S]*?)^```/m.exec(md.slice(at));
  assert.ok(block, `${page}: no sample block after ${marker}`);
  const have = steady(stdout).split("\n");
  let from = 0;
  for (const line of steady(block[1]).trimEnd().split("\n")) {
    if (line.trim() === "…") continue;
    const i = have.indexOf(line, from);
    assert.ok(i >= 0, `${page}: the sample line is not in the demo's output (in order):\n${line}`);
    from = i + 1;
  }
}

Deno.test("preflight: every scenario's checks, verdict, liqoctl line and exit code", async () => {
  const names = await listScenarios(PREFLIGHT_ROOT);
  assert.deepEqual(
    names,
    Object.keys(VERDICTS).sort(),
    "a verdict for every scenario, a scenario for every verdict",
  );
  const runs: PreflightRun[] = [];
  // Four at a time: a run is two fake servers and one CLI process.
  for (let i = 0; i < names.length; i += 4) {
    runs.push(...await Promise.all(names.slice(i, i + 4).map((n) => runPreflight(n))));
  }
  for (const r of runs) {
    const name = r.scenario.name;
    assertExpected(r.scenario, r);
    // The document is the report schema's (zod and the published JSON Schema), preflight block
    // included, and renders in every format.
    const report = assertAllFormats(r.report, name);
    assertPreflightSections(report, name);
    const p = r.report.preflight;
    assert.ok(p, `${name}: a preflight block`);
    assert.equal(p.version, "1");
    assert.equal(p.verdict, VERDICTS[name].verdict, `${name}: verdict (${p.message})`);
    const want = VERDICTS[name].line;
    if (want === null) assert.equal(p.liqoctl, null, `${name}: no liqoctl line`);
    else {for (const w of want) {
        assert.ok(p.liqoctl?.line.includes(w), `${name}: the line holds ${w}: ${p.liqoctl?.line}`);
      }}
    // The consumer's kubeconfig is --kubeconfig, the provider's --remote-kubeconfig: never swapped.
    if (p.liqoctl) {
      assert.match(p.liqoctl.line, /^liqoctl peer --kubeconfig rome\.kubeconfig --context rome /);
    }
    assert.equal(p.blockers.length > 0, p.verdict === "cannot-peer", `${name}: blockers iff cannot peer`);
  }
});

Deno.test("preflight: text names the verdict and prints the line; a missing provider is exit 3", async () => {
  const text = await runPreflight("rbac-denied", { output: "text" });
  assert.equal(text.code, 2);
  assert.match(text.stdout, /✗ verdict: cannot peer: 1 check\(s\) failed/);
  assert.match(
    text.stdout,
    /cannot create tenants\.authentication\.liqo\.io in namespace liqo-tenant-rome-4b2a9e on\s+milan-8d1f03 \(provider\)/,
  );
  assert.match(
    text.stdout,
    /# once fixed, peer from the consumer \(rome-4b2a9e\):\n\s+liqoctl peer --kubeconfig rome\.kubeconfig/,
  );
  const { runCli } = await import("./harness.ts");
  const alone = await runCli(["preflight", "--kubeconfig", "/nonexistent"]);
  assert.equal(alone.code, 3);
  assert.match(alone.stderr, /name the would-be provider with --remote-kubeconfig/);
  const flags = await runCli(["preflight", "--remote-context", "x", "--keep"]);
  assert.equal(flags.code, 3);
  assert.match(flags.stderr, /--keep goes with --probe/);
  // The README's `deno task demo --preflight`: the same run, in-process, on the embedded scenario.
  const [demo, list, probed] = await Promise.all([
    runCli(["demo", "--preflight"]),
    runCli(["demo", "--list"]),
    runCli(["demo", "--preflight", "--probe"]),
  ]);
  assert.equal(demo.code, 2, demo.stderr);
  assert.match(demo.stdout, /✗ verdict: cannot peer/);
  assert.match(demo.stdout, /liqoctl peer --context rome --remote-context milan/);
  assert.match(list.stdout, /^--preflight healthy\s/m);
  // `demo --preflight --probe`: the real preflight --probe over the fake network model (server-on-consumer).
  assert.equal(probed.code, 1, probed.stderr);
  assert.match(probed.stdout, /^demo: --preflight --probe server-on-consumer — /);
  assert.match(probed.stdout, /--gw-server-service-location Consumer/);
  assert.match(probed.stderr, /cleanup: removing flyingfish-preflight-/);
  assert.match(list.stdout, /^--preflight --probe nodeport-port-mapping\s/m);
  // The samples the README and docs/preflight.md show are lines of that very output, in order.
  await assertSample(probed.stdout, "README.md", "## Before peering: preflight");
  await assertSample(
    probed.stdout,
    "docs/preflight.md",
    "A sample run (`deno task demo --preflight --probe`",
  );
  // --only: the check and what it needs (PF-ID), nothing else; an ID of another command is exit 3.
  const only = await runPreflight("healthy", { args: ["--only", "pf-clk"] });
  assert.equal(only.code, 0, only.stderr);
  assert.deepEqual(only.report.results.map((x: { id: string }) => x.id), ["PF-ID", "PF-CLK"]);
  const other = await runPreflight("healthy", { args: ["--only", "GW-02"] });
  assert.equal(other.code, 3);
  assert.match(other.stderr, /--only: no check "GW-02"/);
  // A liqoctl on PATH of another Liqo minor: PF-VER reads it through --allow-run=liqoctl.
  const bin = await Deno.makeTempDir({ prefix: "ff-liqoctl-" });
  try {
    await Deno.writeTextFile(`${bin}/liqoctl`, "#!/bin/sh\necho 'Client version: v1.1.3'\n", { mode: 0o755 });
    const skew = await runPreflight("healthy", {
      env: { PATH: bin },
      permissions: [...CLI_PERMISSIONS, "--allow-run=liqoctl"],
    });
    assert.equal(skew.code, 2, skew.stderr);
    const ver = skew.report.results.find((x: { id: string }) => x.id === "PF-VER");
    assert.match(ver.summary, /liqoctl v1\.1\.3 on this host does not match the installed Liqo 1\.2/);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
  const wrong = await runCli(["check", "--only", "PF-RBAC"]);
  assert.equal(wrong.code, 3);
  assert.match(wrong.stderr, /PF-RBAC is a preflight check: run `flyingfish preflight`/);
});
