import assert from "node:assert/strict";
import { formatAge, parseDurationFlag, parseLatency } from "./duration.ts";

Deno.test("parseLatency reads Connection latency strings", () => {
  assert.equal(parseLatency("8ms"), 8);
  assert.equal(parseLatency("850μs"), 0.85); // Greek mu, what Go prints
  assert.equal(parseLatency("850µs"), 0.85); // micro sign
  assert.equal(parseLatency("850us"), 0.85);
  assert.equal(parseLatency("1.2s"), 1200);
  assert.equal(parseLatency("1.234567ms"), 1.234567);
  assert.equal(parseLatency("1m2s"), 62_000);
  assert.equal(parseLatency(" 12ms "), 12);
  assert.equal(parseLatency("0"), 0);
  assert.equal(parseLatency("500ns"), 0.0005);
});

Deno.test("parseLatency returns null for N/A and garbage", () => {
  for (
    const s of ["N/A", "n/a", "NA", "", "  ", "abc", "8", "-8ms", "8 ms", "8msx", "1.2.3s", "ms", "8kms"]
  ) {
    assert.equal(parseLatency(s), null, s);
  }
  assert.equal(parseLatency(null), null);
  assert.equal(parseLatency(undefined), null);
});

Deno.test("parseDurationFlag", () => {
  assert.equal(parseDurationFlag("3s"), 3000);
  assert.equal(parseDurationFlag("500ms"), 500);
  assert.equal(parseDurationFlag("1m"), 60_000);
  assert.equal(parseDurationFlag("1m30s"), 90_000);
  assert.equal(parseDurationFlag("2h"), 7_200_000);
  assert.equal(parseDurationFlag("10"), 10_000);
  assert.equal(parseDurationFlag("2.5"), 2500);
  assert.equal(parseDurationFlag("0"), 0);
  for (const s of ["", "abc", "-1s", "3 s", "3x", "s", "1e3"]) {
    assert.throws(() => parseDurationFlag(s), RangeError, s);
  }
});

Deno.test("formatAge", () => {
  const s = 1000;
  assert.equal(formatAge(42 * s), "42s");
  assert.equal(formatAge(0), "0s");
  assert.equal(formatAge(999), "0s");
  assert.equal(formatAge(-5000), "0s");
  assert.equal(formatAge((5 * 60 + 12) * s), "5m12s");
  assert.equal(formatAge(5 * 60 * s), "5m0s");
  assert.equal(formatAge((5 * 3600 + 2 * 60 + 9) * s), "5h2m");
  assert.equal(formatAge((3 * 86400 + 4 * 3600 + 59) * s), "3d4h");
  assert.equal(formatAge(2 * 86400 * s), "2d0h");
  assert.equal(formatAge(null), "unknown age");
  assert.equal(formatAge(NaN), "?");
});
