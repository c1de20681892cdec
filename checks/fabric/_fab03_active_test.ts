/**
 * FAB-03's active half: PROBE-MATRIX's reading of each end of the probed peering
 * (active/matrix/judge.ts genevePathReading) amends FAB-03's passive outcome
 * (checks/fabric/_fab03_active.ts), and FAB-03 finds its own end's reading among its input's facts.
 */
import { fixText } from "../../report/remediation.ts";
import { fix, kubectlIn } from "../remediation.ts";
import assert from "node:assert/strict";
import type { CheckResult, Outcome } from "../types.ts";
import type { ActiveMatrix, MatrixCell, MatrixGrid } from "../../active/model.ts";
import { genevePathReading } from "../../active/matrix/judge.ts";
import { amendFab03 } from "./_fab03_active.ts";
import { FAB_03 } from "./fab03.ts";
import { baseObjects, contextOf, inventoryOf, peersOf, viewOf } from "../../tests/support/fixtures.ts";

/** One end of the probed peering, as FAB-03 on that cluster sees it. */
interface FabricEnd {
  cluster: string;
  peer: string;
  liqoNamespace: string;
}

/** FAB-03's result on `end` amended by the matrix, as the engine would report it. */
function activeFab03(result: CheckResult, matrix: ActiveMatrix, end: FabricEnd) {
  const passive: Outcome = {
    status: result.status,
    summary: result.summary,
    evidence: result.evidence,
    ...(result.remediation.length ? { remediation: result.remediation } : {}),
  };
  const o = amendFab03(passive, genevePathReading(matrix, end), end.liqoNamespace);
  if (o === passive) return { result, failedByActive: false };
  return {
    result: {
      ...result,
      status: o.status,
      summary: o.summary,
      evidence: o.evidence ?? [],
      remediation: o.remediation ?? result.remediation,
      skipKind: o.status === "skip" ? result.skipKind : null,
    },
    failedByActive: o.decidedBy === "PROBE-MATRIX",
  };
}

const OK: MatrixCell = { tcp: "ok", udp: "ok", detail: "" };
const RED: MatrixCell = { tcp: "fail", udp: "fail", detail: "TCP TIMEOUT; UDP no answer" };
const FLAKY: MatrixCell = { tcp: "flaky", udp: "ok", detail: "TCP TIMEOUT (passed on the retry)" };
const UNKNOWN: MatrixCell = { tcp: "unknown", udp: "unknown", detail: "exec failed" };

const R = ["rome-w1", "rome-w2", "rome-w3"];
const M = ["milan-w1", "milan-w2"];
const ROME: FabricEnd = { cluster: "rome", peer: "milan", liqoNamespace: "liqo" };
const MILAN: FabricEnd = { cluster: "milan", peer: "rome", liqoNamespace: "liqo-system" };

function grid(
  from: string,
  to: string,
  rows: string[],
  cols: string[],
  at: (r: number, c: number) => MatrixCell = () => OK,
): MatrixGrid {
  const control = from === to;
  return {
    title: control ? `${from} → ${to} (control)` : `${from} → ${to}`,
    control,
    fromCluster: from,
    toCluster: to,
    rows,
    cols,
    cells: rows.map((_, r) => cols.map((_, c) => at(r, c))),
  };
}

const matrix = (...grids: MatrixGrid[]): ActiveMatrix => ({ grids, rules: [], reading: [] });

function fab03(over: Partial<CheckResult> = {}): CheckResult {
  return {
    id: "FAB-03",
    title: "Geneve UDP 6091 admitted to the gateway",
    layer: "fabric",
    status: "pass",
    peer: "milan",
    cluster: "rome",
    summary: "no NetworkPolicy selects the gateway pod",
    evidence: [],
    remediation: [],
    blockedBy: null,
    skipKind: null,
    durationMs: 1,
    ...over,
  };
}

/** Direct mode, both ways and both control grids; `out`/`back` shape the cross grids. */
function direct(
  out: (r: number, c: number) => MatrixCell = () => OK,
  back: (r: number, c: number) => MatrixCell = () => OK,
  romeControl: (r: number, c: number) => MatrixCell = () => OK,
): ActiveMatrix {
  return matrix(
    grid("rome", "milan", R, M, out),
    grid("milan", "rome", M, R, back),
    grid("rome", "rome", R, R, romeControl),
    grid("milan", "milan", M, M),
  );
}

const EVERY = "active: every probed node of rome reached milan through its Geneve path (PROBE-MATRIX)";

Deno.test("FAB-03 active: a red row while the control grid is green → fail naming the node", () => {
  const passive = fab03({ evidence: ["policy x admits UDP 6091"] });
  const { result, failedByActive } = activeFab03(passive, direct((r) => r === 1 ? RED : OK), ROME);
  assert.equal(failedByActive, true);
  assert.equal(result.status, "fail");
  assert.equal(
    result.summary,
    "active: from rome-w2 nothing reaches milan through the Geneve tunnel to the gateway (PROBE-MATRIX row red)",
  );
  assert.equal(result.evidence[0], "policy x admits UDP 6091", "the passive lines stay, first");
  assert.ok(result.evidence.includes("passive: no NetworkPolicy selects the gateway pod"));
  assert.ok(result.evidence.some((l) => /^active: rome-w2 → milan: row red, all 2 cells failed/.test(l)));
  assert.ok(result.evidence.some((l) => /control grid is green for rome-w2, so not its CNI/.test(l)));
  assert.ok(
    result.evidence.some((l) => /other probed nodes of rome \(rome-w1 and rome-w3\) reached milan/.test(l)),
  );
  assert.deepEqual(fixText(result.remediation).split("\n").slice(1), [
    "kubectl get internalnode rome-w2 -o yaml",
    "kubectl -n liqo get pods -l app.kubernetes.io/name=fabric -o wide --field-selector spec.nodeName=rome-w2",
    "kubectl get genevetunnels -A -l networking.liqo.io/internal-node-name=rome-w2",
  ]);
  assert.equal(passive.status, "pass", "the passive result is not mutated");
  assert.equal(result.id, "FAB-03");
  assert.equal(result.cluster, "rome");
  assert.equal(result.peer, "milan");
});

Deno.test("FAB-03 active: red both ways (row out, column back) says so; several nodes are listed", () => {
  const both = activeFab03(fab03(), direct((r) => r === 0 ? RED : OK, (_, c) => c === 0 ? RED : OK), ROME);
  assert.match(
    both.result.summary,
    /from rome-w1 nothing reaches milan .*\(PROBE-MATRIX row red, red both ways\)$/,
  );
  assert.ok(
    both.result.evidence.some((l) => /red both ways: nothing in milan reaches rome-w1 either/.test(l)),
  );
  const two = activeFab03(fab03(), direct((r) => r < 2 ? RED : OK), ROME);
  assert.match(two.result.summary, /^active: from rome-w1 and rome-w2 nothing reaches milan/);
  assert.equal(fixText(two.result.remediation).match(/get genevetunnels/g)?.length, 2);
});

Deno.test("FAB-03 active: a passive failure stays a failure; its remediation comes first", () => {
  const passive = fab03({
    status: "fail",
    summary: "NetworkPolicy deny-all denies all ingress to gateway pod gw-0",
    evidence: ["deny-all: ingress []"],
    remediation: fix(kubectlIn("local", "liqo-tenant", "edit", "networkpolicy", "deny-all")),
  });
  const { result } = activeFab03(passive, direct((r) => r === 2 ? RED : OK), ROME);
  assert.equal(result.status, "fail");
  assert.match(result.summary, /from rome-w3/);
  assert.ok(
    result.evidence.includes("passive: NetworkPolicy deny-all denies all ingress to gateway pod gw-0"),
  );
  const lines = fixText(result.remediation).split("\n");
  assert.equal(lines[0], "kubectl -n liqo-tenant edit networkpolicy deny-all");
  assert.match(lines[1], /^# rome-w3 reaches nothing in milan: its Geneve tunnel to the gateway/);
});

Deno.test("FAB-03 active: every node reached → one evidence line, the passive status kept (warn, unknown too)", () => {
  for (const status of ["pass", "warn", "fail", "unknown"] as const) {
    const passive = fab03({
      status,
      evidence: ["passive line"],
      remediation: status === "pass" ? [] : fix("fix it"),
    });
    const { result, failedByActive } = activeFab03(passive, direct(), ROME);
    assert.equal(failedByActive, false);
    assert.equal(result.status, status, "the probe proves the path now, not the policy");
    assert.equal(result.summary, passive.summary);
    assert.equal(result.remediation, passive.remediation);
    assert.deepEqual(result.evidence, ["passive line", EVERY]);
  }
  // A red column (a milan node) is not a rome node's Geneve path: every rome row still reached milan.
  const column = activeFab03(fab03(), direct((_, c) => c === 1 ? RED : OK), ROME);
  assert.equal(column.result.status, "pass");
  assert.deepEqual(column.result.evidence, [EVERY]);
});

Deno.test("FAB-03 active: flaky and unmeasured cells change nothing but a line", () => {
  // rome-w2 answered only on the retry: it reached milan (flaky); nothing else changes.
  const flaky = activeFab03(fab03(), direct((r) => r === 1 ? FLAKY : OK), ROME).result;
  assert.equal(flaky.status, "pass");
  assert.deepEqual(flaky.evidence, [
    "active: rome-w2 reached milan only on a retry (flaky cells, PROBE-MATRIX)",
    EVERY,
  ]);
  // rome-w2 not measured at all, or red mixed with unmeasured: not a red row, not confirmed either.
  const unknown = activeFab03(fab03(), direct((r) => r === 1 ? UNKNOWN : OK), ROME).result;
  assert.equal(unknown.status, "pass");
  assert.deepEqual(unknown.evidence, [
    "active: rome-w2's Geneve path could not be confirmed: no cell of its row answered (rome → milan: not measured)",
  ]);
  const mixed = activeFab03(fab03(), direct((r, c) => r === 1 ? (c === 0 ? RED : UNKNOWN) : OK), ROME).result;
  assert.equal(mixed.status, "pass");
  assert.match(
    mixed.evidence[0],
    /rome-w2's Geneve path could not be confirmed: .*red mixed with unmeasured cells/,
  );
  // A row partly flaky, partly ok: reached, no line of its own.
  const part = activeFab03(fab03(), direct((r, c) => r === 0 && c === 0 ? FLAKY : OK), ROME).result;
  assert.deepEqual(part.evidence, [EVERY]);
});

Deno.test("FAB-03 active: a node red in its own control grid is the CNI, not FAB-03", () => {
  // rome-w2 reaches nothing in milan, and nothing in rome either (its control row red).
  const m = direct((r) => r === 1 ? RED : OK, () => OK, (r, c) => r === 1 && c !== 1 ? RED : OK);
  const { result, failedByActive } = activeFab03(fab03(), m, ROME);
  assert.equal(failedByActive, false);
  assert.equal(result.status, "pass");
  assert.equal(result.summary, "no NetworkPolicy selects the gateway pod");
  assert.match(
    result.evidence[0],
    /^active: rome-w2 reaches nothing in milan .* but is red in rome's control grid too: .*CNI/,
  );
  // Everything red across the peering: the tunnel or a gateway, not one node — kept, with a line.
  const all = activeFab03(fab03(), direct(() => RED, () => RED), ROME).result;
  assert.equal(all.status, "pass");
  assert.deepEqual(all.evidence, [
    "active: nothing from rome reaches milan (PROBE-MATRIX everything red): the tunnel or a gateway, not one node's Geneve path",
  ]);
});

Deno.test("FAB-03 active: offload mode — rows are local nodes, columns offloaded pods; no grid out of the peer", () => {
  const pods = ["ff-probe-milan-0", "ff-probe-milan-1"];
  const offload = (at: (r: number, c: number) => MatrixCell) =>
    matrix(
      { ...grid("rome", "milan", R, pods, at), title: "rome → milan (offloaded pods)" },
      grid("rome", "rome", R, R),
      { ...grid("milan", "milan", pods, pods), title: "milan → milan (control, offloaded pods)" },
    );
  const row = activeFab03(fab03(), offload((r) => r === 0 ? RED : OK), ROME);
  assert.equal(row.result.status, "fail");
  assert.match(row.result.summary, /^active: from rome-w1 nothing reaches milan .*\(PROBE-MATRIX row red\)$/);
  const column = activeFab03(fab03(), offload((_, c) => c === 1 ? RED : OK), ROME);
  assert.equal(column.result.status, "pass");
  assert.deepEqual(column.result.evidence, [EVERY]);
  // The provider's FAB-03 (both kubeconfigs, --mode offload): no grid leaves it, nothing to add.
  const milan = fab03({ cluster: "milan", peer: "rome" });
  assert.equal(activeFab03(milan, offload(() => OK), MILAN).result, milan);
});

Deno.test("FAB-03 takes PROBE-MATRIX as an input: its own end's reading amends it, another peer's never", async () => {
  const view = viewOf(inventoryOf(await baseObjects("rome")));
  const peer = peersOf(view)[0];
  const local = { cluster: view.name, peer: peer.clusterId, liqoNamespace: "liqo" };
  const m: ActiveMatrix = matrix(
    grid(view.name, "milan", R, M, (r) => r === 1 ? RED : OK),
    grid(view.name, view.name, R, R),
  );
  const facts = (peerId: string) => ({ genevePaths: [genevePathReading(m, { ...local, peer: peerId })] });
  const input = (peerId: string) => ({
    "PROBE-MATRIX": { result: fab03({ id: "PROBE-MATRIX" }), facts: facts(peerId) },
  });
  assert.deepEqual(FAB_03.inputs, ["PROBE-MATRIX"]);
  const amended = await FAB_03.run(contextOf(view, { peer, inputs: input(peer.clusterId) }));
  assert.equal(amended.status, "fail");
  assert.equal(amended.decidedBy, "PROBE-MATRIX");
  assert.match(amended.summary, /from rome-w2 nothing reaches milan/);
  const passive = await FAB_03.run(contextOf(view, { peer }));
  const otherPeer = await FAB_03.run(contextOf(view, { peer, inputs: input("paris") }));
  assert.deepEqual(otherPeer, passive, "another peer's reading is not this FAB-03's");
  assert.equal(passive.decidedBy, undefined);
});
