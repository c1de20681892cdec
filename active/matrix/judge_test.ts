import type { RemediationStep } from "../../checks/remediation.ts";
import { fixAsReported } from "../../tests/support/remediation_view.ts";
import assert from "node:assert/strict";
import {
  gridPattern,
  type JudgedGrid,
  judgeMatrix,
  MATRIX_RULES,
  type MatrixClusterRef,
  NOT_REACHED,
} from "./judge.ts";
import type { MatrixCell, MatrixGrid } from "../model.ts";

const ROME: MatrixClusterRef = {
  side: "local",
  name: "rome",
  liqoNamespace: "liqo",
};
const MILAN: MatrixClusterRef = {
  side: "remote",
  name: "milan",
  liqoNamespace: "liqo",
};
const R = ["rome-w1", "rome-w2", "rome-w3"];
const M = ["milan-w1", "milan-w2", "milan-w3"];

const OK: MatrixCell = { tcp: "ok", udp: "ok", detail: "" };
const RED: MatrixCell = { tcp: "fail", udp: "fail", detail: "TCP TIMEOUT; UDP no answer" };
const FLAKY: MatrixCell = { tcp: "flaky", udp: "ok", detail: "TCP TIMEOUT (passed on the retry)" };
const UNKNOWN: MatrixCell = { tcp: "unknown", udp: "unknown", detail: "no address: no Configuration" };

/** A grid whose cell (r, c) is `at(r, c)`. */
function grid(
  rows: string[],
  cols: string[],
  at: (r: number, c: number) => MatrixCell,
  control = false,
  from = ROME,
  to = control ? ROME : MILAN,
): JudgedGrid {
  const g: MatrixGrid = {
    title: control ? `${from.name} → ${from.name} (control)` : `${from.name} → ${to.name}`,
    control,
    fromCluster: from.name,
    toCluster: to.name,
    rows,
    cols,
    cells: rows.map((_, r) => cols.map((_, c) => at(r, c))),
  };
  return { grid: g, from, to };
}

const text = (o: { summary: string; evidence?: string[]; remediation?: RemediationStep[] }) =>
  [
    o.summary,
    ...(o.evidence ?? []),
    fixAsReported(o.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
  ]
    .join("\n");

Deno.test("matrix judge: all green passes and says so", () => {
  const { outcome, matrix } = judgeMatrix([grid(R, M, () => OK), grid(R, R, () => OK, true)]);
  assert.equal(outcome.status, "pass");
  assert.match(outcome.summary, /all 18 cells ok/);
  assert.equal(outcome.remediation, undefined);
  assert.deepEqual(matrix.rules, [...MATRIX_RULES]);
  assert.equal(matrix.grids.length, 2);
});

Deno.test("matrix judge: a whole column red names that remote node", () => {
  const { outcome, matrix } = judgeMatrix([grid(R, M, (_, c) => c === 1 ? RED : OK)]);
  assert.equal(outcome.status, "fail");
  assert.match(outcome.summary, /rome → milan: column milan-w2 red/);
  assert.ok(matrix.reading.some((l) => /column milan-w2 red: that milan node/.test(l)));
  assert.match(
    fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /kubectl --context milan get internalnode milan-w2 -o yaml/,
  );
  assert.ok(!/row/.test(outcome.summary));
});

Deno.test("matrix judge: a whole row red names the source node's Geneve/fabric path", () => {
  const { outcome, matrix } = judgeMatrix([grid(R, M, (r) => r === 0 ? RED : OK)]);
  assert.equal(outcome.status, "fail");
  assert.match(outcome.summary, /row rome-w1 red/);
  assert.ok(
    matrix.reading.some((l) => /row rome-w1 red: rome-w1's Geneve\/fabric path to rome's gateway/.test(l)),
  );
  assert.match(
    fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /kubectl get internalnode rome-w1 -o yaml/,
  );
  assert.match(
    fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /get pods -l app.kubernetes.io\/name=fabric -o wide --field-selector spec.nodeName=rome-w1/,
  );
});

Deno.test("matrix judge: everything red reads as the tunnel or a gateway", () => {
  const { outcome, matrix } = judgeMatrix([grid(R, M, () => RED), grid(R, R, () => OK, true)]);
  assert.equal(outcome.status, "fail");
  assert.match(outcome.summary, /everything red \(tunnel or gateway\)/);
  assert.ok(matrix.reading.some((l) => /everything red: the tunnel or a gateway/.test(l)));
  assert.match(
    fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /flyingfish check --only gateway,tunnel/,
  );
  // Not also read as three red rows and three red columns.
  assert.ok(!matrix.reading.some((l) => /row|column/.test(l)));
});

Deno.test("matrix judge: one red cell names that pair only", () => {
  const { outcome, matrix } = judgeMatrix([grid(R, M, (r, c) => r === 2 && c === 0 ? RED : OK)]);
  assert.equal(outcome.status, "fail");
  assert.match(outcome.summary, /rome-w3 → milan-w1 red/);
  assert.ok(matrix.reading.some((l) => /rome-w3 → milan-w1 red: that pair only/.test(l)));
  assert.ok(text(outcome).includes("TCP TIMEOUT; UDP no answer"));
});

Deno.test("matrix judge: a red row and a red column are both named, the crossing cell once", () => {
  const p = gridPattern(grid(R, M, (r, c) => r === 1 || c === 2 ? RED : OK).grid);
  assert.deepEqual(p.redRows, ["rome-w2"]);
  assert.deepEqual(p.redCols, ["milan-w3"]);
  assert.deepEqual(p.redCells, []);
  assert.equal(p.allRed, false);
});

Deno.test("matrix judge: with one column a red cell is the row; with one row it is the column", () => {
  const oneCol = gridPattern(grid(R, ["milan-w1"], (r) => r === 0 ? RED : OK).grid);
  assert.deepEqual([oneCol.redRows, oneCol.redCols, oneCol.redCells], [["rome-w1"], [], []]);
  const oneRow = gridPattern(grid(["rome-w1"], M, (_, c) => c === 0 ? RED : OK).grid);
  assert.deepEqual([oneRow.redRows, oneRow.redCols, oneRow.redCells], [[], ["milan-w1"], []]);
  const single = gridPattern(grid(["rome-w1"], ["milan-w1"], () => RED).grid);
  assert.equal(single.allRed, true);
});

Deno.test("matrix judge: a red control grid is the CNI of that cluster, not Liqo", () => {
  const { outcome, matrix } = judgeMatrix([
    grid(R, M, () => OK),
    grid(R, R, (r, c) => r === c ? OK : c === 2 ? RED : OK, true),
  ]);
  assert.equal(outcome.status, "fail");
  assert.match(outcome.summary, /rome control grid: column rome-w3 red \(CNI, not Liqo\)/);
  assert.ok(matrix.reading.some((l) => /rome control: .*not Liqo/.test(l)));
  assert.match(
    fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /flyingfish check --only cni/,
  );
});

Deno.test("matrix judge: a row red in its control grid too is the node's own pod network, not the fabric", () => {
  const { matrix } = judgeMatrix([
    grid(R, M, (r) => r === 0 ? RED : OK),
    grid(R, R, (r, c) => r === 0 || c === 0 ? RED : OK, true),
  ]);
  assert.ok(
    matrix.reading.some((l) =>
      /row rome-w1 red, also in rome's control grid: rome-w1's own pod network \(CNI\)/.test(l)
    ),
  );
  assert.ok(!matrix.reading.some((l) => /Geneve\/fabric path/.test(l)));
});

Deno.test("matrix judge: flaky cells warn (never ok), unmeasured cells are named", () => {
  const flaky = judgeMatrix([grid(R, M, (r, c) => r === 0 && c === 0 ? FLAKY : OK)]);
  assert.equal(flaky.outcome.status, "warn");
  assert.match(flaky.outcome.summary, /1 only on the retry \(flaky\)/);
  assert.ok(flaky.matrix.reading.some((l) => /rome-w1 → milan-w1 flaky/.test(l)));
  assert.ok(
    flaky.outcome.evidence!.some((l) =>
      /rome-w1 → milan-w1 .* flaky: TCP TIMEOUT \(passed on the retry\)/.test(l)
    ),
  );

  const some = judgeMatrix([grid(R, M, (r) => r === 0 ? UNKNOWN : OK)]);
  assert.equal(some.outcome.status, "warn");
  assert.match(some.outcome.summary, /6\/9 cells ok, 3 could not be measured: no address: no Configuration/);

  const none = judgeMatrix([grid(R, M, () => UNKNOWN)]);
  assert.equal(none.outcome.status, "unknown");
  assert.match(none.outcome.summary, /no cell could be measured/);

  // A red cell outweighs flaky and unknown ones.
  const mixed = judgeMatrix([
    grid(R, M, (r, c) => r === 0 ? FLAKY : r === 1 && c === 1 ? RED : c === 2 ? UNKNOWN : OK),
  ]);
  assert.equal(mixed.outcome.status, "fail");
});

Deno.test("matrix judge: the reverse grid reads rows as the remote source node's path to its gateway", () => {
  const { outcome, matrix } = judgeMatrix([
    grid(R, M, () => OK),
    grid(M, R, (r) => r === 0 ? RED : OK, false, MILAN, ROME),
  ]);
  assert.equal(outcome.status, "fail");
  assert.match(outcome.summary, /^milan → rome: row milan-w1 red$/);
  assert.ok(
    matrix.reading.some((l) =>
      /milan → rome: row milan-w1 red: milan-w1's Geneve\/fabric path to milan's gateway/.test(l)
    ),
  );
});

Deno.test("matrix judge: a node red both ways across (row out, column in) is read once, as that node", () => {
  const { outcome, matrix } = judgeMatrix([
    grid(R, M, (_, c) => c === 0 ? RED : OK),
    grid(M, R, (r) => r === 0 ? RED : OK, false, MILAN, ROME),
    grid(M, M, () => OK, true, MILAN, MILAN),
  ]);
  assert.equal(outcome.summary, "milan-w1 (milan) cut off from rome both ways");
  assert.match(
    matrix.reading[0],
    /^milan-w1 \(milan\) is red both ways across the peering while its own cluster/,
  );
  assert.match(
    fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /^# milan-w1 \(milan\) is cut off from rome both ways/,
  );
  assert.match(
    fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /kubectl --context milan get internalnode milan-w1 -o yaml/,
  );
  // The per-grid readings stay, for the tables.
  assert.ok(matrix.reading.some((l) => /column milan-w1 red: that milan node/.test(l)));
  // The same for a local node: its Geneve path is what both directions share.
  const local = judgeMatrix([
    grid(R, M, (r) => r === 1 ? RED : OK),
    grid(M, R, (_, c) => c === 1 ? RED : OK, false, MILAN, ROME),
  ]);
  assert.equal(local.outcome.summary, "rome-w2 (rome) cut off from milan both ways");
});

Deno.test("matrix judge: offloaded columns are pods, and the fix says the node is unknown", () => {
  const j = grid(R, ["ff-probe-vk-0", "ff-probe-vk-1"], (_, c) => c === 1 ? RED : OK);
  j.colsArePods = true;
  const { outcome, matrix } = judgeMatrix([j]);
  assert.match(outcome.summary, /pod ff-probe-vk-1 red/);
  assert.ok(
    matrix.reading.some((l) =>
      /pod ff-probe-vk-1 \(its remote node is unknown without --remote-kubeconfig\)/.test(l)
    ),
  );
});

Deno.test("matrix judge: long lists of red cells are capped in the evidence", () => {
  const many = Array.from({ length: 8 }, (_, i) => `n${i}`);
  const { outcome } = judgeMatrix([grid(many, many.map((n) => `m${n}`), () => RED)]);
  assert.ok(outcome.evidence!.length <= 23);
  assert.ok(outcome.evidence!.some((l) => /… and 44 more cells/.test(l)));
});

const UDP_RED: MatrixCell = {
  tcp: "ok",
  udp: "fail",
  detail: "UDP no answer from 10.71.2.11:8081 within 5 s",
};

Deno.test("matrix: TCP green and UDP red everywhere is a UDP filter, not the tunnel (per-protocol rule)", () => {
  const out = grid(R, M, () => UDP_RED);
  const back = grid(M, R, () => UDP_RED, false, MILAN, ROME);
  assert.equal(gridPattern(out.grid).redProtocol, "udp");
  const { outcome, matrix } = judgeMatrix([out, back, grid(R, R, () => OK, true)]);
  assert.equal(outcome.status, "fail");
  assert.doesNotMatch(outcome.summary, /tunnel or gateway|no node/);
  assert.match(
    outcome.summary,
    /^rome → milan: every cell red on UDP only, TCP ok \(a UDP filter, not the tunnel\)/,
  );
  const reading = matrix.reading.join("\n");
  assert.doesNotMatch(reading, /everything red: the tunnel or a gateway|no node of rome reaches/);
  assert.match(
    reading,
    /rome → milan: everything red on UDP only while TCP crosses the same cells: a filter on UDP \(a NetworkPolicy, a firewall or NAT rule matching UDP 8081\), not the tunnel/,
  );
  assert.ok(MATRIX_RULES.some((r) => /red on one protocol only/.test(r)));
  const fix = fixAsReported(outcome.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]);
  assert.match(fix, /get networkpolicies -A/);
  assert.doesNotMatch(fix, /connections\.networking\.liqo\.io/);
});

Deno.test("matrix: a UDP-only red row is a filter on that node's UDP, not its Geneve path; mixed reds read as before", () => {
  const row = judgeMatrix([grid(R, M, (r) => r === 1 ? UDP_RED : OK)]);
  assert.match(row.outcome.summary, /3\/9 cells red on UDP only/);
  assert.match(
    row.matrix.reading.join("\n"),
    /row rome-w2 red on UDP only .*not the tunnel, the gateways or the Geneve paths/,
  );
  assert.doesNotMatch(row.matrix.reading.join("\n"), /Geneve\/fabric path/);
  // One cell red on both protocols: the grid is no longer single-protocol, the old rules apply.
  const mixed = judgeMatrix([grid(R, M, (r, c) => r === 1 ? (c === 0 ? RED : UDP_RED) : OK)]);
  assert.match(mixed.matrix.reading.join("\n"), /row rome-w2 red: rome-w2's Geneve\/fabric path/);
});

Deno.test("matrix: cells the probe had no time to reach are named, and the matrix is not a pass", () => {
  const late: MatrixCell = { tcp: "unknown", udp: "unknown", detail: NOT_REACHED };
  const { outcome, matrix } = judgeMatrix([grid(R, M, (r) => r === 2 ? late : OK)]);
  assert.equal(outcome.status, "unknown");
  assert.equal(
    outcome.summary,
    "the probe ran out of time: 3/9 cells not reached (rome-w3 → milan-w1 (rome → milan), rome-w3 → milan-w2 (rome → milan), rome-w3 → milan-w3 (rome → milan))",
  );
  assert.ok(matrix.reading.some((l) => /raise --probe-timeout/.test(l)));
  const red = judgeMatrix([grid(R, M, (r) => r === 2 ? late : r === 0 ? RED : OK)]);
  assert.equal(red.outcome.status, "fail");
  assert.match(red.outcome.summary, /row rome-w1 red; the probe ran out of time: 3\/9 cells not reached/);
});
