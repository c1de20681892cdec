import assert from "node:assert/strict";
import { fleetClock, type FleetMark, timingLines } from "./timings.ts";

Deno.test("timings: the spans of a fleet run, from the process start", () => {
  const marks: FleetMark[] = [
    { at: 300, phase: "run-start" },
    { at: 320, phase: "contexts" },
    { at: 330, phase: "read-start", of: "a" },
    { at: 340, phase: "read-start", of: "b" },
    { at: 400, phase: "read-version", of: "a" },
    { at: 1330, phase: "read-end", of: "a" },
    { at: 2340, phase: "read-end", of: "b" },
    { at: 2340, phase: "reads-done" },
    { at: 2360, phase: "planned" },
    { at: 4300, phase: "edge-judged", of: "a→b" },
    { at: 4300, phase: "judged" },
    { at: 4310, phase: "assembled" },
    { at: 4400, phase: "rendered" },
  ];
  const lines = timingLines(marks);
  assert.equal(lines[0], "process start → fleet run start (startup, imports): 0.30 s");
  assert.ok(lines.some((l) => l.includes("min 1.00 s") && l.includes("max 2.00 s (b)")), lines.join("\n"));
  assert.ok(lines.includes("identity + graph: 0.02 s"));
  assert.ok(lines.includes("edges judged: 1, first +4.00 s, last +4.00 s"));
  assert.ok(lines.includes("rendered: 0.09 s"));
  assert.equal(lines.at(-1), "total since process start: 4.40 s");
  // Not asked for: nothing recorded, nothing printed.
  const off = fleetClock(false);
  off.mark("run-start");
  assert.deepEqual(timingLines(off.marks), []);
});
