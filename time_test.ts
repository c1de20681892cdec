// The sanitizers of Deno.test fail a test that leaves a timer running: every abort below must clear
// the delay's timer, or the test itself fails.
import assert from "node:assert/strict";
import { abortable, delay, poll, rest, within } from "./time.ts";

Deno.test("delay: resolves after the time", async () => {
  const t0 = performance.now();
  await delay(20);
  assert.ok(performance.now() - t0 >= 15);
});

Deno.test("delay: an abort before it rejects at once with the signal's reason", async () => {
  const ctl = new AbortController();
  ctl.abort(new Error("gone"));
  await assert.rejects(delay(60_000, { signal: ctl.signal }), /gone/);
});

Deno.test("delay: an abort during it rejects with the reason and clears the timer", async () => {
  const ctl = new AbortController();
  const waiting = delay(60_000, { signal: ctl.signal });
  setTimeout(() => ctl.abort("stop"), 5);
  await assert.rejects(waiting, (e) => e === "stop");
});

Deno.test("delay: a finished delay leaves no abort listener behind", async () => {
  const ctl = new AbortController();
  await delay(1, { signal: ctl.signal });
  ctl.abort(); // nothing listens: no rejection to handle
});

Deno.test("rest: true after the whole time, false when cut short or already aborted", async () => {
  assert.equal(await rest(1), true);
  const ctl = new AbortController();
  const cut = rest(60_000, ctl.signal);
  ctl.abort();
  assert.equal(await cut, false);
  assert.equal(await rest(60_000, ctl.signal), false);
});

Deno.test("abortable: the promise's value or its rejection when no abort comes", async () => {
  const ctl = new AbortController();
  assert.equal(await abortable(Promise.resolve(7), ctl.signal), 7);
  await assert.rejects(abortable(Promise.reject(new Error("boom")), ctl.signal), /boom/);
});

Deno.test("abortable: an abort during the wait rejects with the reason; the late outcome is dropped", async () => {
  const ctl = new AbortController();
  let fail!: (e: Error) => void;
  const slow = new Promise<number>((_, reject) => fail = reject);
  const raced = abortable(slow, ctl.signal);
  ctl.abort("stopped");
  await assert.rejects(raced, (e) => e === "stopped");
  fail(new Error("late")); // handled: no unhandled rejection fails the test
  await delay(0);
});

Deno.test("abortable: an aborted signal rejects at once and silences the promise", async () => {
  const ctl = new AbortController();
  ctl.abort("before");
  await assert.rejects(abortable(Promise.reject(new Error("late")), ctl.signal), (e) => e === "before");
});

/** A clock that moves only when the poll sleeps. */
function fakeClock() {
  let t = 0;
  const pauses: number[] = [];
  return {
    now: () => t,
    sleep: (ms: number) => {
      pauses.push(ms);
      t += ms;
      return Promise.resolve();
    },
    pauses,
  };
}

Deno.test("poll: backs off by the factor up to the cap, and returns the first value", async () => {
  const c = fakeClock();
  let n = 0;
  const r = await poll(() => ++n === 5 ? "ready" : undefined, {
    intervalMs: 250,
    maxIntervalMs: 1_000,
    deadline: 60_000,
    ...c,
  });
  assert.deepEqual(r, { done: true, value: "ready" });
  assert.deepEqual(c.pauses, [250, 500, 1_000, 1_000]);
});

Deno.test("poll: the deadline ends it with done false, after a last attempt at the deadline", async () => {
  const c = fakeClock();
  const seen: number[] = [];
  const r = await poll((left) => void seen.push(left), { intervalMs: 400, factor: 1, deadline: 1_000, ...c });
  assert.deepEqual(r, { done: false });
  assert.deepEqual(c.pauses, [400, 400, 200]);
  assert.deepEqual(seen, [1_000, 600, 200, 0]);
});

Deno.test("poll: an abort rejects with the reason, before an attempt or during the pause", async () => {
  const before = new AbortController();
  before.abort("early");
  let calls = 0;
  await assert.rejects(
    poll(() => void calls++, { intervalMs: 10, deadline: Date.now() + 60_000, signal: before.signal }),
    (e) => e === "early",
  );
  assert.equal(calls, 0);
  const during = new AbortController();
  const polling = poll(() => void calls++, {
    intervalMs: 60_000,
    deadline: Date.now() + 120_000,
    signal: during.signal,
  });
  await delay(5);
  during.abort("late");
  await assert.rejects(polling, (e) => e === "late");
  assert.equal(calls, 1);
});

Deno.test("within: the value in time, done false past the limit, the rejection in time", async () => {
  assert.deepEqual(await within(Promise.resolve(3), 60_000), { done: true, value: 3 });
  let late!: (v: number) => void;
  assert.deepEqual(await within(new Promise<number>((r) => late = r), 5), { done: false });
  late(4); // settles after the limit: dropped
  await assert.rejects(within(Promise.reject(new Error("no")), 60_000), /no/);
});
