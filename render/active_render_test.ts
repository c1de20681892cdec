import assert from "node:assert/strict";
import type { ActiveRunRecord, MatrixCell, Report, ReportResult } from "../report/model.ts";
import { ReportSchema } from "../report/model.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import { renderText } from "./text.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderHtml } from "./html.ts";
import { renderJson } from "./json.ts";
import { renderYaml } from "./yaml.ts";
import { renderJunit } from "./junit.ts";
import { abbreviate } from "./active_text.ts";
import { displayWidth, stripAnsi } from "./wrap.ts";

const ok: MatrixCell = { tcp: "ok", udp: "ok", detail: "" };
const bad: MatrixCell = { tcp: "fail", udp: "fail", detail: "TCP TIMEOUT after 3 s; UDP no answer" };
const udpOnly: MatrixCell = { tcp: "ok", udp: "fail", detail: "UDP no answer" };

function record(cols: string[], keep = false): ActiveRunRecord {
  const rows = ["rome-worker-1", "rome-worker-2"];
  return {
    runId: "ab12cd34",
    mode: "direct",
    peer: "milan-8d1f03",
    probes: ["matrix"],
    created: [
      { cluster: "rome-4b2a9e", kind: "Namespace", namespace: null, name: "flyingfish-probe-ab12cd34" },
      ...rows.map((r) => ({
        cluster: "rome-4b2a9e",
        kind: "Pod",
        namespace: "flyingfish-probe-ab12cd34",
        name: r,
      })),
    ],
    cleanup: [{
      cluster: "rome-4b2a9e",
      namespace: "flyingfish-probe-ab12cd34",
      status: keep ? "kept" : "removed",
      detail: keep ? "kept (--keep)" : "gone after 1.2s",
    }],
    excluded: [{
      side: "local",
      node: "rome-control-plane",
      reason: "control plane (taint node-role.kubernetes.io/control-plane)",
    }],
    images: { probe: "registry.k8s.io/e2e-test-images/agnhost:2.56@sha256:352a" },
    matrix: {
      grids: [{
        title: "rome-4b2a9e → milan-8d1f03",
        control: false,
        fromCluster: "rome-4b2a9e",
        toCluster: "milan-8d1f03",
        rows,
        cols,
        cells: rows.map(() => cols.map((_, j) => j === 1 ? bad : j === 2 ? udpOnly : ok)),
      }],
      rules: ["a whole column red → that remote node"],
      reading: [`column ${cols[1]} red: that remote node`],
    },
  };
}

function probeResult(): ReportResult {
  return {
    id: "PROBE-MATRIX",
    title: "Pod-to-pod reachability matrix, every node pair (TCP + UDP)",
    layer: "probe",
    status: "fail",
    peer: "milan-8d1f03",
    cluster: "rome-4b2a9e",
    summary: "column milan-worker-2 red",
    evidence: ["rome-worker-1 → milan-worker-2: TCP TIMEOUT"],
    remediation: [],
    blockedBy: null,
    skipKind: null,
    durationMs: 900,
  };
}

function withActive(active: ActiveRunRecord): Report {
  const base = sampleReport();
  return { ...base, results: [...base.results, probeResult()], active };
}

Deno.test("text: the matrix as a table after the ACTIVE PROBES results, then created / removed", () => {
  const cols = ["milan-worker-1", "milan-worker-2", "milan-worker-3"];
  const text = stripAnsi(
    renderText(withActive(record(cols)), { color: false, verbose: false, quiet: false, width: 80 }),
  );
  assert.ok(text.indexOf(" ACTIVE PROBES") < text.indexOf(" PROBE RUN"), text);
  assert.match(text, /from \\ to {2,}milan-worker-1 {2}milan-worker-2 {2}milan-worker-3/);
  assert.match(text, /rome-worker-1 +✓ +✗ +✓\/✗/);
  assert.match(text, /Reading\n +→ column milan-worker-2 red/);
  assert.match(text, /Created\n +rome-4b2a9e: Namespace flyingfish-probe-ab12cd34, 2 Pods/);
  assert.match(text, /Removed\n +✓ rome-4b2a9e: flyingfish-probe-ab12cd34/);
  assert.match(text, /Nodes left out\n +local rome-control-plane: control plane/);
  for (const l of text.split("\n")) assert.ok(displayWidth(l) <= 80, `wider than 80: ${l}`);
});

Deno.test("text: long node names are abbreviated with a legend so the table fits 80 columns", () => {
  const cols = Array.from({ length: 6 }, (_, i) => `ip-10-0-${i}-17.eu-west-1.compute.internal`);
  const text = stripAnsi(
    renderText(withActive(record(cols)), { color: false, verbose: false, quiet: false, width: 80 }),
  );
  for (const l of text.split("\n")) assert.ok(displayWidth(l) <= 80, `wider than 80: ${l}`);
  assert.match(text, /c2 = ip-10-0-1-17\.eu-west-1\.compute\.internal/);
  assert.deepEqual(abbreviate(["milan-worker-1", "milan-worker-22"], 4, "c").labels, ["1", "22"]);
});

Deno.test("text: kept objects print the cleanup command", () => {
  const text = stripAnsi(
    renderText(withActive(record(["a", "b", "c"], true)), { color: false, verbose: false, quiet: false }),
  );
  assert.match(text, /Kept\n +· rome-4b2a9e: flyingfish-probe-ab12cd34 kept/);
  assert.match(text, /flyingfish probe --cleanup --run-id ab12cd34/);
});

Deno.test("markdown, html, json, yaml, junit carry the active block", () => {
  const report = withActive(record(["milan-worker-1", "milan-worker-2", "milan-worker-3"]));
  const md = renderMarkdown(report);
  assert.match(md, /## Active probes/);
  assert.match(md, /\| rome-worker-1 +\| ✓ +\| ✗ +\| ✓\/✗ +\|/);
  const html = renderHtml(report);
  assert.match(html, /<table class="heat"/);
  assert.match(
    html,
    /<td class="cell c-fail" data-state="fail" title="rome-worker-1 → milan-worker-2: TCP fail, UDP fail — TCP TIMEOUT/,
  );
  assert.match(html, /data-layer="probe" data-status="fail"/);
  assert.match(html, /<li class="removed" data-status="removed">/);
  const json = JSON.parse(renderJson(report));
  assert.deepEqual(json.active, report.active);
  assert.ok(ReportSchema.safeParse(json).success);
  assert.match(renderYaml(report), /^active:\n {2}runId: ab12cd34/m);
  assert.match(renderJunit(report), /<testcase [^>]*name="PROBE-MATRIX/);
});

Deno.test("a passive report renders no active section and no probe chip", () => {
  const report = sampleReport();
  assert.doesNotMatch(
    renderText(report, { color: false, verbose: true, quiet: false }),
    /PROBE RUN|ACTIVE PROBES/,
  );
  assert.doesNotMatch(renderHtml(report), /Active probes|data-layer="probe"/);
  assert.doesNotMatch(renderMarkdown(report), /Active probes/);
  assert.equal("active" in JSON.parse(renderJson(report)), false);
});
