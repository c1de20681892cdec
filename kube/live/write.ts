/**
 * Writes over one cluster's client (the active probes' objects): create (also as a server-side dry
 * run), delete with a propagation policy, get, list by label, SelfSubjectAccessReviews, and a
 * polling wait for an object to reach a state. Everything goes through {@link KubeClient.request}:
 * the same keep-alive agent, limiter, credentials and timeout as the reads, and writes are never
 * retried automatically (kube/http.ts says when a write is sent again: only when nothing of it was
 * sent).
 *
 * API answers are outcomes, never exceptions: a refused create is `{ ok: false, status, reason,
 * message }` with the Kubernetes Status' reason and message. What throws: a missing Deno
 * permission or a server that cannot be reached ({@link ToolError}, exit 3, through the existing
 * permission error path), rejected credentials (401, a {@link ToolError}), and an abort (the
 * signal's reason).
 */
import { z } from "zod";
import { PermissionError, ToolError, toToolError } from "../../errors.ts";
import { KINDS, listPath } from "../kinds.ts";
import type { K8sObject } from "../source.ts";
import { poll } from "../../time.ts";
import { type KubeClient, shortError } from "./client.ts";

/** What a create, delete or get came back with. */
export type WriteOutcome =
  | { ok: true; status: number; object: K8sObject }
  | { ok: false; status: number; reason: string; message: string };

/** What a list by label came back with. */
export type WriteListOutcome =
  | { ok: true; items: K8sObject[]; resourceVersion: string }
  | { ok: false; status: number; message: string };

/** One question of a SelfSubjectAccessReview (`spec.resourceAttributes`). */
export interface AccessAttributes {
  verb: string;
  resource: string;
  /** API group ("" or absent: core). */
  group?: string;
  subresource?: string;
  /** Absent: cluster-wide (or cluster-scoped resources). */
  namespace?: string;
  name?: string;
}

/** The server's answer to one {@link AccessAttributes}. */
export interface AccessVerdict extends AccessAttributes {
  allowed: boolean;
  /** The authorizer's reason (often empty), or why the review itself failed. */
  reason: string;
}

/** How a {@link KubeWriter.waitFor} ended. */
export type WaitOutcome =
  /** `done` returned true; `object` is the last one seen (null: not found). */
  | { state: "done"; object: K8sObject | null }
  /** `done` returned a fail-fast reason. */
  | { state: "failed"; reason: string; object: K8sObject | null }
  /** The time ran out; `object` is the last one seen, `error` the last read failure if any. */
  | { state: "timeout"; object: K8sObject | null; error: string | null };

/** Writes (and the reads that go with them) on one cluster. */
export interface KubeWriter {
  /** POSTs `body` to the collection `path`; with `dryRun`, `?dryRun=All` (admission runs, nothing is stored). */
  create(
    path: string,
    body: K8sObject,
    opts?: { dryRun?: boolean; signal?: AbortSignal },
  ): Promise<WriteOutcome>;
  /** DELETEs the object at `path` with a propagation policy (default Background); 404 → `ok: false`, 404. */
  remove(
    path: string,
    opts?: { propagation?: "Background" | "Foreground"; signal?: AbortSignal },
  ): Promise<WriteOutcome>;
  /** GETs the object at `path`; 404 → `ok: false`, status 404. */
  get(path: string, opts?: { signal?: AbortSignal }): Promise<WriteOutcome>;
  /** Lists the collection `path` (every page), optionally by label selector. */
  list(path: string, opts?: { labelSelector?: string; signal?: AbortSignal }): Promise<WriteListOutcome>;
  /** One SelfSubjectAccessReview per attribute set, all in parallel, answers in the same order. */
  accessReview(attrs: readonly AccessAttributes[], opts?: { signal?: AbortSignal }): Promise<AccessVerdict[]>;
  /**
   * Polls GET `path` (250 ms, doubling to 1 s) until `done(object | null)` returns true (null: not
   * found), or a string (a fail-fast reason), or `timeoutMs` ran out. Read failures are retried
   * until the time runs out. Rejects with the signal's reason when it aborts.
   */
  waitFor(
    path: string,
    done: (obj: K8sObject | null) => boolean | string,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<WaitOutcome>;
}

/** A Kubernetes Status object (the body of a refused request). */
const StatusSchema = z.object({
  kind: z.literal("Status").optional(),
  status: z.string().optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
});

const ObjectSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.looseObject({ name: z.string() }),
});

const ListSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.object({ resourceVersion: z.string().optional(), continue: z.string().optional() }).optional(),
  items: z.array(ObjectSchema).nullable().optional(),
});

const ReviewSchema = z.object({
  status: z.object({
    allowed: z.boolean().optional(),
    denied: z.boolean().optional(),
    reason: z.string().optional(),
    evaluationError: z.string().optional(),
  }).optional(),
});

/** The SelfSubjectAccessReview endpoint. */
export const SSAR_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

/** First and longest pause between two polls of {@link KubeWriter.waitFor}. */
export const WAIT_BACKOFF = { firstMs: 250, maxMs: 1_000 } as const;

/** The reason phrase of an HTTP status, for answers whose body is not a Status. */
function reasonOf(status: number): string {
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "AlreadyExists";
    case 410:
      return "Gone";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    default:
      return status >= 500 ? "InternalError" : "Unknown";
  }
}

/** A refusal: the Status' reason and message when the body is one, else the status and body excerpt. */
function refusal(status: number, body: string): Extract<WriteOutcome, { ok: false }> {
  let parsed: z.infer<typeof StatusSchema> | null = null;
  try {
    const s = StatusSchema.safeParse(JSON.parse(body));
    parsed = s.success ? s.data : null;
  } catch {
    parsed = null;
  }
  const excerpt = body.trim().split("\n")[0].slice(0, 200);
  return {
    ok: false,
    status,
    reason: parsed?.reason || reasonOf(status),
    message: parsed?.message || (excerpt ? `HTTP ${status}: ${excerpt}` : `HTTP ${status}`),
  };
}

/** The path of an object's collection (`/api/v1/namespaces/<ns>/pods`; namespaces: `/api/v1/namespaces`). */
export function collectionPath(obj: K8sObject): string {
  const apiVersion = obj.apiVersion ?? "v1";
  const kind = obj.kind ?? "";
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const known = Object.values(KINDS).find((k) => k.group === group && k.kind === kind);
  const spec = {
    group,
    version,
    plural: known?.plural ?? `${kind.toLowerCase()}s`,
    kind,
    namespaced: known?.namespaced ?? obj.metadata.namespace !== undefined,
  };
  return listPath(spec, obj.metadata.namespace);
}

/** The path of one object: its collection path and its name. */
export function objectPath(obj: K8sObject): string {
  return `${collectionPath(obj)}/${encodeURIComponent(obj.metadata.name)}`;
}

/** Joins a path and query parameters. */
function withQuery(path: string, params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  const s = q.toString();
  return s ? `${path}${path.includes("?") ? "&" : "?"}${s}` : path;
}

/** A missing Deno permission or rejected credentials: no later poll can do better. */
function isFatal(err: unknown): boolean {
  return err instanceof PermissionError ||
    (err instanceof ToolError && /Deno permission|rejected the credentials/.test(err.message));
}

/** Builds the {@link KubeWriter} of a cluster client. */
export function kubeWriter(client: KubeClient): KubeWriter {
  const { server, context } = client.endpoint;

  /**
   * Sends one request. Rethrows an abort, and turns a missing Deno permission, rejected credentials
   * or an unreachable server into a {@link ToolError}; everything else is an HTTP answer.
   */
  async function send(
    method: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: string }> {
    try {
      const res = await client.request(method, path, {
        body: body === undefined ? undefined : JSON.stringify(body),
        contentType: "application/json",
        signal,
      });
      if (res.status === 401) {
        throw new ToolError(
          `the API server at ${server} rejected the credentials of context ${context} (401) on ${method} ${path}`,
        );
      }
      return res;
    } catch (err) {
      if (signal?.aborted && err === signal.reason) throw err;
      if (err instanceof ToolError) throw err;
      const tool = toToolError(err, client.netPurpose, { server, context });
      if (tool) throw tool;
      throw new ToolError(`${method} ${path} on ${server} failed: ${shortError(err)}`, { cause: err });
    }
  }

  /** An answer as a {@link WriteOutcome}: 2xx with a JSON object, else the refusal. */
  function outcome(res: { status: number; body: string }): WriteOutcome {
    if (res.status < 200 || res.status >= 300) return refusal(res.status, res.body);
    let json: unknown = null;
    try {
      json = JSON.parse(res.body);
    } catch {
      // not JSON: unreadable below
    }
    const parsed = ObjectSchema.safeParse(json);
    if (parsed.success) return { ok: true, status: res.status, object: parsed.data as K8sObject };
    // A DELETE may answer with a Status (`{"kind":"Status","status":"Success"}`) rather than the object.
    const status = StatusSchema.safeParse(json);
    if (status.success && status.data.kind === "Status") {
      return { ok: true, status: res.status, object: { kind: "Status", metadata: { name: "" } } };
    }
    return {
      ok: false,
      status: res.status,
      reason: "InvalidResponse",
      message: `unreadable answer from ${server}`,
    };
  }

  async function create(
    path: string,
    body: K8sObject,
    opts: { dryRun?: boolean; signal?: AbortSignal } = {},
  ): Promise<WriteOutcome> {
    const url = withQuery(path, { dryRun: opts.dryRun ? "All" : undefined });
    return outcome(await send("POST", url, body, opts.signal));
  }

  async function remove(
    path: string,
    opts: { propagation?: "Background" | "Foreground"; signal?: AbortSignal } = {},
  ): Promise<WriteOutcome> {
    const propagationPolicy = opts.propagation ?? "Background";
    // The policy goes both as DeleteOptions (what kubectl sends) and as a query parameter (what a
    // server that ignores DELETE bodies reads); they agree.
    const url = withQuery(path, { propagationPolicy });
    const body = { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy };
    return outcome(await send("DELETE", url, body, opts.signal));
  }

  async function get(path: string, opts: { signal?: AbortSignal } = {}): Promise<WriteOutcome> {
    return outcome(await send("GET", path, undefined, opts.signal));
  }

  async function list(
    path: string,
    opts: { labelSelector?: string; signal?: AbortSignal } = {},
  ): Promise<WriteListOutcome> {
    const items: K8sObject[] = [];
    let cont: string | undefined;
    let resourceVersion = "";
    do {
      const url = withQuery(path, { labelSelector: opts.labelSelector, limit: "500", continue: cont });
      const res = await send("GET", url, undefined, opts.signal);
      if (res.status < 200 || res.status >= 300) {
        const r = refusal(res.status, res.body);
        return { ok: false, status: res.status, message: r.message };
      }
      let page: z.infer<typeof ListSchema>;
      try {
        page = ListSchema.parse(JSON.parse(res.body));
      } catch {
        return { ok: false, status: res.status, message: `unreadable list from ${server}${path}` };
      }
      // List items carry no kind/apiVersion on the wire: give them the list's.
      const kind = page.kind?.replace(/List$/, "");
      for (const it of page.items ?? []) {
        items.push({ ...(kind ? { kind } : {}), apiVersion: page.apiVersion, ...it } as K8sObject);
      }
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return { ok: true, items, resourceVersion };
  }

  async function reviewOne(a: AccessAttributes, signal?: AbortSignal): Promise<AccessVerdict> {
    const resourceAttributes: Record<string, string> = { verb: a.verb, resource: a.resource };
    if (a.group) resourceAttributes.group = a.group;
    if (a.subresource) resourceAttributes.subresource = a.subresource;
    if (a.namespace) resourceAttributes.namespace = a.namespace;
    if (a.name) resourceAttributes.name = a.name;
    const body = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes },
    };
    const res = await send("POST", SSAR_PATH, body, signal);
    if (res.status < 200 || res.status >= 300) {
      return {
        ...a,
        allowed: false,
        reason: `the access review itself failed: ${refusal(res.status, res.body).message}`,
      };
    }
    let review: z.infer<typeof ReviewSchema>;
    try {
      review = ReviewSchema.parse(JSON.parse(res.body));
    } catch {
      return { ...a, allowed: false, reason: `unreadable access review answer from ${server}` };
    }
    const st = review.status ?? {};
    const reason = [st.reason, st.evaluationError].filter((s): s is string => !!s).join("; ");
    return { ...a, allowed: st.allowed === true && st.denied !== true, reason };
  }

  function accessReview(
    attrs: readonly AccessAttributes[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<AccessVerdict[]> {
    return Promise.all(attrs.map((a) => reviewOne(a, opts.signal)));
  }

  async function waitFor(
    path: string,
    done: (obj: K8sObject | null) => boolean | string,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<WaitOutcome> {
    const deadline = Date.now() + opts.timeoutMs;
    let last: K8sObject | null = null;
    let error: string | null = null;
    const polled = await poll<WaitOutcome>(async (remaining) => {
      if (remaining <= 0) return { state: "timeout", object: last, error };
      // One poll may not outlive the wait: its own deadline is the wait's.
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(new DOMException("poll deadline", "TimeoutError")), remaining);
      const onAbort = (): void => ctl.abort(opts.signal?.reason);
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      let seen: { object: K8sObject | null } | null = null;
      try {
        const r = await get(path, { signal: ctl.signal });
        if (r.ok) seen = { object: r.object };
        else if (r.status === 404) seen = { object: null };
        else error = `${r.reason}: ${r.message}`;
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (!ctl.signal.aborted) {
          // A missing permission stops the wait like any request; a lost connection is retried.
          if (isFatal(err)) throw err;
          error = shortError(err);
        }
      } finally {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
      }
      if (seen) {
        last = seen.object;
        const verdict = done(seen.object);
        if (verdict === true) return { state: "done", object: seen.object };
        if (typeof verdict === "string") return { state: "failed", reason: verdict, object: seen.object };
      }
      return undefined;
    }, {
      intervalMs: WAIT_BACKOFF.firstMs,
      maxIntervalMs: WAIT_BACKOFF.maxMs,
      deadline,
      signal: opts.signal,
    });
    return polled.done ? polled.value : { state: "timeout", object: last, error };
  }

  return { create, remove, get, list, accessReview, waitFor };
}
