/**
 * One grammar across commands, through the CLI (README, "Flags"): list flags are comma-separated and
 * repeatable (`--peer` like `--only`); `--timeout` is the bound of the whole run (exit 3) everywhere,
 * `watch --wait` the wait of `--until` (exit 1); `-f, --output-file` on check and report; a report file
 * whose name the format cannot have is refused; a format a command lacks is refused in text, not
 * answered in it; every usage and tool error is one `flyingfish: ` line, exit 3, with "did you mean"
 * for commands, layers and demo scenarios; `version -o json`.
 */
import assert from "node:assert/strict";
import { CLI_PERMISSIONS, runCli } from "./harness.ts";
import { runScenarioCommand } from "./scenario_cli.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const peersOf = (report: Json): string[] =>
  [...new Set(report.results.map((r: Json) => r.peer).filter((p: string | null) => p !== null))]
    .sort() as string[];

Deno.test("--peer takes a comma-separated, repeatable list like --only; the space-separated form is refused", async () => {
  const both = ["milan-8d1f03", "paris-5c3e71"];
  const [comma, repeated, one, spaced] = await Promise.all([
    runScenarioCommand("two-peers-one-broken", "check", { args: ["-o", "json", "--peer", both.join(",")] }),
    runScenarioCommand("two-peers-one-broken", "check", {
      args: ["-o", "json", "--peer", both[0], "--peer", both[1]],
    }),
    runScenarioCommand("two-peers-one-broken", "check", { args: ["-o", "json", "--peer", both[0]] }),
    runScenarioCommand("two-peers-one-broken", "check", { args: ["--peer", both[0], both[1]] }),
  ]);
  assert.deepEqual(peersOf(JSON.parse(comma.stdout)), both, comma.stderr);
  assert.deepEqual(peersOf(JSON.parse(repeated.stdout)), both, repeated.stderr);
  assert.deepEqual(peersOf(JSON.parse(one.stdout)), [both[0]], one.stderr);
  assert.equal(spaced.code, 3, spaced.stderr);
  assert.match(spaced.stderr, /^flyingfish: too many arguments/);
});

Deno.test("check -f FILE writes the output there (like report); stdout stays empty", async () => {
  let written = "";
  const run = await runScenarioCommand("gw-lb-pending", "check", {
    args: (tmp) => ["-o", "json", "--output-file", `${tmp}/out.json`],
    permissions: [...CLI_PERMISSIONS, "--allow-write"],
    after: async (tmp) => void (written = await Deno.readTextFile(`${tmp}/out.json`)),
  });
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, "");
  assert.equal(JSON.parse(written).diagnosis.id, "GW-02");
  const denied = await runCli(["check", "-f", "/tmp/ff-never.json", "--snapshot", "/nonexistent"]);
  assert.equal(denied.code, 3);
  assert.match(denied.stderr, /--allow-write/);
});

Deno.test("report -f x.pdf is refused (exit 3, nothing written); .md still means markdown", async () => {
  let listing: string[] = ["?"];
  const run = await runScenarioCommand("gw-lb-pending", "report", {
    args: (tmp) => ["--output-file", `${tmp}/out/x.pdf`],
    permissions: [...CLI_PERMISSIONS, "--allow-write"],
    before: async (tmp) => await Deno.mkdir(`${tmp}/out`),
    after: (tmp) => void (listing = [...Deno.readDirSync(`${tmp}/out`)].map((e) => e.name)),
  });
  assert.equal(run.code, 3, run.stderr);
  assert.match(
    run.stderr,
    /^flyingfish: cannot tell the report format from .*x\.pdf: name it \.html or \.md/,
  );
  assert.match(run.stderr, /print-to-pdf/);
  assert.deepEqual(listing, [], "no file written");
  const explicit = await runCli(["report", "-o", "html", "-f", "x.pdf", "--snapshot", "/nonexistent"]);
  assert.equal(explicit.code, 3);
  assert.match(explicit.stderr, /x\.pdf/);
});

Deno.test("a format a command lacks is refused in text (no document in that format); errors are one flyingfish: line", async () => {
  const yaml = await runCli(["checks", "-o", "yaml"]);
  assert.equal(yaml.code, 3);
  assert.equal(yaml.stdout, "", "no YAML error document for a command without YAML");
  assert.match(yaml.stderr, /^flyingfish: option '-o, --output <format>' argument 'yaml' is invalid/);
  // A format the command has still gets its error document.
  const json = await runCli(["check", "-o", "json", "--bogus"]);
  assert.equal(json.code, 3);
  assert.equal(JSON.parse(json.stdout).error.code, 3);
  for (
    const args of [["check", "--bogus"], ["chek"], ["explain", "NOPE-1"], ["check", "--timeout", "soon"]]
  ) {
    const r = await runCli(args);
    assert.equal(r.code, 3, args.join(" "));
    assert.match(r.stderr, /^flyingfish: /, `${args.join(" ")}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /^error: /m, args.join(" "));
  }
});

Deno.test("help CMD: a typo is exit 3 with did-you-mean; layers and demo scenarios get suggestions too", async () => {
  const help = await runCli(["help", "chek"]);
  assert.equal(help.code, 3);
  assert.equal(help.stdout, "");
  assert.match(help.stderr, /^flyingfish: unknown command "chek" — did you mean check\?/);
  const ok = await runCli(["help", "check"]);
  assert.equal(ok.code, 0);
  assert.match(ok.stdout, /^Usage: flyingfish check/);
  const layer = await runCli(["check", "--only", "gatewy", "--snapshot", "/nonexistent"]);
  assert.equal(layer.code, 3);
  assert.match(layer.stderr, /no check or layer "gatewy" — did you mean the layer gateway\?/);
  const demo = await runCli(["demo", "gw-lb-pendin"]);
  assert.equal(demo.code, 3);
  assert.match(demo.stderr, /no demo scenario "gw-lb-pendin" — did you mean gw-lb-pending\?/);
});

Deno.test("version -o json: one JSON document (flyingfish, deno, commit)", async () => {
  const r = await runCli(["version", "-o", "json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.match(doc.flyingfish, /^\d+\.\d+\.\d+/);
  assert.equal(typeof doc.deno.deno, "string");
  assert.ok("commit" in doc);
});

Deno.test("watch: --wait ends an --until wait with exit 1; --timeout bounds the run with exit 3, as in check", async () => {
  const base = ["-o", "jsonl", "--until", "healthy", "--interval", "200ms"];
  const [waited, bounded] = await Promise.all([
    runScenarioCommand("gw-lb-pending", "watch", { args: [...base, "--wait", "1s"] }),
    runScenarioCommand("gw-lb-pending", "watch", { args: [...base, "--timeout", "1s"] }),
  ]);
  assert.equal(waited.code, 1, waited.stderr);
  assert.match(waited.stderr, /did not become healthy within --wait 1s/);
  assert.equal(bounded.code, 3, bounded.stderr);
  assert.match(bounded.stderr, /^flyingfish: the run did not finish within --timeout 1s/m);
});
