import assert from "node:assert/strict";
import { runRounds } from "./round_loop.ts";

Deno.test("runRounds: reports and failures in order, until maxRounds", async () => {
  const seen: string[] = [];
  let n = 0;
  const out = await runRounds<number>({
    next: () => ++n === 2 ? Promise.reject(new Error("down")) : Promise.resolve(n),
    intervalMs: 0,
    signal: new AbortController().signal,
    onReport: (r) => void seen.push(`report ${r}`),
    onFailure: (e) => void seen.push(`failed ${(e as Error).message}`),
    maxRounds: 3,
  });
  assert.deepEqual(out, { ended: "max-rounds", rounds: 3 });
  assert.deepEqual(seen, ["report 1", "failed down", "report 3"]);
});

Deno.test("runRounds: onReport ends it; a fatal error rejects", async () => {
  const signal = new AbortController().signal;
  const done = await runRounds<number>({
    next: () => Promise.resolve(1),
    intervalMs: 0,
    signal,
    onReport: () => true,
    onFailure: () => {},
  });
  assert.deepEqual(done, { ended: "done", rounds: 1 });
  await assert.rejects(
    runRounds({
      next: () => Promise.reject(new TypeError("fatal")),
      intervalMs: 0,
      signal,
      onReport: () => {},
      onFailure: () => assert.fail("a fatal error is not a failed round"),
      fatal: (e) => e instanceof TypeError,
    }),
    /fatal/,
  );
});

Deno.test("runRounds: an abort ends it at once, without waiting for the round in flight or the pause", async () => {
  const ctl = new AbortController();
  let calls = 0;
  const loop = runRounds({
    next: () => ++calls === 1 ? Promise.resolve(1) : new Promise<number>(() => {}),
    intervalMs: 60_000,
    signal: ctl.signal,
    onReport: () => {},
    onFailure: () => {},
  });
  setTimeout(() => ctl.abort(), 5);
  assert.deepEqual(await loop, { ended: "aborted", rounds: 1 });
  assert.equal(calls, 1); // the abort came during the pause
});
