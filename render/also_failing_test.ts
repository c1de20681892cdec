/** The diagnosis's `alsoFailing` in every human format: text (normal and quiet), Markdown, HTML, JSON. */
import assert from "node:assert/strict";
import { renderText } from "./text.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderHtml } from "./html.ts";
import { renderJson } from "./json.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import { ReportSchema } from "../report/model.ts";

const PLAIN = { color: false, verbose: false, quiet: false };

function twoFaults() {
  const r = sampleReport();
  r.diagnosis = {
    ...r.diagnosis!,
    alsoFailing: [
      {
        id: "FAB-01",
        layer: "fabric",
        peer: null,
        cluster: r.diagnosis!.cluster,
        summary: "no ready fabric pod on milan-worker-2: pods on node milan-worker-2 won't reach the peer",
      },
      {
        id: "TUN-06",
        layer: "tunnel",
        peer: "paris",
        cluster: r.diagnosis!.cluster,
        summary: "MTU <1340> & 1500",
      },
    ],
  };
  return r;
}

Deno.test("text: one `also failing:` line per other root failure, under the diagnosis and its fix", () => {
  // Wide enough for each on one line (narrower, they wrap: render/text_test.ts).
  const lines = renderText(twoFaults(), { ...PLAIN, width: 140 }).trimEnd().split("\n");
  const d = lines.findIndex((l) => l.startsWith(" diagnosis ✗ GW-02"));
  assert.ok(d > 0);
  assert.match(lines[d + 1], /^ {11}⚑ /);
  assert.equal(
    lines[d + 2],
    "           also failing: ✗ FAB-01 [FABRIC]: no ready fabric pod on milan-worker-2: pods on node milan-worker-2 " +
      "won't reach the peer",
  );
  assert.equal(lines[d + 3], "           also failing: ✗ TUN-06 [TUNNEL] peer paris: MTU <1340> & 1500");
  assert.equal(lines.length, d + 4);
});

Deno.test("text: quiet mode folds the other root failures into the diagnosis", () => {
  const lines = renderText(twoFaults(), { ...PLAIN, quiet: true, width: 140 }).trimEnd().split("\n");
  assert.ok(lines.length <= 5, lines.join("\n"));
  const diagnosis = lines.slice(2, -1).map((l) => l.trim()).join(" ");
  assert.ok(diagnosis.endsWith("(also failing: FAB-01, TUN-06 peer paris)"), diagnosis);
  assert.ok(lines.every((l) => l.length <= 140));
  assert.ok(!renderText(sampleReport(), { ...PLAIN, quiet: true }).includes("also failing"));
});

Deno.test("text: more than five are counted, not listed", () => {
  const r = twoFaults();
  const one = r.diagnosis!.alsoFailing![1];
  r.diagnosis!.alsoFailing = Array.from({ length: 8 }, (_, i) => ({ ...one, peer: `p${i}` }));
  const out = renderText(r, PLAIN);
  assert.equal(out.split("\n").filter((l) => l.includes("also failing: ✗")).length, 5);
  assert.ok(out.includes("also failing: … and 3 more"));
});

Deno.test("markdown and html list the other root failures in the diagnosis section, escaped", () => {
  const md = renderMarkdown(twoFaults());
  const diag = md.slice(md.indexOf("## Diagnosis"), md.indexOf("## All Checks"));
  assert.ok(diag.includes("Also failing"), diag);
  assert.ok(diag.includes("- **✗ FAB-01** [FABRIC]"), diag);
  assert.ok(diag.includes("- **✗ TUN-06** [TUNNEL] peer paris: MTU &lt;1340&gt; &amp; 1500"), diag);
  const html = renderHtml(twoFaults());
  const sec = html.slice(html.indexOf('<section id="diagnosis"'), html.indexOf("</section>"));
  assert.ok(sec.includes('<div class="also">'), sec);
  assert.ok(sec.includes("TUN-06</span> [TUNNEL] peer paris: MTU &lt;1340&gt; &amp; 1500"), sec);
  assert.ok(!renderMarkdown(sampleReport()).includes("Also failing"));
  assert.ok(!renderHtml(sampleReport()).includes('class="also"'));
});

Deno.test("json: alsoFailing is part of the diagnosis and validates against the schema", () => {
  const doc = JSON.parse(renderJson(twoFaults()));
  assert.deepEqual(doc.diagnosis.alsoFailing.map((f: { id: string }) => f.id), ["FAB-01", "TUN-06"]);
  assert.ok(ReportSchema.safeParse(doc).success);
  // A report written before the field existed still validates.
  const old = sampleReport();
  assert.ok(ReportSchema.safeParse(JSON.parse(renderJson(old))).success);
});
