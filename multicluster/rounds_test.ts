/** Fleet rounds: transitions between two fleet reports, and `--until`. */
import assert from "node:assert/strict";
import { edgeTransitions, roundMeets } from "./rounds.ts";
import type { FleetEdge, FleetReport } from "../report/fleet.ts";

function fleet(edges: Record<string, FleetEdge["verdict"]>, exitCode: FleetReport["exitCode"]): FleetReport {
  const e = Object.fromEntries(
    Object.entries(edges).map(([id, verdict]) => [id, {
      id,
      verdict,
      firstBroken: verdict === "pass" ? null : { id: "TUN-01", summary: "stuck Connecting", cluster: "a" },
    } as FleetEdge]),
  );
  return { edges: e, exitCode } as FleetReport;
}

Deno.test("fleet rounds: the first round lists every edge; then only changes, new and gone edges", () => {
  const r1 = fleet({ "a→b": "pass", "c→d": "fail" }, 2);
  assert.deepEqual(edgeTransitions(null, r1).map((t) => [t.edge, t.from, t.to]), [
    ["a→b", null, "pass"],
    ["c→d", null, "fail"],
  ]);
  const r2 = fleet({ "a→b": "fail", "e→f": "pass" }, 2);
  assert.deepEqual(edgeTransitions(r1, r2), [
    { edge: "a→b", from: "pass", to: "fail", firstBroken: "TUN-01: stuck Connecting" },
    { edge: "e→f", from: null, to: "pass", firstBroken: null },
    { edge: "c→d", from: "fail", to: null, firstBroken: null },
  ]);
  assert.deepEqual(edgeTransitions(r2, r2), []);
});

Deno.test("fleet rounds: --until healthy is every edge passing, --until failure a failing one", () => {
  assert.ok(roundMeets(fleet({ "a→b": "pass" }, 0), "healthy"));
  assert.ok(!roundMeets(fleet({ "a→b": "warn" }, 1), "healthy"));
  assert.ok(roundMeets(fleet({ "a→b": "fail" }, 2), "failure"));
  assert.ok(!roundMeets(fleet({}, 3), "failure"));
});
