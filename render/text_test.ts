import assert from "node:assert/strict";
import { cleanText, LiveChecklist, renderText, type TextOptions } from "./text.ts";
import { sampleReport } from "../report/fixture.ts";
import type { CheckResult } from "../report/model.ts";

const PLAIN: TextOptions = { color: false, verbose: false, quiet: false };
const ESC = "\x1b";

Deno.test("text: no escape sequences without colour, even from hostile cluster strings", () => {
  const r = sampleReport();
  r.results[5].summary = "evil \x1b[2J\x1b]0;title\x07 summary";
  r.results[5].evidence.push("line\rover\x1b[31m");
  const out = renderText(r, PLAIN);
  assert.ok(!out.includes(ESC));
  assert.ok(!out.includes("\r") && !out.includes("\x07"));
  assert.ok(out.includes("evil \\x1b[2J"));
  assert.ok(!renderText(r, { ...PLAIN, verbose: true }).includes(ESC));
  assert.ok(!renderText(r, { ...PLAIN, quiet: true }).includes(ESC));
  assert.equal(cleanText("a\tb\x1bc"), "a  b\\x1bc");
});

Deno.test("text: colour on emits ANSI", () => {
  assert.ok(renderText(sampleReport(), { ...PLAIN, color: true }).includes(`${ESC}[31m`));
});

Deno.test("text: layers, marks, evidence, fixes, skips, count line and diagnosis", () => {
  const out = renderText(sampleReport(), PLAIN);
  const lines = out.split("\n");
  assert.equal(lines[0], " ENVIRONMENT");
  assert.equal(lines[1], "  ✓ ENV-01   Liqo core components healthy");
  assert.ok(out.includes("\n GATEWAY EXPOSURE\n"));
  assert.match(out, /\n {2}✗ GW-02 {4}Gateway server service exposed +\[peer rome-4b2a9e\]\n/);
  assert.ok(out.includes("\n      gateway server service is not (or not usefully) exposed\n"));
  assert.ok(out.includes("\n      · liqo-tenant-milan/gw-milan: LoadBalancer stuck <pending>\n"));
  assert.ok(
    out.includes("\n      ⚑ LoadBalancer pending → no LB controller, or your cloud LB cannot do UDP\n"),
  );
  assert.ok(out.includes("\n        use --server-service-type NodePort, or install MetalLB\n"));
  assert.match(out, /\n {2}! CP-01 .*\[peer paris-77c0aa\]\n/);
  assert.match(out, /\n {2}\? TUN-02 /);
  assert.match(out, /\n {2}- TUN-01 .*\n {6}blocked by GW-02\n/);
  assert.ok(out.includes("\n ────────────────────────────────────────\n"));
  assert.ok(out.includes("\n 7 passed ⋅ 1 warning ⋅ 1 failed ⋅ 2 skipped ⋅ 1 unknown (4.8s)\n"));
  assert.ok(out.includes(
    "\n diagnosis ✗ GW-02 [GATEWAY EXPOSURE] peer rome-4b2a9e: gateway server service is not (or not usefully) exposed\n" +
      "           ⚑ LoadBalancer pending → no LB controller, or your cloud LB cannot do UDP\n",
  ));
  assert.ok(out.endsWith("\n") && !out.endsWith("\n\n"));
  // pass evidence hidden without verbose
  assert.ok(!out.includes("liqo-controller-manager"));
});

Deno.test("text: groups by peer within a layer and compacts a healthy peer block", () => {
  const out = renderText(sampleReport(), PLAIN);
  const gw = out.slice(out.indexOf(" GATEWAY EXPOSURE"), out.indexOf(" TUNNEL"));
  assert.match(gw, /✓ all ok {3}GW-01 GW-02 +\[peer paris-77c0aa\]/);
  assert.ok(gw.indexOf("rome-4b2a9e") < gw.indexOf("paris-77c0aa"));
  const tun = out.slice(out.indexOf(" TUNNEL"));
  // cluster-wide results come first, then rome, then paris
  assert.ok(tun.indexOf("MTU-01") < tun.indexOf("rome-4b2a9e"));
  assert.ok(tun.indexOf("rome-4b2a9e") < tun.indexOf("paris-77c0aa"));
});

Deno.test("text: labels only what varies", () => {
  const r = sampleReport();
  const single = sampleReport({ results: r.results.filter((x) => x.peer !== "paris-77c0aa") });
  assert.ok(!renderText(single, PLAIN).includes("[peer"));
  const two = sampleReport({
    results: [...r.results, { ...r.results[0], cluster: "rome-4b2a9e" }],
  });
  const out = renderText(two, PLAIN);
  assert.match(out, /ENV-01 .*\[milan-8d1f03\]/);
  assert.match(out, /ENV-01 .*\[rome-4b2a9e\]/);
  assert.match(out, /GW-02 .*\[milan-8d1f03 · peer rome-4b2a9e\]/);
  assert.match(out, /diagnosis ✗ GW-02 \[GATEWAY EXPOSURE\] milan-8d1f03 · peer rome-4b2a9e:/);
});

Deno.test("text: verbose shows pass evidence, the peering dump and the cheat sheet", () => {
  const out = renderText(sampleReport(), { ...PLAIN, verbose: true });
  assert.ok(out.includes("      · liqo/liqo-controller-manager: 1/1 ready"));
  assert.ok(!out.includes("all ok"));
  assert.ok(out.includes(" PEERING") && out.includes("ResourceSlices"));
  assert.ok(out.includes(" MANUAL TEST CHEAT SHEET") && out.includes("    $ nc -u -v -z 203.0.113.7 51820"));
  assert.ok(out.includes("local cluster milan-8d1f03 (context kind-milan"));
});

Deno.test("text: quiet prints only the count line and the diagnosis", () => {
  const out = renderText(sampleReport(), { ...PLAIN, quiet: true });
  assert.deepEqual(out.split("\n").filter((l) => l.trim()).map((l) => l.trim().split(" ")[0]), [
    "7",
    "diagnosis",
    "⚑",
  ]);
});

Deno.test("text: no failure line", () => {
  const r = sampleReport();
  const ok = sampleReport({
    results: r.results.filter((x) => x.status === "pass"),
    diagnosis: null,
    exitCode: 0,
  });
  assert.ok(renderText(ok, PLAIN).endsWith("\n no failure found\n"));
  const warn = sampleReport({
    results: r.results.filter((x) => x.status !== "fail"),
    diagnosis: null,
    exitCode: 1,
  });
  assert.ok(renderText(warn, PLAIN).endsWith("\n no failure found — 1 warning, 1 unknown\n"));
});

Deno.test("text: snapshot mode says when the state was captured", () => {
  const out = renderText(sampleReport({ mode: "snapshot", snapshotTakenAt: "2026-02-28T08:00:00Z" }), PLAIN);
  assert.match(out, /^ snapshot taken 2026-02-28T08:00:00Z/);
});

Deno.test("LiveChecklist on a TTY: headers, results, spinner, tail", async () => {
  const chunks: string[] = [];
  const live = new LiveChecklist((s) => chunks.push(s), {
    color: false,
    verbose: false,
    tty: true,
    intervalMs: 5,
  });
  const report = sampleReport();
  const [env1, , , , , gw2] = report.results as CheckResult[];
  live.start("ENV-01", env1.cluster, null);
  live.start("GW-02", gw2.cluster, gw2.peer);
  await new Promise((r) => setTimeout(r, 20));
  live.result(env1);
  live.result(gw2);
  live.finish(report);
  live.finish(report); // idempotent
  const out = chunks.join("");
  assert.ok(!out.includes(ESC));
  assert.match(out, /⠙|⠹|⠸/); // the spinner advanced
  assert.ok(out.includes("running ENV-01 GW-02"));
  assert.ok(out.includes(" ENVIRONMENT\n  ✓ ENV-01"));
  assert.ok(out.includes(" GATEWAY EXPOSURE\n  ✗ GW-02"));
  assert.ok(out.includes("      ⚑ LoadBalancer pending"));
  assert.ok(out.includes("7 passed ⋅ 1 warning"));
  assert.ok(out.includes(" diagnosis ✗ GW-02"));
  // the spinner line was cleared by overwriting it with spaces and \r
  assert.match(out, /\r +\r/);
  const n = chunks.length;
  await new Promise((r) => setTimeout(r, 15));
  assert.equal(chunks.length, n); // timer stopped
});

Deno.test("LiveChecklist with colour uses erase-line; off a TTY prints the report once at the end", () => {
  const chunks: string[] = [];
  const live = new LiveChecklist((s) => chunks.push(s), { color: true, verbose: false });
  const report = sampleReport();
  live.start("ENV-01", report.results[0].cluster, null);
  live.result(report.results[0]);
  live.finish(report);
  assert.ok(chunks.join("").includes("\r\x1b[2K"));

  const plain: string[] = [];
  const quiet = new LiveChecklist((s) => plain.push(s), { color: false, verbose: false });
  quiet.start("ENV-01", report.results[0].cluster, null);
  quiet.result(report.results[0]);
  assert.equal(plain.length, 0);
  quiet.finish(report);
  assert.deepEqual(plain, [renderText(report, PLAIN)]);
});

Deno.test("text: checks that need --remote-kubeconfig are one closing line, not a skip per peer", () => {
  const r = sampleReport();
  const dual = (id: string, peer: string) => ({
    ...r.results[0],
    id,
    peer,
    status: "skip" as const,
    skipKind: "needs-remote" as const,
    summary: "needs --remote-kubeconfig",
  });
  const out = renderText(
    sampleReport({ results: [...r.results, dual("GW-04", "rome-4b2a9e"), dual("GW-04", "paris-77c0aa")] }),
    PLAIN,
  );
  assert.equal(out.split("\n").filter((l) => l.includes("GW-04")).length, 1);
  assert.match(out, /- GW-04: needs --remote-kubeconfig/);
  const verbose = renderText(
    sampleReport({ results: [...r.results, dual("GW-04", "rome-4b2a9e")] }),
    { ...PLAIN, verbose: true },
  );
  assert.match(verbose, /GW-04 /);
});
