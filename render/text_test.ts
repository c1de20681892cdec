import assert from "node:assert/strict";
import { cleanText, renderText, type TextOptions } from "./text.ts";
import { displayWidth, stripAnsi } from "./wrap.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import {
  LAYER_TITLES,
  LAYERS,
  type RemediationStep,
  type Report,
  type ReportResult,
} from "../report/model.ts";

const PLAIN: TextOptions = { color: false, verbose: false, quiet: false };
const ESC = "\x1b";

/** The sample report with GW-02's fix as steps (and the diagnosis's). */
function sample(overrides: Partial<Report> = {}): Report {
  const fix: RemediationStep[] = [
    { command: null, comment: "LoadBalancer pending → no LB controller, or your cloud LB cannot do UDP" },
    { command: "kubectl -n liqo-tenant-milan describe svc gw-milan", comment: null },
  ];
  const r = sampleReport(overrides);
  for (const x of r.results) x.remediation = x.id === "GW-02" && x.status === "fail" ? fix : [];
  if (r.diagnosis) r.diagnosis.remediation = fix;
  return r;
}

function result(p: Partial<ReportResult> & Pick<ReportResult, "id">): ReportResult {
  return {
    title: "A check",
    layer: "gateway",
    status: "pass",
    peer: null,
    cluster: "milan-8d1f03",
    summary: "ok",
    evidence: [],
    remediation: [],
    blockedBy: null,
    skipKind: null,
    durationMs: 1,
    ...p,
  };
}

function assertFits(out: string, width: number, what: string): void {
  for (const l of out.split("\n")) {
    assert.ok(displayWidth(stripAnsi(l)) <= width, `${what}: ${displayWidth(stripAnsi(l))} > ${width}: ${l}`);
  }
}

Deno.test("text: no escape sequences without colour, even from hostile cluster strings", () => {
  const r = sample();
  r.results[5].summary = "evil \x1b[2J\x1b]0;title\x07 summary";
  r.results[5].evidence.push("line\rover\x1b[31m");
  r.clusters[0].context = "ctx\x1b[31m";
  const out = renderText(r, PLAIN);
  assert.ok(!out.includes(ESC));
  assert.ok(!out.includes("\r") && !out.includes("\x07"));
  assert.ok(out.includes("evil \\x1b[2J"));
  assert.ok(!renderText(r, { ...PLAIN, verbose: true }).includes(ESC));
  assert.ok(!renderText(r, { ...PLAIN, quiet: true }).includes(ESC));
  assert.equal(cleanText("a\tb\x1bc"), "a  b\\x1bc");
});

Deno.test("text: colour on emits ANSI", () => {
  assert.ok(renderText(sample(), { ...PLAIN, color: true }).includes(`${ESC}[31m`));
});

Deno.test("text: header, layers, marks, evidence, fixes, skips, count line and diagnosis", () => {
  const out = renderText(sample(), PLAIN);
  const lines = out.split("\n");
  assert.equal(lines[0], " cluster milan-8d1f03 · context kind-milan · https://127.0.0.1:6443 · Liqo v1.0.0");
  assert.equal(lines[1], "");
  assert.equal(lines[2], " ENVIRONMENT");
  assert.equal(lines[3], "  ✓ ENV-01   Liqo core components healthy");
  assert.ok(out.includes("\n GATEWAY EXPOSURE\n"));
  assert.match(out, /\n {2}✗ GW-02 {4}Gateway server service exposed +\[peer rome-4b2a9e\]\n/);
  assert.ok(out.includes("\n      gateway server service is not (or not usefully) exposed\n"));
  assert.ok(out.includes("\n      · liqo-tenant-milan/gw-milan: LoadBalancer stuck <pending>\n"));
  assert.ok(
    out.includes("\n      ⚑ # LoadBalancer pending → no LB controller, or your cloud LB cannot do UDP\n"),
  );
  assert.ok(out.includes("\n        kubectl -n liqo-tenant-milan describe svc gw-milan\n"));
  assert.match(out, /\n {2}! CP-01 .*\[peer paris-77c0aa\]\n/);
  assert.match(out, /\n {2}\? TUN-02 /);
  assert.match(out, /\n {2}- TUN-01 .*\n {6}blocked by GW-02\n/);
  assert.ok(out.includes("\n ────────────────────────────────────────\n"));
  assert.ok(out.includes("\n 7 passed ⋅ 1 warning ⋅ 1 failed ⋅ 2 skipped ⋅ 1 unknown (4.8s)\n"));
  assert.ok(out.includes(
    "\n diagnosis ✗ GW-02 [GATEWAY EXPOSURE] peer rome-4b2a9e: gateway server service is not (or not\n" +
      "             usefully) exposed\n" +
      "           ⚑ # LoadBalancer pending → no LB controller, or your cloud LB cannot do UDP\n",
  ));
  assert.ok(out.endsWith("\n") && !out.endsWith("\n\n"));
  // pass evidence hidden without verbose
  assert.ok(!out.includes("liqo-controller-manager"));
});

Deno.test("text: layers in catalog order with one header each, whatever order the results come in", () => {
  const r = sample();
  const shuffled = sample({ results: [...r.results].reverse() });
  const out = renderText(shuffled, PLAIN);
  const headers = out.split("\n").filter((l) => Object.values(LAYER_TITLES).includes(l.trim()));
  const want = LAYERS.filter((l) => r.results.some((x) => x.layer === l)).map((l) => ` ${LAYER_TITLES[l]}`);
  assert.deepEqual(headers, want);
});

Deno.test("text: groups by peer within a layer and compacts a healthy peer block", () => {
  const out = renderText(sample(), PLAIN);
  const gw = out.slice(out.indexOf(" GATEWAY EXPOSURE"), out.indexOf(" TUNNEL"));
  assert.match(gw, /✓ all ok {3}GW-01 GW-02 +\[peer paris-77c0aa\]/);
  assert.ok(gw.indexOf("rome-4b2a9e") < gw.indexOf("paris-77c0aa"));
  const tun = out.slice(out.indexOf(" TUNNEL"));
  // cluster-wide results come first, then rome, then paris
  assert.ok(tun.indexOf("MTU-01") < tun.indexOf("rome-4b2a9e"));
  assert.ok(tun.indexOf("rome-4b2a9e") < tun.indexOf("paris-77c0aa"));
});

Deno.test("text: labels only what varies", () => {
  const r = sample();
  const single = sample({ results: r.results.filter((x) => x.peer !== "paris-77c0aa") });
  assert.ok(!renderText(single, PLAIN).includes("[peer"));
  const two = sample({
    results: [...r.results, { ...r.results[0], cluster: "rome-4b2a9e" }],
  });
  const out = renderText(two, PLAIN);
  assert.match(out, /ENV-01 .*\[milan-8d1f03\]/);
  assert.match(out, /ENV-01 .*\[rome-4b2a9e\]/);
  assert.match(out, /GW-02 .*\[milan-8d1f03 · peer rome-4b2a9e\]/);
  assert.match(out, /diagnosis ✗ GW-02 \[GATEWAY EXPOSURE\] milan-8d1f03 · peer rome-4b2a9e:/);
});

Deno.test("text: verbose shows the tool line, pass evidence, the peering dump and the cheat sheet", () => {
  const out = renderText(sample(), { ...PLAIN, verbose: true });
  assert.match(
    out,
    /^ flyingfish 0\.1\.0 · 2026-03-01T10:00:00\.000Z\n cluster milan-8d1f03 · context kind-milan · /,
  );
  assert.ok(out.includes(" · Liqo v1.0.0 in liqo\n"));
  assert.ok(out.includes("      · liqo/liqo-controller-manager: 1/1 ready"));
  assert.ok(!out.includes("all ok"));
  assert.ok(out.includes(" PEERING") && out.includes("ResourceSlices"));
  assert.ok(out.includes(" MANUAL TEST CHEAT SHEET") && out.includes("    $ nc -u -v -z 203.0.113.7 51820"));
});

Deno.test("text: quiet prints only the count line, the diagnosis and its fix, wrapped within the width, never cut", () => {
  const out = renderText(sample(), { ...PLAIN, quiet: true });
  assert.deepEqual(out.split("\n").filter((l) => l.trim()).map((l) => l.trim().split(" ")[0]), [
    "7",
    "diagnosis",
    "usefully)",
    "⚑",
  ]);
  assert.ok(!out.includes("…"), out);
  const narrow = renderText(sample(), { ...PLAIN, quiet: true, width: 70 }).trimEnd().split("\n");
  assert.deepEqual(narrow.slice(2), [
    " diagnosis ✗ GW-02 [GATEWAY EXPOSURE] peer rome-4b2a9e: gateway server",
    "             service is not (or not usefully) exposed",
    "           ⚑ # LoadBalancer pending → no LB controller, or your cloud",
    "             # LB cannot do UDP",
  ]);
  assertFits(narrow.join("\n"), 70, "quiet at 70");
  // Narrower than the count line: it wraps between its parts.
  const tiny = renderText(sample(), { ...PLAIN, quiet: true, width: 40 }).split("\n");
  assert.deepEqual(tiny.slice(0, 2), [" 7 passed ⋅ 1 warning ⋅ 1 failed ⋅", " 2 skipped ⋅ 1 unknown (4.8s)"]);
  assertFits(tiny.join("\n"), 40, "quiet at 40");
  assert.ok(!tiny.join("\n").includes("…"), "quiet at 40 cuts nothing");
});

Deno.test("text: no failure line", () => {
  const r = sample();
  const ok = sample({
    results: r.results.filter((x) => x.status === "pass"),
    diagnosis: null,
    exitCode: 0,
  });
  assert.ok(renderText(ok, PLAIN).endsWith("\n no failure found\n"));
  const warn = sample({
    results: r.results.filter((x) => x.status !== "fail"),
    diagnosis: null,
    exitCode: 1,
  });
  assert.ok(renderText(warn, PLAIN).endsWith("\n no failure found — 1 warning, 1 unknown\n"));
});

Deno.test("text: snapshot mode says when the state was captured", () => {
  const out = renderText(sample({ mode: "snapshot", snapshotTakenAt: "2026-02-28T08:00:00Z" }), PLAIN);
  assert.match(out, /^ cluster milan-8d1f03 · .*\n snapshot taken 2026-02-28T08:00:00Z/);
});

Deno.test("text: dual header names each end; an unreachable remote says so", () => {
  const r = sample();
  const remote = { ...r.clusters[0], name: "rome-4b2a9e", clusterId: "rome-4b2a9e", context: "kind-rome" };
  const dual = renderText(sample({ clusters: [r.clusters[0], { ...remote, role: "remote" }] }), PLAIN);
  assert.match(
    dual,
    /^ local cluster milan-8d1f03 · context kind-milan · .*\n remote cluster rome-4b2a9e · context kind-rome · /,
  );
  const gone = {
    ...remote,
    role: "remote" as const,
    clusterId: null,
    context: "",
    server: "",
    liqoVersion: null,
  };
  assert.match(
    renderText(sample({ clusters: [r.clusters[0], gone] }), PLAIN),
    /\n remote cluster unavailable\n/,
  );
});

Deno.test("text: checks that need --remote-kubeconfig are one closing line, not a skip per peer", () => {
  const r = sample();
  const dual = (id: string, peer: string) => ({
    ...r.results[0],
    id,
    peer,
    status: "skip" as const,
    skipKind: "needs-remote" as const,
    summary: "needs --remote-kubeconfig",
  });
  const out = renderText(
    sample({ results: [...r.results, dual("GW-04", "rome-4b2a9e"), dual("GW-04", "paris-77c0aa")] }),
    PLAIN,
  );
  assert.equal(out.split("\n").filter((l) => l.includes("GW-04")).length, 1);
  assert.match(out, /- GW-04: needs --remote-kubeconfig/);
  const verbose = renderText(
    sample({ results: [...r.results, dual("GW-04", "rome-4b2a9e")] }),
    { ...PLAIN, verbose: true },
  );
  assert.match(verbose, /GW-04 /);
});

/** A dual-mode report with long labels, a long error, a long command and a long diagnosis. */
function wide(): Report {
  const A = "rome-4b2a9e", B = "milan-8d1f03";
  const forbidden = `forbidden: gatewayclients on ${A} — gatewayclients is forbidden: User "flyingfish" ` +
    `cannot list resource "gatewayclients" in API group "networking.liqo.io" at the cluster scope`;
  const results = [
    result({
      id: "ENV-02",
      layer: "env",
      title: "Liqo versions match across the peering",
      cluster: `${A} ↔ ${B}`,
      peer: B,
    }),
    result({
      id: "GW-01",
      title: "Gateway workload running",
      cluster: A,
      peer: B,
      status: "unknown",
      summary: forbidden,
    }),
    result({
      id: "GW-02",
      title: "Gateway server Service exposed",
      cluster: A,
      peer: B,
      status: "unknown",
      summary: forbidden,
    }),
    result({
      id: "GW-03",
      title: "Advertised endpoint matches the exposure",
      cluster: A,
      peer: B,
      status: "unknown",
      summary: forbidden,
    }),
    result({ id: "GW-01", title: "Gateway workload running", cluster: B, peer: A }),
    result({
      id: "TUN-06",
      layer: "tunnel",
      title: "Tunnel MTU consistent",
      cluster: B,
      peer: A,
      status: "fail",
      summary:
        "tunnel MTU differs across the clusters: milan-8d1f03 1500, rome-4b2a9e 1340 — both ends must agree",
      evidence: [
        "milan-8d1f03 live liqo-tunnel MTU (gw-rome-4b2a9e-5b8f9c7d6b-w2kxm): 1500, largest payload 1472 bytes",
      ],
      remediation: [
        {
          command: null,
          comment:
            "both sides must use the same MTU (link MTU − 60 for IPv4); re-run the network setup with it:",
        },
        {
          command:
            "kubectl --kubeconfig /home/user/.kube/clusters/milan.yaml --context kind-milan -n liqo-tenant-rome-4b2a9e " +
            'patch gatewayserver rome-4b2a9e --type merge -p \'{"spec": {"mtu": 1340}}\'',
          comment: "then restart the gateway",
        },
      ],
    }),
  ];
  return sampleReport({
    clusters: [
      {
        ...sampleReport().clusters[0],
        name: A,
        clusterId: A,
        context: "a-very-long-context-name-for-the-rome-cluster",
      },
      {
        ...sampleReport().clusters[0],
        name: B,
        clusterId: B,
        role: "remote",
        server: "https://milan.example.internal.corp:6443",
      },
    ],
    results,
    diagnosis: {
      id: "TUN-06",
      layer: "tunnel",
      peer: A,
      cluster: B,
      summary: results[5].summary,
      remediation: results[5].remediation,
      alsoFailing: [{
        id: "FAB-01",
        layer: "fabric",
        peer: null,
        cluster: A,
        summary: "no ready fabric pod on rome-worker-2",
      }],
    },
  });
}

Deno.test("text: no line wider than the width (80 on a terminal, 100 through a pipe, and narrower)", () => {
  for (const width of [100, 80, 60, 40]) {
    for (const verbose of [false, true]) {
      for (const quiet of [false, true]) {
        for (const r of [wide(), sample()]) {
          const out = renderText(r, { color: true, verbose, quiet, width });
          // The verbose peering tables keep their columns; everything else fits.
          const plain = stripAnsi(out);
          const checked = verbose ? plain.slice(0, plain.indexOf(" PEERING") >>> 0) : plain;
          assertFits(checked, width, `width ${width}${verbose ? " -v" : ""}${quiet ? " -q" : ""}`);
        }
      }
    }
  }
  // Piped output defaults to 100 columns.
  assertFits(renderText(wide(), PLAIN), 100, "default width");
});

Deno.test("text: a label that does not fit beside its title goes under it, aligned or indented", () => {
  const lines = renderText(wide(), { ...PLAIN, width: 80 }).split("\n");
  const env = lines.findIndex((l) => l.startsWith("  ✓ ENV-02"));
  assert.equal(lines[env], "  ✓ ENV-02   Liqo versions match across the peering");
  assert.equal(lines[env + 1], "             [rome-4b2a9e ↔ milan-8d1f03 · peer milan-8d1f03]");
  // Labels that fit stay beside their titles, in one column.
  const beside = lines.filter((l) => /^ {2}\S .*\S {2,}\[/.test(l));
  assert.ok(beside.length >= 2, lines.join("\n"));
  assert.equal(new Set(beside.map((l) => l.indexOf("["))).size, 1, beside.join("\n"));
});

Deno.test("text: long text wraps with a hanging indent; commands wrap with ` \\` and still paste whole", () => {
  const out = renderText(wide(), { ...PLAIN, width: 80 });
  const lines = out.split("\n");
  // Evidence continues under its first word.
  const ev = lines.findIndex((l) => l.startsWith("      · milan-8d1f03 live liqo-tunnel MTU"));
  assert.match(lines[ev + 1], /^ {8}\S/);
  // The fix: the comment wraps as comments, then the comment of the command (too long to sit
  // beside it), then the command with continuations.
  const fix = lines.findIndex((l) => l.startsWith("      ⚑ # both sides"));
  assert.match(lines[fix + 1], /^ {8}# /);
  assert.equal(lines[fix + 2], "        # then restart the gateway");
  const cmd = [lines[fix + 3]];
  while (cmd[cmd.length - 1].endsWith(" \\")) cmd.push(lines[fix + 3 + cmd.length]);
  assert.ok(cmd.length > 1, out);
  assert.ok(cmd.slice(1).every((l) => l.startsWith("            ")), "continuations indented");
  const pasted = cmd.map((l) => l.trim().replace(/ \\$/, "")).join(" ");
  assert.equal(
    pasted,
    "kubectl --kubeconfig /home/user/.kube/clusters/milan.yaml --context kind-milan -n liqo-tenant-rome-4b2a9e " +
      'patch gatewayserver rome-4b2a9e --type merge -p \'{"spec": {"mtu": 1340}}\'',
  );
  // The quoted JSON was not broken inside its quotes.
  assert.ok(cmd.some((l) => l.includes(`'{"spec": {"mtu": 1340}}'`)), cmd.join("\n"));
  // The diagnosis and its also-failing line continue under the diagnosed ID.
  const d = lines.findIndex((l) => l.startsWith(" diagnosis ✗ TUN-06"));
  assert.match(lines[d + 1], /^ {13}\S/);
  assert.ok(
    lines.some((l) => l.startsWith("           also failing: ✗ FAB-01 [FABRIC] rome-4b2a9e: no ready")),
  );
});

Deno.test("text: an error shared by several checks is printed once, the others point at it", () => {
  const out = renderText(wide(), PLAIN);
  assert.equal(out.split("cannot list resource").length - 1, 1, out);
  const gw = out.slice(out.indexOf(" GATEWAY EXPOSURE"), out.indexOf(" TUNNEL"));
  assert.match(
    gw,
    /\? GW-01 .*\n {6}forbidden: gatewayclients on rome-4b2a9e — gatewayclients is forbidden:/,
  );
  const refs = gw.split("\n").filter((l) => l.includes("same error as"));
  // Same cluster and peer as GW-01: the ID alone names it.
  assert.deepEqual(refs.map((l) => l.trim()), [
    "forbidden: gatewayclients on rome-4b2a9e — same error as GW-01 above",
    "forbidden: gatewayclients on rome-4b2a9e — same error as GW-01 above",
  ]);
  // From another cluster or peer, the reference carries the label.
  const r = wide();
  r.results[4] = { ...r.results[2], cluster: "milan-8d1f03", peer: "rome-4b2a9e", layer: "tunnel" };
  const joined = renderText(r, PLAIN).replace(/\n +/g, " ");
  assert.match(joined, /same error as GW-01 \[rome-4b2a9e · peer milan-8d1f03\] above/);
  // Short repeated texts ("blocked by …") are not references.
  assert.ok(!renderText(sample(), PLAIN).includes("same error"));
});
