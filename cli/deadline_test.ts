import assert from "node:assert/strict";
import { NO_TIMEOUT_MS, withDeadline } from "./deadline.ts";
import { ToolError } from "../errors.ts";

Deno.test("withDeadline: the work's result within the time, else a tool error and what it opened closed", async () => {
  assert.equal(await withDeadline(1000, "1s", () => Promise.resolve(7)), 7);
  assert.equal(await withDeadline(NO_TIMEOUT_MS, "0", () => Promise.resolve(8)), 8);
  await assert.rejects(withDeadline(1000, "1s", () => Promise.reject(new Error("own"))), /own/);

  const closed: string[] = [];
  let release!: () => void;
  const opened = new Promise<void>((r) => release = r);
  await assert.rejects(
    withDeadline(50, "50ms", async (onExpiry) => {
      onExpiry(() => void closed.push("early"));
      await opened; // a connection that opens only after the deadline
      onExpiry(() => void closed.push("late"));
      return 1;
    }),
    (err: unknown) =>
      err instanceof ToolError && /did not finish within --timeout 50ms and was stopped/.test(err.message),
  );
  assert.deepEqual(closed, ["early"]);
  release();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(closed, ["early", "late"], "registered after expiry: closed at once");
});

Deno.test("withDeadline early: expires at the early bound unless the work committed to the longer one", async () => {
  const never = () => new Promise<number>(() => {});
  const t0 = performance.now();
  await assert.rejects(
    withDeadline(5_000, "50ms", never, { ms: 50, committed: () => false }),
    /did not finish within --timeout 50ms/,
  );
  assert.ok(performance.now() - t0 < 2_000, "not committed: the early bound ends it");

  let committed = false;
  const late = withDeadline(300, "50ms", async () => {
    committed = true;
    await new Promise((r) => setTimeout(r, 150)); // past the early bound, within the long one
    return 9;
  }, { ms: 50, committed: () => committed });
  assert.equal(await late, 9);
});
