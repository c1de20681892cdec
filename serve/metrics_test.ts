/**
 * `/metrics` rendered from the sample report: parsed by a strict text-format parser
 * (tests/support/prom_text.ts) and asserted family by family.
 */
import assert from "node:assert/strict";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { Report } from "../report/model.ts";
import { parsePromText, type PromFamily } from "../tests/support/prom_text.ts";
import {
  escapeLabelValue,
  firstBrokenPerPeer,
  METRIC_LABELS,
  METRIC_NAMES,
  renderMetrics,
} from "./metrics.ts";
import { ServeState } from "./state.ts";

const BUILD = { version: "0.1.0", deno: "2.9.6", reportSchema: "2" };

function values(f: PromFamily | undefined, where: Record<string, string> = {}): number[] {
  assert.ok(f, "family missing");
  return f.samples.filter((s) => Object.entries(where).every(([k, v]) => s.labels[k] === v)).map((s) =>
    s.value
  );
}

/** Every sample carries exactly the labels its family documents. */
function assertDocumentedLabels(families: Map<string, PromFamily>): void {
  for (const f of families.values()) {
    for (const s of f.samples) {
      assert.deepEqual(Object.keys(s.labels), METRIC_LABELS[f.name as keyof typeof METRIC_LABELS], f.name);
    }
  }
}

Deno.test("metrics: before the first round every family is declared and only the counters have samples", () => {
  const families = parsePromText(renderMetrics(new ServeState().snapshot(), BUILD));
  assert.deepEqual([...families.keys()], [...METRIC_NAMES]);
  assert.deepEqual(values(families.get("flyingfish_build_info"), { version: "0.1.0", deno: "2.9.6" }), [1]);
  assert.deepEqual(values(families.get("flyingfish_check_status")), []);
  assert.deepEqual(values(families.get("flyingfish_rounds_total")), [0, 0]);
  assert.deepEqual(values(families.get("flyingfish_last_successful_round_timestamp_seconds")), []);
  for (const f of families.values()) {
    assert.ok(f.help.length > 10, `${f.name} has no HELP`);
    if (f.type === "counter") assert.match(f.name, /_total$/);
  }
});

Deno.test("metrics: check statuses (all five per instance, one at 1), the diagnosis per peer, round timing", () => {
  const state = new ServeState();
  const report = sampleReport();
  state.recordRound(report, 1234, new Date("2026-03-01T10:00:00Z"));
  const families = parsePromText(renderMetrics(state.snapshot(), BUILD));
  const status = families.get("flyingfish_check_status")!;
  assert.equal(status.type, "gauge");
  assert.equal(status.samples.length, report.results.length * 5);
  for (const r of report.results) {
    const mine = status.samples.filter((s) =>
      s.labels.check === r.id && s.labels.peer === (r.peer ?? "") && s.labels.cluster === r.cluster
    );
    assert.equal(mine.length, 5, `${r.id}/${r.peer}`);
    assert.deepEqual(mine.filter((s) => s.value === 1).map((s) => s.labels.status), [r.status]);
    assert.ok(mine.every((s) => s.labels.layer === r.layer));
  }
  // GW-02 fails for rome (the diagnosis); paris is healthy.
  const rome = report.peers[0].clusterId, paris = report.peers[1].clusterId;
  assert.deepEqual(values(families.get("flyingfish_peer_broken"), { peer: rome }), [1]);
  assert.deepEqual(values(families.get("flyingfish_peer_broken"), { peer: paris }), [0]);
  assert.deepEqual(
    families.get("flyingfish_peer_first_broken")!.samples.map((s) => s.labels),
    [{ peer: rome, cluster: report.peers[0].cluster, check: "GW-02", layer: "gateway" }],
  );
  assert.deepEqual(values(families.get("flyingfish_check_results"), { status: "fail" }), [
    report.summary.fail,
  ]);
  assert.deepEqual(values(families.get("flyingfish_round_duration_seconds")), [1.234]);
  assertDocumentedLabels(families);
  assert.deepEqual(values(families.get("flyingfish_rounds_total"), { result: "success" }), [1]);
  assert.deepEqual(
    values(families.get("flyingfish_last_successful_round_timestamp_seconds")),
    [Date.parse("2026-03-01T10:00:00Z") / 1000],
  );
});

Deno.test("metrics: status changes count as transitions; failed rounds and API errors are counted", () => {
  const state = new ServeState();
  const healthy = sampleReport();
  const flipped: Report = sampleReport({
    results: healthy.results.map((r) => r.id === "GW-02" ? { ...r, status: "pass" as const } : r),
  });
  state.recordRound(healthy, 10);
  state.recordRound(flipped, 10);
  state.recordRound(healthy, 10);
  state.recordFailure("cannot reach https://127.0.0.1:1: connection refused", 5);
  state.countApiError({ cluster: "rome", operation: "list", resource: "pods", reason: "forbidden" });
  state.countApiError({ cluster: "rome", operation: "list", resource: "pods", reason: "forbidden" });
  state.countApiError({ cluster: "rome", operation: "exec", resource: "pods/exec", reason: "error" });
  const families = parsePromText(renderMetrics(state.snapshot(), BUILD));
  const transitions = families.get("flyingfish_check_transitions_total")!.samples;
  assert.deepEqual(transitions.filter((s) => s.value > 0).map((s) => [s.labels.check, s.value]), [[
    "GW-02",
    2,
  ]]);
  assert.equal(transitions.length, healthy.results.length, "every check instance has its counter");
  assert.deepEqual(values(families.get("flyingfish_rounds_total"), { result: "error" }), [1]);
  assert.deepEqual(values(families.get("flyingfish_round_duration_seconds")), [0.005]);
  assert.deepEqual(
    values(families.get("flyingfish_api_errors_total"), { operation: "list", reason: "forbidden" }),
    [2],
  );
  assert.deepEqual(values(families.get("flyingfish_api_errors_total"), { resource: "pods/exec" }), [1]);
  // Counted by kubeconfig context, named like the report's clusters once a report knows them.
  state.countApiError({ cluster: "kind-milan", operation: "watch", resource: "pods", reason: "expired" });
  assert.deepEqual(
    values(parsePromText(renderMetrics(state.snapshot(), BUILD)).get("flyingfish_api_errors_total"), {
      cluster: healthy.clusters[0].name,
      operation: "watch",
    }),
    [1],
  );
  assertDocumentedLabels(families);
  // The last good report is still served after a failed round.
  assert.equal(state.ready, true);
});

Deno.test("metrics: label values are escaped (quotes, backslashes, line feeds) and parse back", () => {
  assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
  const state = new ServeState();
  state.countApiError({ cluster: 'odd "ctx"\\\n', operation: "list", resource: "pods", reason: "error" });
  const f = parsePromText(renderMetrics(state.snapshot(), BUILD)).get("flyingfish_api_errors_total")!;
  assert.equal(f.samples[0].labels.cluster, 'odd "ctx"\\\n');
});

Deno.test("metrics: the strict parser refuses what Prometheus refuses", () => {
  const bad = [
    "x 1\n", // no TYPE
    "# TYPE x counter\nx 1\n", // counter without _total
    '# TYPE x gauge\nx{a="1"} one\n', // bad value
    '# TYPE x gauge\nx{a="\\q"} 1\n', // bad escape
    "# TYPE x gauge\nx 1\nx 2\n", // duplicate series
    "# TYPE x gauge\n# TYPE y gauge\nx 1\n", // sample outside its block
    "# TYPE x gauge\nx 1", // no final line feed
    "# random comment\n",
  ];
  for (const text of bad) assert.throws(() => parsePromText(text), Error, JSON.stringify(text));
});

Deno.test("metrics: a cluster-wide root failure is the first broken link of every peer of its cluster", () => {
  const base = sampleReport();
  const [rome, paris] = base.peers;
  const report = sampleReport({
    diagnosis: {
      ...base.diagnosis!,
      id: "ENV-01",
      layer: "env",
      peer: null,
      alsoFailing: [{
        id: "TUN-02",
        layer: "tunnel",
        peer: paris.clusterId,
        cluster: paris.cluster,
        summary: "x",
      }],
    },
  });
  assert.deepEqual(
    firstBrokenPerPeer(report).map((p) => [p.peer, p.broken?.id]),
    [[rome.clusterId, "ENV-01"], [paris.clusterId, "ENV-01"]],
  );
  // Only another cluster's failure: not this peering's.
  const elsewhere = sampleReport({
    diagnosis: {
      ...base.diagnosis!,
      id: "ENV-01",
      layer: "env",
      peer: null,
      cluster: "far-away",
      alsoFailing: [],
    },
    results: base.results.filter((r) => r.status !== "fail"),
  });
  assert.deepEqual(firstBrokenPerPeer(elsewhere).map((p) => p.broken), [null, null]);
});

Deno.test("metrics: every check's transitions counter is exported at 0 from its first round", () => {
  const state = new ServeState();
  const report = sampleReport();
  state.recordRound(report, 10);
  const samples = parsePromText(renderMetrics(state.snapshot(), BUILD))
    .get("flyingfish_check_transitions_total")!.samples;
  // One series per check instance, all at 0: Prometheus then sees the first change as 0 → 1.
  assert.deepEqual(
    samples.map((s) => [s.labels.check, s.labels.peer, s.labels.cluster, s.value]),
    report.results.map((r) => [r.id, r.peer ?? "", r.cluster, 0]),
  );
  const rounds = parsePromText(renderMetrics(new ServeState().snapshot(), BUILD)).get(
    "flyingfish_rounds_total",
  )!;
  assert.deepEqual(rounds.samples.map((s) => [s.labels.result, s.value]), [["success", 0], ["error", 0]]);
});
