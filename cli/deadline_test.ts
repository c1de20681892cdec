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
