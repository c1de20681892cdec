/**
 * Extra read-only API calls that `flyingfish collect` needs beside the ClusterSource: container
 * logs (bounded: `tailLines` and `limitBytes`) and `/version`. Kept out of live.ts so the live source
 * stays what checks need; it uses the same kubeconfig loading and credentials (client-node's
 * `applyToHTTPSOptions`) and the same authenticated GET (http.ts).
 */
import { httpStatusOf, ToolError, toToolError } from "../../errors.ts";
import { createKubeHttp, statusMessage } from "../http.ts";
import { importClientNode, loadKubeConfig } from "../kubeconfig.ts";
import type { Unavailable } from "../source.ts";

/** Bounds of one log read. */
export interface LogOptions {
  /** Last N lines (default 200). */
  tailLines?: number;
  /** At most this many bytes (default 256 KiB). */
  limitBytes?: number;
}

/** Result of reading a container's log or another raw path. */
export type TextOutcome =
  | { ok: true; text: string }
  | { ok: false; reason: Unavailable; message: string };

/** Raw read-only access for the collector. */
export interface ClusterReader {
  /** The container's recent log (never throws). */
  logs(namespace: string, pod: string, container: string, opts?: LogOptions): Promise<TextOutcome>;
  /** GET /version as text (never throws). */
  version(): Promise<TextOutcome>;
  close(): Promise<void>;
}

/** Default tail of each container log. */
export const DEFAULT_TAIL_LINES = 200;
/** Default byte limit of each container log. */
export const DEFAULT_LIMIT_BYTES = 256 * 1024;

/** Opens a reader on the cluster of a kubeconfig context. */
export async function createClusterReader(opts: {
  kubeconfig?: string;
  context?: string;
  requestTimeoutMs?: number;
}): Promise<ClusterReader> {
  const { kc, contextName, server } = await loadKubeConfig({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
  });
  await importClientNode();
  const http = await createKubeHttp(kc, server, opts.requestTimeoutMs ?? 15_000);

  async function getText(path: string, what: string, maxBytes: number): Promise<TextOutcome> {
    try {
      const res = await http.get(path, { accept: "application/json, */*", maxBytes });
      if (res.status >= 200 && res.status < 300) return { ok: true, text: res.body };
      const message = `${what}: ${statusMessage(res.status, res.body, { bodyExcerpt: false })}`;
      if (res.status === 403) return { ok: false, reason: "forbidden", message };
      if (res.status === 404) return { ok: false, reason: "missing", message };
      return { ok: false, reason: "error", message };
    } catch (err) {
      if (httpStatusOf(err) === 403) return { ok: false, reason: "forbidden", message: `${what}: forbidden` };
      const tool = toToolError(err, `reach the API server of context ${contextName}`, { server });
      const msg = tool instanceof ToolError ? tool.message : err instanceof Error ? err.message : String(err);
      return { ok: false, reason: "error", message: `${what}: ${msg.split("\n")[0]}` };
    }
  }

  return {
    logs(namespace, pod, container, o = {}): Promise<TextOutcome> {
      const tailLines = o.tailLines ?? DEFAULT_TAIL_LINES;
      const limitBytes = o.limitBytes ?? DEFAULT_LIMIT_BYTES;
      const q = new URLSearchParams({
        container,
        tailLines: String(tailLines),
        limitBytes: String(limitBytes),
      });
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${
        encodeURIComponent(pod)
      }/log?${q}`;
      return getText(path, `logs of ${namespace}/${pod}/${container}`, limitBytes);
    },
    version(): Promise<TextOutcome> {
      return getText("/version", "GET /version", 64 * 1024);
    },
    close(): Promise<void> {
      http.close();
      return Promise.resolve();
    },
  };
}
