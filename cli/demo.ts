/**
 * `flyingfish demo`: serves a scenario from testdata/ with the fake API server in-process on
 * 127.0.0.1 (real HTTPS, token auth, exec websocket) and runs the real check against it.
 */
import {
  activeScenariosRoot,
  listScenarios,
  loadScenario,
  serveScenario,
  useTestdata,
} from "@flyingfish/fakekube";
import { demoTestdata } from "./demo_data.ts";
import { ToolError } from "../errors.ts";
import { diagnoseAndPrint } from "./check.ts";
import type { RunOptions } from "../checks/types.ts";
import { RUN_DEFAULTS, RUN_DEFAULTS_MS } from "../diagnose/defaults.ts";

/** Options of the demo command. */
export interface DemoOptions {
  list?: boolean;
  /** `--active [name]`: an active-probe scenario (testdata/active/); `true` alone lists them. */
  active?: string | boolean;
  output: string;
  color: boolean;
  verbose?: boolean;
}

/** Runs the demo; returns the exit code of the check it ran. */
export async function runDemo(name: string, opts: DemoOptions): Promise<number> {
  useTestdata(demoTestdata());
  if (opts.active !== undefined && opts.active !== false) return await runActiveDemo(opts.active, opts);
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
      latencyThresholdMs: RUN_DEFAULTS_MS.latencyThreshold,
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

/**
 * `flyingfish demo --active <name>`: serves testdata/active/<name> (two fake clusters whose exec
 * router answers the probe commands from the scenario's network model) and runs `check --active`
 * against it: the passive catalog, then the probes, creating and removing real objects in the fake
 * servers. Without a name, lists the active scenarios.
 */
export async function runActiveDemo(active: string | true, opts: DemoOptions): Promise<number> {
  const root = activeScenariosRoot();
  const known = await listScenarios(root).catch(() => [] as string[]);
  if (active === true || opts.list) {
    for (const s of known) {
      const sc = await loadScenario(s, root);
      console.log(`${s.padEnd(40)} ${sc.description ?? ""}`);
    }
    return 0;
  }
  if (!known.includes(active)) {
    throw new ToolError(`no active demo scenario "${active}" (try \`flyingfish demo --active\`)`);
  }
  const scenario = await loadScenario(active, root);
  const served = await serveScenario(scenario, { tls: true });
  try {
    const [{ openLiveCluster }, { runActiveReport }, { cliInvocation }] = await Promise.all([
      import("../kube/live/source.ts"),
      import("./probe_cmd.ts"),
      import("../report/invocation.ts"),
    ]);
    const { local, remote } = scenario.run;
    if (opts.output === "text") {
      console.log(`demo: active/${active} — ${scenario.description ?? ""}`);
      console.log(
        `      fake API servers on 127.0.0.1 over HTTPS; probe pods are created and removed there\n`,
      );
    }
    const flags = {
      context: local,
      remoteContext: remote,
      output: opts.output as "text",
      color: opts.color,
      verbose: opts.verbose,
      timeout: "2m",
      sampleInterval: "1s",
      latencyThreshold: RUN_DEFAULTS.latencyThreshold,
      networkProbes: false,
    };
    // The scenario's probes (`probe matrix` → matrix): the words after `probe`, up to the first flag.
    const args = scenario.run.args;
    const firstFlag = args.findIndex((a) => a.startsWith("-"));
    const probes = args[0] === "probe" ? args.slice(1, firstFlag < 0 ? undefined : firstFlag) : [];
    return await runActiveReport("check", probes, flags, cliInvocation({}), {
      open: async (ms) => {
        const l = await openLiveCluster({
          kubeconfigYaml: served.kubeconfigYaml(local),
          context: local,
          requestTimeoutMs: ms,
        });
        if (!remote) return { local: l, remote: null };
        const r = await openLiveCluster({
          kubeconfigYaml: served.kubeconfigYaml(remote),
          context: remote,
          requestTimeoutMs: ms,
        });
        return { local: l, remote: { source: r.source, client: r.client } };
      },
    });
  } finally {
    await served.close();
  }
}
