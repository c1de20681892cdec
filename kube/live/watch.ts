/**
 * Kubernetes watches over a cluster's client, for the watch cache (kube/watch_cache.ts): lists that
 * keep their resourceVersion (the same paginated, sanitising list as list.ts) and a streamed GET of
 * `?watch=1&resourceVersion=<rv>&allowWatchBookmarks=true` on the same path and selectors, read as
 * newline-delimited JSON events. Every object is sanitised exactly like a listed one
 * (list.ts `sanitizeObject`), so a Secret's private data never reaches the cache.
 *
 * The stream has a connection of its own (node:http(s) with the client's TLS settings, credentials
 * and proxy: {@link KubeClient.connectOptions}), not a slot of the client's keep-alive pool: a watch
 * is held open for minutes and would starve the pool. Until the answer's headers arrive the
 * request timeout applies; after that, the server's `timeoutSeconds` ends the stream.
 */
import { z } from "zod";
import type { IncomingMessage } from "node:http";
import { listPath, type ListScope, selectorsOf } from "../kinds.ts";
import type { KindSpec } from "../kinds.ts";
import type { K8sObject } from "../source.ts";
import { statusMessage } from "../http.ts";
import {
  type VersionedList,
  type WatchableSource,
  type Watcher,
  type WatchEvent,
  WatchExpiredError,
  WatchRefusedError,
} from "../watch_cache.ts";
import { type KubeClient, openKubeClient } from "./client.ts";
import { listKind, sanitizeObject } from "./list.ts";
import { type LiveClusterSource, liveSourceOn, type LiveSourceOptions } from "./source.ts";

/** Options of {@link liveWatcher}. */
export interface LiveWatcherOptions {
  /**
   * `timeoutSeconds` asked of the server per watch stream; a little jitter is added so that the
   * streams of one cluster do not all end at once (default 300).
   */
  timeoutSeconds?: number;
}

/** How long past its `timeoutSeconds` a watch stream may stay open before it counts as dead. */
const STREAM_GRACE_MS = 60_000;

/** One line of a watch stream. */
const WatchLine = z.object({
  type: z.enum(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]),
  object: z.record(z.string(), z.unknown()),
});

/** The Status an ERROR event carries. */
const ErrorStatus = z.object({ code: z.number().optional(), message: z.string().optional() });

const RV = z.object({ metadata: z.object({ resourceVersion: z.string().optional() }).optional() });

/** A watcher over `client` (lists through the client's pool, watch streams on their own connections). */
export function liveWatcher(client: KubeClient, opts: LiveWatcherOptions = {}): Watcher {
  const timeoutSeconds = opts.timeoutSeconds ?? 300;
  // The server as written (userinfo included), like every request; the endpoint's form is for display.
  const base = client.loaded.cluster.server.replace(/\/+$/, "");
  let nodeMods: Promise<[typeof import("node:http"), typeof import("node:https")]> | null = null;

  async function list(spec: KindSpec, scope: ListScope): Promise<VersionedList> {
    // The same list as the live source's, through a client that notes the first page's resourceVersion.
    let resourceVersion: string | null = null;
    let first = true;
    const noting: KubeClient = Object.create(client, {
      getJsonCounted: {
        value: async (path: string) => {
          const page = await client.getJsonCounted(path);
          if (first) {
            first = false;
            const rv = RV.safeParse(page.json);
            resourceVersion = rv.success ? rv.data.metadata?.resourceVersion ?? null : null;
          }
          return page;
        },
      },
    });
    const outcome = await listKind(noting, spec, scope);
    return { outcome, resourceVersion: resourceVersion || null };
  }

  /** Opens the stream; resolves with the answer once its headers are in. */
  async function open(path: string, signal: AbortSignal): Promise<IncomingMessage> {
    nodeMods ??= Promise.all([import("node:http"), import("node:https")]);
    const [http, https] = await nodeMods;
    const conn = await client.connectOptions();
    const secure = base.startsWith("https:");
    return await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (secure ? https.request : http.request)(`${base}${path}`, {
        method: "GET",
        agent: false,
        ...(secure ? conn.tls : {}),
        ...(conn.createConnection ? { createConnection: conn.createConnection } : {}),
        headers: { ...conn.headers, Accept: "application/json", "User-Agent": "flyingfish" },
      } as Record<string, unknown>, (res: IncomingMessage) => {
        clearTimeout(timer);
        resolve(res);
      });
      const timer = setTimeout(() => {
        const err = new Error(`watch request timed out after ${client.timeoutMs} ms`);
        err.name = "TimeoutError";
        req.destroy(err);
      }, client.timeoutMs);
      const onAbort = (): void => void req.destroy(new DOMException("watch stopped", "AbortError"));
      signal.addEventListener("abort", onAbort, { once: true });
      req.on("close", () => signal.removeEventListener("abort", onAbort));
      req.on("socket", (socket: { setKeepAlive?: (on: boolean, ms: number) => void }) => {
        socket.setKeepAlive?.(true, 30_000);
      });
      req.on("error", (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end();
    });
  }

  async function* watch(
    spec: KindSpec,
    scope: ListScope,
    resourceVersion: string,
    signal: AbortSignal,
  ): AsyncGenerator<WatchEvent> {
    const apiVersion = spec.group === "" ? spec.version : `${spec.group}/${spec.version}`;
    const streamSeconds = timeoutSeconds + Math.floor(Math.random() * (timeoutSeconds / 5));
    const q = new URLSearchParams({
      watch: "1",
      resourceVersion,
      allowWatchBookmarks: "true",
      timeoutSeconds: String(streamSeconds),
    });
    const { labelSelector, fieldSelector } = selectorsOf(spec, scope);
    if (labelSelector) q.set("labelSelector", labelSelector);
    if (fieldSelector) q.set("fieldSelector", fieldSelector);
    const res = await open(`${listPath(spec, scope.namespace)}?${q}`, signal);
    // The server ends the stream at timeoutSeconds: one still open well past it is a dead connection
    // (e.g. dropped by a NAT without a FIN); cut it, so the cache lists again instead of going stale.
    const dead = setTimeout(() => {
      res.destroy(Object.assign(new Error("watch stream silent past its timeout"), { code: "ETIMEDOUT" }));
    }, streamSeconds * 1000 + STREAM_GRACE_MS);
    try {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        let body = "";
        for await (const chunk of res) body += new TextDecoder().decode(chunk as Uint8Array);
        const message = statusMessage(status, body);
        if (status === 410) throw new WatchExpiredError(message);
        throw new WatchRefusedError(status, message);
      }
      const decoder = new TextDecoder();
      let buf = "";
      for await (const chunk of res) {
        buf += decoder.decode(chunk as Uint8Array, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line === "") continue;
          yield eventOf(line, apiVersion, spec.kind);
        }
      }
      if (!res.complete && !signal.aborted) {
        throw Object.assign(new Error("watch stream cut"), { code: "ECONNRESET" });
      }
    } finally {
      clearTimeout(dead);
      res.destroy();
    }
  }

  return { list, watch };
}

/** Parses one event line; ERROR events and malformed lines throw. */
function eventOf(line: string, apiVersion: string, kind: string): WatchEvent {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new Error(`watch stream: a line is not JSON: ${line.slice(0, 80)}`);
  }
  const parsed = WatchLine.safeParse(json);
  if (!parsed.success) throw new Error(`watch stream: malformed event: ${line.slice(0, 80)}`);
  const { type, object } = parsed.data;
  if (type === "ERROR") {
    const s = ErrorStatus.safeParse(object);
    const code = s.success ? s.data.code ?? 0 : 0;
    const message = (s.success ? s.data.message : undefined) ?? `watch error ${code}`;
    if (code === 410) throw new WatchExpiredError(message);
    throw new WatchRefusedError(code, message);
  }
  const meta = object.metadata;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw new Error(`watch stream: a ${type} event has no object metadata`);
  }
  const o = object as K8sObject;
  if (type === "BOOKMARK") {
    const rv = (meta as { resourceVersion?: unknown }).resourceVersion;
    return {
      type,
      object: { metadata: { name: "", ...(typeof rv === "string" ? { resourceVersion: rv } : {}) } },
    };
  }
  o.apiVersion ??= apiVersion;
  o.kind ??= kind;
  return { type, object: sanitizeObject(o) };
}

/** A live source that can watch: {@link liveSourceOn} plus a {@link liveWatcher} on the same client. */
export type WatchableLiveSource = LiveClusterSource & WatchableSource;

/**
 * Opens a cluster like kube/live/source.ts `createLiveSource` (same options: kubeconfig path or
 * text, context, request timeout), with a watcher on the same client, for
 * watch/rounds.ts `startRounds`.
 */
export async function openWatchableSource(
  opts: LiveSourceOptions & LiveWatcherOptions = {},
): Promise<WatchableLiveSource> {
  const client = await openKubeClient(opts);
  const source = await liveSourceOn(client, opts);
  return { ...source, watcher: liveWatcher(client, opts) };
}
