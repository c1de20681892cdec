import assert from "node:assert/strict";
import { dataPath, dataPaths, htmlEscape, renderHtml } from "./html.ts";
import { checkMarkup, sampleReport } from "../tests/support/report_fixture.ts";
import type { Report, ReportResult } from "../report/model.ts";

const ROME = "rome-4b2a9e";
const MILAN = "milan-8d1f03";

/** A healthy dual-mode report: rome (local) and milan (remote) each see the other as their peer. */
function dualReport(): Report {
  const base = sampleReport({ diagnosis: null, exitCode: 0 });
  const res = (
    id: string,
    cluster: string,
    peer: string | null,
    layer: ReportResult["layer"],
  ): ReportResult => ({
    id,
    title: id,
    layer,
    status: "pass",
    peer,
    cluster,
    summary: "ok",
    evidence: [],
    remediation: [],
    blockedBy: null,
    skipKind: null,
    durationMs: 1,
  });
  const results = [
    res("ENV-01", ROME, null, "env"),
    res("ENV-01", MILAN, null, "env"),
    res("ENV-02", `${ROME} ↔ ${MILAN}`, MILAN, "env"),
    res("GW-01", ROME, MILAN, "gateway"),
    res("GW-01", MILAN, ROME, "gateway"),
    res("TUN-01", ROME, MILAN, "tunnel"),
    res("TUN-01", MILAN, ROME, "tunnel"),
    res("FAB-02", ROME, MILAN, "fabric"),
    res("FAB-02", MILAN, ROME, "fabric"),
  ];
  return {
    ...base,
    clusters: [
      {
        ...base.clusters[0],
        name: ROME,
        clusterId: ROME,
        context: "rome",
        role: "local",
        serverVersion: "v1.30.4",
      },
      {
        ...base.clusters[0],
        name: MILAN,
        clusterId: MILAN,
        context: "milan",
        role: "remote",
        serverVersion: null,
      },
    ],
    peers: [
      { cluster: ROME, clusterId: MILAN, role: "Provider", tenantNamespace: "liqo-tenant-milan-8d1f03" },
      { cluster: MILAN, clusterId: ROME, role: "Consumer", tenantNamespace: "liqo-tenant-rome-4b2a9e" },
    ],
    results,
    summary: { pass: results.length, warn: 0, fail: 0, skip: 0, unknown: 0, total: results.length },
  };
}

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
  // A hop blocked by the failure says it was not verified; one no check observes says so.
  assert.match(first, /data-hop="wireguard"[^]*?<text class="caption"[^>]*>not verified<\/text>/);
  assert.match(first, /data-hop="pod-remote"[^]*?<text class="caption"[^>]*>not observed<\/text>/);
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

Deno.test("HTML dual mode: one data path per peering, labelled with its two clusters", () => {
  const r = dualReport();
  assert.deepEqual(dataPaths(r), [{ from: ROME, to: MILAN }]);
  const html = renderHtml(r);
  assert.equal(html.split("<svg ").length - 1, 1, "the two ends of one peering are one path");
  assert.match(
    html,
    /<h3><span class="nw">rome-4b2a9e<\/span> → <span class="nw">milan-8d1f03<\/span><\/h3>/,
  );
  assert.ok(html.includes('aria-label="data path from rome-4b2a9e to milan-8d1f03"'));
  const hops = Object.fromEntries(dataPath(r, MILAN, ROME).map((h) => [h.key, h]));
  // The remote side's hops are the remote cluster's own results about the local one.
  assert.deepEqual(hops["gateway-remote"].results.map((x) => `${x.id}@${x.cluster}`), [`GW-01@${MILAN}`]);
  assert.deepEqual(hops["gateway-local"].results.map((x) => `${x.id}@${x.cluster}`), [`GW-01@${ROME}`]);
  assert.equal(hops["node-remote"].status, "pass");
});

Deno.test("HTML all green: no '?' on the data path; unobserved hops say so", () => {
  const html = renderHtml(dualReport());
  const svg = html.slice(html.indexOf("<svg"), html.indexOf("</svg>"));
  assert.ok(!/<text class="mark"[^>]*>\?<\/text>/.test(svg), svg);
  assert.match(svg, /data-hop="pod-local" data-status="none">[^]*?>not observed<\/text>/);
  assert.ok(!/class="mark"[^>]*><\/text>/.test(svg), "no empty mark");
});

Deno.test("HTML: needs --remote-kubeconfig skips collapse into one line; IDs do not wrap", () => {
  const r = sampleReport();
  for (const i of [0, 1]) {
    r.results[i] = {
      ...r.results[i],
      status: "skip",
      skipKind: "needs-remote",
      summary: "needs --remote-kubeconfig",
    };
  }
  const html = renderHtml(r);
  assert.equal(html.split('data-skip="needs-remote"').length - 1, 2, "one table row, one findings line");
  assert.match(html, /<td class="id">ENV-01, ENV-03<\/td>/);
  assert.equal(html.split("needs --remote-kubeconfig").length - 1, 0);
  assert.match(html, /\.nw,td\.id\{white-space:nowrap\}/);
  assert.match(html, /<td class="nw">milan-8d1f03<\/td><td class="nw">rome-4b2a9e<\/td>/);
});

Deno.test("HTML: command line, probe host, server versions; fixes as bare command blocks", () => {
  const html = renderHtml(dualReport());
  assert.ok(html.includes('Command: <code class="cmdline">flyingfish check --context kind-milan</code>'));
  assert.ok(html.includes('from host <span class="nw">bastion-1</span>'));
  assert.ok(html.includes("Probes ran from host <code>bastion-1</code>"));
  assert.match(html, /<th>Kubernetes<\/th>/);
  assert.ok(html.includes('<td class="nw">v1.30.4</td>'));
  const fixed = renderHtml(sampleReport());
  const pres = [...fixed.matchAll(/<pre class="cmd"><code>([^<]*)<\/code><\/pre>/g)].map((m) => m[1]);
  assert.ok(
    pres.includes("kubectl -n liqo-tenant-rome describe svc gw-rome   # events say why"),
    pres.join("|"),
  );
  for (const p of pres) assert.ok(!p.includes("⚑"), p);
  // No invocation recorded (a library call): no command line, no host.
  const bare = renderHtml({ ...sampleReport(), invocation: null });
  assert.ok(!bare.includes(`class="cmdline"`) && !bare.includes("Probes ran from"));
});
