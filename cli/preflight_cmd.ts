/**
 * `flyingfish preflight`: can these two clusters peer — judged before `liqoctl peer` changes
 * anything. The would-be consumer is `--kubeconfig/--context`, the would-be provider
 * `--remote-kubeconfig/--remote-context` (required). Passive by default (reads, access reviews,
 * `dryRun=All` creates: nothing persists); `--probe` adds the active PF checks, over the active
 * wing's fleet, cleanup and signal handling (active/mod.ts `createPreflightPhase`), whose stop and
 * exit code are diagnose/active.ts's (`withStop`). Flags → options → one engine run over the
 * preflight catalog → one report with its `preflight` verdict block.
 */
import { ToolError } from "../errors.ts";
import type { CheckDef, PreflightIntent, RunOptions } from "../checks/types.ts";
import type { Report } from "../report/model.ts";
import type { PreflightProbeOptions, PreflightRun } from "../active/mod.ts";
import type { ActiveClusters } from "../diagnose/open.ts";
import { RUN_DEFAULTS } from "../diagnose/defaults.ts";
import {
  type CheckCommandOptions,
  diagnoseAndPrint,
  durationOption,
  preloadRunModules,
  runOptionsFrom,
  timeoutsFrom,
  withSources,
} from "./check.ts";
import { NO_TIMEOUT_MS, withDeadline } from "./deadline.ts";

/** Options of `flyingfish preflight`, as parsed by commander. */
export interface PreflightCommandOptions
  extends Pick<CheckCommandOptions, "kubeconfig" | "context" | "remoteKubeconfig" | "remoteContext"> {
  output: "text" | "json" | "yaml" | "markdown" | "junit" | "html";
  outputFile?: string;
  only?: string[];
  skip?: string[];
  timeout: string;
  requestTimeout?: string;
  networkProbes: boolean;
  color: boolean;
  verbose?: boolean;
  quiet?: boolean;
  /** `--probe`: also the active PF checks (creates objects in a flyingfish-preflight-<run id> namespace). */
  probe?: boolean;
  serviceType?: "LoadBalancer" | "NodePort";
  serverSide?: "consumer" | "provider";
  port?: string;
  mtu?: string;
  keep?: boolean;
  image?: string[];
  imageRegistry?: string;
  probeTimeout?: string;
  cleanupTimeout?: string;
  /** `--gw-client-address/--gw-client-port`: a port mapping in front of the would-be server (NAT). */
  gwClientAddress?: string;
  gwClientPort?: string;
  /** `--gw-server-service-nodeport`: the NodePort to ask for (what a port mapping forwards to). */
  gwServerServiceNodeport?: string;
}

/** The flags that only mean something with `--probe`. */
const PROBE_ONLY = [
  "keep",
  "image",
  "imageRegistry",
  "probeTimeout",
  "cleanupTimeout",
  "gwClientAddress",
  "gwClientPort",
  "gwServerServiceNodeport",
] as const;

function intOption(name: string, value: string | undefined, min: number, max: number): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ToolError(`invalid ${name} "${value}": expected a whole number from ${min} to ${max}`);
  }
  return n;
}

/** What the flags say of the peering to come (validated: a bad value is exit 3). */
export function intentFrom(opts: PreflightCommandOptions): PreflightIntent {
  return {
    serverSide: opts.serverSide ?? null,
    serviceType: opts.serviceType ?? null,
    port: intOption("--port", opts.port, 1, 65535),
    // WireGuard over IPv4 needs 60 bytes of the underlay's; 576 is the least any IPv4 path carries.
    mtu: intOption("--mtu", opts.mtu, 576, 9000),
    nodePort: intOption("--gw-server-service-nodeport", opts.gwServerServiceNodeport, 1, 65535),
  };
}

/**
 * The catalog `--only/--skip` select from the preflight catalog; the active PF checks only with
 * `--probe` (naming one without it is exit 3). `--only` pulls in what the named checks need.
 */
export async function preflightCatalog(
  opts: Pick<PreflightCommandOptions, "only" | "skip" | "probe">,
): Promise<CheckDef[]> {
  const [{ PREFLIGHT_CATALOG, PREFLIGHT_PROBE_CHECKS }, { resolveSelection, selectCatalog }] = await Promise
    .all([
      import("../active/mod.ts"),
      import("../checks/ids.ts"),
    ]);
  const only = resolveSelection(opts.only ?? [], PREFLIGHT_CATALOG);
  const skip = resolveSelection(opts.skip ?? [], PREFLIGHT_CATALOG);
  const errors = [...only.errors.map((e) => `--only: ${e}`), ...skip.errors.map((e) => `--skip: ${e}`)];
  if (errors.length) throw new ToolError(errors.join("; "));
  const isProbe = (id: string) => PREFLIGHT_PROBE_CHECKS.some((c) => c.id === id);
  const named = only.ids.find(isProbe);
  if (named && !opts.probe) throw new ToolError(`${named} is an active preflight check: add --probe`);
  const catalog = opts.probe ? PREFLIGHT_CATALOG : PREFLIGHT_CATALOG.filter((c) => !isProbe(c.id));
  return selectCatalog(catalog, { only: only.ids, skip: skip.ids });
}

/** The `--probe` options of the preflight phase (active/preflight/phase.ts). */
async function probeOptionsFrom(
  opts: PreflightCommandOptions,
  intent: PreflightIntent,
): Promise<PreflightProbeOptions> {
  const { resolveImages } = await import("../active/mod.ts");
  return {
    serviceType: intent.serviceType,
    serverSide: intent.serverSide,
    port: intent.port ?? 51840,
    mtu: intent.mtu ?? 1340,
    images: resolveImages(opts.image ?? [], opts.imageRegistry),
    probeTimeoutMs: durationOption("--probe-timeout", opts.probeTimeout ?? RUN_DEFAULTS.probeTimeout),
    cleanupTimeoutMs: durationOption("--cleanup-timeout", opts.cleanupTimeout ?? RUN_DEFAULTS.cleanupTimeout),
    keep: opts.keep === true,
    hostProbe: opts.networkProbes !== false,
    ...natOptions(opts),
  };
}

/** `--gw-client-address/--gw-client-port` (both or neither) and `--gw-server-service-nodeport`. */
function natOptions(opts: PreflightCommandOptions): Pick<PreflightProbeOptions, "natEndpoint" | "nodePort"> {
  const port = intOption("--gw-client-port", opts.gwClientPort, 1, 65535);
  const nodePort = intOption("--gw-server-service-nodeport", opts.gwServerServiceNodeport, 1, 65535);
  if ((opts.gwClientAddress === undefined) !== (port === null)) {
    throw new ToolError(
      "--gw-client-address and --gw-client-port go together (the port mapping's address and port)",
    );
  }
  return {
    ...(opts.gwClientAddress !== undefined && port !== null
      ? { natEndpoint: { address: opts.gwClientAddress, port } }
      : {}),
    ...(nodePort !== null ? { nodePort } : {}),
  };
}

/**
 * How a `--probe` run opens its clusters (default: from the flags' kubeconfigs); `demo --preflight
 * --probe` hands in the fake servers' instead, and the rest of the run is the command's own.
 */
export type OpenProbed = (
  requestTimeoutMs: number,
  notice: (error: string) => void,
) => Promise<ActiveClusters>;

/** Runs `flyingfish preflight`; returns the exit code. */
export async function runPreflightCommand(
  opts: PreflightCommandOptions,
  hooks: { open?: OpenProbed } = {},
): Promise<number> {
  if (!opts.remoteKubeconfig && !opts.remoteContext) {
    throw new ToolError(
      "preflight judges two clusters: name the would-be provider with --remote-kubeconfig (and/or " +
        "--remote-context); --kubeconfig/--context is the would-be consumer",
    );
  }
  if (!opts.probe) {
    const given = PROBE_ONLY.find((k) => opts[k] !== undefined && opts[k] !== false);
    if (given) {
      throw new ToolError(`--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --probe`);
    }
  }
  const intent = intentFrom(opts);
  const catalog = await preflightCatalog(opts);
  preloadRunModules();
  if (opts.outputFile && opts.outputFile !== "-") {
    const { requireWrite } = await import("./report_file.ts");
    requireWrite(opts.outputFile);
  }
  const { liqoctlVersion } = await import("./liqoctl_version.ts");
  const options: RunOptions = {
    ...runOptionsFrom({ ...opts, sampleInterval: RUN_DEFAULTS.sampleInterval }),
    preflight: { ...intent, liqoctl: await liqoctlVersion() },
  };
  const { cliInvocation } = await import("../report/invocation.ts");
  const invocation = cliInvocation(opts);
  const print = { ...opts, catalog, invocation, preflight: true };
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  if (!opts.probe) {
    return await withSources(opts, requestTimeoutMs, runTimeoutMs, async ({ local, remote }) => {
      const report = await diagnoseAndPrint(local, remote, options, print);
      return report.exitCode;
    });
  }
  return await runProbed(opts, intent, options, print, { requestTimeoutMs, runTimeoutMs }, hooks.open);
}

/**
 * `--probe`: the passive PF checks, then the active ones over the same clients, in one engine run.
 * The phase owns SIGINT/SIGTERM once objects may exist; its stop makes the run 130 (a signal) or 3
 * (`--timeout`) through diagnose/active.ts, and its tool error is the run's (exit 3).
 */
async function runProbed(
  opts: PreflightCommandOptions,
  intent: PreflightIntent,
  options: RunOptions,
  print: Parameters<typeof diagnoseAndPrint>[3],
  t: { requestTimeoutMs: number; runTimeoutMs: number },
  open?: OpenProbed,
): Promise<number> {
  const probe = await probeOptionsFrom(opts, intent);
  const [wiring, { openActiveClusters, closeActiveClusters }, { createPreflightPhase, newRunId }] =
    await Promise.all([
      import("../diagnose/active.ts"),
      import("../diagnose/open.ts"),
      import("../active/mod.ts"),
    ]);
  const label = `--timeout ${opts.timeout}`;
  const started = Date.now();
  let phase: PreflightRun | null = null;
  const hardMs = Math.min(t.runTimeoutMs + probe.cleanupTimeoutMs + 5_000, NO_TIMEOUT_MS);
  const report = await withDeadline(hardMs, opts.timeout, async (onExpiry) => {
    let leftOut = "";
    const notice = (error: string) => leftOut = error;
    const clusters = open
      ? await open(t.requestTimeoutMs, notice)
      : await openActiveClusters(opts, t.requestTimeoutMs, notice);
    const close = () => closeActiveClusters(clusters);
    onExpiry(close);
    try {
      const targets = wiring.probeTargets(clusters, opts);
      // Nothing is probed with one cluster: the probes need both ends.
      if (!targets.remote) {
        throw new ToolError(
          `${leftOut || "the would-be provider could not be opened"}: --probe needs both clusters`,
        );
      }
      const run = await createPreflightPhase({
        consumer: targets.local,
        provider: targets.remote,
        options: { ...probe, runId: newRunId() },
        control: {
          signal: new AbortController().signal,
          onProgress: opts.quiet ? undefined : (l: string) => console.error(`flyingfish: ${l}`),
          write: (l: string) => console.error(`flyingfish: ${l}`),
          get runTimeoutMs() {
            return t.runTimeoutMs >= NO_TIMEOUT_MS
              ? undefined
              : Math.max(1, t.runTimeoutMs - (Date.now() - started));
          },
        },
        timeoutLabel: label,
      });
      phase = run;
      return await diagnoseAndPrint(
        clusters.local.source,
        { source: clusters.remote!.source, error: clusters.remote!.error },
        options,
        {
          ...print,
          activePhase: run,
          select: (r: Report) => {
            const error = run.error();
            if (error) throw error;
            return wiring.withStop(r, run.stoppedBy(), label);
          },
        },
      );
    } finally {
      await close();
    }
  }, { ms: t.runTimeoutMs, committed: () => phase !== null });
  return report.exitCode;
}
