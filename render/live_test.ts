import assert from "node:assert/strict";
import { LiveProgress, SPINNER } from "./live.ts";
import { displayWidth, stripAnsi } from "./wrap.ts";

const ESC = "\x1b";
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
const res = (id: string, status: "pass" | "fail" | "warn" = "pass") => ({
  id,
  cluster: "rome",
  peer: null,
  status,
});

Deno.test("LiveProgress: connecting first, then counts and running checks; erased by stop", async () => {
  const chunks: string[] = [];
  const live = new LiveProgress((s) => chunks.push(s), {
    color: false,
    columns: 80,
    status: "connecting to https://127.0.0.1:6443 (context rome)…",
    intervalMs: 5,
  });
  assert.equal(live.text(), "connecting to https://127.0.0.1:6443 (context rome)…");
  await tick(20);
  live.start("ENV-01", "rome", null);
  live.start("GW-02", "rome", "milan");
  assert.equal(live.text(), "0 checks done · running ENV-01 GW-02");
  live.result(res("ENV-01"));
  live.result({ ...res("GW-02", "fail"), peer: "milan" });
  assert.equal(live.text(), "2 checks done (1 failed)");
  for (const id of ["A-1", "A-2", "A-3", "A-4", "A-5", "A-6"]) live.start(id, "rome", null);
  assert.equal(live.text(), "2 checks done (1 failed) · running A-1 A-2 A-3 A-4 +2");
  live.stop();
  live.stop(); // idempotent
  const out = chunks.join("");
  assert.ok(!out.includes(ESC), "no escape codes without colour");
  assert.ok(SPINNER.slice(1).some((f) => out.includes(f)), "the spinner advanced");
  assert.ok(out.endsWith("\r"), "erased: back at the start of an empty line");
  assert.match(out, /\r +\r$/);
  const n = chunks.length;
  await tick(20);
  live.start("LATE", "rome", null);
  assert.equal(chunks.length, n, "nothing drawn after stop (timer stopped)");
});

Deno.test("LiveProgress: never wider than the terminal; erase-line with colour", () => {
  const chunks: string[] = [];
  const live = new LiveProgress((s) => chunks.push(s), { color: true, columns: 30, status: "x".repeat(100) });
  live.stop();
  const drawn = stripAnsi(chunks[0]).replace(/^\r/, "");
  assert.equal(displayWidth(drawn), 29);
  assert.ok(drawn.endsWith("…"));
  assert.ok(chunks[0].startsWith("\r\x1b[2K"));
  assert.equal(chunks[chunks.length - 1], "\r\x1b[2K");
});
