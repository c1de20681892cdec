/**
 * Runs `flyingfish preflight` (the real CLI, over HTTPS) against a scenario of testdata/preflight/:
 * its clusters served by the fake API server, the would-be consumer as `--kubeconfig`, the
 * provider as `--remote-kubeconfig` (the same file when the scenario names one cluster twice).
 */
import { loadScenario, type Scenario, type ServedScenario, serveScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli } from "./harness.ts";

/** testdata/preflight/: the preflight scenarios (never run by `check`'s matrices). */
export const PREFLIGHT_ROOT = new URL("../../testdata/preflight/", import.meta.url);

/** One preflight run. */
export interface PreflightRun {
  scenario: Scenario;
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  report: any | null;
  /** The servers, closed; their request logs stay readable. */
  served: ServedScenario;
}

/** Serves scenario `name` and runs `flyingfish preflight … [args]` against it (JSON unless args say). */
export async function runPreflight(
  name: string,
  opts: {
    args?: string[];
    output?: string;
    permissions?: string[];
    env?: Record<string, string>;
    root?: URL;
  } = {},
): Promise<PreflightRun> {
  const s = await loadScenario(name, opts.root ?? PREFLIGHT_ROOT);
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const tmp = await Deno.makeTempDir({ prefix: `ff-preflight-${name}-` });
  try {
    const local = `${s.run.local}.kubeconfig`;
    await Deno.writeTextFile(`${tmp}/${local}`, served.kubeconfigYaml(s.run.local));
    const remoteName = s.run.remote ?? s.run.local;
    const remote = `${remoteName}.kubeconfig`;
    if (remote !== local) await Deno.writeTextFile(`${tmp}/${remote}`, served.kubeconfigYaml(remoteName));
    const output = opts.output ?? "json";
    const args = [
      "preflight",
      "--kubeconfig",
      local,
      "--remote-kubeconfig",
      remote,
      "-o",
      output,
      // `run.networkProbes: true`: this host dials too (the --probe API check compares with it).
      ...(s.run.networkProbes ? [] : ["--no-network-probes"]),
      ...s.run.args,
      ...(opts.args ?? []),
    ];
    const r = await runCli(args, {
      permissions: opts.permissions ?? CLI_PERMISSIONS,
      cwd: tmp,
      env: opts.env,
    });
    let report = null;
    if (output === "json") {
      try {
        report = JSON.parse(r.stdout);
      } catch {
        report = null;
      }
    }
    return { scenario: s, ...r, report, served };
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
}
