import assert from "node:assert/strict";
import { PermissionError, ToolError } from "../errors.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { Report } from "../report/model.ts";
import type { WatchEvent } from "../report/watch_model.ts";
import { runWatchLoop } from "./loop.ts";
import type { RoundRunner } from "./rounds.ts";
import { WatchSession } from "./session.ts";

/** A runner that plays back `steps`: a report, or an error to throw (the last step repeats). */
function scripted(steps: (Report | Error)[]): RoundRunner & { calls: number } {
  const r = {
    calls: 0,
    next(): Promise<Report> {
      const step = steps[Math.min(r.calls++, steps.length - 1)];
      return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
    },
    close: () => Promise.resolve(),
  };
  return r;
}

const broken = sampleReport();
const healthy: Report = {
  ...broken,
  results: broken.results.map((r) => ({
    ...r,
    status: r.status === "fail" || r.status === "warn" ? "pass" : r.status,
  })),
  exitCode: 0,
  diagnosis: null,
};

async function run(steps: (Report | Error)[], opts: Partial<Parameters<typeof runWatchLoop>[0]> = {}) {
  const events: WatchEvent[] = [];
  const runner = scripted(steps);
  const outcome = await runWatchLoop({
    runner,
    session: new WatchSession({ intervalMs: 0 }),
    intervalMs: 0,
    emit: (e) => events.push(e),
    fatal: (e) => e instanceof PermissionError,
    ...opts,
  });
  return { outcome, events, calls: runner.calls };
}

Deno.test("loop: --until healthy ends with exit 0 at the first healthy round", async () => {
  const { outcome, events } = await run([broken, broken, healthy], { until: "healthy" });
  assert.deepEqual(outcome, { reason: "healthy", exitCode: 0, rounds: 3 });
  assert.deepEqual(events.at(-1), {
    ...events.at(-1),
    type: "end",
    reason: "healthy",
    exitCode: 0,
    rounds: 3,
  });
});

Deno.test("loop: --until failure ends with exit 0 at the first round with a failure", async () => {
  const { outcome } = await run([healthy, broken], { until: "failure" });
  assert.deepEqual(outcome, { reason: "failure", exitCode: 0, rounds: 2 });
});

Deno.test("loop: --timeout with --until is exit 1; without --until, the last round's code", async () => {
  const a = await run([broken], { until: "healthy", timeoutMs: 150, intervalMs: 40 });
  assert.equal(a.outcome.reason, "timeout");
  assert.equal(a.outcome.exitCode, 1);
  assert.ok(a.outcome.rounds >= 2, `${a.outcome.rounds} rounds`);
  const b = await run([broken], { timeoutMs: 100, intervalMs: 40 });
  assert.deepEqual({ reason: b.outcome.reason, exitCode: b.outcome.exitCode }, {
    reason: "timeout",
    exitCode: 2,
  });
});

Deno.test("loop: a failed round is an error event and the next round tries again; a fatal error ends it", async () => {
  const { outcome, events } = await run([broken, new ToolError("cannot reach the API server"), healthy], {
    until: "healthy",
  });
  assert.equal(outcome.reason, "healthy");
  const types = events.map((e) => e.type);
  assert.deepEqual([types[0], types[1], types.at(-2), types.at(-1)], [
    "snapshot",
    "error",
    "heartbeat",
    "end",
  ]);
  assert.ok(types.length > 4 && types.slice(2, -2).every((t) => t === "transition"), types.join(" "));
  const err = events.find((e) => e.type === "error");
  assert.ok(err && err.type === "error");
  assert.equal(err.message, "cannot reach the API server");
  assert.equal(err.round, 2);
  await assert.rejects(
    run([broken, new PermissionError("--allow-net", "reach the API server")]),
    PermissionError,
  );
});

Deno.test("loop: the signal stops it between rounds with the last round's exit code", async () => {
  const stop = new AbortController();
  const { outcome, events } = await run([broken], {
    intervalMs: 10_000,
    signal: stop.signal,
    onUpdate: (next) => {
      if (next !== null) stop.abort();
    },
  });
  assert.deepEqual(outcome, { reason: "stopped", exitCode: 2, rounds: 1 });
  assert.equal(events.at(-1)?.type, "end");
});

Deno.test("loop: redraws count down to the next round (interval from round start)", async () => {
  const waits: (number | null)[] = [];
  await run([broken], { intervalMs: 250, tickMs: 100, maxRounds: 2, onUpdate: (n) => waits.push(n) });
  assert.equal(waits[0], null, "a round is running");
  const between = waits.slice(1, waits.indexOf(null, 1));
  assert.ok(between.length >= 2, JSON.stringify(waits));
  assert.ok(between.every((n, i) => i === 0 || n! <= between[i - 1]!), JSON.stringify(between));
  assert.equal(between.at(-1), 0);
});
