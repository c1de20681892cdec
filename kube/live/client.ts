/**
 * One cluster's connection: the kubeconfig loaded ONCE, its credentials (kube/credentials.ts) and
 * ONE authenticated HTTP client (kube/http.ts: one keep-alive agent, a bounded number of requests in
 * flight) shared by everything that reads the cluster — lists, discovery, logs, /version — plus the
 * error mapping they share. The exec websockets get their TLS settings and credentials from the same
 * client ({@link KubeClient.connectOptions}).
 */
import { errorChain, httpStatusOf, ToolError, toToolError } from "../../errors.ts";
import { createCredentialSource } from "../credentials.ts";
import {
  afterRetries,
  type ConnectOptions,
  createKubeHttp,
  type KubeGetOptions,
  type KubeHttpResponse,
  type KubeHttpStats,
  type KubeRequestOptions,
  retriesOf,
  type RetryPolicy,
  statusMessage,
} from "../http.ts";
import { type KubeConfig, type LoadedKubeConfig, loadKubeConfig } from "../kubeconfig.ts";
import type { ClusterEndpoint, ServerVersion, Unavailable } from "../source.ts";

/** Where the kubeconfig comes from, and the request timeout. */
export interface KubeClientOptions {
  /** Explicit kubeconfig path. */
  kubeconfig?: string;
  /** kubeconfig text (wins over `kubeconfig`; nothing is read from disk). */
  kubeconfigYaml?: string;
  /** kubeconfig context (default: current-context). */
  context?: string;
  /** Several kubeconfig files merged like KUBECONFIG (fleet mode's repeated `--kubeconfig`). */
  kubeconfigs?: readonly string[];
  /**
   * Timeout of each API request (of each attempt, from when it is sent) and exec, in milliseconds
   * (default 15000).
   */
  requestTimeoutMs?: number;
  /** How failed GETs are retried (default: kube/http.ts DEFAULT_RETRY). */
  retry?: RetryPolicy;
  /** The run's deadline (epoch milliseconds): no retry waits past it (kube/http.ts). */
  deadline?: number;
  /** Most requests in flight at once (default: kube/http.ts MAX_IN_FLIGHT). */
  maxInFlight?: number;
}

/** A refusal or failure, in the shape of the sources' outcomes. */
export interface Failure {
  ok: false;
  reason: Unavailable;
  message: string;
}

/** One cluster's loaded kubeconfig and HTTP client. */
export interface KubeClient {
  /** The loaded kubeconfig (merged, with the context set as current). */
  readonly kc: KubeConfig;
  /** Where it came from: context, server, file path(s). */
  readonly loaded: LoadedKubeConfig;
  /** Context and server, for reports. */
  readonly endpoint: ClusterEndpoint;
  /** Timeout of each request and exec, in milliseconds. */
  readonly timeoutMs: number;
  /** The purpose named in a missing --allow-net error: `reach the API server <host>`. */
  readonly netPurpose: string;
  /** True once {@link KubeClient.close} was called. */
  readonly closed: boolean;
  /** Authenticated GET of a path below the server URL (rejects on network errors and timeouts). */
  get(path: string, opts?: KubeGetOptions): Promise<KubeHttpResponse>;
  /**
   * Any method on a path below the server URL (the active probes' writes); writes are never retried
   * automatically, except when nothing of them was sent (kube/http.ts `KubeHttp.request`). Resolves
   * with any HTTP answer; rejects on network errors, timeouts and with `signal.reason` on abort.
   */
  request(method: string, path: string, opts?: KubeRequestOptions): Promise<KubeHttpResponse>;
  /** GET + JSON.parse; throws {@link ApiStatusError} on a non-2xx answer or a body that is not JSON. */
  getJson(path: string): Promise<unknown>;
  /** {@link KubeClient.getJson}, also saying how many times the GET was retried. */
  getJsonCounted(path: string, opts?: KubeGetOptions): Promise<{ json: unknown; retries: number }>;
  /**
   * Maps an error of a request (403, 404, network, permission) to an outcome; throws a
   * {@link ToolError} on a 401 (rejected credentials stop the run).
   */
  failure(err: unknown, what: string): Failure;
  /**
   * GETs /version and returns the server's version; throws a {@link ToolError} when the server is
   * unreachable or rejects the credentials.
   */
  probeReachable(): Promise<ServerVersion>;
  /** Credentials and TLS settings for a connection of its own (the exec websocket). */
  connectOptions(): Promise<ConnectOptions>;
  /** Connections opened, requests sent, requests in flight and queued (for benchmarks and tests). */
  stats(): KubeHttpStats;
  /** Registers work to run (first) on close, e.g. terminating exec websockets. */
  onClose(fn: () => Promise<void> | void): void;
  /** Runs the close hooks, then destroys the HTTP agents; idempotent. */
  close(): Promise<void>;
}

/** An API request that came back with a non-2xx status. */
export class ApiStatusError extends Error {
  /** Creates the error from the status code and the server's Status message. */
  constructor(readonly status: number, message: string, readonly url: string) {
    super(message);
    this.name = "ApiStatusError";
  }
}

/** The first line of an error's message (a ToolError in the chain wins), with its `code` when it has one. */
export function shortError(err: unknown): string {
  const chain = errorChain(err);
  for (const e of chain) {
    if (e instanceof ToolError) return e.message;
  }
  const first = chain.find((e): e is Error => e instanceof Error);
  const msg = first ? first.message : String(err);
  const code = first && "code" in first ? first.code : undefined;
  const line = msg.split("\n")[0];
  return typeof code === "string" && !line.includes(code) ? `${line} (${code})` : line;
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Loads the kubeconfig (a {@link ToolError} when it is unusable) and prepares the cluster's HTTP
 * client; nothing is sent until the first request.
 */
export async function openKubeClient(opts: KubeClientOptions = {}): Promise<KubeClient> {
  const loaded = await loadKubeConfig({
    kubeconfig: opts.kubeconfig,
    kubeconfigYaml: opts.kubeconfigYaml,
    kubeconfigs: opts.kubeconfigs,
    context: opts.context,
  });
  const { kc, contextName, server } = loaded;
  const caFingerprint = await caFingerprintOf(loaded.cluster);
  const timeoutMs = opts.requestTimeoutMs ?? 15_000;
  const base = server.replace(/\/+$/, "");
  const netPurpose = `reach the API server ${hostOf(server)}`;
  const credentials = createCredentialSource(loaded.user, {
    contextName,
    cluster: loaded.cluster,
    timeoutMs,
  });
  const http = await createKubeHttp({ cluster: loaded.cluster, credentials }, timeoutMs, {
    credentialsError: (err) =>
      toToolError(err, `prepare the credentials of context ${contextName}`) ??
        new ToolError(`cannot use the credentials of context ${contextName}: ${shortError(err)}`, {
          cause: err,
        }),
    retry: opts.retry,
    maxInFlight: opts.maxInFlight,
    deadline: opts.deadline,
  });
  const hooks: (() => Promise<void> | void)[] = [];
  let closed = false;

  function get(path: string, o?: KubeGetOptions): Promise<KubeHttpResponse> {
    if (closed) return Promise.reject(new Error("the cluster source is closed"));
    return http.get(path, o);
  }

  function request(method: string, path: string, o?: KubeRequestOptions): Promise<KubeHttpResponse> {
    if (closed) return Promise.reject(new Error("the cluster source is closed"));
    return http.request(method, path, o);
  }

  async function getJsonCounted(
    path: string,
    o?: KubeGetOptions,
  ): Promise<{ json: unknown; retries: number }> {
    const res = await get(path, o);
    const retried = afterRetries(res.retries);
    if (res.status < 200 || res.status >= 300) {
      throw new ApiStatusError(res.status, statusMessage(res.status, res.body) + retried, `${base}${path}`);
    }
    try {
      return { json: JSON.parse(res.body), retries: res.retries };
    } catch {
      throw new ApiStatusError(res.status, `invalid JSON from ${path}${retried}`, `${base}${path}`);
    }
  }

  async function getJson(path: string): Promise<unknown> {
    return (await getJsonCounted(path)).json;
  }

  function failure(err: unknown, what: string): Failure {
    const status = httpStatusOf(err);
    if (status === 403) return { ok: false, reason: "forbidden", message: messageOf(err) };
    if (status === 404) return { ok: false, reason: "missing", message: messageOf(err) };
    if (status === 401) {
      // Rejected credentials are whole-cluster: a tool error (exit 3) like a 401 on /version.
      throw new ToolError(
        `the API server at ${server} rejected the credentials of context ${contextName} (401) while ${what}`,
        { cause: err },
      );
    }
    const tool = toToolError(err, netPurpose, { server });
    const retried = afterRetries(retriesOf(err));
    return {
      ok: false,
      reason: "error",
      message: (tool ? tool.message : `${what}: ${shortError(err)}`) + retried,
    };
  }

  async function probeReachable(): Promise<ServerVersion> {
    try {
      const v = (await getJsonCounted("/version", { urgent: true })).json;
      const git = v && typeof v === "object" ? (v as { gitVersion?: unknown }).gitVersion : undefined;
      return { gitVersion: typeof git === "string" && git !== "" ? git : null };
    } catch (err) {
      const status = httpStatusOf(err);
      if (status === 401 || status === 403) {
        throw new ToolError(
          `the API server at ${server} rejected the credentials of context ${contextName} (${status})`,
          { cause: err },
        );
      }
      const tool = toToolError(err, netPurpose, { server, context: contextName, firstRequest: true });
      if (tool) throw tool;
      if (status !== undefined) {
        throw new ToolError(
          `the API server at ${server} answered /version with ${status}: ${messageOf(err)}`,
          {
            cause: err,
          },
        );
      }
      throw new ToolError(`cannot reach the API server at ${server}: ${shortError(err)}`, { cause: err });
    }
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const fn of hooks.splice(0)) await fn();
    http.close();
    await credentials.close();
  }

  return {
    kc,
    loaded,
    endpoint: { context: contextName, server, ...(caFingerprint ? { caFingerprint } : {}) },
    timeoutMs,
    netPurpose,
    get closed(): boolean {
      return closed;
    },
    get,
    request,
    getJson,
    getJsonCounted,
    failure,
    probeReachable,
    connectOptions: () => http.connectOptions(),
    stats: () => http.stats(),
    onClose: (fn) => void hooks.push(fn),
    close,
  };
}

/** What identifies the cluster's CA in a kubeconfig (never the CA itself): see ClusterEndpoint. */
async function caFingerprintOf(cluster: { caData?: string; caFile?: string }): Promise<string | undefined> {
  if (cluster.caData) {
    const bytes = new TextEncoder().encode(cluster.caData.replace(/\s+/g, ""));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return [...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return cluster.caFile ? `file:${cluster.caFile}` : undefined;
}
