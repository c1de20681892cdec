import assert from "node:assert/strict";
import { ToolError } from "../errors.ts";
import { cleanupText, modeFrom, resolveProbeNames } from "./probe_cmd.ts";
import { probeOnly } from "../diagnose/active.ts";
import { selectionFrom } from "./check.ts";
import { allCatalogEntries, explanation } from "./catalog_cmd.ts";
import { PROBE_CHECKS } from "../active/catalog.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { ReportResult } from "../report/model.ts";

Deno.test("probe names: words, commas, check IDs in any case, `all`; unknown is exit 3", () => {
  assert.deepEqual(resolveProbeNames([], "direct"), ["matrix", "udp", "mtu", "service", "trace"]);
  assert.deepEqual(resolveProbeNames(["service"], "direct"), ["service"]);
  assert.deepEqual(resolveProbeNames(["all"], "offload"), ["matrix", "udp", "mtu", "service", "trace"]);
  assert.deepEqual(resolveProbeNames(["udp,matrix", "probe-trace"], "direct"), ["matrix", "udp", "trace"]);
  assert.throws(() => resolveProbeNames(["pingall"], "direct"), ToolError);
});

Deno.test("mode: direct with a remote kubeconfig, else offload; direct without one is exit 3", () => {
  assert.equal(modeFrom(undefined, true), "direct");
  assert.equal(modeFrom(undefined, false), "offload");
  assert.equal(modeFrom("offload", true), "offload");
  assert.throws(() => modeFrom("direct", false), /needs --remote-kubeconfig/);
  assert.throws(() => modeFrom("tunnel", true), ToolError);
});

Deno.test("--only/--skip know the PROBE IDs (and the layer `probe`) with --active, refuse them without", async () => {
  await assert.rejects(selectionFrom({ only: ["PROBE-MATRIX"] }), /add --active/);
  const onlyProbe = await selectionFrom({ only: ["probe-matrix"], active: true });
  assert.deepEqual(onlyProbe.probes, ["matrix"]);
  assert.equal(onlyProbe.passive, false);
  const mixed = await selectionFrom({ only: ["TUN-02", "PROBE-UDP"], active: true });
  assert.deepEqual(mixed.probes, ["udp"]);
  assert.equal(mixed.passive, true);
  assert.ok(mixed.catalog?.some((c) => c.id === "TUN-02"));
  const skip = await selectionFrom({ skip: ["PROBE-TRACE"], active: true });
  assert.equal(skip.probes, null, "the mode's default set, minus the skipped ones (once the mode is known)");
  assert.deepEqual(skip.skippedProbes, ["PROBE-TRACE"], "listed as skipped in the report");
  const layer = await selectionFrom({ only: ["probe"], active: true });
  assert.deepEqual(layer.probes, ["matrix", "udp", "mtu", "service", "trace"]);
});

Deno.test("probe's report keeps the PROBE results; a passive diagnosis stays and counts", () => {
  const base = sampleReport();
  const probe: ReportResult = {
    ...base.results[0],
    id: "PROBE-MATRIX",
    layer: "probe",
    status: "pass",
    title: "matrix",
  };
  const r = probeOnly({ ...base, results: [...base.results, probe] });
  assert.deepEqual(r.results.map((x) => x.id), ["PROBE-MATRIX"]);
  assert.deepEqual(r.summary, { pass: 1, warn: 0, fail: 0, skip: 0, unknown: 0, total: 1 });
  assert.equal(r.diagnosis?.id, base.diagnosis?.id);
  assert.equal(r.exitCode, 2, "the passive failure still fails the run");
  const healthy = probeOnly({ ...base, diagnosis: null, results: [probe] });
  assert.equal(healthy.exitCode, 0);
});

Deno.test("probe's report also shows a FAB-03 its active half failed, and only that one", () => {
  const base = sampleReport();
  const probe: ReportResult = { ...base.results[0], id: "PROBE-MATRIX", layer: "probe", status: "fail" };
  const fab = (cluster: string, status: ReportResult["status"], decidedBy?: string): ReportResult => ({
    ...base.results[0],
    id: "FAB-03",
    layer: "fabric",
    status,
    cluster,
    peer: cluster === "rome" ? "milan" : "rome",
    ...(decidedBy ? { decidedBy } : {}),
  });
  const report = {
    ...base,
    diagnosis: null,
    results: [fab("rome", "fail", "PROBE-MATRIX"), fab("milan", "pass"), probe],
  };
  const r = probeOnly(report);
  assert.deepEqual(r.results.map((x) => `${x.id} ${x.cluster}`), [
    "FAB-03 rome",
    `PROBE-MATRIX ${probe.cluster}`,
  ]);
  assert.deepEqual(r.summary, { pass: 0, warn: 0, fail: 2, skip: 0, unknown: 0, total: 2 });
  assert.deepEqual(
    probeOnly({ ...report, results: [fab("rome", "fail"), fab("milan", "pass"), probe] }).results.map((x) =>
      x.id
    ),
    ["PROBE-MATRIX"],
    "nothing failed by the probes",
  );
});

Deno.test("cleanup output: one line per namespace, JSON on -o json", () => {
  const records = [
    { cluster: "rome", namespace: "flyingfish-probe-ab12cd34", status: "removed" as const, detail: "" },
    {
      cluster: "milan",
      namespace: "flyingfish-probe-zz99yy88",
      status: "kept" as const,
      detail: "not expired",
    },
  ];
  assert.equal(
    cleanupText(records, "text"),
    "✓ rome: flyingfish-probe-ab12cd34 removed\n· milan: flyingfish-probe-zz99yy88 kept — not expired\n",
  );
  assert.deepEqual(JSON.parse(cleanupText(records, "json")), { cleanup: records });
  assert.match(cleanupText([], "text"), /nothing to clean up/);
});

Deno.test("the catalog lists the probes as active; explain works for each", () => {
  const entries = allCatalogEntries().filter((e) => e.active);
  // `flyingfish preflight --probe`'s active checks are listed as active too, after the probes.
  assert.deepEqual(entries.map((e) => e.id), [
    ...PROBE_CHECKS.map((c) => c.id),
    ...["PF-API", "PF-EXP", "PF-UDP", "PF-DIR", "PF-MTU"],
  ]);
  for (const id of ["PF-API", "PF-EXP", "PF-UDP", "PF-DIR", "PF-MTU"]) {
    const text = explanation(id)!;
    assert.match(text, /opt-in: `flyingfish preflight --probe`/, id);
    assert.match(text, /deploy\/preflight-probe-clusterrole\.yaml/, id);
  }
  for (const c of PROBE_CHECKS) {
    const text = explanation(c.id)!;
    assert.match(text, new RegExp(`^${c.id} — `));
    assert.match(text, /Reads\n[\s\S]*Decides\n[\s\S]*Fixes\n[\s\S]*blocked by:/);
    assert.match(text, new RegExp(`flyingfish probe ${c.active.probe}`));
  }
  assert.match(explanation("FAB-03")!, /PROBE-MATRIX/);
});
