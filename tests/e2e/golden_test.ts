/**
 * Golden files: the real CLI's output in every format for a few scenarios (healthy, LoadBalancer
 * pending, two peers, a dual-mode mismatch), compared with tests/golden/<scenario>.<variant>.
 *
 * Each golden scenario runs the CLI once (`check -o json`); the other formats are rendered
 * in-process from that report with the renderers the commands call (`render` as in cli/check.ts,
 * `renderReport` as in cli/report_cmd.ts, with the options the CLI derives from the flags: no
 * colour through a pipe with NO_COLOR=1, -v, -q). One test runs the CLI once per output flag on
 * {@link CLI_SCENARIO}, so the flag wiring of every format is compared with the goldens too.
 *
 * What varies from run to run is normalised first (see {@link normalise}): timestamps (the fake
 * API server shifts every timestamp to "now"), ages and other second-resolution durations, run and
 * check durations, WireGuard byte counters, the fake servers' loopback ports and the tool version.
 * Column padding of the text peering tables depends on age widths, so it is collapsed there.
 *
 * `UPDATE_GOLDEN=1 deno task test --filter golden` rewrites the files; review the diff.
 */
import assert from "node:assert/strict";
import { listScenarios } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS } from "./harness.ts";
import { normalise, runScenarioCommand } from "./scenario_cli.ts";
import { VERSION } from "../../version.ts";
import { render } from "../../render/render.ts";
import { renderReport } from "../../cli/report_cmd.ts";
import type { Report } from "../../report/model.ts";

const GOLDEN_DIR = new URL("../golden/", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

/**
 * One output of a golden scenario: the command, its arguments and the golden file's suffix, and
 * the same output rendered in-process from the `-o json` report (what the command does after the
 * diagnosis, with the options it derives from `args` through a pipe with NO_COLOR=1).
 */
interface Variant {
  suffix: string;
  command: "check" | "report";
  args: string[];
  inProcess: (report: Report) => string | Promise<string>;
}

const TEXT = { color: false, verbose: false, quiet: false };

const VARIANTS: readonly Variant[] = [
  { suffix: "txt", command: "check", args: ["-o", "text"], inProcess: (r) => render(r, "text", TEXT) },
  {
    suffix: "verbose.txt",
    command: "check",
    args: ["-o", "text", "-v"],
    inProcess: (r) => render(r, "text", { ...TEXT, verbose: true }),
  },
  {
    suffix: "quiet.txt",
    command: "check",
    args: ["-o", "text", "-q"],
    inProcess: (r) => render(r, "text", { ...TEXT, quiet: true }),
  },
  { suffix: "json", command: "check", args: ["-o", "json"], inProcess: (r) => render(r, "json", TEXT) },
  { suffix: "yaml", command: "check", args: ["-o", "yaml"], inProcess: (r) => render(r, "yaml", TEXT) },
  { suffix: "md", command: "check", args: ["-o", "markdown"], inProcess: (r) => render(r, "markdown", TEXT) },
  { suffix: "xml", command: "check", args: ["-o", "junit"], inProcess: (r) => render(r, "junit", TEXT) },
  {
    suffix: "html",
    command: "report",
    args: ["--format", "html"],
    inProcess: (r) => renderReport(r, "html"),
  },
];

/**
 * The report as the variant's own command line would record it: the `-o json` run's invocation with
 * that command and those output flags (the report says how it was produced).
 */
function asInvoked(report: Report, v: Variant): Report {
  const inv = report.invocation;
  if (!inv) return report;
  const commandLine = inv.commandLine.replace(/^flyingfish check /, `flyingfish ${v.command} `)
    .replace(/ -o json$/, ` ${v.args.join(" ")}`);
  return { ...report, invocation: { ...inv, commandLine } };
}

/** The scenario whose goldens are also produced by one CLI run per output flag. */
const CLI_SCENARIO = "gw-lb-pending";

function firstDifference(got: string, want: string): string {
  const g = got.split("\n"), w = want.split("\n");
  const i = g.findIndex((l, k) => l !== w[k]);
  const at = i < 0 ? Math.min(g.length, w.length) : i;
  const ctx = (ls: string[]) => ls.slice(Math.max(0, at - 2), at + 3).map((l, k) => `  ${at - 1 + k}: ${l}`);
  return [`first difference at line ${at + 1}:`, "got:", ...ctx(g), "want:", ...ctx(w)].join("\n");
}

async function assertGolden(file: string, got: string): Promise<void> {
  const url = new URL(file, GOLDEN_DIR);
  if (UPDATE) {
    await Deno.mkdir(GOLDEN_DIR, { recursive: true });
    await Deno.writeTextFile(url, got);
    return;
  }
  let want: string;
  try {
    want = await Deno.readTextFile(url);
  } catch {
    throw new Error(
      `no golden file tests/golden/${file}: run UPDATE_GOLDEN=1 deno task test --filter golden`,
    );
  }
  assert.ok(
    got === want,
    `tests/golden/${file} differs (UPDATE_GOLDEN=1 rewrites it)\n${firstDifference(got, want)}`,
  );
}

const all = await listScenarios();
const twoPeers = all.find((n) => /two-peers?|multi-peer|2-peers/.test(n)) ?? null;
const GOLDEN: readonly { scenario: string | null; what: string; wanted: string }[] = [
  { scenario: "healthy-consumer", what: "healthy", wanted: "healthy-consumer" },
  { scenario: "gw-lb-pending", what: "LoadBalancer pending", wanted: "gw-lb-pending" },
  { scenario: twoPeers, what: "two peers", wanted: "a two-peer scenario" },
  { scenario: "dual-tun-mtu-mismatch", what: "dual-mode mismatch", wanted: "dual-tun-mtu-mismatch" },
];

for (const g of GOLDEN) {
  const present = g.scenario !== null && all.includes(g.scenario);
  Deno.test({
    name: present
      ? `golden ${g.scenario} (${g.what}): text, -v, -q, JSON, YAML, Markdown, JUnit, HTML`
      : `golden (${g.what}): ${g.wanted} does not exist yet — ignored`,
    ignore: !present,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const name = g.scenario!;
      const run = await runScenarioCommand(name, "check", {
        args: ["-o", "json"],
        permissions: CLI_PERMISSIONS,
      });
      assert.ok(run.code >= 0 && run.code <= 2, `${name}: exit ${run.code}\n${run.stderr}`);
      assert.ok(!run.stdout.includes("\x1b"), `${name} json: escape codes through a pipe`);
      // Rendered from the normalised report: where the text wraps must not depend on an age that
      // took one more digit in this run (the JSON golden is the CLI's own output, normalised).
      // (The generation time stays real: renderers escape a "<time>" placeholder, normalise() does not.)
      const report: Report = {
        ...JSON.parse(normalise(run.stdout, "json")),
        generatedAt: JSON.parse(run.stdout).generatedAt,
      };
      assert.equal(report.exitCode, run.code, `${name}: exit code and report.exitCode`);
      for (const v of VARIANTS) {
        const out = v.suffix === "json" ? run.stdout : await v.inProcess(asInvoked(report, v));
        assert.ok(!out.includes("\x1b"), `${name} ${v.suffix}: escape codes without colour`);
        await assertGolden(`${name}.${v.suffix}`, normalise(out, v.suffix));
      }
    },
  });
}

Deno.test({
  name: `golden ${CLI_SCENARIO} through the CLI, one run per output flag: ` +
    `-o text, -v, -q, -o json, -o yaml, -o markdown, -o junit, report --format html`,
  ignore: !all.includes(CLI_SCENARIO),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const name = CLI_SCENARIO;
    const runs = await Promise.all(VARIANTS.map((v) =>
      runScenarioCommand(name, v.command, {
        args: v.args,
        permissions: CLI_PERMISSIONS,
      })
    ));
    const codes = new Set(runs.map((r) => r.code));
    assert.equal(codes.size, 1, `exit codes differ across formats: ${[...codes]}`);
    for (const [i, v] of VARIANTS.entries()) {
      const r = runs[i];
      assert.ok(r.code >= 0 && r.code <= 2, `${name} ${v.suffix}: exit ${r.code}\n${r.stderr}`);
      assert.ok(!r.stdout.includes("\x1b"), `${name} ${v.suffix}: escape codes through a pipe`);
      await assertGolden(`${name}.${v.suffix}`, normalise(r.stdout, v.suffix));
    }
  },
});

Deno.test("normalise: placeholders for times, ages, durations, counters, ports and version", () => {
  const text = ` flyingfish ${VERSION} · 2026-11-30T03:32:44.980Z\n` +
    ` local cluster rome (context rome, https://127.0.0.1:35149, Liqo v1.2.0 in liqo)\n` +
    `      · peering age 23m56s, latest handshake 25s ago, for 1h2m, 3d4h, latency 9ms\n` +
    `      · rx +126 B, tx +131 B in 1.1s (rx 119 B/s, tx 124 B/s)\n` +
    ` 57 passed ⋅ 0 warnings ⋅ 2 failed ⋅ 8 skipped ⋅ 0 unknown (850ms)`;
  assert.equal(
    normalise(text, "txt"),
    ` flyingfish <version> · <time>\n` +
      ` local cluster rome (context rome, https://127.0.0.1:<port>, Liqo v1.2.0 in liqo)\n` +
      `      · peering age <age>, latest handshake <age> ago, for <age>, <age>, latency 9ms\n` +
      `      · rx <n> B, tx <n> B in <age> (rx <n> B/s, tx <n> B/s)\n` +
      ` 57 passed ⋅ 0 warnings ⋅ 2 failed ⋅ 8 skipped ⋅ 0 unknown (<duration>)`,
  );
  assert.equal(
    normalise(`peering age 24m, for 3h, since 2d, 24m1s ago; 9ms, 100ms`, "txt"),
    `peering age <age>, for <age>, since <age>, <age> ago; 9ms, 100ms`,
  );
  assert.equal(normalise(`"durationMs": 1234,`, "json"), `"durationMs": 0,`);
  assert.equal(normalise(`  durationMs: 12\n`, "yaml"), `  durationMs: 0\n`);
  assert.equal(normalise(`<testcase time="1.234"/>`, "xml"), `<testcase time="0.000"/>`);
  assert.equal(normalise(` · 2m03s · exit code 2`, "md"), ` · <duration> · exit code 2`);
  assert.equal(
    normalise(" PEERING\n  ForeignClusters\n   a     b   23m5s\n\n ──", "txt"),
    " PEERING\n  ForeignClusters\n   a  b  <age>\n\n ──",
  );
});
