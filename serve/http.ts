/**
 * The HTTP side of `flyingfish serve`: GET-only endpoints over the serve state.
 *
 * - `/metrics` — Prometheus text format (serve/metrics.ts)
 * - `/healthz` — the process is alive (always 200)
 * - `/readyz` — a round has completed (200), else 503
 * - `/report` — the latest report as JSON, byte for byte what `check -o json` prints
 * - `/` — the latest report as the HTML report (render/html.ts)
 * - `/diff` — what changed since the last healthy round (the `flyingfish diff` document; 204: nothing)
 *
 * Nothing served carries a secret: the report is secret-free by construction (secrets are reduced
 * to public facts when read) and the metrics carry check IDs, cluster and peer names only.
 */
import { renderHtml } from "../render/html.ts";
import { renderJson } from "../render/json.ts";
import { type BuildInfo, METRICS_CONTENT_TYPE, renderMetrics } from "./metrics.ts";
import type { ServeState } from "./state.ts";

/** The paths served, for the probes of deploy/ and the tests. */
export const SERVED_PATHS = ["/", "/metrics", "/healthz", "/readyz", "/report", "/diff"] as const;

const NO_STORE = { "cache-control": "no-store" };

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...NO_STORE, ...headers },
  });
}

function notYet(state: ServeState): Response {
  const err = state.snapshot().lastError;
  return text(503, `no round has completed yet${err ? `; the last one failed: ${err}` : ""}\n`, {
    "retry-after": "5",
  });
}

/** The request handler over `state`. */
export function serveHandler(state: ServeState, build: BuildInfo): (req: Request) => Response {
  return (req: Request): Response => {
    const path = new URL(req.url).pathname;
    if (!(SERVED_PATHS as readonly string[]).includes(path)) return text(404, "not found\n");
    if (req.method !== "GET") return text(405, "method not allowed: only GET\n", { allow: "GET" });
    switch (path) {
      case "/healthz":
        return text(200, "ok\n");
      case "/readyz":
        return state.ready ? text(200, "ready\n") : notYet(state);
      case "/metrics":
        return text(200, renderMetrics(state.snapshot(), build), { "content-type": METRICS_CONTENT_TYPE });
      case "/report": {
        const report = state.snapshot().report;
        if (!report) return notYet(state);
        return new Response(renderJson(report), {
          headers: { "content-type": "application/json; charset=utf-8", ...NO_STORE },
        });
      }
      case "/diff": {
        // What changed since the last healthy round (flyingfish diff's document); 204 when nothing to say.
        const report = state.snapshot().report;
        if (!report) return notYet(state);
        const d = report.changedSinceHealthy;
        if (!d) {
          return new Response(null, {
            status: 204,
            headers: {
              "x-flyingfish-reason": report.results.some((r) => r.status === "fail")
                ? "no healthy round seen yet"
                : "the latest round has no failure",
              ...NO_STORE,
            },
          });
        }
        return new Response(JSON.stringify(d, null, 2) + "\n", {
          headers: { "content-type": "application/json; charset=utf-8", ...NO_STORE },
        });
      }
      default: {
        const report = state.snapshot().report;
        if (!report) return notYet(state);
        return new Response(renderHtml(report), {
          headers: { "content-type": "text/html; charset=utf-8", ...NO_STORE },
        });
      }
    }
  };
}

/** Where to listen: `--listen [host]:port`; hostname "" is every interface (`:9464`). */
export interface ListenAddress {
  hostname: string;
  port: number;
}

/**
 * Parses `--listen`: `:9464` (every interface: hostname ""), `127.0.0.1:9464`, `[::]:9464`, `[::1]:0`
 * (0: any free port). Throws an Error with the reason otherwise.
 */
export function parseListen(value: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  if (!m) throw new Error(`expected [host]:port, e.g. :9464 or 127.0.0.1:9464`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`port ${port} is out of range`);
  return { hostname: m[1] ?? m[2], port };
}

/** A running HTTP server. */
export interface ServeServer {
  /** The address it listens on (the real port when 0 was asked). */
  readonly addr: ListenAddress;
  /** Stops accepting and finishes the responses in flight. */
  shutdown(): Promise<void>;
}

/**
 * Starts serving `state` on `addr`. Every interface (hostname "") is `::` where the host has IPv6
 * (Linux then accepts IPv4 on it too, like Go's `:port`), else `0.0.0.0`.
 */
export function startHttpServer(state: ServeState, build: BuildInfo, addr: ListenAddress): ServeServer {
  const handler = serveHandler(state, build);
  const listen = (hostname: string) => Deno.serve({ hostname, port: addr.port, onListen: () => {} }, handler);
  let server: Deno.HttpServer<Deno.NetAddr>;
  if (addr.hostname !== "") server = listen(addr.hostname);
  else {
    try {
      server = listen("::");
    } catch (err) {
      if (err instanceof Deno.errors.AddrInUse || err instanceof Deno.errors.NotCapable) throw err;
      server = listen("0.0.0.0"); // no IPv6 on this host
    }
  }
  const a = server.addr;
  return {
    addr: { hostname: a.hostname, port: a.port },
    shutdown: () => server.shutdown(),
  };
}
