import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { canonical, type Report, ReportSchema } from "../report/model.ts";
import { checkMarkup, sampleReport } from "../tests/support/report_fixture.ts";
import { jsonChunks, renderJson } from "./json.ts";
import { renderYaml } from "./yaml.ts";
import { renderJunit, xmlAttr, xmlText } from "./junit.ts";
import { mdCell, mdCodeBlock, renderMarkdown } from "./markdown.ts";
import { FORMATS, render } from "./render.ts";

const HOSTILE = `<b>&amp; "q" 'a' | pipe\nnext\x1b[31m\x00 ]]>`;

function hostileReport() {
  const r = sampleReport();
  const fail = r.results.find((x) => x.status === "fail")!;
  fail.title = HOSTILE;
  fail.summary = HOSTILE;
  fail.evidence = [HOSTILE];
  fail.remediation = [{ command: HOSTILE, comment: HOSTILE }, { command: null, comment: HOSTILE }];
  r.cheatSheet[0].command = "echo ``` `x` | cat <<EOF";
  r.peering!.tables[0].rows[0][1] = HOSTILE;
  return r;
}

Deno.test("JSON validates against ReportSchema and round-trips", () => {
  const r = sampleReport();
  const out = renderJson(r);
  assert.ok(out.endsWith("}\n"));
  assert.match(out, /^\{\n {2}"schemaVersion": "2",\n {2}"tool"/);
  const parsed = JSON.parse(out);
  assert.deepEqual(ReportSchema.parse(parsed), r);
  assert.deepEqual(parsed, r);
});

Deno.test("JSON key order is stable regardless of input order", () => {
  const r = sampleReport();
  const reversed = Object.fromEntries(Object.entries(r).reverse()) as typeof r;
  assert.equal(renderJson(reversed), renderJson(r));
});

Deno.test("JSON in pieces is byte for byte JSON.stringify(canonical(report), null, 2)", () => {
  const old = (r: Report) => JSON.stringify(canonical(r), null, 2) + "\n";
  const empty = { ...sampleReport(), results: [], peers: [], cheatSheet: [], incomplete: [] };
  const shuffled = sampleReport();
  // Keys out of schema order and one the schema does not know, inside a streamed element.
  shuffled.results = shuffled.results.map((x) =>
    ({ extra: 1, ...Object.fromEntries(Object.entries(x).reverse()) }) as unknown as typeof x
  );
  const stopped: Report = {
    ...sampleReport(),
    stopped: { by: "SIGINT", message: "interrupted" },
    active: null,
  };
  for (const r of [sampleReport(), hostileReport(), empty, shuffled, stopped]) {
    assert.equal(renderJson(r), old(r));
    assert.equal([...jsonChunks(r)].join(""), old(r));
  }
  // One piece per long-array element: nothing builds the whole document at once.
  const r = sampleReport();
  assert.ok([...jsonChunks(r)].length > r.results.length + r.peers.length);
});

Deno.test("YAML parses back to the same document as JSON", () => {
  for (const r of [sampleReport(), hostileReport()]) {
    assert.deepEqual(parseYaml(renderYaml(r)), JSON.parse(renderJson(r)));
  }
});

Deno.test("JUnit is well-formed with one testcase per result", () => {
  const r = sampleReport();
  const xml = renderJunit(r);
  const { errors, elements } = checkMarkup(xml);
  assert.deepEqual(errors, []);
  assert.equal(elements.filter((e) => e === "testcase").length, r.results.length);
  assert.equal(elements.filter((e) => e === "failure").length, 1);
  assert.equal(elements.filter((e) => e === "skipped").length, 3); // 2 skip + 1 unknown
  assert.match(
    xml,
    /<testsuites name="flyingfish" tests="12" failures="1" errors="0" skipped="3" time="4\.800"/,
  );
  assert.match(
    xml,
    /<testcase classname="flyingfish\.gateway" name="GW-02 Gateway server service exposed \[rome-4b2a9e\]"/,
  );
  assert.match(
    xml,
    /<failure message="gateway server service is not \(or not usefully\) exposed" type="fail">/,
  );
  assert.match(xml, /<system-out>WARNING: offloading module/);
  assert.match(xml, /<skipped message="blocked by GW-02"\/>/);
  assert.match(xml, /<testsuite name="GATEWAY EXPOSURE \[rome-4b2a9e\]"/);
});

Deno.test("JUnit escapes hostile strings, including control characters", () => {
  const xml = renderJunit(hostileReport());
  assert.deepEqual(checkMarkup(xml).errors, []);
  assert.ok(!xml.includes("\x1b") && !xml.includes("\x00"));
  assert.ok(!xml.includes("<b>"));
  assert.equal(xmlAttr(`a"b'c\nd<&>`), "a&quot;b&apos;c&#10;d&lt;&amp;&gt;");
  assert.equal(xmlText("a\x01b\uD800c"), "a\uFFFDb\uFFFDc");
  assert.equal(xmlText("😀"), "😀");
});

Deno.test("Markdown: diagnosis first, summary table, details, dump, cheat sheet", () => {
  const md = renderMarkdown(sampleReport());
  assert.match(md, /^# FlyingFish report/);
  const diag = md.indexOf("## Diagnosis"), table = md.indexOf("## All Checks — Summary");
  assert.ok(diag > 0 && table > diag);
  assert.match(md, /\*\*✗ GW-02\*\* \[GATEWAY EXPOSURE\] peer rome-4b2a9e: gateway server service/);
  assert.ok(md.includes("| Status | ID | Layer | Cluster | Peer | Result |"));
  assert.ok(md.includes("| ✗ fail | GW-02 | GATEWAY EXPOSURE | milan-8d1f03 | rome-4b2a9e |"));
  assert.equal(md.split("\n").filter((l) => /^\| . (pass|warn|fail|skip|unknown) \|/.test(l)).length, 12);
  assert.ok(md.includes("LoadBalancer stuck &lt;pending&gt;"));
  assert.ok(md.includes("\nuse --server-service-type NodePort, or install MetalLB\n"));
  assert.ok(md.includes("## Peering") && md.includes("### ResourceSlices"));
  assert.ok(md.includes("```sh\n  nc -u -v -z 203.0.113.7 51820\n  ```"));
});

Deno.test("Markdown escapes hostile strings in tables and text", () => {
  const md = renderMarkdown(hostileReport());
  // Inside a fenced code block `<b>` is literal text; everywhere else it must be escaped.
  const outsideCode = md.replace(/^(`{3,})sh\n[\s\S]*?\n\s*\1$/gm, "");
  assert.ok(!outsideCode.includes("<b>"), outsideCode);
  assert.ok(!md.includes("\x1b") && !md.includes("\x00"));
  // Every summary-table row still has exactly 6 cells (unescaped pipes would add more).
  for (const l of md.split("\n").filter((l) => l.startsWith("| ✗ fail"))) {
    assert.equal(l.split(/(?<!\\)\|/).length - 2, 6, l);
  }
  assert.equal(mdCell("a|b\nc<d>"), "a\\|b<br>c&lt;d&gt;");
  assert.ok(md.includes("````sh\n  echo ``` `x` | cat <<EOF\n  ````"));
  assert.equal(mdCodeBlock("x"), "```\nx\n```");
});

Deno.test("JSON: remediation is a list of {command, comment}", () => {
  const doc = JSON.parse(renderJson(sampleReport()));
  const gw02 = doc.results.find((r: { id: string; status: string }) =>
    r.id === "GW-02" && r.status === "fail"
  );
  assert.deepEqual(gw02.remediation[0], {
    command: "kubectl -n liqo-tenant-rome describe svc gw-rome",
    comment: "events say why",
  });
  assert.deepEqual(doc.results[0].remediation, []);
  assert.deepEqual(doc.diagnosis.remediation, gw02.remediation);
  assert.equal(doc.invocation.commandLine, "flyingfish check --context kind-milan");
  assert.equal(doc.clusters[0].serverVersion, "v1.31.2");
});

Deno.test("Markdown: timestamp and command at the top, long sections folded, fixes in code blocks", () => {
  const r = sampleReport();
  r.results[0] = {
    ...r.results[0],
    status: "skip",
    skipKind: "needs-remote",
    summary: "needs --remote-kubeconfig",
  };
  r.results[1] = {
    ...r.results[1],
    status: "skip",
    skipKind: "needs-remote",
    summary: "needs --remote-kubeconfig",
  };
  const md = renderMarkdown(r);
  const head = md.split("\n").slice(0, 4).join("\n");
  assert.match(head, /2026-03-01T10:00:00\.000Z/);
  assert.ok(head.includes("`flyingfish check --context kind-milan`"), head);
  assert.ok(md.indexOf("<details><summary>12 checks: ") > md.indexOf("## All Checks — Summary"));
  assert.equal(md.split("<details>").length - 1, 3, "summary table, peering dump, cheat sheet");
  assert.equal(md.split("</details>").length - 1, 3);
  // Each code block holds commands only: no ⚑, no quote markers to strip.
  const blocks = [...md.matchAll(/```sh\n([\s\S]*?)\n\s*```/g)].map((m) => m[1]);
  assert.ok(
    blocks.includes("kubectl -n liqo-tenant-rome describe svc gw-rome   # events say why"),
    blocks.join("\n--\n"),
  );
  for (const b of blocks) assert.ok(!b.includes("⚑") && !/^\s*>/m.test(b), b);
  // The checks that only need --remote-kubeconfig: one line in the details.
  const details = md.slice(md.indexOf("## Details"), md.indexOf("## Peering"));
  assert.equal(details.split("need --remote-kubeconfig").length - 1, 1, details);
  assert.ok(details.includes("ENV-01, ENV-03: need --remote-kubeconfig"));
  // The run section: command line, host, Kubernetes version.
  const run = md.slice(md.indexOf("## Run"));
  assert.ok(run.includes("```sh\nflyingfish check --context kind-milan\n```"));
  assert.ok(run.includes("`bastion-1`") && run.includes("| Kubernetes |") && run.includes("| v1.31.2 |"));
});

Deno.test("render dispatches every format", () => {
  const r = sampleReport();
  const opts = { color: false, verbose: false, quiet: false };
  for (const f of FORMATS) assert.ok(render(r, f, opts).length > 100, f);
  assert.match(render(r, "text", opts), /^ ENVIRONMENT$/m);
  assert.match(render(r, "json", opts), /^\{/);
  assert.match(render(r, "yaml", opts), /^schemaVersion: "2"/);
  assert.match(render(r, "junit", opts), /^<\?xml/);
  assert.match(render(r, "markdown", opts), /^# /);
  assert.match(render(r, "html", opts), /^<!DOCTYPE html>/);
});
