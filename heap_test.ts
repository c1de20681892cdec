import assert from "node:assert/strict";
import { HEAP_SLACK_BYTES, HeapBound } from "./heap.ts";

Deno.test("HeapBound collects once the heap has grown the slack past the last survivors, and looks seldom", () => {
  let used = 100, collected = 0, looks = 0;
  const bound = new HeapBound({
    slackBytes: 50,
    heapUsed: () => (looks++, used),
    gc: () => {
      collected++;
      used = 120; // what survived
    },
  });
  used = 140;
  assert.equal(bound.check(), false, "below 100 + 50: nothing");
  used = 151;
  assert.equal(bound.check(), true);
  assert.equal(collected, 1);
  used = 160;
  assert.equal(bound.check(), false, "the bound moved to the survivors (120) + 50");
  looks = 0;
  for (let i = 0; i < 511; i++) bound.tick();
  assert.equal(looks, 0, "ticks look at the heap only every few hundred calls");
  used = 171;
  assert.equal(bound.tick(), true);
  assert.equal(collected, 2);
});

Deno.test("without an exposed gc() HeapBound does nothing", () => {
  const bound = new HeapBound({ gc: null, heapUsed: () => 10 * HEAP_SLACK_BYTES });
  assert.equal(bound.check(), false);
  for (let i = 0; i < 2000; i++) assert.equal(bound.tick(), false);
});
