import assert from "node:assert/strict";
import { displayWidth, stripAnsi, truncate, wrapCommand, wrapWords } from "./wrap.ts";

const HANG = { first: "  · ", rest: "    " };

Deno.test("displayWidth: marks one column, CJK and emoji two, combining marks none", () => {
  assert.equal(displayWidth("✓ ✗ ⋅ ─ ↔ ⚑ ·"), 13);
  assert.equal(displayWidth("東京"), 4);
  assert.equal(displayWidth("e\u0301"), 1);
  assert.equal(stripAnsi("\x1b[31mred\x1b[39m \x1b]0;t\x07x"), "red x");
});

Deno.test("wrapWords: breaks at spaces under a hanging indent, cuts a word longer than a line", () => {
  assert.deepEqual(wrapWords("short", 40, HANG), ["  · short"]);
  assert.deepEqual(wrapWords("one two three four five six", 20, HANG), [
    "  · one two three",
    "    four five six",
  ]);
  const long = wrapWords(`key ${"x".repeat(50)} end`, 24, HANG);
  assert.ok(long.every((l) => displayWidth(l) <= 24), long.join("\n"));
  assert.equal(long.map((l) => l.slice(4)).join("").replace(/ /g, ""), `key${"x".repeat(50)}end`);
  assert.deepEqual(wrapWords("", 20, HANG), ["  ·"]);
});

Deno.test("wrapCommand: ` \\` continuations at spaces outside quotes; the lines paste as the command", () => {
  const cmd = `kubectl -n liqo-tenant-x patch gatewayclient x --type merge -p '{"spec": {"mtu": 1340}}'`;
  assert.deepEqual(wrapCommand(cmd, 200, HANG), [`  · ${cmd}`]);
  for (const width of [45, 60, 80]) {
    const lines = wrapCommand(cmd, width, { first: "  ⚑ ", rest: "      " });
    assert.ok(lines.every((l) => displayWidth(l) <= width), `${width}:\n${lines.join("\n")}`);
    assert.ok(lines.slice(0, -1).every((l) => l.endsWith(" \\")));
    assert.equal(lines.map((l) => l.slice(4).trim().replace(/ \\$/, "")).join(" "), cmd);
    assert.ok(lines.some((l) => l.includes(`'{"spec": {"mtu": 1340}}'`)), "quotes kept whole");
  }
  // A word wider than a whole line is cut: the width wins over pasting.
  const narrow = wrapCommand(cmd, 24, { first: "  ⚑ ", rest: "      " });
  assert.ok(narrow.every((l) => displayWidth(l) <= 24), narrow.join("\n"));
});

Deno.test("truncate: cuts with … at the column budget", () => {
  assert.equal(truncate("abcdef", 6), "abcdef");
  assert.equal(truncate("abcdef", 4), "abc…");
  assert.equal(truncate("東京都", 4), "東…");
});
