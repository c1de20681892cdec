/**
 * `flyingfish demo`: serves a scenario from testdata/ with the fake API server in-process on
 * 127.0.0.1 (real HTTPS, token auth, exec websocket) and runs the real check against it. With
 * `--serve`, it keeps the fake cluster(s) up instead, prints their kubeconfigs and commands to paste
 * (kubectl, check, watch, report, collect, probe), and removes the kubeconfigs at Ctrl-C.
 */
import {
  activeScenariosRoot,
  listScenarios,
  loadScenario,
  preflightProbeScenariosRoot,
  preflightScenariosRoot,
  type ServedScenario,
  serveScenario,
  useTestdata,
} from "@flyingfish/fakekube";
import { demoTestdata } from "./demo_data.ts";
import { PermissionError, ToolError } from "../errors.ts";
import { GATEWAY_LABELS } from "../liqo/names.ts";
import { shellQuote } from "../kube/rerun.ts";
import { diagnoseAndPrint } from "./check.ts";
import type { RunOptions } from "../checks/types.ts";
import type { Format } from "../render/render.ts";
import { RUN_DEFAULTS, RUN_DEFAULTS_MS } from "../diagnose/defaults.ts";
import type { PreflightCommandOptions } from "./preflight_cmd.ts";

/** The scenario `demo` runs without a name (`program.ts` declares it as the argument's default). */
export const DEFAULT_DEMO = "gw-lb-pending";

/** Options of the demo command. */
export interface DemoOptions {
  list?: boolean;
  /** `--active [name]`: an active-probe scenario (testdata/active/); `true` alone lists them. */
  active?: string | boolean;
  /** `--preflight [name]`: a preflight scenario (testdata/preflight/), default {@link PREFLIGHT_DEMO}. */
  preflight?: string | boolean;
  /** With `--preflight`: `preflight --probe` on a testdata/preflight-probe/ pair, default {@link PREFLIGHT_PROBE_DEMO}. */
  probe?: boolean;
  /** `--fleet [name]`: a fleet of testdata/fleet/ (default mixed), checked with --all-contexts. */
  fleet?: string | boolean;
  /** `--serve`: keep the fake cluster(s) up until Ctrl-C, for kubectl and every command. */
  serve?: boolean;
  /** `--diff <after>`: `flyingfish diff` of the scenario (before) and this one (after). */
  diff?: string;
  output: string;
  color: boolean;
  verbose?: boolean;
}

/**
 * `demo --fleet`: serves a fleet (many fake clusters, one merged kubeconfig) and runs the fleet
 * check against every context of it. Text prints the fleet summary and each edge's header and
 * finding (`-v`: every edge's report too).
 */
async function runFleetDemo(name: string, opts: DemoOptions): Promise<number> {
  const [
    { loadFleet, serveFleet },
    { runFleet },
    { createLiveSource },
    { createProbeHub },
    { renderFleet },
    out,
  ] = await Promise.all([
    import("@flyingfish/fakekube"),
    import("../multicluster/run.ts"),
    import("../kube/live/source.ts"),
    import("../probes/live_hub.ts"),
    import("../render/fleet.ts"),
    import("./output.ts"),
  ]);
  const fleet = await loadFleet(name).catch((e) => {
    throw new ToolError(`no demo fleet "${name}": ${e instanceof Error ? e.message.split("\n")[0] : e}`);
  });
  const served = await serveFleet(fleet, {});
  try {
    const kubeconfigYaml = served.kubeconfigYaml;
    if (opts.output === "text") {
      console.log(`demo: fleet ${name} — ${fleet.description}`);
      console.log(
        `      ${
          Object.keys(fleet.clusters).length
        } fake API servers on 127.0.0.1 over HTTPS; nothing leaves this machine\n`,
      );
    }
    const options: RunOptions = {
      networkProbes: false,
      preciseUdp: false,
      sampleIntervalMs: 1000,
      latencyThresholdMs: RUN_DEFAULTS_MS.latencyThreshold,
      checkTimeoutMs: 20_000,
    };
    const report = await runFleet({
      kubeconfigs: [],
      kubeconfigYaml,
      selection: { all: true, patterns: [] },
      parallel: 4,
      // The fleet's silent cluster would hold the demo for the default minute.
      clusterTimeoutMs: 3000,
      clusterTimeoutLabel: "3s",
      open: (context) => createLiveSource({ kubeconfigYaml, context }),
      options,
      probes: (sources) =>
        createProbeHub({
          sources,
          networkProbes: false,
          preciseUdp: false,
          sampleIntervalMs: options.sampleIntervalMs,
        }),
    });
    out.writeOut(renderFleet(report, opts.output as "text", {
      color: out.useColor(opts.color),
      verbose: opts.verbose === true,
      quiet: opts.verbose !== true,
    }));
    return report.exitCode;
  } finally {
    await served.close();
  }
}

/** Runs the demo; returns the exit code of the check it ran. */
export async function runDemo(name: string, opts: DemoOptions): Promise<number> {
  useTestdata(demoTestdata());
  if (opts.diff !== undefined) {
    const { runDemoDiff } = await import("./demo_diff.ts");
    return await runDemoDiff(name, opts.diff, {
      output: opts.output as Format,
      color: opts.color,
      verbose: opts.verbose,
    });
  }
  if (opts.fleet !== undefined && opts.fleet !== false) {
    return await runFleetDemo(typeof opts.fleet === "string" ? opts.fleet : "mixed", opts);
  }
  if (opts.serve && !opts.list && opts.active !== true) {
    return await serveDemo(
      typeof opts.active === "string" ? opts.active : name,
      typeof opts.active === "string",
    );
  }
  if (opts.active !== undefined && opts.active !== false) return await runActiveDemo(opts.active, opts);
  if (opts.probe && (opts.preflight === undefined || opts.preflight === false)) {
    throw new ToolError("demo: --probe goes with --preflight (demo --preflight --probe [scenario])");
  }
  if (opts.preflight !== undefined && opts.preflight !== false && !opts.list) {
    if (opts.probe) {
      return await runPreflightProbeDemo(typeof opts.preflight === "string" ? opts.preflight : name, opts);
    }
    return await runPreflightDemo(opts.preflight === true ? PREFLIGHT_DEMO : opts.preflight, opts);
  }
  if (opts.list) {
    for (const s of await listScenarios()) {
      const sc = await loadScenario(s);
      console.log(`${s.padEnd(40)} ${sc.description ?? ""}`);
    }
    // The preflight scenarios, as `demo --preflight <name>` runs them.
    const root = preflightScenariosRoot();
    for (const s of await listScenarios(root).catch(() => [] as string[])) {
      const sc = await loadScenario(s, root);
      console.log(`${`--preflight ${s}`.padEnd(40)} ${sc.description ?? ""}`);
    }
    // The `preflight --probe` pairs, as `demo --preflight --probe <name>` runs them.
    const probed = preflightProbeScenariosRoot();
    for (const s of await listScenarios(probed).catch(() => [] as string[])) {
      const sc = await loadScenario(s, probed);
      console.log(`${`--preflight --probe ${s}`.padEnd(40)} ${oneLine(sc.description ?? "")}`);
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
    const report = await diagnoseAndPrint(local, remote, options, { ...opts, preflight: false });
    await local.close();
    if (remote?.source) await remote.source.close();
    return report.exitCode;
  } finally {
    await served.close();
  }
}

/** The scenario `demo --preflight` runs: two clusters never peered, one permission short on each. */
export const PREFLIGHT_DEMO = "rbac-denied";

/**
 * `flyingfish demo --preflight [name]`: serves testdata/preflight/<name> (two clusters before
 * peering) and runs the real `preflight` against it: the passive PF checks, the verdict and the
 * liqoctl peer line (no kubeconfig files: the line names the clusters by context).
 */
export async function runPreflightDemo(name: string, opts: DemoOptions): Promise<number> {
  const root = preflightScenariosRoot();
  const known = await listScenarios(root).catch(() => [] as string[]);
  if (!known.includes(name)) {
    throw new ToolError(`no preflight demo scenario "${name}" (try \`flyingfish demo --list\`)`);
  }
  const scenario = await loadScenario(name, root);
  const served = await serveScenario(scenario, { tls: true });
  const [{ createLiveSource }, { intentFrom, preflightCatalog }, { liqoctlVersion }] = await Promise.all([
    import("../kube/live/source.ts"),
    import("./preflight_cmd.ts"),
    import("./liqoctl_version.ts"),
  ]);
  const { local, remote } = scenario.run;
  const provider = remote ?? local;
  const sources = [];
  try {
    for (const c of [local, provider]) {
      sources.push(await createLiveSource({ kubeconfigYaml: served.kubeconfigYaml(c), context: c }));
    }
    if (opts.output === "text") {
      console.log(`demo: --preflight ${name} — ${scenario.description ?? ""}`);
      console.log(`      fake API servers on 127.0.0.1 over HTTPS; nothing leaves this machine\n`);
    }
    const at = (flag: string) => {
      const i = scenario.run.args.indexOf(flag);
      return i < 0 ? undefined : scenario.run.args[i + 1];
    };
    const intent = intentFrom(
      {
        serviceType: at("--service-type") as "NodePort" | undefined,
        serverSide: at("--server-side") as "consumer" | undefined,
        port: at("--port"),
        mtu: at("--mtu"),
      } as Parameters<typeof intentFrom>[0],
    );
    const options: RunOptions = {
      networkProbes: false,
      preciseUdp: false,
      sampleIntervalMs: 1000,
      latencyThresholdMs: RUN_DEFAULTS_MS.latencyThreshold,
      checkTimeoutMs: 20_000,
      preflight: { ...intent, liqoctl: await liqoctlVersion() },
    };
    const report = await diagnoseAndPrint(sources[0], { source: sources[1] }, options, {
      output: opts.output,
      color: opts.color,
      verbose: opts.verbose,
      catalog: await preflightCatalog({}),
      preflight: true,
    });
    return report.exitCode;
  } finally {
    for (const s of sources) await s.close();
    await served.close();
  }
}

/** The scenario `demo --preflight --probe` runs: the provider's LoadBalancer drops the echo, the consumer's carries it. */
export const PREFLIGHT_PROBE_DEMO = "server-on-consumer";

/** A scenario description on one line (YAML folds keep their line breaks in some). */
function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** The flags a preflight-probe scenario's `run.args` may hold, as the command's options. */
const PROBE_DEMO_FLAGS: Readonly<Record<string, keyof PreflightCommandOptions>> = {
  "--probe-timeout": "probeTimeout",
  "--server-side": "serverSide",
  "--service-type": "serviceType",
  "--port": "port",
  "--mtu": "mtu",
  "--gw-client-address": "gwClientAddress",
  "--gw-client-port": "gwClientPort",
  "--gw-server-service-nodeport": "gwServerServiceNodeport",
};

/** A scenario's `run.args` as `preflight --probe` options (an unknown flag is a broken scenario: exit 3). */
export function probeDemoOptions(args: readonly string[]): Partial<PreflightCommandOptions> {
  const out: Record<string, string | boolean> = { probe: true };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--probe") continue;
    const key = PROBE_DEMO_FLAGS[args[i]];
    if (!key || i + 1 >= args.length) {
      throw new ToolError(`demo: scenario flag ${args[i]} is not one the demo passes on`);
    }
    out[key] = args[++i];
  }
  return out as Partial<PreflightCommandOptions>;
}

/**
 * `flyingfish demo --preflight --probe [name]`: serves testdata/preflight-probe/<name> (two
 * clusters before peering whose exec router answers the probe pods from the scenario's network
 * model) and runs the real `preflight --probe` against it: the probe namespace, pods and Service
 * are created and removed in the fake servers, the echoes cross the model, nothing leaves 127.0.0.1
 * (this host dials nothing: --no-network-probes).
 */
export async function runPreflightProbeDemo(name: string, opts: DemoOptions): Promise<number> {
  const root = preflightProbeScenariosRoot();
  const known = await listScenarios(root).catch(() => [] as string[]);
  if (!known.includes(name)) {
    if (name !== DEFAULT_DEMO) {
      throw new ToolError(`no preflight --probe demo scenario "${name}" (try \`flyingfish demo --list\`)`);
    }
    name = PREFLIGHT_PROBE_DEMO;
  }
  const scenario = await loadScenario(name, root);
  const { local, remote } = scenario.run;
  if (!remote) throw new ToolError(`demo: preflight --probe scenario ${name} names one cluster`);
  const served = await serveScenario(scenario, { tls: true });
  try {
    const [{ openLiveCluster }, { runPreflightCommand }] = await Promise.all([
      import("../kube/live/source.ts"),
      import("./preflight_cmd.ts"),
    ]);
    if (opts.output === "text") {
      console.log(`demo: --preflight --probe ${name} — ${oneLine(scenario.description ?? "")}`);
      console.log(
        `      fake API servers on 127.0.0.1 over HTTPS; the probe pods are created and removed there, ` +
          `their datagrams cross the scenario's network model\n`,
      );
    }
    return await runPreflightCommand({
      context: local,
      remoteContext: remote,
      output: opts.output as PreflightCommandOptions["output"],
      color: opts.color,
      verbose: opts.verbose,
      timeout: "2m",
      networkProbes: false,
      ...probeDemoOptions(scenario.run.args),
    }, {
      open: async (ms) => {
        const open = (c: string) =>
          openLiveCluster({ kubeconfigYaml: served.kubeconfigYaml(c), context: c, requestTimeoutMs: ms });
        const [l, r] = [await open(local), await open(remote)];
        return { local: l, remote: { source: r.source, client: r.client } };
      },
    });
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

/** A temp directory for the demo's kubeconfigs (exit 3 naming --allow-write when not granted). */
async function demoTempDir(): Promise<string> {
  try {
    return await Deno.makeTempDir({ prefix: "flyingfish-demo-" });
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      throw new PermissionError("--allow-write", "write the demo kubeconfigs to a temporary directory", {
        cause: err,
      });
    }
    throw err;
  }
}

/** `kubectl exec … -- wg show` in the first gateway pod with a wireguard container, if there is one. */
function gatewayExec(served: ServedScenario, cluster: string): string[] | null {
  const pod = served.clusters[cluster]?.objects().find((o) =>
    o.kind === "Pod" && o.metadata.labels?.[GATEWAY_LABELS.component] === "gateway" &&
    // deno-lint-ignore no-explicit-any
    ((o as any).spec?.containers ?? []).some((c: { name?: string }) => c.name === "wireguard")
  );
  if (!pod) return null;
  return [
    "kubectl",
    "exec",
    "-n",
    pod.metadata.namespace ?? "default",
    pod.metadata.name,
    "-c",
    "wireguard",
    "--",
  ];
}

/** Waits for Ctrl-C (SIGINT) or SIGTERM, where the platform has them. */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const signals = (Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"]) as Deno.Signal[];
    const stop = (sig: string) => () => {
      for (const [s, f] of handlers) Deno.removeSignalListener(s, f);
      resolve(sig);
    };
    const handlers = signals.map((s) => [s, stop(s)] as const);
    for (const [s, f] of handlers) Deno.addSignalListener(s, f);
  });
}

/**
 * `flyingfish demo --serve [scenario]` (or `--serve --active <name>`): serves the scenario's
 * cluster(s) on 127.0.0.1 until Ctrl-C, writes a kubeconfig per cluster to a temporary directory,
 * and prints them with commands to paste in another terminal: kubectl itself, then check, watch,
 * report and collect against them (and probe, for an active scenario, whose fake data plane answers
 * the probes). The kubeconfigs are removed when it stops. Returns 0.
 */
export async function serveDemo(name: string, active: boolean): Promise<number> {
  const root = active ? activeScenariosRoot() : undefined;
  const known = await listScenarios(root).catch(() => [] as string[]);
  if (known.length && !known.includes(name)) {
    const list = active ? "flyingfish demo --active" : "flyingfish demo --list";
    throw new ToolError(`no ${active ? "active " : ""}demo scenario "${name}" (try \`${list}\`)`);
  }
  const scenario = await loadScenario(name, root);
  const dir = await demoTempDir();
  let served: ServedScenario | null = null;
  try {
    served = await serveScenario(scenario, { tls: true });
    const { local, remote } = scenario.run;
    const paths: Record<string, string> = {};
    for (const cluster of [local, ...(remote ? [remote] : [])]) {
      paths[cluster] = `${dir}/${cluster}.kubeconfig`;
      await Deno.writeTextFile(paths[cluster], served.kubeconfigYaml(cluster), { mode: 0o600 });
    }
    console.log(serveDemoText(served, name, active, paths));
    await untilStopped();
    console.log("demo: stopped; the kubeconfigs are removed");
    return 0;
  } finally {
    await served?.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** What `demo --serve` prints once the clusters listen: where they are, and what to paste. */
function serveDemoText(
  served: ServedScenario,
  name: string,
  active: boolean,
  paths: Record<string, string>,
): string {
  const { scenario } = served;
  const { local, remote } = scenario.run;
  const q = (words: string[]) => words.map(shellQuote).join(" ");
  const lines = [
    `demo --serve: ${active ? "active/" : ""}${name} — ${scenario.description ?? ""}`,
    `      fake API server(s) on 127.0.0.1 over HTTPS (token auth, exec); nothing leaves this machine`,
    "",
  ];
  for (const [cluster, path] of Object.entries(paths)) {
    const url = served.clusters[cluster]?.url ?? "(down: nothing listens)";
    const role = cluster === local ? "kubeconfig       " : "remote-kubeconfig";
    lines.push(`  ${role} ${path}   (context ${cluster}, ${url})`);
  }
  const remoteFlags = remote ? ["--remote-kubeconfig", paths[remote]] : [];
  const exec = gatewayExec(served, local);
  lines.push(
    "",
    "Paste in another terminal (`flyingfish` is the README's alias: tools/node_modules/.bin/deno task -q flyingfish):",
    `  export KUBECONFIG=${shellQuote(paths[local])}`,
    "  kubectl get pods -A",
    "  kubectl get foreignclusters",
    ...(exec ? [`  ${q([...exec, "wg", "show"])}`] : []),
    `  ${q(["flyingfish", "check", ...remoteFlags, "--no-network-probes"])}`,
    `  ${q(["flyingfish", "watch", ...remoteFlags, "--no-network-probes", "--interval", "10s"])}`,
    `  ${q(["flyingfish", "report", ...remoteFlags, "--no-network-probes", "-f", "demo-report.html"])}`,
    `  ${q(["flyingfish", "collect", ...remoteFlags, "-f", "demo-bundle.tar.gz"])}`,
  );
  if (active) {
    // The scenario's probes (`probe matrix` → matrix): the words after `probe`, up to the first flag.
    const args = scenario.run.args;
    const firstFlag = args.findIndex((a) => a.startsWith("-"));
    const probes = args[0] === "probe" ? args.slice(1, firstFlag < 0 ? undefined : firstFlag) : [];
    lines.push(`  ${q(["flyingfish", "probe", ...probes, ...remoteFlags, "--no-network-probes"])}`);
  } else {
    lines.push("  (probes need an active scenario: flyingfish demo --serve --active <name>)");
  }
  lines.push("", "Serving until Ctrl-C (the kubeconfigs are removed then).");
  return lines.join("\n");
}
