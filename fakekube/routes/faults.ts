/**
 * Injected faults (tests only, see faults.ts) in front of the router: the first matching rule
 * answers a status, holds the answer back, marks an exec for a fault, loops a list's continue
 * token, or transforms the body the router gave.
 */
import { type FaultTable, LOOP_CONTINUE_TOKEN, transformBody } from "../faults.ts";
import { json, statusResponse } from "../status.ts";
import type { ServerState } from "./state.ts";

/** Waits `ms`, or less when `signal` aborts. */
export const delay = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((r) => {
    if (signal?.aborted) return r();
    const t = setTimeout(r, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), r()), { once: true });
  });

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  410: "Expired",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** A request router (the fault-free server). */
export type Route = (req: Request, url: URL) => Response | Promise<Response>;

/** Routes a request through the fault rules: the first matching rule applies. */
export async function routeWithFaults(
  s: ServerState,
  faults: FaultTable,
  route: Route,
  req: Request,
  url: URL,
  query: string,
  upgrade: boolean,
): Promise<Response> {
  const fault = faults.empty ? null : faults.take(req.method, url.pathname, query, upgrade);
  if (!fault) return route(req, url);
  switch (fault.type) {
    case "status": {
      const res = statusResponse(
        fault.status,
        REASONS[fault.status] ?? "InternalError",
        fault.message ?? `fakekube: injected fault (HTTP ${fault.status})`,
        {},
      );
      if (fault.retryAfterSeconds !== undefined) {
        res.headers.set("retry-after", String(fault.retryAfterSeconds));
      }
      return res;
    }
    case "delay":
      await delay(fault.ms, s.closing.signal);
      return route(req, url);
    case "exec":
      s.execFaults.set(req, fault.exec);
      return route(req, url);
    case "loop-continue": {
      const first = new URL(url);
      first.searchParams.delete("continue");
      const res = await route(req, first);
      if (res.status !== 200) return res;
      const body = await res.json();
      if (typeof body !== "object" || body === null || !Array.isArray(body.items)) return json(body);
      return json({ ...body, metadata: { ...body.metadata, continue: LOOP_CONTINUE_TOKEN } });
    }
    default:
      return await transformBody(await route(req, url), fault);
  }
}
