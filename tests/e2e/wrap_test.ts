/**
 * Wrapping through the CLI: `check -q` never cuts the diagnosis or its fix (piped or not), and
 * `explain` wraps at word boundaries to the terminal's width (a pipe keeps one line per paragraph).
 */
import assert from "node:assert/strict";
import { runCli } from "./harness.ts";
import { runScenarioCommand } from "./scenario_cli.ts";
import { displayWidth } from "../../render/wrap.ts";

/** A wrapped command put back on one line (`\` continuations joined). */
const unwrap = (s: string): string => s.replace(/ \\\n\s+/g, " ");

Deno.test("check -q piped: the diagnosis and its first fix command are whole (wrapped, never cut with …)", async () => {
  // deno-lint-ignore no-explicit-any
  let report: any = null;
  await runScenarioCommand("gw-lb-pending", "check", {
    args: ["-o", "json"],
    after: (_tmp, run) => void (report = JSON.parse(run.stdout)),
  });
  const quiet = await runScenarioCommand("gw-lb-pending", "check", { args: ["-q"] });
  assert.equal(quiet.code, 2, quiet.stderr);
  assert.ok(!quiet.stdout.includes("…"), quiet.stdout);
  const text = unwrap(quiet.stdout);
  const words = (s: string) => s.split(/\s+/).filter(Boolean).join(" ");
  assert.ok(words(text).includes(words(report.diagnosis.summary)), `summary whole:\n${quiet.stdout}`);
  const command = report.diagnosis.remediation.find((s: { command: string | null }) => s.command)?.command;
  assert.ok(command, "the diagnosis has a fix command");
  assert.ok(text.includes(command), `fix command whole:\n${quiet.stdout}\nwant: ${command}`);
});

Deno.test("explain on a terminal wraps at word boundaries to its width; through a pipe, lines stay whole", async () => {
  const piped = await runCli(["explain", "TUN-04"]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.ok(piped.stdout.split("\n").some((l) => displayWidth(l) > 60), "some paragraph is longer than 60");
  const tty = await runCli(["explain", "TUN-04"], { env: { FORCE_TTY: "1", COLUMNS: "60" } });
  assert.equal(tty.code, 0, tty.stderr);
  for (const l of tty.stdout.split("\n")) assert.ok(displayWidth(l) <= 60, `wider than 60: ${l}`);
  // The same words in the same order: wrapped at spaces, no word cut.
  const words = (s: string) => s.split(/\s+/).filter(Boolean);
  assert.deepEqual(words(tty.stdout), words(piped.stdout));
  // Continuation lines hang under their paragraph's text.
  assert.match(tty.stdout, /\n {2}blocked by: [^\n]+\n {14}\S/);
});
