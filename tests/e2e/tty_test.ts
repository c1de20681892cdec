/**
 * Text output on a terminal and through a pipe, and the -v / -q text modes.
 *
 * - Through a pipe: no escape code at all, the whole report at the end.
 * - On a terminal (forced with FORCE_TTY=1 FORCE_COLOR=1, and for real in a pseudo-terminal made
 *   by util-linux `script`): a spinner naming the running checks while they run, and — once the
 *   escape codes are interpreted — the same check lines, count line and diagnosis as the pipe run.
 */
import assert from "node:assert/strict";
import { normalise, runScenarioCommand, scriptPath, stripAnsi, terminalView } from "./scenario_cli.ts";
import type { CliRun } from "./harness.ts";

const SCENARIO = "gw-lb-pending";
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running [A-Z]+-\d+/;
const CHECK_LINE = /^ {2}([✓!✗?-]) ([A-Z]+-\d+) +(.*?)(?: {2,}\[.*\])?$/;
const ALL_OK_LINE = /^ {2}✓ all ok +((?:[A-Z]+-\d+ ?)+)(?: {2,}\[.*\])?$/;

/**
 * `mark ID` of every check, sorted: one line per check on a terminal, while the final report
 * folds a layer's passing checks into one `✓ all ok  ID ID …` line.
 */
function checkLines(text: string): string[] {
  return text.split("\n").flatMap((l) => {
    const line = l.trimEnd();
    const ok = ALL_OK_LINE.exec(line);
    if (ok) return ok[1].trim().split(/ +/).map((id) => `✓ ${id}`);
    const m = CHECK_LINE.exec(line);
    return m ? [`${m[1]} ${m[2]}`] : [];
  }).sort();
}

/** From the rule to the end: count line (duration normalised) and diagnosis. */
function tail(text: string): string {
  const lines = text.replace(/\r\n/g, "\n").trimEnd().split("\n");
  const rule = lines.findLastIndex((l) => /^ ─+$/.test(l));
  return lines.slice(rule).join("\n").replace(/\([^()]*\)$/m, "(<duration>)");
}

/** Non-pass summaries, evidence (`·`) and fixes (`⚑`) lines, whitespace-trimmed, as a set. */
function detailLines(text: string): Set<string> {
  return new Set(
    text.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("·") || l.startsWith("⚑")),
  );
}

function assertSameContent(ttyRaw: string, plainRaw: string): void {
  const tty = normalise(ttyRaw, "txt"), plain = normalise(plainRaw, "txt");
  assert.deepEqual(checkLines(tty), checkLines(plain), "the same checks with the same statuses");
  assert.ok(checkLines(plain).length > 10, "the plain run printed check lines");
  assert.equal(tail(tty), tail(plain), "the same count line and diagnosis");
  for (const l of detailLines(plain)) assert.ok(detailLines(tty).has(l), `TTY run lacks ${l}`);
}

let plainRun: Promise<CliRun> | null = null;
function plain(): Promise<CliRun> {
  plainRun ??= runScenarioCommand(SCENARIO, "check", { args: ["-o", "text"] });
  return plainRun;
}

Deno.test({
  name: `text through a pipe has no escape codes (${SCENARIO})`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // NO_COLOR unset: the pipe alone must turn colours and the live checklist off.
    const r = await runScenarioCommand(SCENARIO, "check", { args: ["-o", "text"], env: { NO_COLOR: "" } });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(!r.stdout.includes("\x1b"), "no escape code");
    assert.doesNotMatch(r.stdout, /\r/);
    assert.doesNotMatch(r.stdout, SPINNER);
    assert.match(r.stdout, /diagnosis ✗ GW-02/);
    assertSameContent(r.stdout, (await plain()).stdout);
  },
});

Deno.test({
  name: `FORCE_TTY=1 FORCE_COLOR=1: spinner and colours while running, same final content (${SCENARIO})`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [tty, p] = await Promise.all([
      runScenarioCommand(SCENARIO, "check", {
        args: ["-o", "text"],
        env: { FORCE_TTY: "1", FORCE_COLOR: "1", NO_COLOR: "" },
      }),
      plain(),
    ]);
    assert.equal(tty.code, 2, tty.stderr);
    assert.ok(tty.stdout.includes("\x1b["), "colours on");
    assert.match(stripAnsi(tty.stdout), SPINNER, "spinner frames name the running checks");
    assert.ok(tty.stdout.includes("\r\x1b[2K"), "the spinner line is rewritten in place");
    assertSameContent(terminalView(tty.stdout), p.stdout);
  },
});

Deno.test({
  name: `in a real pseudo-terminal: live checklist, same final content (${SCENARIO})`,
  ignore: scriptPath() === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [tty, p] = await Promise.all([
      runScenarioCommand(SCENARIO, "check", { args: ["-o", "text"], env: { NO_COLOR: "" }, pty: true }),
      plain(),
    ]);
    assert.equal(tty.code, 2, tty.stdout + tty.stderr);
    assert.ok(tty.stdout.includes("\x1b["), "colours on a terminal");
    assert.match(stripAnsi(tty.stdout), SPINNER, "spinner frames");
    assertSameContent(terminalView(tty.stdout.replace(/\r\n/g, "\n")), p.stdout);
  },
});

Deno.test({
  name: `-v shows evidence for passing checks; -q prints only the counts and the diagnosis (${SCENARIO})`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [v, q, p] = await Promise.all([
      runScenarioCommand(SCENARIO, "check", { args: ["-o", "text", "-v"] }),
      runScenarioCommand(SCENARIO, "check", { args: ["-o", "text", "-q"] }),
      plain(),
    ]);
    // A passing check: no detail lines by default, evidence with -v.
    const detailAfter = (text: string, id: string) => {
      const lines = text.split("\n");
      const at = lines.findIndex((l) => CHECK_LINE.test(l) && l.includes(` ${id} `) && l.startsWith("  ✓"));
      assert.ok(at >= 0, `no passing ${id} line`);
      const out: string[] = [];
      for (const l of lines.slice(at + 1)) {
        if (!l.startsWith("      ")) break;
        out.push(l.trim());
      }
      return out;
    };
    assert.deepEqual(detailAfter(p.stdout, "ENV-01"), [], "no detail under a passing check without -v");
    const ev = detailAfter(v.stdout, "ENV-01");
    assert.ok(ev.some((l) => l.startsWith("·")), `-v: evidence under ENV-01:\n${ev.join("\n")}`);
    assert.match(v.stdout, /MANUAL TEST CHEAT SHEET/);
    assert.match(v.stdout, / PEERING/);

    const lines = q.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^ \d+ passed ⋅ \d+ warnings? ⋅ 1 failed ⋅ \d+ skipped ⋅ \d+ unknown \(/);
    assert.equal(lines[1], "");
    assert.match(lines[2], /^ diagnosis ✗ GW-02 /);
    assert.ok(lines.slice(3).every((l) => l.trimStart().startsWith("⚑")), q.stdout);
    assert.equal(checkLines(q.stdout).length, 0, "-q: no check lines");
    assert.equal(q.code, 2);
  },
});
