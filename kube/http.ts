/**
 * The authenticated GET of one cluster (used by kube/live/client.ts): Node's http(s) client with the
 * kubeconfig's credentials applied by client-node's `applyToHTTPSOptions`, a per-request timeout, an
 * optional byte bound on the body, and ONE keep-alive agent per client, built on the first request
 * from the TLS options client-node computed, so that a run's requests share a few TCP+TLS
 * connections instead of opening one per request (client-node's own agent has no keep-alive).
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
}

/** Authenticated GETs on one API server. */
export interface KubeHttp {
  /** GETs `path` (below the server URL); rejects on network errors and on timeout (`TimeoutError`). */
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
 * Creates the GET client of `server` with the credentials of `kc`; each request times out after
 * `timeoutMs`. Credentials are applied to every request (client-node refreshes expiring exec-plugin
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
     * One attempt. A kept-alive connection the server closed while it sat idle fails with
     * ECONNRESET/EPIPE as soon as it is reused: such a GET is sent once more (Node's advice).
     */
    const attempt = (mayRetry: boolean): Promise<KubeHttpResponse> =>
      new Promise<KubeHttpResponse>((resolve, reject) => {
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
                  })
                ),
            );
            res.on("error", (err: unknown) => finish(() => reject(err)));
          },
        );
        const timer: ReturnType<typeof setTimeout> = setTimeout(() => {
          const err = new Error(`request timed out after ${timeoutMs} ms`);
          err.name = "TimeoutError";
          finish(() => reject(err));
          req.destroy(err);
        }, Math.max(0, deadline - Date.now()));
        req.on("error", (err: unknown) =>
          finish(() => {
            if (mayRetry && req.reusedSocket && isStaleConnection(err)) resolve(attempt(false));
            else reject(err);
          }));
        req.end();
      });
    return await attempt(true);
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
