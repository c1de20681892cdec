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
import { PermissionError, ToolError } from "../../errors.ts";
import type { K8sObject } from "../source.ts";
import { poll } from "../../time.ts";
import { type KubeClient, shortError } from "./client.ts";
import { ObjectSchema, outcomeOf, refusal, send as sendRequest, type WriteOutcome } from "./answer.ts";
import { type AccessAttributes, accessClient, type AccessVerdict, collectionPath } from "./access.ts";

export type { WriteOutcome } from "./answer.ts";
export type { AccessAttributes, AccessVerdict } from "./access.ts";
export { collectionPath, SSAR_PATH } from "./access.ts";

/** What a list by label came back with. */
export type WriteListOutcome =
  | { ok: true; items: K8sObject[]; resourceVersion: string }
  | { ok: false; status: number; message: string };

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

const ListSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.object({ resourceVersion: z.string().optional(), continue: z.string().optional() }).optional(),
  items: z.array(ObjectSchema).nullable().optional(),
});

/** First and longest pause between two polls of {@link KubeWriter.waitFor}. */
export const WAIT_BACKOFF = { firstMs: 250, maxMs: 1_000 } as const;

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
  const { server } = client.endpoint;

  const send = (method: string, path: string, body: unknown, signal?: AbortSignal) =>
    sendRequest(client, method, path, body, signal);
  const outcome = (res: { status: number; body: string }): WriteOutcome => outcomeOf(res, server);
  const access = accessClient(client);

  async function create(
    path: string,
    body: K8sObject,
    opts: { dryRun?: boolean; signal?: AbortSignal } = {},
  ): Promise<WriteOutcome> {
    // A dry run is the access client's, whose request is dryRun=All by construction.
    if (opts.dryRun) return await access.dryRunCreate(body, { signal: opts.signal });
    return outcome(await send("POST", path, body, opts.signal));
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

  function accessReview(
    attrs: readonly AccessAttributes[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<AccessVerdict[]> {
    return access.review(attrs, opts);
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
