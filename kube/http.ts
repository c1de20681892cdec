/**
 * The authenticated GET shared by the live source (live.ts) and the collector's reader (logs.ts):
 * Node's http(s) client with the kubeconfig's credentials applied by client-node's
 * `applyToHTTPSOptions`, a per-request timeout and an optional byte bound on the body. The node:
 * modules are imported lazily, inside {@link createKubeHttp}; client-node is only used through the
 * already loaded `KubeConfig`.
 */
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
}

/** Authenticated GETs on one API server. */
export interface KubeHttp {
  /** GETs `path` (below the server URL); rejects on network errors and on timeout (`TimeoutError`). */
  get(path: string, opts?: KubeGetOptions): Promise<KubeHttpResponse>;
  /** Destroys the agents created for the requests. */
  close(): void;
}

/** Creates the GET client of `server` with the credentials of `kc`; each request times out after `timeoutMs`. */
export async function createKubeHttp(
  kc: KubeConfig,
  server: string,
  timeoutMs: number,
  opts: KubeHttpOptions = {},
): Promise<KubeHttp> {
  const httpRequest = (await import("node:http")).request;
  const httpsRequest = (await import("node:https")).request;
  const base = server.replace(/\/+$/, "");
  // deno-lint-ignore no-explicit-any
  const agents = new Set<any>();

  async function get(path: string, o: KubeGetOptions = {}): Promise<KubeHttpResponse> {
    const accept = o.accept ?? "application/json";
    const maxBytes = o.maxBytes ?? Infinity;
    // deno-lint-ignore no-explicit-any
    const options: any = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(options);
    } catch (err) {
      throw opts.credentialsError ? opts.credentialsError(err) : err;
    }
    if (options.agent) agents.add(options.agent);
    const url = `${base}${path}`;
    const doRequest = url.startsWith("https:") ? httpsRequest : httpRequest;
    return await new Promise<KubeHttpResponse>((resolve, reject) => {
      let done = false;
      const finish = (f: () => void): void => {
        if (!done) {
          done = true;
          clearTimeout(timer);
          f();
        }
      };
      const req = doRequest(url, {
        method: "GET",
        agent: options.agent,
        auth: options.auth,
        headers: { ...options.headers, Accept: accept, "User-Agent": "flyingfish" },
      }, (res) => {
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
              resolve({ status: res.statusCode ?? 0, body: new TextDecoder().decode(concatBytes(chunks)) })
            ),
        );
        res.on("error", (err: unknown) => finish(() => reject(err)));
      });
      const timer: ReturnType<typeof setTimeout> = setTimeout(() => {
        const err = new Error(`request timed out after ${timeoutMs} ms`);
        err.name = "TimeoutError";
        finish(() => reject(err));
        req.destroy(err);
      }, timeoutMs);
      req.on("error", (err: unknown) => finish(() => reject(err)));
      req.end();
    });
  }

  function close(): void {
    for (const a of agents) {
      try {
        a.destroy?.();
      } catch {
        // ignore
      }
    }
    agents.clear();
  }

  return { get, close };
}

/**
 * The message of a non-2xx answer: the `message` of the Kubernetes Status in `body`, else
 * `HTTP <status>`, followed (unless `bodyExcerpt` is false) by the first line of a non-empty body.
 */
export function statusMessage(status: number, body: string, opts: { bodyExcerpt?: boolean } = {}): string {
  try {
    const s = JSON.parse(body);
    if (s && typeof s.message === "string" && s.message.length > 0) return s.message;
  } catch {
    // not a Status object
  }
  const text = opts.bodyExcerpt === false ? "" : body.trim().split("\n")[0].slice(0, 200);
  return text.length > 0 ? `HTTP ${status}: ${text}` : `HTTP ${status}`;
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
