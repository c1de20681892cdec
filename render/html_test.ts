import assert from "node:assert/strict";
import { dataPath, htmlEscape, renderHtml } from "./html.ts";
import { checkMarkup, sampleReport } from "../report/fixture.ts";

Deno.test("HTML is well-formed, self-contained, diagnosis first", () => {
  const html = renderHtml(sampleReport());
  assert.deepEqual(checkMarkup(html, true).errors, []);
  assert.match(html, /^<!DOCTYPE html>/);
  assert.ok(!/<script|<link|\ssrc=|url\(|@import|href="http/i.test(html));
  assert.ok(html.includes("prefers-color-scheme:dark") && html.includes("@media print"));
  const diag = html.indexOf('id="diagnosis"');
  assert.ok(diag > 0 && diag < html.indexOf('id="datapath"'));
  assert.match(html, /<section id="diagnosis"[^>]*>\n<div class="head"><span class="st">✗ GW-02<\/span>/);
  assert.ok(html.includes("LoadBalancer stuck &lt;pending&gt;"));
});

Deno.test("HTML data path: 9 hops with statuses, diagnosis peer first", () => {
  const html = renderHtml(sampleReport());
  const first = html.slice(html.indexOf('<svg id="datapath"'), html.indexOf("</svg>"));
  const hops = [...first.matchAll(/data-hop="([^"]+)" data-status="([^"]+)"/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(hops.map((h) => h[0]), [
    "pod-local",
    "node-local",
    "geneve-local",
    "gateway-local",
    "wireguard",
    "gateway-remote",
    "geneve-remote",
    "node-remote",
    "pod-remote",
  ]);
  const st = Object.fromEntries(hops);
  assert.equal(st["gateway-local"], "fail");
  assert.equal(st["wireguard"], "skip");
  assert.equal(st["pod-remote"], "none");
  assert.ok(html.includes('<svg id="datapath-2"'));
  const paris = dataPath(sampleReport(), "paris-77c0aa");
  assert.equal(paris.find((h) => h.key === "gateway-local")?.status, "pass");
  assert.equal(paris.find((h) => h.key === "wireguard")?.status, "unknown");
});

Deno.test("HTML escapes hostile strings", () => {
  const r = sampleReport();
  const evil = `<script>alert("x")</script> & ' \x00`;
  r.results[5].summary = evil;
  r.results[5].title = evil;
  r.diagnosis!.summary = evil;
  r.cheatSheet[0].command = evil;
  r.clusters[0].name = evil;
  const html = renderHtml(r);
  assert.ok(!html.includes("<script>"));
  assert.ok(!html.includes("\x00"));
  assert.deepEqual(checkMarkup(html, true).errors, []);
  assert.equal(htmlEscape(`<a href='x'>&"`), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
});
