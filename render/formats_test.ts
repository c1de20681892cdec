import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { ReportSchema } from "../report/model.ts";
import { checkMarkup, sampleReport } from "../report/fixture.ts";
import { renderJson } from "./json.ts";
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
  fail.remediation = HOSTILE;
  r.cheatSheet[0].command = "echo ``` `x` | cat <<EOF";
  r.peering!.tables[0].rows[0][1] = HOSTILE;
  return r;
}

Deno.test("JSON validates against ReportSchema and round-trips", () => {
  const r = sampleReport();
  const out = renderJson(r);
  assert.ok(out.endsWith("}\n"));
  assert.match(out, /^\{\n {2}"schemaVersion": "1",\n {2}"tool"/);
  const parsed = JSON.parse(out);
  assert.deepEqual(ReportSchema.parse(parsed), r);
  assert.deepEqual(parsed, r);
});

Deno.test("JSON key order is stable regardless of input order", () => {
  const r = sampleReport();
  const reversed = Object.fromEntries(Object.entries(r).reverse()) as typeof r;
  assert.equal(renderJson(reversed), renderJson(r));
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
  assert.ok(md.includes("> ⚑ use --server-service-type NodePort, or install MetalLB"));
  assert.ok(md.includes("## Peering") && md.includes("### ResourceSlices"));
  assert.ok(md.includes("```sh\n  nc -u -v -z 203.0.113.7 51820\n  ```"));
});

Deno.test("Markdown escapes hostile strings in tables and text", () => {
  const md = renderMarkdown(hostileReport());
  assert.ok(!md.includes("<b>"));
  assert.ok(!md.includes("\x1b") && !md.includes("\x00"));
  // Every summary-table row still has exactly 6 cells (unescaped pipes would add more).
  for (const l of md.split("\n").filter((l) => l.startsWith("| ✗ fail"))) {
    assert.equal(l.split(/(?<!\\)\|/).length - 2, 6, l);
  }
  assert.equal(mdCell("a|b\nc<d>"), "a\\|b<br>c&lt;d&gt;");
  assert.ok(md.includes("````sh\n  echo ``` `x` | cat <<EOF\n  ````"));
  assert.equal(mdCodeBlock("x"), "```\nx\n```");
});

Deno.test("render dispatches every format", () => {
  const r = sampleReport();
  const opts = { color: false, verbose: false, quiet: false };
  for (const f of FORMATS) assert.ok(render(r, f, opts).length > 100, f);
  assert.match(render(r, "text", opts), /^ ENVIRONMENT/);
  assert.match(render(r, "json", opts), /^\{/);
  assert.match(render(r, "yaml", opts), /^schemaVersion: "1"/);
  assert.match(render(r, "junit", opts), /^<\?xml/);
  assert.match(render(r, "markdown", opts), /^# /);
  assert.match(render(r, "html", opts), /^<!DOCTYPE html>/);
});
