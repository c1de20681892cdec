/** The fleet document's published schema is the shipped file; verdicts follow the exit codes. */
import assert from "node:assert/strict";
import { fleetJsonSchema, verdictOf, worseExit } from "./fleet.ts";

Deno.test("the shipped schema/fleet.v1.schema.json is the published fleet schema (`flyingfish schema --fleet`)", async () => {
  const shipped = JSON.parse(
    await Deno.readTextFile(new URL("../schema/fleet.v1.schema.json", import.meta.url)),
  );
  assert.deepEqual(shipped, JSON.parse(JSON.stringify(fleetJsonSchema())), "run `deno task schema`");
});

Deno.test("fleet verdicts: exit 0 pass, 2 fail, 1 warn when a check warned else unknown; the worse of two", () => {
  assert.equal(verdictOf(0, false), "pass");
  assert.equal(verdictOf(2, true), "fail");
  assert.equal(verdictOf(1, true), "warn");
  assert.equal(verdictOf(1, false), "unknown");
  assert.equal(worseExit(1, 2), 2);
  assert.equal(worseExit(0, 1), 1);
});
