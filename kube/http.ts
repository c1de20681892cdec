/**
 * The authenticated GET of one cluster (used by kube/live/client.ts): Node's http(s) client with the
 * context's credentials (kube/credentials.ts) and TLS settings, a per-request timeout, an optional
 * byte bound on the body, and ONE keep-alive agent per client, so that a run's requests share a few
 * TCP+TLS connections instead of opening one per request.
 *
 * At most {@link MAX_IN_FLIGHT} requests of a cluster are in flight at once (the agent has as many
 * sockets); the others wait in FIFO order. A request's timeout (`--request-timeout`, as kubectl's)
 * starts when it is sent, never while it waits for a slot: whether a request times out depends on the
 * server, not on how many others were queued before it. The wait for a slot is bounded by the run
 * (closing the client, which the run's `--timeout` does, rejects every waiter). A 20k-pod cluster then
 * costs at most that many connections and that many bodies being received at once.
 *
 * Failed GETs are retried like client-go does (see {@link RetryPolicy}): a 429 or 5xx answer with a
 * `Retry-After` is sent again after that wait, up to {@link MAX_RETRY_AFTER} times; 429 and 5xx
 * answers without one and connections reset or dropped mid-answer are retried with exponential
 * backoff and jitter. Every attempt gets the whole request timeout; a timed-out attempt is not
 * retried (client-go does not either: the server had its full budget). A 401 with credentials from
 * an exec plugin runs the plugin again and resends once (client-go does too).
 *
 * Writes (the active probes' creates and deletes, {@link KubeHttp.request}) share the agent, the
 * limiter, the credentials and the timeout, but are NEVER retried automatically: only a connection
 * that failed before any byte of the request was sent is tried again.
 *
 * Why node:https and not fetch: fetch cannot present a client certificate per cluster without
 * Deno.createHttpClient, and an HTTP/2 GOAWAY aborted the process through the undici transport
 * (see DESIGN.md). The node: modules are imported lazily, inside {@link createKubeHttp}.
 */
import type { Agent as HttpAgent, ClientRequest, IncomingMessage } from "node:http";
import type { AgentOptions } from "node:https";
import { PermissionError, ToolError } from "../errors.ts";
import { parsedCaPem } from "./ca.ts";
import { delay } from "../time.ts";
import type { CredentialSource, RequestCredentials } from "./credentials.ts";
import { type Cluster, readFailure } from "./kubeconfig.ts";
import { createLimiter, type LimiterStats } from "./limiter.ts";
import { type CreateConnection, proxyConnection } from "./proxy.ts";

/** Status and (decoded, possibly truncated) body of one GET. */
export interface KubeHttpResponse {
  /** HTTP status code (0 when the server sent none). */
  status: number;
  /** The body as text. */
  body: string;
  /** How many times the GET was retried before this answer (0: the first attempt). */
  retries: number;
}

/**
 * How a GET that failed transiently is retried: 429, 500, 502, 503 and 504 answers, connections reset
 * or dropped mid-answer. An answer with a `Retry-After` is retried after that wait, up to
 * {@link MAX_RETRY_AFTER} times (client-go's `maxRetries`), as long as the wait is no longer than the
 * request timeout and ends before the run's deadline ({@link KubeHttpOptions.deadline}); the others
 * are retried `attempts - 1` times, waiting `min(capMs, baseMs × 2^(n-1))` with ±50% jitter before
 * retry n (1, 2, …). Timeouts are not retried.
 */
export interface RetryPolicy {
  /** Most attempts of one GET without `Retry-After`, the first included (1: never retry at all). */
  attempts: number;
  /** Backoff before the first retry, in milliseconds; it doubles with each retry. */
  baseMs: number;
  /** Longest backoff, in milliseconds (a `Retry-After` may ask for longer, within the budget). */
  capMs: number;
}

/** kubectl-like defaults: 3 attempts, 200 ms base, 2 s cap. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseMs: 200, capMs: 2_000 };

/** Statuses that are retried. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * Most retries of one request the server asked for with `Retry-After` (client-go's default
 * `maxRetries`, k8s.io/client-go/rest/request.go).
 */
export const MAX_RETRY_AFTER = 10;

/** Least time a retry must have before the run's deadline once its wait is over. */
export const MIN_ATTEMPT_MS = 50;

const errorRetries = new WeakMap<object, number>();

/** Errors of requests that failed before they had an established connection: nothing was sent. */
const unsentErrors = new WeakSet<object>();

/** True when `err` failed a request before any byte of it was sent (see {@link KubeHttp.request}). */
export function isUnsent(err: unknown): boolean {
  return typeof err === "object" && err !== null && unsentErrors.has(err);
}

/** How many times a GET was retried before it failed with `err` (0 when it was not retried). */
export function retriesOf(err: unknown): number {
  return typeof err === "object" && err !== null ? errorRetries.get(err) ?? 0 : 0;
}

/** " (after N retries)", or "" for none. */
export function afterRetries(n: number): string {
  return n > 0 ? ` (after ${n} ${n === 1 ? "retry" : "retries"})` : "";
}

/** Options of one {@link KubeHttp.get}. */
export interface KubeGetOptions {
  /** The Accept header (default `application/json`). */
  accept?: string;
  /** Keep at most this many bytes of the body (default: all of it). */
  maxBytes?: number;
  /** Go before non-urgent requests waiting for a slot (what the run's critical path waits on). */
  urgent?: boolean;
}

/** Options of one {@link KubeHttp.request}. */
export interface KubeRequestOptions {
  /** The request body (sent with `contentType`). */
  body?: string;
  /** The Content-Type of `body` (default `application/json`). */
  contentType?: string;
  /** The Accept header (default `application/json`). */
  accept?: string;
  /** Aborts the request (also while it waits for a slot); it then rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** Options of {@link createKubeHttp}. */
export interface KubeHttpOptions {
  /**
   * Maps an error of getting the credentials (e.g. a failing exec credential plugin) to the error
   * that {@link KubeHttp.get} throws; without it the error is thrown as it is.
   */
  credentialsError?: (err: unknown) => unknown;
  /** Most requests in flight at once, and so most connections (default {@link MAX_IN_FLIGHT}). */
  maxInFlight?: number;
  /** How failed GETs are retried (default {@link DEFAULT_RETRY}). */
  retry?: RetryPolicy;
  /**
   * The run's deadline (epoch milliseconds): no retry is started whose wait would end after it.
   * Without one, waits are bounded by the request timeout each, and all of them by {@link KubeHttp.close}.
   */
  deadline?: number;
}

/** What a connection to the API server needs: TLS material, headers, and the proxy agent if any. */
export interface ConnectOptions {
  /** Headers with the credentials (Authorization, Impersonate-*). */
  headers: Record<string, string>;
  /** TLS options for node:https / ws (ca, cert, key, servername, rejectUnauthorized). */
  tls: AgentOptions;
  /** How to open the connection when the cluster has a `proxy-url` (undefined: connect directly). */
  createConnection?: CreateConnection;
}

/** Connection and queue counters of one cluster's client (for benchmarks and tests). */
export interface KubeHttpStats extends LimiterStats {
  /** TCP connections opened so far (to the API server, or to its proxy). */
  connectionsOpened: number;
  /** GETs answered or failed so far (each attempt counts). */
  requests: number;
}

/** Authenticated GETs on one API server. */
export interface KubeHttp {
  /**
   * GETs `path` (below the server URL), retrying transient failures ({@link RetryPolicy}); rejects on
   * network errors and on timeout (`TimeoutError`) once the retries are spent ({@link retriesOf}).
   */
  get(path: string, opts?: KubeGetOptions): Promise<KubeHttpResponse>;
  /**
   * Any method on `path` (the writes of the active probes), through the same agent, limiter,
   * credentials and timeout as {@link KubeHttp.get}. GET and HEAD are retried like `get`; any other
   * method is sent ONCE: a write whose answer was lost may have happened, so resending it could act
   * twice. The one exception is a connection that failed before a byte of the request went out (a
   * connect or TLS handshake reset or dropped before the connection was established): the server
   * cannot have seen it, so it is sent again within the time budget (refused connections are not,
   * like GETs; a kept-alive connection that dies under a write counts as sent). Rejects on network
   * errors, on timeout (`TimeoutError`) and with `signal.reason` when `signal` aborts.
   */
  request(method: string, path: string, opts?: KubeRequestOptions): Promise<KubeHttpResponse>;
  /** Credentials and TLS settings for a connection of its own (the exec websocket). */
  connectOptions(): Promise<ConnectOptions>;
  /** Connection and queue counters. */
  stats(): KubeHttpStats;
  /** Destroys the agents (and so the kept-alive connections); idempotent. */
  close(): void;
}

/**
 * Default bound on the requests in flight (and so on the connections) of one cluster. A run lists
 * ~30 kinds at once and pages through big ones: 16 keeps the server busy without opening a
 * connection (and a TLS handshake) per list; more requests wait in FIFO order.
 */
export const MAX_IN_FLIGHT = 16;

/** The same bound, under its former name (the agent has exactly this many sockets). */
export const MAX_SOCKETS = MAX_IN_FLIGHT;

type AnyAgent = HttpAgent & { destroy(): void };

/** Every client's counters in this process, summed: what a benchmark reads after a run. */
const processStats = { connectionsOpened: 0, requests: 0 };

/** TCP connections opened and requests sent by every cluster client of this process so far. */
export function processConnectionStats(): { connectionsOpened: number; requests: number } {
  return { ...processStats };
}

/** The TLS settings of a cluster: its CA (data or file), server name and verification switch. */
async function clusterTls(cluster: Cluster): Promise<AgentOptions> {
  const tls: AgentOptions = {};
  if (cluster.caData) {
    const where = `certificate-authority-data of cluster "${cluster.name}"`;
    tls.ca = parsedCaPem(atob(cluster.caData.replace(/\s+/g, "")), where);
  } else if (cluster.caFile) {
    try {
      tls.ca = parsedCaPem(
        await Deno.readTextFile(cluster.caFile),
        `certificate-authority ${cluster.caFile} of cluster "${cluster.name}"`,
      );
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (err instanceof Deno.errors.NotCapable) {
        throw new PermissionError("--allow-read", `read the certificate-authority ${cluster.caFile}`, {
          cause: err,
        });
      }
      throw new ToolError(
        `cannot read certificate-authority ${cluster.caFile} of cluster ${cluster.name}: ${readFailure(err)}`,
        { cause: err },
      );
    }
  }
  if (cluster.skipTLSVerify) tls.rejectUnauthorized = false;
  if (cluster.tlsServerName) tls.servername = cluster.tlsServerName;
  return tls;
}

/** Where requests go and with which credentials. */
export interface KubeHttpTarget {
  /** The context's cluster (server URL, TLS settings, proxy). */
  cluster: Cluster;
  /** The context's credentials. */
  credentials: CredentialSource;
}

/**
 * Creates the GET client of a cluster; each attempt of a request times out `timeoutMs` after it was
 * sent (its wait for a free slot does not count). Credentials are asked for on every request (an exec plugin's
 * token is refreshed when it expires); the keep-alive agent is built on the first request (again
 * only if a plugin hands out a new client certificate).
 */
export async function createKubeHttp(
  target: KubeHttpTarget,
  timeoutMs: number,
  opts: KubeHttpOptions = {},
): Promise<KubeHttp> {
  const http = await import("node:http");
  const https = await import("node:https");
  const { cluster, credentials } = target;
  const base = cluster.server.replace(/\/+$/, "");
  const secure = base.startsWith("https:");
  const doRequest = secure ? https.request : http.request;
  const maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT;
  const limiter = createLimiter(maxInFlight);
  const agents = new Map<string, AnyAgent>();
  const seenSockets = new WeakSet<object>();
  let connectionsOpened = 0;
  let requests = 0;
  let tlsBase: Promise<AgentOptions> | null = null;
  /** Aborted by close(): the slot waiters and the retry waits end with it. */
  const closing = new AbortController();

  async function tlsFor(creds: RequestCredentials): Promise<AgentOptions> {
    tlsBase ??= clusterTls(cluster).catch((err) => {
      tlsBase = null;
      throw err;
    });
    const tls = { ...(await tlsBase) };
    if (creds.cert && creds.key) {
      tls.cert = creds.cert;
      tls.key = creds.key;
    }
    return tls;
  }

  /** The keep-alive agent for these TLS settings (one per client certificate: normally one). */
  function agentFor(tls: AgentOptions): AnyAgent {
    const key = `${tls.cert ?? ""}\0${tls.key ?? ""}`;
    let agent = agents.get(key);
    if (agent) return agent;
    const common = { keepAlive: true, maxSockets: maxInFlight, scheduling: "lifo" as const };
    agent = (secure ? new https.Agent({ ...common, ...tls }) : new http.Agent(common)) as AnyAgent;
    if (cluster.proxyUrl) {
      const connect = proxyConnection(cluster.proxyUrl, secure ? tls : null);
      (agent as unknown as { createConnection: unknown }).createConnection = connect;
    }
    agents.set(key, agent);
    return agent;
  }

  async function credentialsNow(): Promise<RequestCredentials> {
    try {
      return await credentials.get();
    } catch (err) {
      throw opts.credentialsError ? opts.credentialsError(err) : err;
    }
  }

  const policy = opts.retry ?? DEFAULT_RETRY;

  function countSocket(req: ClientRequest): void {
    req.on("socket", (s: object) => {
      if (seenSockets.has(s)) return;
      seenSockets.add(s);
      connectionsOpened++;
      processStats.connectionsOpened++;
    });
  }

  /**
   * One attempt, timing out `timeoutMs` after it got a slot and was sent. A kept-alive
   * connection the server closed while it sat idle fails with ECONNRESET/EPIPE as soon as it is
   * reused: such a GET is sent once more at once (Node's advice), which is not counted as a retry.
   * Other methods are never resent here; an error raised before the request had an established
   * connection is marked as {@link unsentErrors} (nothing of it reached the server).
   */
  async function attempt(
    url: string,
    agent: AnyAgent,
    headers: Record<string, string>,
    maxBytes: number,
    urgent = false,
    extra: { method?: string; body?: string; signal?: AbortSignal } = {},
  ): Promise<Answer> {
    const timeout = (): Error => {
      const err = new Error(`request timed out after ${timeoutMs} ms`);
      err.name = "TimeoutError";
      return err;
    };
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outers = [closing.signal, ...(extra.signal ? [extra.signal] : [])];
    const onOuterAbort = (): void => ctl.abort(outers.find((o) => o.aborted)?.reason);
    for (const o of outers) {
      if (o.aborted) onOuterAbort();
      else o.addEventListener("abort", onOuterAbort, { once: true });
    }
    const method = extra.method ?? "GET";
    const idempotent = method === "GET" || method === "HEAD";
    let release: (() => void) | null = null;
    try {
      release = await limiter.acquire(ctl.signal, urgent);
      // The request's own time starts now that it is sent (kubectl's --request-timeout).
      timer = setTimeout(() => ctl.abort(timeout()), timeoutMs);
      const send = (mayResend: boolean): Promise<Answer> =>
        new Promise<Answer>((resolve, reject) => {
          let done = false;
          const finish = (f: () => void): void => {
            if (!done) {
              done = true;
              ctl.signal.removeEventListener("abort", onAbort);
              f();
            }
          };
          requests++;
          processStats.requests++;
          const req = doRequest(url, { method, agent, headers }, (res: IncomingMessage) => {
            const chunks: Uint8Array[] = [];
            let size = 0;
            res.on("data", (c: Uint8Array) => {
              if (size < maxBytes) chunks.push(c.subarray(0, maxBytes - size));
              size += c.length;
            });
            res.on("end", () =>
              finish(() =>
                resolve({
                  status: res.statusCode ?? 0,
                  body: new TextDecoder().decode(concatBytes(chunks)),
                  retryAfter: headerValue(res.headers["retry-after"]),
                })
              ));
            res.on("error", (err: unknown) => finish(() => reject(err)));
            // A connection cut mid-body (no `end`): the same error Node gives for it.
            res.on("close", () => {
              if (!res.complete) {
                finish(() => reject(Object.assign(new Error("aborted"), { code: "ECONNRESET" })));
              }
            });
          });
          countSocket(req);
          // Whether the request had an established connection (so bytes of it may have gone out).
          let established = false;
          req.on("socket", (sock: { connecting?: boolean; once(e: string, f: () => void): void }) => {
            if (sock.connecting !== true) established = true;
            else sock.once(secure ? "secureConnect" : "connect", () => established = true);
          });
          const onAbort = (): void => {
            finish(() => reject(ctl.signal.reason));
            req.destroy(ctl.signal.reason);
          };
          ctl.signal.addEventListener("abort", onAbort, { once: true });
          req.on("error", (err: unknown) =>
            finish(() => {
              if (idempotent && mayResend && req.reusedSocket && isStaleConnection(err)) resolve(send(false));
              else {
                if (!established && typeof err === "object" && err !== null) unsentErrors.add(err);
                reject(err);
              }
            }));
          req.end(extra.body);
        });
      return await send(true);
    } finally {
      clearTimeout(timer);
      for (const o of outers) o.removeEventListener("abort", onOuterAbort);
      release?.();
    }
  }

  /** One request to send, and how it may be retried. */
  interface Exchange {
    method: string;
    accept: string;
    body?: string;
    contentType?: string;
    signal?: AbortSignal;
    maxBytes: number;
    urgent: boolean;
    /** Whether a failed attempt may be sent again. */
    retryable(answer: Answer | null, error: unknown): boolean;
  }

  /**
   * Sends `x` to `path`, each attempt within the request timeout, renewing exec-plugin credentials
   * once on a 401 (the server did nothing with a rejected request) and retrying as `x.retryable`
   * allows, after the server's Retry-After or with backoff ({@link RetryPolicy}).
   */
  async function exchange(path: string, x: Exchange): Promise<KubeHttpResponse> {
    const url = `${base}${path}`;
    let renewed = false;
    let backoffRetries = 0;
    let creds = await credentialsNow();
    let agent = agentFor(await tlsFor(creds));
    const wire = x.method === "GET" && x.body === undefined && x.signal === undefined
      ? undefined
      : { method: x.method, body: x.body, signal: x.signal };
    for (let retries = 0;; retries++) {
      const headers: Record<string, string> = {
        ...creds.headers,
        Accept: x.accept,
        "User-Agent": "flyingfish",
      };
      if (x.body !== undefined) {
        headers["Content-Type"] = x.contentType ?? "application/json";
        // Explicit: Node frames no body of a DELETE by default (no chunked encoding for it).
        headers["Content-Length"] = String(new TextEncoder().encode(x.body).length);
      }
      let answer: Answer | null = null;
      let error: unknown = null;
      try {
        answer = await attempt(url, agent, headers, x.maxBytes, x.urgent, wire);
      } catch (err) {
        error = err;
      }
      if (answer?.status === 401 && !renewed && credentials.renew()) {
        // The plugin's token may have been revoked before its expiry: ask once more, resend once.
        renewed = true;
        creds = await credentialsNow();
        agent = agentFor(await tlsFor(creds));
        retries--;
        continue;
      }
      const wait = x.retryable(answer, error) ? retryWait(answer, retries, backoffRetries) : null;
      if (wait === null) {
        if (answer) return { status: answer.status, body: answer.body, retries };
        if (typeof error === "object" && error !== null) errorRetries.set(error, retries);
        throw error;
      }
      if (wait.backoff) backoffRetries++;
      try {
        await delay(wait.ms, { signal: closing.signal });
      } catch {
        // Closed while waiting (the run ended): the last outcome stands, as if no retry was due.
        if (answer) return { status: answer.status, body: answer.body, retries };
        if (typeof error === "object" && error !== null) errorRetries.set(error, retries);
        throw error;
      }
    }
  }

  /**
   * The wait before the next attempt of a retryable failure, or null when none is due: the server's
   * Retry-After (up to {@link MAX_RETRY_AFTER} times, no longer than the request timeout), else the
   * policy's backoff (`attempts - 1` times); never one that ends past the run's deadline.
   */
  function retryWait(
    answer: Answer | null,
    retries: number,
    backoffRetries: number,
  ): { ms: number; backoff: boolean } | null {
    if (policy.attempts <= 1) return null;
    const asked = answer ? retryAfterMs(answer.retryAfter) : null;
    let wait: { ms: number; backoff: boolean } | null = null;
    if (asked !== null) {
      if (retries < MAX_RETRY_AFTER && asked <= timeoutMs) wait = { ms: asked, backoff: false };
    } else if (backoffRetries + 1 < policy.attempts) {
      wait = { ms: backoffMs(policy, backoffRetries + 1), backoff: true };
    }
    if (wait && opts.deadline !== undefined && Date.now() + wait.ms + MIN_ATTEMPT_MS > opts.deadline) {
      return null;
    }
    return wait;
  }

  /** Reads are retried on the transient statuses and errors. */
  const retryRead = (answer: Answer | null, error: unknown): boolean =>
    answer ? RETRYABLE_STATUSES.has(answer.status) : isTransientError(error);

  function get(path: string, o: KubeGetOptions = {}): Promise<KubeHttpResponse> {
    return exchange(path, {
      method: "GET",
      accept: o.accept ?? "application/json",
      maxBytes: o.maxBytes ?? Infinity,
      urgent: o.urgent === true,
      retryable: retryRead,
    });
  }

  async function request(
    method: string,
    path: string,
    o: KubeRequestOptions = {},
  ): Promise<KubeHttpResponse> {
    const m = method.toUpperCase();
    if ((m === "GET" || m === "HEAD") && o.body === undefined && !o.signal) {
      return await get(path, { accept: o.accept });
    }
    const idempotent = m === "GET" || m === "HEAD";
    return await exchange(path, {
      method: m,
      accept: o.accept ?? "application/json",
      body: o.body,
      contentType: o.contentType,
      signal: o.signal,
      maxBytes: Infinity,
      urgent: false,
      // Reads retry like get(); a write only when the server cannot have seen it (see KubeHttp.request).
      retryable: (answer, error) =>
        !o.signal?.aborted &&
        (idempotent
          ? retryRead(answer, error)
          : answer === null && isUnsent(error) && isTransientError(error)),
    });
  }

  async function connectOptions(): Promise<ConnectOptions> {
    const creds = await credentialsNow();
    const tls = await tlsFor(creds);
    return {
      headers: creds.headers,
      tls,
      createConnection: cluster.proxyUrl ? proxyConnection(cluster.proxyUrl, secure ? tls : null) : undefined,
    };
  }

  function close(): void {
    if (!closing.signal.aborted) closing.abort(new Error("the cluster client is closed"));
    for (const a of agents.values()) {
      try {
        a.destroy();
      } catch {
        // ignore
      }
    }
    agents.clear();
  }

  return {
    get,
    request,
    connectOptions,
    stats: () => ({ ...limiter.stats(), connectionsOpened, requests }),
    close,
  };
}

/**
 * The message of a non-2xx answer: the `message` of the Kubernetes Status in `body`, else
 * `HTTP <status>`, followed (unless `bodyExcerpt` is false) by the first line of a non-empty body.
 */
export function statusMessage(status: number, body: string, opts: { bodyExcerpt?: boolean } = {}): string {
  try {
    const s: unknown = JSON.parse(body);
    if (
      s && typeof s === "object" && "message" in s && typeof s.message === "string" && s.message.length > 0
    ) {
      return s.message;
    }
  } catch {
    // not a Status object
  }
  const text = opts.bodyExcerpt === false ? "" : body.trim().split("\n")[0].slice(0, 200);
  return text.length > 0 ? `HTTP ${status}: ${text}` : `HTTP ${status}`;
}

/** One attempt's answer. */
interface Answer {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds or an HTTP date; null
 * without one (or when it cannot be read).
 */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The backoff before retry `n` (1, 2, …): exponential from `baseMs` with ±50% jitter, capped. */
export function backoffMs(policy: RetryPolicy, n: number, random: () => number = Math.random): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** (n - 1));
  return Math.round(Math.min(policy.capMs, exp * (0.5 + random())));
}

/**
 * True for failures worth another attempt: connections reset or dropped mid-answer (client-go's
 * IsConnectionReset and IsProbableEOF). Timeouts (the server had the whole request timeout), refused
 * connections, DNS and TLS errors and missing permissions are not.
 */
export function isTransientError(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const name = "name" in err ? err.name : undefined;
  if (name === "ConnectionReset" || name === "ConnectionAborted") return true;
  const code = "code" in err ? err.code : undefined;
  if (code === "ECONNRESET" || code === "EPIPE" || code === "ECONNABORTED" || code === "ETIMEDOUT") {
    return true;
  }
  const message = "message" in err && typeof err.message === "string" ? err.message : "";
  return /^(socket hang up|aborted)$/.test(message);
}

/** True for the errors of a request sent on a kept-alive connection the server had closed. */
function isStaleConnection(err: unknown): boolean {
  const code = typeof err === "object" && err !== null && "code" in err ? err.code : undefined;
  return code === "ECONNRESET" || code === "EPIPE";
}

/** Joins byte chunks into one array. */
function concatBytes(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}
