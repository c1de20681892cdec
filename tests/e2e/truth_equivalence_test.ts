/**
 * Why the truth matrix (truth_matrix.ts) runs 403 and 404-while-served but not a persistent 500:
 * through the live client and the inventory, a persistent 500 and a 404 on a list that discovery
 * serves both leave the kind in the same state, `error`, and differ only in the message; the
 * engine and the checks see states and messages, so the matrix's 404-while-served runs already are
 * the 500 runs modulo the reason text. This file proves that per read kind (fast: lists only), and
 * on one scenario with peers and findings, that the whole diagnosis agrees result by result.
 */
import assert from "node:assert/strict";
import type { FaultAction } from "../../fakekube/mod.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { kindsFor } from "../../diagnose/views.ts";
import { Inventory } from "../../kube/inventory.ts";
import type { KindId } from "../../kube/kinds.ts";
import type { Report } from "../../report/model.ts";
import { diagnoseInProcess, listPattern, openLiveScenario, Replay } from "./fault_support.ts";
import { PERSISTENT_500, UNREADABLE } from "./truth_matrix.ts";

const KINDS_READ: readonly KindId[] = [...kindsFor(CATALOG)].sort();
const ACTIONS: Record<string, FaultAction> = { ...Object.fromEntries(UNREADABLE), "500": PERSISTENT_500 };
/** A scenario with peers, findings and a non-zero exit. */
const SCENARIO = "field2-udp-blocked-both-peers";

/** What a result's outcome is, without its text: status, skip kind, blocker. */
const outcome = (r: Report) => ({
  exitCode: r.exitCode,
  results: r.results.map((x) =>
    `${x.id}#${x.peer ?? ""} ${x.status}/${x.skipKind ?? ""}/${x.blockedBy ?? ""}`
  ),
});

Deno.test({
  name:
    "truth matrix: a persistent 500 and a 404 while served leave every read kind in the same state (error)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const live = await openLiveScenario(SCENARIO);
    try {
      const replay = new Replay(live.source);
      await Inventory.load(replay.record(), KINDS_READ, true);
      const problems: string[] = [];
      for (const kind of KINDS_READ) {
        const states: Record<string, string> = {};
        for (const name of ["403", "404-while-served", "500"]) {
          live.setFaults([{ path: listPattern(kind), ...ACTIONS[name] }]);
          const inv = await Inventory.load(replay.faulting(kind), [kind], true);
          const s = inv.state(kind);
          states[name] = s.state;
          if (s.state !== "ok" && s.state !== "not-listed" && !s.message) {
            problems.push(`${kind} × ${name}: no reason`);
          }
        }
        const want = { "403": "forbidden", "404-while-served": "error", "500": "error" };
        if (JSON.stringify(states) !== JSON.stringify(want)) {
          problems.push(`${kind}: ${JSON.stringify(states)}`);
        }
      }
      assert.deepEqual(problems, []);
    } finally {
      await live.close();
    }
  },
});

Deno.test({
  name:
    `truth matrix: ${SCENARIO} diagnosed with each read kind under a persistent 500 = under a 404 while served`,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const live = await openLiveScenario(SCENARIO);
    try {
      const replay = new Replay(live.source, { replayExec: true });
      assert.ok((await diagnoseInProcess(replay.record())).report);
      const problems: string[] = [];
      for (const kind of KINDS_READ) {
        const got: Record<string, ReturnType<typeof outcome>> = {};
        for (const name of ["404-while-served", "500"]) {
          live.setFaults([{ path: listPattern(kind), ...ACTIONS[name] }]);
          const run = await diagnoseInProcess(replay.faulting(kind));
          assert.ok(run.report, `${kind} × ${name} crashed: ${run.crash}`);
          got[name] = outcome(run.report);
        }
        try {
          assert.deepEqual(got["500"], got["404-while-served"]);
        } catch (e) {
          problems.push(`${kind}: ${(e as Error).message.slice(0, 600)}`);
        }
      }
      assert.deepEqual(problems, [], problems.join("\n"));
    } finally {
      await live.close();
    }
  },
});
