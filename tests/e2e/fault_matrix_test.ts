/**
 * The fault matrix: every kind the catalog reads × {403, 404 while discovery serves it, 500
 * (persistent), connection reset (persistent), truncated JSON}, on a healthy scenario and a broken
 * one, diagnosed in-process through the live client against the faulting fake server (see
 * fault_support.ts). No crash, no stack trace, exit ≤ 2, a schema-valid report, no pass/fail on the
 * unreadable kind, and every other result as in the clean run unless what it needs changed.
 */
import assert from "node:assert/strict";
import type { FaultAction } from "../../fakekube/mod.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { kindsFor } from "../../diagnose/views.ts";
import type { KindId } from "../../kube/kinds.ts";
import { diagnoseInProcess, faultProblems, listPattern, openLiveScenario, Replay } from "./fault_support.ts";

const FAULTS: [name: string, action: FaultAction][] = [
  ["403", { type: "status", status: 403, message: "fakekube: injected 403" }],
  ["404-while-served", {
    type: "status",
    status: 404,
    message: "the server could not find the requested resource",
  }],
  ["500", { type: "status", status: 500 }],
  ["reset", { type: "reset" }],
  ["truncated", { type: "truncated" }],
];

/** Kinds every check (and report section) reads, in a stable order. */
const KINDS_READ: KindId[] = [...kindsFor(CATALOG)].sort();

for (const scenario of ["healthy-consumer", "gw-lb-pending"]) {
  Deno.test({
    name: `fault matrix ${scenario}: ${KINDS_READ.length} kinds × ${FAULTS.map(([n]) => n).join(", ")}`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const live = await openLiveScenario(scenario);
      try {
        const replay = new Replay(live.source, { replayExec: true });
        const clean = await diagnoseInProcess(replay.record());
        assert.ok(clean.report, `clean run crashed: ${clean.crash}`);
        const problems: string[] = [];
        let retriesSeen = 0;
        for (const [faultName, action] of FAULTS) {
          for (const kind of KINDS_READ) {
            live.setFaults([{ path: listPattern(kind), ...action }]);
            const run = await diagnoseInProcess(replay.faulting(kind));
            if (live.faultHits().length === 0) {
              problems.push(`${kind} × ${faultName}: the fault was never served`);
            }
            for (const p of faultProblems(clean.report, run, kind)) {
              problems.push(`${kind} × ${faultName}: ${p}`);
            }
            if (
              (faultName === "500" || faultName === "reset") &&
              run.report?.results.some((r) => r.summary.includes("(after 2 retries)"))
            ) retriesSeen++;
          }
        }
        assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join("\n")}`);
        assert.ok(retriesSeen > 0, "a persistent 500/reset says it was retried");
      } finally {
        await live.close();
      }
    },
  });
}
