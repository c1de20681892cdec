/**
 * Text output on a terminal and through a pipe, and the -v / -q / machine-format side channels.
 *
 * - On a terminal (a real pseudo-terminal, 80 columns, made by util-linux `script`): while the
 *   checks run, one progress line redrawn in place (`connecting to …`, then how many checks are
 *   done and which are running); at the end the screen holds the same ordered, grouped report as a
 *   pipe gets — catalog order, one header per layer, nothing wider than the terminal — compared
 *   with the golden screen tests/golden/<scenario>.screen.txt. With colours and with NO_COLOR=1.
 * - Through a pipe: no escape code, no progress line; the `connecting to …` line on stderr.
 */
import assert from "node:assert/strict";
import { normalise, runScenarioCommand, stripAnsi } from "./scenario_cli.ts";
import { checkInPty, screenOf } from "./screen.ts";
import type { CliRun } from "./harness.ts";
import { LAYER_TITLES, LAYERS } from "../../report/model.ts";

const SCENARIO = "gw-lb-pending";
const COLS = 80;
const GOLDEN_SCREEN = new URL(`../golden/${SCENARIO}.screen.txt`, import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+ checks? done(?: \([^)]*\))?(?: · running [A-Z]+-\d+)?/;
const CONNECTING = /connecting to https:\/\/127\.0\.0\.1:\d+ \(context [\w-]+\)…/;
const CHECK_LINE = /^ {2}([✓!✗?-]) ([A-Z]+-\d+) +(.*?)(?: {2,}\[.*\])?$/;
// deno-lint-ignore no-control-regex
const SGR = /\x1b\[[0-9;]*m/;

/** The layer headers of a text report, in the order printed. */
function layerHeaders(text: string): string[] {
  const titles = new Set<string>(Object.values(LAYER_TITLES));
  return text.split("\n").map((l) => l.trim()).filter((l) => titles.has(l));
}

/** Asserts the final screen: golden, nothing wrapped by the terminal, no progress line left. */
async function assertScreen(run: CliRun, what: string): Promise<string> {
  assert.equal(run.code, 2, `${what}: exit code\n${run.stdout}`);
  const screen = screenOf(run.stdout, COLS);
  assert.ok(!screen.wrapped, `${what}: a line ran past column ${COLS} and wrapped`);
  const shown = normalise(screen.text(), "txt");
  assert.doesNotMatch(shown, SPINNER, `${what}: the progress line was not erased`);
  assert.doesNotMatch(shown, /connecting to/, `${what}: the connecting line was not erased`);
  // Ordered and grouped: each layer once, in catalog order.
  const headers = layerHeaders(shown);
  assert.deepEqual(headers, LAYERS.map((l) => LAYER_TITLES[l]).filter((t) => headers.includes(t)), what);
  assert.ok(headers.length >= 6, `${what}: layer headers ${headers}`);
  if (UPDATE) await Deno.writeTextFile(GOLDEN_SCREEN, shown);
  const want = await Deno.readTextFile(GOLDEN_SCREEN);
  assert.equal(shown, want, `${what}: the screen differs from tests/golden/${SCENARIO}.screen.txt`);
  return shown;
}

Deno.test({
  name: `terminal (pty, ${COLS} columns): progress line while running, then the ordered report (${SCENARIO})`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [color, noColor] = await Promise.all([
      checkInPty(SCENARIO, [], { cols: COLS }),
      checkInPty(SCENARIO, [], { cols: COLS, env: { NO_COLOR: "1" } }),
    ]);
    for (const [run, what] of [[color, "colour"], [noColor, "NO_COLOR=1"]] as const) {
      const raw = stripAnsi(run.stdout);
      assert.match(raw, CONNECTING, `${what}: the first progress text names the API server and context`);
      assert.match(raw, SPINNER, `${what}: progress frames count the checks done`);
      assert.ok(raw.indexOf("connecting to") < raw.search(SPINNER), `${what}: connecting comes first`);
      // Results are not streamed: the whole stream holds each layer header exactly once.
      for (const layer of LAYERS) {
        const n = raw.split(/\r?\n/).filter((l) =>
          l.replace(/^.*\r/, "").trim() === LAYER_TITLES[layer]
        ).length;
        assert.ok(n <= 1, `${what}: ${LAYER_TITLES[layer]} printed ${n} times`);
      }
      await assertScreen(run, what);
    }
    assert.match(color.stdout, SGR, "colours on a terminal");
    assert.doesNotMatch(noColor.stdout, SGR, "NO_COLOR=1: no colour codes at all");
  },
});

Deno.test({
  name: "terminal: a hung API server shows `connecting to …`; the --timeout error then replaces that line",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const run = await checkInPty(SCENARIO, ["--timeout", "1s"], { cols: COLS, latencyMs: 2_500 });
    assert.equal(run.code, 3, run.stdout);
    assert.match(stripAnsi(run.stdout), CONNECTING, "the progress line said what it waits for");
    const screen = screenOf(run.stdout, COLS).text();
    assert.match(screen, /^flyingfish: the run did not finish within --timeout 1s/, screen);
    assert.doesNotMatch(screen, /connecting to|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/, "the progress line was erased first");
  },
});

let plainRun: Promise<CliRun> | null = null;
function plain(): Promise<CliRun> {
  plainRun ??= runScenarioCommand(SCENARIO, "check", { args: ["-o", "text"], env: { NO_COLOR: "" } });
  return plainRun;
}

Deno.test({
  name: `text through a pipe: no escape code, no progress line, "connecting to …" on stderr (${SCENARIO})`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // NO_COLOR unset: the pipe alone must turn colours and the progress line off.
    const r = await plain();
    assert.equal(r.code, 2, r.stderr);
    assert.ok(!r.stdout.includes("\x1b"), "no escape code");
    assert.doesNotMatch(r.stdout, /\r/);
    assert.doesNotMatch(r.stdout + r.stderr, SPINNER);
    assert.match(r.stdout, /^ cluster [\w-]+ · context [\w-]+ · https:\/\/127\.0\.0\.1:\d+ · Liqo v[\d.]+\n/);
    assert.match(r.stdout, /diagnosis ✗ GW-02/);
    assert.match(r.stderr.trim(), new RegExp(`^${CONNECTING.source}$`), "one stderr line");
    for (const l of r.stdout.split("\n")) assert.ok([...l].length <= 100, `wider than 100 columns: ${l}`);
  },
});

Deno.test({
  name: `-v shows evidence for passing checks; -q prints only the counts and the diagnosis; ` +
    `-o json: context on stderr (${SCENARIO})`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [v, q, json, p] = await Promise.all([
      runScenarioCommand(SCENARIO, "check", { args: ["-o", "text", "-v"] }),
      runScenarioCommand(SCENARIO, "check", { args: ["-o", "text", "-q"] }),
      runScenarioCommand(SCENARIO, "check", { args: ["-o", "json"] }),
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
    assert.match(v.stdout, /^ flyingfish \S+ · \S+\n cluster [\w-]+ · context /);

    const lines = q.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^ \d+ passed ⋅ \d+ warnings? ⋅ 1 failed ⋅ \d+ skipped ⋅ \d+ unknown \(/);
    assert.equal(lines[1], "");
    assert.match(lines[2], /^ diagnosis ✗ GW-02 /);
    // The diagnosis wrapped, then its fix (⚑), continuation lines indented under it: nothing else.
    assert.ok(lines.slice(3).every((l) => /^ {11}/.test(l)), q.stdout);
    assert.ok(lines.some((l) => l.trimStart().startsWith("⚑")), q.stdout);
    assert.equal(lines.filter((l) => CHECK_LINE.test(l)).length, 0, "-q: no check lines");
    assert.equal(q.code, 2);
    assert.equal(q.stderr, "", "-q: nothing on stderr");

    // Machine formats: stdout is the document alone; what was checked goes to stderr.
    assert.equal(JSON.parse(json.stdout).diagnosis.id, "GW-02");
    const err = json.stderr.trimEnd().split("\n");
    assert.match(err[0], CONNECTING);
    assert.match(err[1], /^ cluster [\w-]+ · context [\w-]+ · https:\/\/127\.0\.0\.1:\d+ · Liqo v[\d.]+$/);
    assert.equal(err.length, 2, json.stderr);
  },
});
