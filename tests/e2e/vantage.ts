/**
 * The healthy scenarios, and one run of each with the host-side network probes ON: what a user on a
 * laptop or bastion host that cannot reach the gateway gets. Run as a script inside an isolated
 * network namespace (`unshare -n`), it prints one JSON line per scenario: nothing but loopback exists
 * there, so no packet can leave the machine whatever `--allow-net` says.
 */
import { listScenarios, loadScenario } from "../../fakekube/mod.ts";
import { runScenario } from "./harness.ts";

/** Scenarios whose expected outcome is a healthy peering (exit 0). */
export async function healthyScenarios(): Promise<string[]> {
  const out: string[] = [];
  for (const name of await listScenarios()) {
    if ((await loadScenario(name)).expect?.exitCode === 0) out.push(name);
  }
  return out;
}

/** What a vantage run reports per scenario. */
export interface VantageRun {
  name: string;
  code: number;
  summary: { pass: number; warn: number; fail: number; skip: number; unknown: number } | null;
  /** "ID status: summary" of every non-pass, non-skip result. */
  noisy: string[];
  stderr: string;
}

/**
 * Runs `check` on one scenario with network probes on: through the real CLI under the given
 * permissions, or — without them — in this process, whose own `--allow-net=127.0.0.1` refuses every
 * other target exactly as the CLI's would.
 */
export async function vantageRun(name: string, permissions?: string[]): Promise<VantageRun> {
  // In process over plain HTTP (the API transport is not what a vantage run is about); the CLI run keeps HTTPS.
  const run = await runScenario(name, {
    networkProbes: true,
    permissions,
    inProcess: !permissions,
    tls: !!permissions,
  });
  const results: { id: string; status: string; summary: string }[] = run.report?.results ?? [];
  return {
    name,
    code: run.code,
    summary: run.report?.summary ?? null,
    noisy: results.filter((r) => r.status !== "pass" && r.status !== "skip").map((r) =>
      `${r.id} ${r.status}: ${r.summary}`
    ),
    stderr: run.stderr.slice(0, 2000),
  };
}

if (import.meta.main) {
  // Inside `unshare -n`: the CLI may dial anything; only loopback exists.
  const perms = ["--allow-env", "--allow-read", "--allow-net"];
  for (const name of Deno.args.length ? Deno.args : await healthyScenarios()) {
    console.log(JSON.stringify(await vantageRun(name, perms)));
  }
}
