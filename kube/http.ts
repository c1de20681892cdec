/**
 * The authenticated GET of one cluster (used by kube/live/client.ts): Node's http(s) client with the
 * kubeconfig's credentials applied by client-node's `applyToHTTPSOptions`, a per-request timeout, an
 * optional byte bound on the body, and ONE keep-alive agent per client, built on the first request
 * from the TLS options client-node computed, so that a run's requests share a few TCP+TLS
 * connections instead of opening one per request (client-node's own agent has no keep-alive).
 *
 * Failed GETs are retried like kubectl does (see {@link RetryPolicy}): 429 and 503 (honouring
 * `Retry-After`), the other 5xx gateway/server errors, connection resets and timeouts, with exponential
 * backoff and jitter, all within the request's time budget (`timeoutMs` covers every attempt).
 *
 * Why node:https and not client-node's fetch transport: its undici dispatcher negotiates HTTP/2 and
 * a server GOAWAY aborts the Deno process (see DESIGN.md). The node: modules are imported lazily,
 * inside {@link createKubeHttp}; client-node is only used through the already loaded `KubeConfig`.
 */
import type { Agent as HttpAgent, IncomingMessage } from "node:http";
import type { RequestOptions } from "node:https";
import type { KubeConfig } from "./kubeconfig.ts";

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
 * How a GET that failed transiently is retried: 429, 500, 502, 503 and 504 answers, connection resets
 * and timeouts. The wait before retry n (1, 2, …) is `min(capMs, baseMs × 2^(n-1))` with ±50% jitter,
 * or the answer's `Retry-After` when it has one. Retries stay within the request's time budget: an
 * attempt that is not the last may use all of the remaining time but a reserve (a third of it, at most
 * {@link RETRY_RESERVE_MS}) for the next one, and no retry starts when its wait would not leave at least
 * {@link MIN_ATTEMPT_MS} for it.
 */
export interface RetryPolicy {
  /** Most attempts of one GET, the first included (1: never retry). */
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

/** Most time an attempt that is not the last keeps in reserve for the next one. */
export const RETRY_RESERVE_MS = 5_000;

/** Least time a retry must have left once its wait is over. */
export const MIN_ATTEMPT_MS = 50;

const errorRetries = new WeakMap<object, number>();

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
}

/** Options of {@link createKubeHttp}. */
export interface KubeHttpOptions {
  /**
   * Maps an error of applying the credentials (e.g. a failing exec credential plugin) to the error
   * that {@link KubeHttp.get} throws; without it the error is thrown as it is.
   */
  credentialsError?: (err: unknown) => unknown;
  /** Most connections the keep-alive agent opens at once (default {@link MAX_SOCKETS}). */
  maxSockets?: number;
  /** How failed GETs are retried (default {@link DEFAULT_RETRY}). */
  retry?: RetryPolicy;
}

/** Authenticated GETs on one API server. */
export interface KubeHttp {
  /**
   * GETs `path` (below the server URL), retrying transient failures ({@link RetryPolicy}); rejects on
   * network errors and on timeout (`TimeoutError`) once the retries are spent ({@link retriesOf}).
   */
  get(path: string, opts?: KubeGetOptions): Promise<KubeHttpResponse>;
  /** Destroys the agents (and so the kept-alive connections); idempotent. */
  close(): void;
}

/**
 * Default bound on the connections of one cluster: a run lists ~30 kinds in parallel; more requests
 * than this wait for a free kept-alive connection (their timeout runs while they wait).
 */
export const MAX_SOCKETS = 8;

/** The agent client-node puts in the request options (http.Agent or a proxy agent). */
type AnyAgent = HttpAgent & { destroy(): void };

/**
 * Creates the GET client of `server` with the credentials of `kc`; each request (all its attempts)
 * times out after `timeoutMs`. Credentials are applied to every request (client-node refreshes expiring exec-plugin
 * tokens); the keep-alive agent is built once, on the first request.
 */
export async function createKubeHttp(
  kc: KubeConfig,
  server: string,
  timeoutMs: number,
  opts: KubeHttpOptions = {},
): Promise<KubeHttp> {
  const http = await import("node:http");
  const https = await import("node:https");
  const base = server.replace(/\/+$/, "");
  const secure = base.startsWith("https:");
  const doRequest = secure ? https.request : http.request;
  const viaProxy = Boolean(kc.getCurrentCluster()?.proxyUrl);
  /** Agents to destroy on close: ours, and the one client-node caches (also used by exec websockets). */
  const agents = new Set<AnyAgent>();
  let keepAlive: AnyAgent | null = null;

  /** Our agent, built once from the TLS options client-node applied (proxies: client-node's agent). */
  function agentFor(options: RequestOptions): AnyAgent | undefined {
    const theirs = options.agent instanceof http.Agent ? options.agent as AnyAgent : undefined;
    if (theirs) agents.add(theirs);
    if (viaProxy) return theirs;
    if (!keepAlive) {
      const common = {
        keepAlive: true,
        maxSockets: opts.maxSockets ?? MAX_SOCKETS,
        scheduling: "lifo" as const,
      };
      keepAlive = secure
        ? new https.Agent({
          ...common,
          ca: options.ca,
          cert: options.cert,
          key: options.key,
          pfx: options.pfx,
          passphrase: options.passphrase,
          servername: options.servername,
          ...(options.rejectUnauthorized !== undefined
            ? { rejectUnauthorized: options.rejectUnauthorized }
            : {}),
        })
        : new http.Agent(common);
      agents.add(keepAlive);
    }
    return keepAlive;
  }

  const policy = opts.retry ?? DEFAULT_RETRY;

  async function get(path: string, o: KubeGetOptions = {}): Promise<KubeHttpResponse> {
    const accept = o.accept ?? "application/json";
    const maxBytes = o.maxBytes ?? Infinity;
    const options: RequestOptions = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(options);
    } catch (err) {
      throw opts.credentialsError ? opts.credentialsError(err) : err;
    }
    const agent = agentFor(options);
    const url = `${base}${path}`;
    const headers = { ...options.headers, Accept: accept, "User-Agent": "flyingfish" };
    const deadline = Date.now() + timeoutMs;
    /**
     * One attempt, timing out at `attemptDeadline`. A kept-alive connection the server closed while it
     * sat idle fails with ECONNRESET/EPIPE as soon as it is reused: such a GET is sent once more at
     * once (Node's advice), which is not counted as a retry.
     */
    const attempt = (mayRetry: boolean, attemptDeadline: number): Promise<Answer> =>
      new Promise<Answer>((resolve, reject) => {
        let done = false;
        const finish = (f: () => void): void => {
          if (!done) {
            done = true;
            clearTimeout(timer);
            f();
          }
        };
        const req = doRequest(
          url,
          { method: "GET", agent, auth: options.auth, headers },
          (res: IncomingMessage) => {
            const chunks: Uint8Array[] = [];
            let size = 0;
            res.on("data", (c: Uint8Array) => {
              if (size < maxBytes) chunks.push(c.subarray(0, maxBytes - size));
              size += c.length;
            });
            res.on(
              "end",
              () =>
                finish(() =>
                  resolve({
                    status: res.statusCode ?? 0,
                    body: new TextDecoder().decode(concatBytes(chunks)),
                    retryAfter: headerValue(res.headers["retry-after"]),
                  })
                ),
            );
            res.on("error", (err: unknown) => finish(() => reject(err)));
            // A connection cut mid-body (no `end`): the same error Node gives for it.
            res.on("close", () => {
              if (!res.complete) {
                finish(() => reject(Object.assign(new Error("aborted"), { code: "ECONNRESET" })));
              }
            });
          },
        );
        const timer: ReturnType<typeof setTimeout> = setTimeout(() => {
          const err = new Error(`request timed out after ${timeoutMs} ms`);
          err.name = "TimeoutError";
          finish(() => reject(err));
          req.destroy(err);
        }, Math.max(0, attemptDeadline - Date.now()));
        req.on("error", (err: unknown) =>
          finish(() => {
            if (mayRetry && req.reusedSocket && isStaleConnection(err)) {
              resolve(attempt(false, attemptDeadline));
            } else reject(err);
          }));
        req.end();
      });
    for (let retries = 0;; retries++) {
      const remaining = deadline - Date.now();
      const last = retries + 1 >= policy.attempts;
      const attemptMs = last ? remaining : remaining - Math.min(remaining / 3, RETRY_RESERVE_MS);
      let answer: Answer | null = null;
      let error: unknown = null;
      try {
        answer = await attempt(true, Date.now() + attemptMs);
      } catch (err) {
        error = err;
      }
      const retryable = answer ? RETRYABLE_STATUSES.has(answer.status) : isTransientError(error);
      const wait = retryable && !last
        ? (answer ? retryAfterMs(answer.retryAfter) : null) ?? backoffMs(policy, retries + 1)
        : null;
      if (wait === null || Date.now() + wait + MIN_ATTEMPT_MS > deadline) {
        if (answer) return { status: answer.status, body: answer.body, retries };
        if (typeof error === "object" && error !== null) errorRetries.set(error, retries);
        throw error;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  function close(): void {
    for (const a of agents) {
      try {
        a.destroy();
      } catch {
        // ignore
      }
    }
    agents.clear();
    keepAlive = null;
  }

  return { get, close };
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
 * True for failures worth another attempt: timeouts and connections reset or dropped mid-answer.
 * Refused connections, DNS and TLS errors and missing permissions are not transient.
 */
export function isTransientError(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const name = "name" in err ? err.name : undefined;
  if (name === "TimeoutError" || name === "ConnectionReset" || name === "ConnectionAborted") return true;
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
