/**
 * Fault injection for the fake API server (tests only; the demo serves no faults). A rule matches
 * requests by a regular expression on the path (optionally the method and a regular expression on
 * the query string) and, with `count`, only its first N matching requests; the first rule that
 * matches a request decides what happens to it:
 *
 * - `status`: a Kubernetes Status answer with that code (403, 404, 429/503 with `Retry-After`, 500 …)
 * - `delay`: the answer is held back `ms` milliseconds (past the client's timeout), then served
 * - `reset`: the status line, the headers and half the body, then the connection is cut
 * - `truncated`: a complete 200 whose JSON body stops halfway
 * - `items`: a list answer whose `items` is a string, null, or a bare JSON array body
 * - `loop-continue`: every page of a list carries the same `continue` token
 * - `exec`: on the exec websocket, a malformed status frame on channel 3, data on an unknown
 *   channel, an abrupt close without a status, or a hang (nothing is ever sent)
 */
import { z } from "zod";

/** Exec websocket faults. */
export type ExecFault = "malformed-status" | "unknown-channel" | "close" | "hang";

/** What a matching request gets instead of its normal answer. */
export type FaultAction =
  | { type: "status"; status: number; retryAfterSeconds?: number; message?: string }
  | { type: "delay"; ms: number }
  | { type: "reset" }
  | { type: "truncated" }
  | { type: "items"; items: "string" | "null" | "bare-array" }
  | { type: "loop-continue" }
  | { type: "exec"; exec: ExecFault };

/** Which requests a rule applies to. */
export interface FaultMatch {
  /** Regular expression tested against the request path (e.g. `^/api/v1/pods$`). */
  path: string | RegExp;
  /** HTTP method (default: any). */
  method?: string;
  /** Regular expression tested against the query string without "?" (default: any). */
  query?: string | RegExp;
  /** Only the first N matching requests get the fault (default: every one). */
  count?: number;
}

/** One fault rule: which requests, and what they get. */
export type FaultRule = FaultMatch & FaultAction;

const Pattern = z.string().refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, "a valid regular expression");

const Match = {
  path: Pattern,
  method: z.string().optional(),
  query: Pattern.optional(),
  count: z.number().int().positive().optional(),
};

/** Schema of one rule as written in a scenario.yaml `faults:` list (regular expressions as strings). */
export const FaultRuleSchema: z.ZodType<FaultRule> = z.discriminatedUnion("type", [
  z.strictObject({
    ...Match,
    type: z.literal("status"),
    status: z.number().int().min(400).max(599),
    retryAfterSeconds: z.number().int().nonnegative().optional(),
    message: z.string().optional(),
  }),
  z.strictObject({ ...Match, type: z.literal("delay"), ms: z.number().int().positive() }),
  z.strictObject({ ...Match, type: z.literal("reset") }),
  z.strictObject({ ...Match, type: z.literal("truncated") }),
  z.strictObject({ ...Match, type: z.literal("items"), items: z.enum(["string", "null", "bare-array"]) }),
  z.strictObject({ ...Match, type: z.literal("loop-continue") }),
  z.strictObject({
    ...Match,
    type: z.literal("exec"),
    exec: z.enum(["malformed-status", "unknown-channel", "close", "hang"]),
  }),
]);

/** The `continue` token every page of a `loop-continue` list carries. */
export const LOOP_CONTINUE_TOKEN = "ff-fault-loop";

/** The fault rules of one server, with the counts of `count`-limited rules. */
export class FaultTable {
  #rules: { rule: FaultRule; path: RegExp; query: RegExp | null; used: number }[] = [];
  /** Requests that got a fault, in order ("METHOD path -> type"). */
  readonly hits: string[] = [];

  /** Creates the table with `rules` (see {@link FaultTable.set}). */
  constructor(rules: readonly FaultRule[] = []) {
    this.set(rules);
  }

  /** Replaces every rule (and resets the counts). */
  set(rules: readonly FaultRule[]): void {
    this.#rules = rules.map((rule) => ({
      rule,
      path: typeof rule.path === "string" ? new RegExp(rule.path) : rule.path,
      query: rule.query === undefined
        ? null
        : typeof rule.query === "string"
        ? new RegExp(rule.query)
        : rule.query,
      used: 0,
    }));
    this.hits.length = 0;
  }

  /** True when no rule is set. */
  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /**
   * The action for a request, counting it against its rule; null when no rule applies. Exec rules
   * apply to websocket upgrades only, and other rules to plain requests only.
   */
  take(method: string, path: string, query: string, upgrade: boolean): FaultAction | null {
    for (const r of this.#rules) {
      if ((r.rule.type === "exec") !== upgrade) continue;
      if (r.rule.method !== undefined && r.rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (!r.path.test(path) || (r.query !== null && !r.query.test(query))) continue;
      if (r.rule.count !== undefined && r.used >= r.rule.count) continue;
      r.used++;
      this.hits.push(`${method} ${path} -> ${r.rule.type}`);
      return r.rule;
    }
    return null;
  }
}

/**
 * Applies a body-level fault (`reset`, `truncated`, `items`) to an answer. Non-JSON and non-2xx
 * answers pass through `items` unchanged; `loop-continue` is applied by the server (it needs the
 * request).
 */
export async function transformBody(res: Response, action: FaultAction): Promise<Response> {
  if (action.type !== "reset" && action.type !== "truncated" && action.type !== "items") return res;
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  const text = await res.text();
  if (action.type === "truncated") {
    return new Response(text.slice(0, Math.floor(text.length / 2)), { status: res.status, headers });
  }
  if (action.type === "reset") {
    const bytes = new TextEncoder().encode(text);
    const half = bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2)));
    // A body shorter than its Content-Length: the server drops the connection mid-response.
    const body = new ReadableStream<Uint8Array>({
      start(ctrl) {
        ctrl.enqueue(half);
        ctrl.close();
      },
    });
    headers.set("content-length", String(bytes.length));
    return new Response(body, { status: res.status, headers });
  }
  if (res.status < 200 || res.status >= 300) return new Response(text, { status: res.status, headers });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, headers });
  }
  if (typeof body !== "object" || body === null || !Array.isArray((body as { items?: unknown }).items)) {
    return new Response(text, { status: res.status, headers });
  }
  const list = body as { items: unknown[] };
  const out = action.items === "bare-array"
    ? list.items
    : { ...list, items: action.items === "string" ? "items are not a list" : null };
  return new Response(JSON.stringify(out), { status: res.status, headers });
}
