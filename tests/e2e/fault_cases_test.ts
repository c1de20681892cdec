/**
 * Fault cases beyond the matrix: transient faults change nothing (the live client retries them),
 * malformed list bodies (non-array `items`, a looping `continue`) and exec faults make the affected
 * checks `unknown`, never a crash; and one run of the real CLI over TLS against a scenario served
 * with a `faults:` section.
 */
import assert from "node:assert/strict";
import { type FaultAction, type FaultRule, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { kindsFor } from "../../diagnose/views.ts";
import { DEFAULT_RETRY } from "../../kube/http.ts";
import type { KindId } from "../../kube/kinds.ts";
import { ReportSchema } from "../../report/model.ts";
import type { ReportResult as CheckResult } from "../../report/model.ts";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import {
  describeResult,
  diagnoseInProcess,
  faultProblems,
  listPattern,
  openLiveScenario,
  Replay,
  STACK_FRAME,
} from "./fault_support.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };
const KINDS_READ: KindId[] = [...kindsFor(CATALOG)].sort();

/** A result without what legitimately moves between two runs seconds apart (ages, rates, durations). */
const stable = (r: CheckResult): string =>
  `${describeResult(r)} blockedBy=${r.blockedBy ?? ""}`.replace(/\d+/g, "#");

for (const scenario of ["healthy-consumer", "gw-lb-pending"]) {
  Deno.test({
    name: `transient faults ${scenario}: one 503 (Retry-After: 1), one reset, one 429 change nothing`,
    ...sanitizers,
    fn: async () => {
      const live = await openLiveScenario(scenario, { retry: DEFAULT_RETRY });
      try {
        const clean = await diagnoseInProcess(live.source);
        assert.ok(clean.report, String(clean.crash));
        live.setFaults([
          { path: listPattern("pods"), type: "status", status: 503, retryAfterSeconds: 1, count: 1 },
          { path: listPattern("gatewayservers"), type: "reset", count: 1 },
          { path: listPattern("connections"), type: "status", status: 429, count: 1 },
        ]);
        const run = await diagnoseInProcess(live.source);
        assert.ok(run.report, String(run.crash));
        assert.equal(live.faultHits().length, 3, live.faultHits().join("\n"));
        assert.equal(run.console, "");
        assert.equal(run.report.exitCode, clean.report.exitCode);
        assert.equal(run.report.diagnosis?.id ?? null, clean.report.diagnosis?.id ?? null);
        assert.deepEqual(run.report.results.map(stable), clean.report.results.map(stable));
        assert.deepEqual(run.report.incomplete, clean.report.incomplete);
      } finally {
        await live.close();
      }
    },
  });
}

Deno.test({
  name:
    "malformed lists (items string/null/bare array, looping continue) on every kind: unknown, never a crash",
  ...sanitizers,
  fn: async () => {
    const variants: [string, FaultAction][] = [
      ["items: string", { type: "items", items: "string" }],
      ["items: null", { type: "items", items: "null" }],
      ["bare array", { type: "items", items: "bare-array" }],
      ["looping continue", { type: "loop-continue" }],
    ];
    const live = await openLiveScenario("healthy-consumer");
    try {
      const replay = new Replay(live.source);
      const clean = await diagnoseInProcess(replay.record());
      assert.ok(clean.report, String(clean.crash));
      const problems: string[] = [];
      // Every kind gets one variant, every variant a quarter of the kinds.
      for (const [i, kind] of KINDS_READ.entries()) {
        const [name, action] = variants[i % variants.length];
        live.setFaults([{ path: listPattern(kind), ...action }]);
        const run = await diagnoseInProcess(replay.faulting(kind));
        if (live.faultHits().length === 0) problems.push(`${kind} × ${name}: the fault was never served`);
        for (const p of faultProblems(clean.report, run, kind)) problems.push(`${kind} × ${name}: ${p}`);
        const why = run.report?.results.find((r) => r.status === "unknown" && r.summary.includes(kind));
        if (why && !/malformed list response|repeated continue token/.test(why.summary)) {
          problems.push(`${kind} × ${name}: unknown for another reason: ${why.summary}`);
        }
      }
      assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join("\n")}`);
    } finally {
      await live.close();
    }
  },
});

Deno.test({
  name: "exec faults (malformed status, unknown channel, abrupt close, hang): unknown, never a crash",
  ...sanitizers,
  fn: async () => {
    const live = await openLiveScenario("healthy-consumer", { timeoutMs: 1_500 });
    try {
      const replay = new Replay(live.source);
      const clean = await diagnoseInProcess(replay.record());
      assert.ok(clean.report, String(clean.crash));
      const before = new Map(clean.report.results.map((r) => [`${r.id}#${r.peer}`, r]));
      const problems: string[] = [];
      for (const exec of ["malformed-status", "unknown-channel", "close", "hang"] as const) {
        live.setFaults([{ path: "/pods/[^/]+/exec$", type: "exec", exec }]);
        const run = await diagnoseInProcess(replay.faulting(null));
        if (!run.report) {
          problems.push(`${exec}: crashed: ${run.crash}`);
          continue;
        }
        if (STACK_FRAME.test(run.console)) problems.push(`${exec}: stack trace on the console`);
        if (run.report.exitCode > 2) problems.push(`${exec}: exit ${run.report.exitCode}`);
        if (!ReportSchema.safeParse(JSON.parse(JSON.stringify(run.report))).success) {
          problems.push(`${exec}: the report does not validate`);
        }
        if (live.faultHits().length === 0) problems.push(`${exec}: no exec got the fault`);
        // Exec is never retried: one upgrade per fault served.
        const changed = run.report.results.filter((r) =>
          before.get(`${r.id}#${r.peer}`)?.status !== r.status
        );
        for (const r of changed) {
          if (r.status !== "unknown" && r.status !== "skip") {
            problems.push(`${exec}: ${describeResult(r)} — judged without a readable exec`);
          }
        }
        const unknown = run.report.results.filter((r) => r.status === "unknown");
        if (exec !== "unknown-channel" && !unknown.some((r) => /exec|wg show/i.test(r.summary))) {
          problems.push(
            `${exec}: no unknown result names the failed exec:\n${
              run.report.results.map(describeResult).join("\n")
            }`,
          );
        }
      }
      assert.deepEqual(problems, [], problems.join("\n"));
    } finally {
      await live.close();
    }
  },
});

Deno.test({
  name:
    "real CLI over TLS, scenario `faults:` — persistent reset on gatewayservers + one 503 on pods: exit ≤ 2, unknown, no stack trace",
  ...sanitizers,
  fn: async () => {
    const s = await loadScenario("gw-lb-pending");
    const faults: FaultRule[] = [
      { path: listPattern("gatewayservers"), type: "reset" },
      { path: listPattern("pods"), type: "status", status: 503, retryAfterSeconds: 1, count: 1 },
    ];
    s.clusters[s.run.local].faults = faults;
    const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
    const tmp = await Deno.makeTempDir({ prefix: "ff-faults-" });
    try {
      const kc = `${tmp}/kubeconfig`;
      await Deno.writeTextFile(kc, served.kubeconfigYaml(s.run.local));
      const r = await runCli([
        "check",
        "--kubeconfig",
        kc,
        "-o",
        "json",
        "--no-network-probes",
        "--sample-interval",
        SAMPLE_INTERVAL,
      ]);
      assert.ok(r.code <= 2 && r.code >= 1, `exit ${r.code}\n${r.stderr}`);
      assert.ok(!STACK_FRAME.test(r.stderr), r.stderr);
      const report = ReportSchema.parse(JSON.parse(r.stdout));
      const readers = new Set(CATALOG.filter((c) => c.reads.includes("gatewayservers")).map((c) => c.id));
      for (const x of report.results) {
        if (readers.has(x.id)) assert.ok(x.status === "unknown" || x.status === "skip", describeResult(x));
      }
      const why = report.results.find((x) => x.status === "unknown" && x.summary.includes("gatewayservers"));
      assert.ok(why, report.results.map(describeResult).join("\n"));
      assert.match(why.summary, /\(after 2 retries\)/);
      // The one 503 on pods was waited out: nothing is unknown because of pods.
      assert.ok(!report.results.some((x) => x.status === "unknown" && x.summary.includes(" pods ")));
      const cluster = served.clusters[s.run.local]!;
      // Every pod list once, and the one that got the 503 once more.
      const podLists = cluster.requests.filter((q) => new RegExp(listPattern("pods")).test(q.path));
      assert.equal(podLists.length, new Set(podLists.map((q) => `${q.path}?${q.query}`)).size + 1);
      assert.equal(cluster.requests.filter((q) => q.path.endsWith("/gatewayservers")).length, 3);
    } finally {
      await served.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
