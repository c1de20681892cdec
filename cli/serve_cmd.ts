/**
 * `flyingfish serve`: the watch loop as a long-running service. Every `--interval` a round runs
 * (watch/rounds.ts: lists kept current by Kubernetes watches, `wg show` each round), and the latest
 * result is served on `--listen` as Prometheus metrics, the JSON report and the HTML report
 * (serve/http.ts).
 *
 * Credentials: `--kubeconfig`/`--context`/`KUBECONFIG` as everywhere; with none of them, inside a
 * pod (`KUBERNETES_SERVICE_HOST`/`_PORT` set), the pod's service account (kube/incluster.ts).
 *
 * Deno permissions: `--allow-net` (listen, and reach the API servers and the network probes),
 * `--allow-read` (the service-account directory or the kubeconfig and the files it names),
 * `--allow-env` (KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT, KUBECONFIG, HOME).
 */
import { ToolError } from "../errors.ts";
import type { ClusterSource } from "../kube/source.ts";
import { SCHEMA_VERSION } from "../report/model.ts";
import { VERSION } from "../version.ts";
import { countingSource } from "../serve/counting_source.ts";
import { type ListenAddress, parseListen, startHttpServer } from "../serve/http.ts";
import { runRoundLoop } from "../serve/loop.ts";
import { ServeState } from "../serve/state.ts";
import { durationOption, runOptionsFrom } from "./check.ts";
import { envValue, writeErr } from "./output.ts";
import { DEFAULT_REQUEST_TIMEOUT, DEFAULT_RUN_TIMEOUT } from "./defaults.ts";
import { openRemote } from "../diagnose/open.ts";

/** Options of `flyingfish serve`, as parsed by commander. */
export interface ServeCommandOptions {
  kubeconfig?: string;
  context?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
  peer?: string[];
  /** `[host]:port` to listen on (absent: {@link defaultListen}). */
  listen?: string;
  /** Time from one round's start to the next. */
  interval: string;
  /** Where the pod's service account is mounted (in-cluster mode). */
  serviceAccountDir?: string;
  requestTimeout?: string;
  sampleInterval: string;
  latencyThreshold?: string;
  networkProbes: boolean;
  udpPrecise?: boolean;
}

/** How an in-process caller (a test) runs and stops the service. */
export interface ServeControl {
  /** Stops the service: the loop ends, the server shuts down, the sources close. */
  signal?: AbortSignal;
  /** Called once the server listens, with its address (the real port when `:0` was asked). */
  onListening?: (addr: ListenAddress) => void;
  /** Where log lines go (default stderr). */
  log?: (line: string) => void;
  /** Reads the environment (KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT; default the process's). */
  env?: (name: string) => string | undefined;
}

/** The clusters to watch and how they were found. */
interface Opened {
  local: ClusterSource;
  remote: { source: ClusterSource | null; error?: string } | null;
  /** "in-cluster credentials (namespace x)" or "kubeconfig context y". */
  credentials: string;
}

async function openClusters(
  opts: ServeCommandOptions,
  requestTimeoutMs: number,
  env: ((name: string) => string | undefined) | undefined,
): Promise<Opened> {
  const [{ openWatchableSource }, { inClusterConfig }] = await Promise.all([
    import("../kube/live/watch.ts"),
    import("../kube/incluster.ts"),
  ]);
  // In a pod with no kubeconfig named anywhere: the pod's service account (client-go's rule).
  const named = opts.kubeconfig !== undefined || opts.context !== undefined ||
    !!(env ?? envValue)("KUBECONFIG");
  const inCluster = named ? null : await inClusterConfig({ root: opts.serviceAccountDir, env });
  const local = await openWatchableSource({
    kubeconfig: opts.kubeconfig,
    kubeconfigYaml: inCluster?.kubeconfigYaml,
    context: opts.context,
    requestTimeoutMs,
  });
  const credentials = inCluster
    ? `in-cluster credentials${inCluster.namespace ? ` (namespace ${inCluster.namespace})` : ""}`
    : `kubeconfig context ${local.endpoint.context}`;
  try {
    const remote = await openRemote(opts, (o) => openWatchableSource({ ...o, requestTimeoutMs }), () => {});
    return { local, remote, credentials };
  } catch (err) {
    await local.close();
    throw err;
  }
}

/** `--listen` in a pod: every interface, so Prometheus can scrape the pod. */
export const IN_POD_LISTEN = ":9464";
/** `--listen` elsewhere (a laptop, a bastion): loopback only — the report is unauthenticated. */
export const LOCAL_LISTEN = "127.0.0.1:9464";

/**
 * Where `serve` listens without `--listen`: every interface inside a pod (the in-cluster API server
 * variables are set), loopback anywhere else, so a run from a laptop never publishes the report to
 * the LAN.
 */
export async function defaultListen(
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): Promise<string> {
  const { inClusterServer } = await import("../kube/incluster.ts");
  return inClusterServer(env) !== null ? IN_POD_LISTEN : LOCAL_LISTEN;
}

/** Waits for SIGINT or SIGTERM (where signals exist); returns a function that stops listening. */
function onStopSignal(stop: () => void): () => void {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, stop);
  return () => signals.forEach((s) => Deno.removeSignalListener(s, stop));
}

/**
 * Runs `flyingfish serve` until `control.signal` aborts (or, without one, SIGINT/SIGTERM); returns
 * the exit code (0 after a clean stop).
 */
export async function runServeCommand(
  opts: ServeCommandOptions,
  control: ServeControl = {},
): Promise<number> {
  const log = control.log ?? ((line: string) => writeErr(`flyingfish serve: ${line}\n`));
  const listen = opts.listen ?? await defaultListen();
  let addr: ListenAddress;
  try {
    addr = parseListen(listen);
  } catch (e) {
    throw new ToolError(`invalid --listen "${listen}": ${e instanceof Error ? e.message : e}`);
  }
  const intervalMs = durationOption("--interval", opts.interval);
  const requestTimeoutMs = durationOption(
    "--request-timeout",
    opts.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT,
    true,
  );
  // Each check is bounded by its requests and the sampling, as in `check` (no overall run bound).
  const options = runOptionsFrom({ ...opts, timeout: DEFAULT_RUN_TIMEOUT });
  const opened = await openClusters(opts, requestTimeoutMs, control.env);

  const state = new ServeState();
  const count = state.countApiError.bind(state);
  const local = countingSource(opened.local, count);
  const remote = opened.remote
    ? { ...opened.remote, source: opened.remote.source ? countingSource(opened.remote.source, count) : null }
    : null;
  const stop = new AbortController();
  const outer = control.signal;
  const unlisten = outer ? () => {} : onStopSignal(() => stop.abort());
  const abort = () => stop.abort();
  outer?.addEventListener("abort", abort, { once: true });
  if (outer?.aborted) stop.abort();

  const [{ startRounds }, { cliInvocation }] = await Promise.all([
    import("../watch/rounds.ts"),
    import("../report/invocation.ts"),
  ]);
  const runner = startRounds({
    local,
    remote,
    peers: opts.peer,
    options,
    invocation: cliInvocation(opts),
    onNotice: log,
    // Stopping aborts the round in flight (its requests) instead of waiting for it.
    signal: stop.signal,
  });
  let server;
  try {
    server = startHttpServer(state, {
      version: VERSION,
      deno: Deno.version.deno,
      reportSchema: SCHEMA_VERSION,
    }, addr);
  } catch (err) {
    await runner.close();
    unlisten();
    if (err instanceof Deno.errors.AddrInUse) {
      throw new ToolError(`cannot listen on ${listen}: address in use`);
    }
    throw err;
  }
  const host = server.addr.hostname.includes(":") ? `[${server.addr.hostname}]` : server.addr.hostname;
  log(
    `listening on http://${host}:${server.addr.port} (/metrics /report / /healthz /readyz); ` +
      `${opened.credentials}, ${local.endpoint.server}; a round every ${opts.interval}`,
  );
  control.onListening?.(server.addr);
  try {
    await runRoundLoop({ rounds: runner, state, intervalMs, signal: stop.signal, log });
  } finally {
    outer?.removeEventListener("abort", abort);
    unlisten();
    await runner.close();
    await server.shutdown();
  }
  log("stopped");
  return 0;
}
