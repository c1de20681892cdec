import assert from "node:assert/strict";
import { isNeedsRemote } from "./skips.ts";

Deno.test("isNeedsRemote: only a skip of kind needs-remote", () => {
  assert.equal(isNeedsRemote({ status: "skip", skipKind: "needs-remote" }), true);
  assert.equal(isNeedsRemote({ status: "skip", skipKind: "blocked" }), false);
  assert.equal(isNeedsRemote({ status: "skip", skipKind: null }), false);
  assert.equal(isNeedsRemote({ status: "pass", skipKind: null }), false);
});
