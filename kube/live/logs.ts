/**
 * Raw read-only API calls that `flyingfish collect` needs beside the ClusterSource: container logs
 * (bounded: `tailLines` and `limitBytes`) and `/version`, as text. They go through the cluster's one
 * client (client.ts): same kubeconfig load, same credentials, same keep-alive connections as the
 * lists and exec of the live source built on that client.
 */
import { httpStatusOf, ToolError, toToolError } from "../../errors.ts";
import { statusMessage } from "../http.ts";
import type { LogOutcome, LogRequest, Unavailable } from "../source.ts";
import type { KubeClient } from "./client.ts";

/** Bounds of one log read. */
export interface LogOptions {
  /** Last N lines (default 200). */
  tailLines?: number;
  /** At most this many bytes (default 256 KiB). */
  limitBytes?: number;
  /** The previous (last terminated) instance of the container (`previous=true`). */
  previous?: boolean;
}

/** Result of reading a container's log or another raw path. */
export type TextOutcome =
  | { ok: true; text: string }
  | { ok: false; reason: Unavailable; message: string };

/** Raw read-only access for the collector (released with the client it reads through). */
export interface ClusterReader {
  /** The container's recent log (never throws). */
  logs(namespace: string, pod: string, container: string, opts?: LogOptions): Promise<TextOutcome>;
  /** GET /version as text (never throws). */
  version(): Promise<TextOutcome>;
}

/** Default tail of each container log. */
export const DEFAULT_TAIL_LINES = 200;
/** Default byte limit of each container log. */
export const DEFAULT_LIMIT_BYTES = 256 * 1024;
/** Byte limit of the /version answer. */
const VERSION_LIMIT_BYTES = 64 * 1024;

/** GETs `path` as text, at most `maxBytes` of it. Never throws. */
async function getText(
  client: KubeClient,
  path: string,
  what: string,
  maxBytes: number,
): Promise<TextOutcome> {
  try {
    const res = await client.get(path, { accept: "application/json, */*", maxBytes });
    if (res.status >= 200 && res.status < 300) return { ok: true, text: res.body };
    const message = `${what}: ${statusMessage(res.status, res.body, { bodyExcerpt: false })}`;
    if (res.status === 403) return { ok: false, reason: "forbidden", message };
    if (res.status === 404) return { ok: false, reason: "missing", message };
    return { ok: false, reason: "error", message };
  } catch (err) {
    if (httpStatusOf(err) === 403) return { ok: false, reason: "forbidden", message: `${what}: forbidden` };
    const { contextName, server } = client.loaded;
    const tool = toToolError(err, `reach the API server of context ${contextName}`, { server });
    const msg = tool instanceof ToolError ? tool.message : err instanceof Error ? err.message : String(err);
    return { ok: false, reason: "error", message: `${what}: ${msg.split("\n")[0]}` };
  }
}

/** Reads the container's recent log (bounded). Never throws. */
export function readLogs(
  client: KubeClient,
  namespace: string,
  pod: string,
  container: string,
  o: LogOptions = {},
): Promise<TextOutcome> {
  const tailLines = o.tailLines ?? DEFAULT_TAIL_LINES;
  const limitBytes = o.limitBytes ?? DEFAULT_LIMIT_BYTES;
  const q = new URLSearchParams({ container, tailLines: String(tailLines), limitBytes: String(limitBytes) });
  if (o.previous) q.set("previous", "true");
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log?${q}`;
  const what = `${o.previous ? "previous " : ""}logs of ${namespace}/${pod}/${container}`;
  return getText(client, path, what, limitBytes);
}

/**
 * The live source's log read: {@link readLogs} as a {@link LogOutcome}; a forbidden read says which
 * permission is missing. Never throws.
 */
export async function readContainerLog(
  client: KubeClient,
  namespace: string,
  pod: string,
  container: string,
  req: LogRequest = {},
): Promise<LogOutcome> {
  const previous = req.previous === true;
  const out = await readLogs(client, namespace, pod, container, { ...req, previous });
  if (out.ok) return { ok: true, text: out.text, previous, via: "api" };
  if (out.reason === "forbidden") {
    return {
      ok: false,
      reason: "forbidden",
      message: `missing permission: get pods/log in namespace ${namespace} (${out.message})`,
    };
  }
  return out;
}

/** GETs /version as text. Never throws. */
export function readVersion(client: KubeClient): Promise<TextOutcome> {
  return getText(client, "/version", "GET /version", VERSION_LIMIT_BYTES);
}

/** The collector's reads on the client's cluster; closing the client (or its source) releases them. */
export function createClusterReader(client: KubeClient): ClusterReader {
  return {
    logs: (namespace, pod, container, o) => readLogs(client, namespace, pod, container, o),
    version: () => readVersion(client),
  };
}
