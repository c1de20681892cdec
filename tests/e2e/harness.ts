/**
 * End-to-end harness: serves a scenario with the fake API server, runs the real CLI
 * (`deno run cli/main.ts check …`) against it in a subprocess restricted to 127.0.0.1, and checks
 * the JSON report against the scenario's `expect` section.
 */
import assert from "node:assert/strict";
import { remediationText } from "../../report/remediation.ts";
import { loadScenario, type Scenario, type ServedScenario, serveScenario } from "../../fakekube/mod.ts";

/** Permissions e2e runs of the CLI get: Deno itself refuses any network target but 127.0.0.1. */
export const CLI_PERMISSIONS: string[] = [
  "--allow-env",
  "--allow-read",
  "--allow-net=127.0.0.1",
];

/**
 * `--sample-interval` of e2e runs. The fake servers run the WireGuard transfer counters on a
 * virtual clock ({@link FAKE_CLOCK}), so two samples 100 ms apart show the same movement (or the
 * same stall) as two samples seconds apart would.
 */
export const SAMPLE_INTERVAL = "100ms";

/** serveScenario options of e2e runs: counters advance 1 virtual second per exec call. */
export const FAKE_CLOCK = { execClockStepSeconds: 1 } as const;

const REPO_ROOT = new URL("../../", import.meta.url);
const CLI_MAIN = new URL("cli/main.ts", REPO_ROOT);

/** Output of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deno run --frozen <perms> cli/main.ts ...args` with NO_COLOR=1. */
export async function runCli(
  args: string[],
  opts: { env?: Record<string, string>; permissions?: string[]; cwd?: string } = {},
): Promise<CliRun> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--frozen",
      // The repository's config wherever the run's working directory is (see runScenarioCommand).
      "--config",
      decodeURIComponent(new URL("deno.json", REPO_ROOT).pathname),
      ...(opts.permissions ?? CLI_PERMISSIONS),
      decodeURIComponent(CLI_MAIN.pathname),
      ...args,
    ],
    cwd: opts.cwd ?? decodeURIComponent(REPO_ROOT.pathname),
    env: { NO_COLOR: "1", ...opts.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const out = await cmd.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Output of one scenario run. */
export interface ScenarioRun extends CliRun {
  /** Parsed JSON report (null with `output: "text"` or unparsable stdout). */
  // deno-lint-ignore no-explicit-any
  report: any | null;
  /** The scenario's servers, already closed; their `requests` logs stay readable. */
  served: ServedScenario;
}

function hasFlag(args: readonly string[], flag: string): boolean {
  return args.some((a) => a === flag || a.startsWith(`${flag}=`));
}

/** Serves scenario `name`, runs `check` against it and returns the report and request logs. */
export async function runScenario(
  name: string,
  opts: {
    tls?: boolean;
    extraArgs?: string[];
    output?: "json" | "text";
    /** Send the host-side probes (GW-05, API-01) even when the scenario does not ask for them. */
    networkProbes?: boolean;
    /** Deno permissions of the CLI run (default {@link CLI_PERMISSIONS}). */
    permissions?: string[];
    /**
     * Run the check command's own pipeline in this process (open the sources from the kubeconfigs,
     * diagnose, render JSON) instead of a CLI subprocess: the same product code over the same HTTPS,
     * without paying a process start per scenario. Flag parsing, permissions and exit codes of the
     * real CLI are covered by cli_test, golden_test, network_probes_test and vantage_test.
     */
    inProcess?: boolean;
  } = {},
): Promise<ScenarioRun> {
  const s = await loadScenario(name);
  const served = await serveScenario(s, { tls: opts.tls ?? true, ...FAKE_CLOCK });
  const tmp = await Deno.makeTempDir({ prefix: `ff-e2e-${name}-` });
  try {
    const local = `${tmp}/${s.run.local}.kubeconfig`;
    await Deno.writeTextFile(local, served.kubeconfigYaml(s.run.local));
    const args = ["check", "--kubeconfig", local];
    if (s.run.remote) {
      const remote = `${tmp}/${s.run.remote}.kubeconfig`;
      await Deno.writeTextFile(remote, served.kubeconfigYaml(s.run.remote));
      args.push("--remote-kubeconfig", remote);
    }
    const output = opts.output ?? "json";
    args.push("-o", output);
    const extra = [...s.run.args, ...(opts.extraArgs ?? [])];
    const probes = opts.networkProbes ?? s.run.networkProbes;
    if (!probes && !hasFlag(extra, "--no-network-probes")) args.push("--no-network-probes");
    if (!hasFlag(extra, "--sample-interval")) args.push("--sample-interval", SAMPLE_INTERVAL);
    args.push(...extra);
    const r = opts.inProcess
      ? await checkInProcess(args)
      : await runCli(args, { permissions: opts.permissions });
    let report = null;
    if (output === "json") {
      try {
        report = JSON.parse(r.stdout);
      } catch {
        report = null;
      }
    }
    return { ...r, report, served };
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

/** `check` over the given CLI arguments, in this process: what the subprocess would print and exit with. */
async function checkInProcess(args: string[]): Promise<CliRun> {
  const value = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const [{ diagnoseSources, openSources, runOptionsFrom }, { render }] = await Promise.all([
    import("../../cli/check.ts"),
    import("../../render/render.ts"),
  ]);
  const options = runOptionsFrom({
    networkProbes: !args.includes("--no-network-probes"),
    sampleInterval: value("--sample-interval") ?? SAMPLE_INTERVAL,
    timeout: value("--timeout") ?? "30s",
  });
  const { local, remote } = await openSources({
    kubeconfig: value("--kubeconfig"),
    remoteKubeconfig: value("--remote-kubeconfig"),
  }, options.checkTimeoutMs);
  try {
    const report = await diagnoseSources(local, remote, options, undefined);
    return {
      code: report.exitCode,
      stdout: render(report, "json", { color: false, verbose: false, quiet: false }),
      stderr: "",
    };
  } finally {
    await local.close();
    await remote?.source?.close();
  }
}

// deno-lint-ignore no-explicit-any
type AnyResult = any;

function describe(results: AnyResult[]): string {
  return results.map((r) => `  ${r.id} [${r.status}] peer=${r.peer} cluster=${r.cluster}: ${r.summary}`).join(
    "\n",
  );
}

/** Asserts a run matches the scenario's `expect`: exit code, diagnosis, statuses, evidence, no other failures. */
// deno-lint-ignore no-explicit-any
export function assertExpected(s: Scenario, r: { code: number; report: any }): void {
  const e = s.expect;
  assert.ok(r.report, `${s.name}: no JSON report (exit code ${r.code})`);
  const results: AnyResult[] = Array.isArray(r.report.results) ? r.report.results : [];
  const ctx = `${s.name}\nresults:\n${describe(results)}\ndiagnosis: ${
    JSON.stringify(r.report.diagnosis ?? null)
  }`;

  assert.equal(r.report.diagnosis?.id ?? null, e.diagnosis, `${ctx}\n=> diagnosis`);

  for (const [id, want] of Object.entries(e.results)) {
    const withId = results.filter((x) => x.id === id);
    const specs = typeof want === "string" ? [{ status: want }] : want;
    for (const spec of specs) {
      const sel = withId.filter((x) =>
        ("peer" in spec && spec.peer !== undefined ? x.peer === spec.peer : true) &&
        ("cluster" in spec && spec.cluster !== undefined ? x.cluster === spec.cluster : true)
      );
      assert.ok(sel.length > 0, `${ctx}\n=> no result ${id} matching ${JSON.stringify(spec)}`);
      for (const x of sel) {
        assert.equal(x.status, spec.status, `${ctx}\n=> ${id} (peer=${x.peer} cluster=${x.cluster}) status`);
      }
    }
  }

  for (const [id, needles] of Object.entries(e.evidence)) {
    const withId = results.filter((x) => x.id === id);
    assert.ok(withId.length > 0, `${ctx}\n=> no result ${id} to search for evidence`);
    const text = withId.map((x) =>
      [
        x.summary ?? "",
        ...(Array.isArray(x.evidence) ? x.evidence : []),
        remediationText(x.remediation ?? []) ?? "",
      ].join("\n")
    ).join("\n");
    for (const n of needles) {
      assert.ok(text.includes(n), `${ctx}\n=> ${id} evidence lacks ${JSON.stringify(n)}:\n${text}`);
    }
  }

  if (e.noOtherFailures) {
    const allowed = new Set([...Object.keys(e.results), ...(e.diagnosis ? [e.diagnosis] : [])]);
    const others = results.filter((x) => x.status === "fail" && !allowed.has(x.id));
    assert.equal(others.length, 0, `${ctx}\n=> unexpected failures:\n${describe(others)}`);
  }

  assert.equal(r.code, e.exitCode, `${ctx}\n=> exit code`);
}
