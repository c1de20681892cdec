import assert from "node:assert/strict";
import { ToolError } from "../../errors.ts";
import { isRunId, newRunId, parseRunId, RUN_ID_PATTERN } from "./run_id.ts";
import { probeNamespace } from "../model.ts";

Deno.test("run id: 8 characters [a-z0-9], distinct, a valid namespace suffix and label value", () => {
  const ids = new Set(Array.from({ length: 2_000 }, () => newRunId()));
  assert.equal(ids.size, 2_000);
  for (const id of ids) {
    assert.match(id, RUN_ID_PATTERN);
    assert.match(probeNamespace(id), /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    assert.ok(probeNamespace(id).length <= 63);
  }
  // Every character of the alphabet turns up (a uniform draw of 16 000 characters misses none).
  const seen = new Set([...ids].join(""));
  assert.equal(seen.size, 36);
});

Deno.test("run id: bytes that would bias the draw (252..255) are skipped", () => {
  let call = 0;
  const random = (b: Uint8Array): Uint8Array => {
    // First call: only biased bytes but two; second call: the rest.
    b.fill(call++ === 0 ? 255 : 1);
    if (call === 1) [b[3], b[9]] = [0, 35];
    return b;
  };
  assert.equal(newRunId(random), "a9bbbbbb");
});

Deno.test("run id: --run-id is checked, with a message saying what an id looks like", () => {
  assert.equal(parseRunId(" k3x9q2m1 "), "k3x9q2m1");
  assert.equal(isRunId("K3X9Q2M1"), false);
  for (const bad of ["", "abc", "abcdefghi", "abc-defg", "../../xx", "ABCDEFGH"]) {
    assert.throws(
      () => parseRunId(bad),
      (e: unknown) => e instanceof ToolError && /8 characters a-z and 0-9/.test(e.message),
    );
  }
});
