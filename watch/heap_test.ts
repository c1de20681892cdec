import assert from "node:assert/strict";
import { COMPACT_EVERY_MS, COMPACT_EVERY_ROUNDS, HeapCompactor } from "./heap.ts";

Deno.test("the heap is compacted every N back-to-back rounds, and after every round of a long interval", () => {
  let t = 0;
  const calls: unknown[] = [];
  const c = new HeapCompactor({ gc: (o) => calls.push(o), now: () => t });
  for (let i = 1; i < COMPACT_EVERY_ROUNDS; i++) assert.equal(c.afterRound(), false);
  assert.equal(c.afterRound(), true);
  assert.deepEqual(calls, [{ type: "major", execution: "sync", flavor: "last-resort" }]);
  t += COMPACT_EVERY_MS;
  assert.equal(c.afterRound(), true, "a round after a long idle gap compacts");
  assert.equal(calls.length, 2);
});

Deno.test("without an exposed gc() the compactor does nothing", () => {
  const c = new HeapCompactor({ gc: null });
  assert.equal(c.enabled, false);
  for (let i = 0; i < 3 * COMPACT_EVERY_ROUNDS; i++) assert.equal(c.afterRound(), false);
});
