/**
 * Truth over confidence, as a matrix: for every scenario, each kind a check reads is made unreadable
 * in turn — 403, 404 while discovery serves it, a persistent 500 — on the scenario's local cluster,
 * and the run is diagnosed in-process through the live client against the faulting fake
 * (fault_support.ts). No finding (`fail`, `warn`) may turn into a `pass`, a skip that is not
 * "blocked by" a named check, or disappear; no `pass` may turn into such a skip ("not applicable"
 * about what was never read); and a run that exits non-zero clean may not exit 0: an unreadable
 * input is `unknown` with the reason, never absent. Registered per scenario by the shard files
 * (matrices.ts), so the work spreads over them.
 */
import assert from "node:assert/strict";
import type { FaultAction } from "../../fakekube/mod.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { kindsFor } from "../../diagnose/views.ts";
import type { KindId } from "../../kube/kinds.ts";
import type { Report } from "../../report/model.ts";
import {
  describeResult,
  diagnoseInProcess,
  type InProcessRun,
  listPattern,
  openLiveScenario,
  Replay,
} from "./fault_support.ts";

/** The ways a kind is unreadable here: refused, "not found" although served, failing. */
export const UNREADABLE: readonly [name: string, action: FaultAction][] = [
  ["403", { type: "status", status: 403, message: "fakekube: injected 403" }],
  ["404-while-served", {
    type: "status",
    status: 404,
    message: "the server could not find the requested resource",
  }],
  ["500", { type: "status", status: 500 }],
];

/** Kinds the checks read, in a stable order. */
const KINDS_READ: readonly KindId[] = [...kindsFor(CATALOG)].sort();

const keyOf = (r: { id: string; peer: string | null }) => `${r.id}#${r.peer ?? ""}`;

/**
 * What hides a finding of the clean run when a kind could not be read (empty when nothing): the
 * finding passed, was skipped other than "blocked by" a named check, or vanished; a pass fell silent
 * (skipped, not blocked); the run exits 0 where the clean one did not; or the run crashed.
 */
export function hiddenFindings(clean: Report, run: InProcessRun): string[] {
  if (!run.report) return [`crashed: ${run.crash instanceof Error ? run.crash.message : String(run.crash)}`];
  const after = new Map(run.report.results.map((r) => [keyOf(r), r]));
  const problems: string[] = [];
  for (const f of clean.results) {
    const r = after.get(keyOf(f));
    const was = `${describeResult(f)}`;
    // A judged check may not fall silent either (a pass that turns into "not applicable" says
    // "nothing to check here" about what was never read).
    const silent = r?.status === "skip" && r.skipKind !== "blocked" && f.status !== "skip";
    if (f.status !== "fail" && f.status !== "warn") {
      if (f.status === "pass" && silent) problems.push(`${was} → silent ${describeResult(r!)}`);
      continue;
    }
    if (!r) problems.push(`${was} vanished`);
    else if (r.status === "pass") problems.push(`${was} → ${describeResult(r)}`);
    else if (silent) problems.push(`${was} → silent ${describeResult(r!)}`);
  }
  if (clean.exitCode !== 0 && run.report.exitCode === 0) {
    problems.push(`exit ${clean.exitCode} clean, 0 with the kind unreadable`);
  }
  return problems;
}

/** Registers the truth matrix of each of `scenarios` (one test each). */
export function registerTruthTests(scenarios: readonly string[]): void {
  for (const scenario of scenarios) {
    Deno.test({
      name: `unreadable inputs hide no finding ${scenario}: each read kind × ${
        UNREADABLE.map(([n]) => n).join(", ")
      }`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => {
        const live = await openLiveScenario(scenario);
        try {
          const replay = new Replay(live.source, { replayExec: true });
          const clean = await diagnoseInProcess(replay.record());
          assert.ok(clean.report, `clean run crashed: ${clean.crash}`);
          const problems: string[] = [];
          for (const [faultName, action] of UNREADABLE) {
            for (const kind of KINDS_READ) {
              live.setFaults([{ path: listPattern(kind), ...action }]);
              const run = await diagnoseInProcess(replay.faulting(kind));
              for (const p of hiddenFindings(clean.report, run)) {
                problems.push(`${kind} × ${faultName}: ${p}`);
              }
            }
          }
          assert.deepEqual(problems, [], `${problems.length} hidden findings:\n${problems.join("\n")}`);
        } finally {
          await live.close();
        }
      },
    });
  }
}
