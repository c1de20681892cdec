/**
 * `flyingfish demo`: serves a scenario from testdata/ with the fake API server in-process on
 * 127.0.0.1 (real HTTPS, token auth, exec websocket) and runs the real check against it.
 */
import { listScenarios, loadScenario, serveScenario } from "../demo/fakekube/scenario.ts";
import { ToolError } from "../errors.ts";
import { diagnoseAndPrint } from "./check.ts";
import type { RunOptions } from "../checks/types.ts";

/** Options of the demo command. */
export interface DemoOptions {
  list?: boolean;
  output: string;
  color: boolean;
  verbose?: boolean;
}

/** Runs the demo; returns the exit code of the check it ran. */
export async function runDemo(name: string, opts: DemoOptions): Promise<number> {
  if (opts.list) {
    for (const s of await listScenarios()) {
      const sc = await loadScenario(s);
      console.log(`${s.padEnd(40)} ${sc.description ?? ""}`);
    }
    return 0;
  }
  const known = await listScenarios().catch(() => [] as string[]);
  if (known.length && !known.includes(name)) {
    throw new ToolError(`no demo scenario "${name}" (try \`flyingfish demo --list\`)`);
  }
  const scenario = await loadScenario(name);
  const served = await serveScenario(scenario, { tls: true });
  const { createLiveSource } = await import("../kube/live/source.ts");
  try {
    const local = await createLiveSource({
      kubeconfigYaml: served.kubeconfigYaml(scenario.run.local),
      context: scenario.run.local,
    });
    let remote = null;
    if (scenario.run.remote) {
      const src = await createLiveSource({
        kubeconfigYaml: served.kubeconfigYaml(scenario.run.remote),
        context: scenario.run.remote,
      });
      remote = await src.probeReachable().then(
        () => ({ source: src }),
        (e) => ({ source: null, error: `remote cluster unavailable: ${e instanceof Error ? e.message : e}` }),
      );
    }
    await local.probeReachable();
    if (opts.output === "text") {
      console.log(`demo: ${name} — ${scenario.description ?? ""}`);
      console.log(`      fake API server(s) on 127.0.0.1 over HTTPS; nothing leaves this machine\n`);
    }
    const options: RunOptions = {
      networkProbes: false,
      preciseUdp: false,
      sampleIntervalMs: 1000,
      latencyThresholdMs: 200,
      checkTimeoutMs: 20_000,
    };
    const report = await diagnoseAndPrint(local, remote, options, opts);
    await local.close();
    if (remote?.source) await remote.source.close();
    return report.exitCode;
  } finally {
    await served.close();
  }
}
