/**
 * The live ClusterSource: reads one cluster through its API server with the kubeconfig's
 * credentials (client certificates, tokens, exec credential plugins, custom CAs — all applied by
 * @kubernetes/client-node), lists with pagination, reduces secrets to public facts on read, and
 * runs commands in pods through the Exec API (websocket, channel protocol v5/v4) with an optional
 * `kubectl exec` fallback.
 *
 * client-node and the node: modules are imported lazily, inside {@link createLiveSource}.
 */
import { errorChain, httpStatusOf, ToolError, toToolError } from "../../errors.ts";
import { listPath } from "../kinds.ts";
import type { KindSpec } from "../kinds.ts";
import { createKubeHttp, statusMessage } from "../http.ts";
import { importClientNode, loadKubeConfig } from "../kubeconfig.ts";
import type {
  ClusterEndpoint,
  ClusterSource,
  DiscoveryOutcome,
  ExecOutcome,
  GroupVersionResources,
  K8sObject,
  ListOutcome,
} from "../source.ts";

/** Options of {@link createLiveSource}. */
export interface LiveSourceOptions {
  /** Explicit kubeconfig path. */
  kubeconfig?: string;
  /** kubeconfig text (wins over `kubeconfig`; nothing is read from disk; no kubectl fallback). */
  kubeconfigYaml?: string;
  /** kubeconfig context (default: current-context). */
  context?: string;
  /** Timeout of each API request and exec, in milliseconds (default 15000). */
  requestTimeoutMs?: number;
  /**
   * Allow falling back to `kubectl exec` when the Exec API fails (default true); the fallback also
   * needs the Deno permission `--allow-run=kubectl`.
   */
  allowKubectl?: boolean;
  /**
   * How to exec: "auto" (default) tries the Exec API and falls back to kubectl; "api" never uses
   * kubectl; "kubectl" goes straight to `kubectl exec` (e.g. where a proxy blocks websockets).
   */
  execVia?: "auto" | "api" | "kubectl";
}

/** A live cluster source, with a reachability probe the runner calls first. */
export interface LiveClusterSource extends ClusterSource {
  /** GETs /version; throws a {@link ToolError} when the server is unreachable or rejects the credentials. */
  probeReachable(): Promise<void>;
  /** The kubeconfig file(s) in use (joined like KUBECONFIG when several). */
  readonly kubeconfigPath: string;
}

/** Page size of list requests. */
export const LIST_PAGE_SIZE = 500;
/** Annotation added to every secret, listing the data keys that were removed on read. */
export const REDACTED_KEYS_ANNOTATION = "flyingfish.io/redacted-keys";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** Secret data keys kept on read (public by nature). */
const KEPT_SECRET_KEYS: ReadonlySet<string> = new Set(["publicKey"]);
const MAX_PAGES = 2000;
const MAX_EXEC_OUTPUT = 4 * 1024 * 1024;

/** An API request that came back with a non-2xx status. */
export class ApiStatusError extends Error {
  /** Creates the error from the status code and the server's Status message. */
  constructor(readonly status: number, message: string, readonly url: string) {
    super(message);
    this.name = "ApiStatusError";
  }
}

/**
 * Removes what must never reach the inventory: `metadata.managedFields` and the
 * last-applied-configuration annotation on every object; on secrets, every `data` key except
 * `publicKey` and all of `stringData`, recording the removed keys in
 * `flyingfish.io/redacted-keys`. Mutates and returns the object.
 */
export function sanitizeObject(obj: K8sObject): K8sObject {
  const meta = obj.metadata ?? (obj.metadata = { name: "" });
  delete meta.managedFields;
  if (meta.annotations) {
    delete meta.annotations[LAST_APPLIED];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  }
  if (obj.kind === "Secret") {
    const removed = new Set<string>();
    const data = obj.data && typeof obj.data === "object" ? obj.data as Record<string, unknown> : {};
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) {
      if (KEPT_SECRET_KEYS.has(k)) kept[k] = v;
      else removed.add(k);
    }
    const stringData = obj.stringData && typeof obj.stringData === "object" ? obj.stringData : {};
    for (const k of Object.keys(stringData as Record<string, unknown>)) removed.add(k);
    delete obj.stringData;
    if (obj.data !== undefined) obj.data = kept;
    meta.annotations = { ...meta.annotations, [REDACTED_KEYS_ANNOTATION]: [...removed].sort().join(",") };
  }
  return obj;
}

type ApiExecOutcome =
  | Extract<ExecOutcome, { ok: true }>
  | { ok: false; reason: "forbidden" | "missing" | "error"; message: string; fallback: boolean };

function shortError(err: unknown): string {
  for (const e of errorChain(err)) {
    if (e instanceof ToolError) return e.message;
  }
  const first = errorChain(err).find((e) => e instanceof Error) as Error | undefined;
  const msg = first ? first.message : String(err);
  const code = (first as { code?: unknown } | undefined)?.code;
  const line = msg.split("\n")[0];
  return typeof code === "string" && !line.includes(code) ? `${line} (${code})` : line;
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}

/**
 * Connects to the cluster of a kubeconfig context. Loading the kubeconfig can fail with a
 * {@link ToolError}; the API server is first contacted by {@link LiveClusterSource.probeReachable}.
 */
export async function createLiveSource(opts: LiveSourceOptions = {}): Promise<LiveClusterSource> {
  const loaded = await loadKubeConfig({
    kubeconfig: opts.kubeconfig,
    kubeconfigYaml: opts.kubeconfigYaml,
    context: opts.context,
  });
  const { kc, contextName, server } = loaded;
  const k8s = await importClientNode();
  const { Writable } = await import("node:stream");
  const timeoutMs = opts.requestTimeoutMs ?? 15_000;
  const allowKubectl = opts.allowKubectl ?? true;
  const execVia = opts.execVia ?? "auto";
  const endpoint: ClusterEndpoint = { context: contextName, server };
  const base = server.replace(/\/+$/, "");
  const netPurpose = `reach the API server ${hostOf(server)}`;
  const http = await createKubeHttp(kc, server, timeoutMs, {
    credentialsError: (err) =>
      toToolError(err, `prepare the credentials of context ${contextName}`) ??
        new ToolError(`cannot use the credentials of context ${contextName}: ${shortError(err)}`, {
          cause: err,
        }),
  });
  const sockets = new Set<{ terminate?: () => void; close: () => void }>();
  const pending = new Set<Promise<void>>();
  let closed = false;

  async function getJson(path: string): Promise<unknown> {
    if (closed) throw new Error("the cluster source is closed");
    const res = await http.get(path);
    if (res.status < 200 || res.status >= 300) {
      throw new ApiStatusError(res.status, statusMessage(res.status, res.body), `${base}${path}`);
    }
    try {
      return JSON.parse(res.body);
    } catch {
      throw new ApiStatusError(res.status, `invalid JSON from ${path}`, `${base}${path}`);
    }
  }

  function failure(
    err: unknown,
    what: string,
  ): { ok: false; reason: "forbidden" | "missing" | "error"; message: string } {
    const status = httpStatusOf(err);
    if (status === 403) return { ok: false, reason: "forbidden", message: (err as Error).message };
    if (status === 404) return { ok: false, reason: "missing", message: (err as Error).message };
    if (status === 401) {
      return {
        ok: false,
        reason: "error",
        message: `the API server rejected the credentials of context ${contextName} (401) while ${what}`,
      };
    }
    const tool = toToolError(err, netPurpose, { server });
    return { ok: false, reason: "error", message: tool ? tool.message : `${what}: ${shortError(err)}` };
  }

  async function list(spec: KindSpec): Promise<ListOutcome> {
    const apiVersion = spec.group === "" ? spec.version : `${spec.group}/${spec.version}`;
    const items: K8sObject[] = [];
    let cont: string | undefined;
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const q = new URLSearchParams({ limit: String(LIST_PAGE_SIZE) });
        if (spec.labelSelector) q.set("labelSelector", spec.labelSelector);
        if (spec.fieldSelector) q.set("fieldSelector", spec.fieldSelector);
        if (cont) q.set("continue", cont);
        // deno-lint-ignore no-explicit-any
        const body = await getJson(`${listPath(spec)}?${q}`) as any;
        const pageItems: K8sObject[] = Array.isArray(body?.items) ? body.items : [];
        for (const item of pageItems) {
          if (!item || typeof item !== "object") continue;
          item.apiVersion ??= apiVersion;
          item.kind ??= spec.kind;
          items.push(sanitizeObject(item));
        }
        cont = typeof body?.metadata?.continue === "string" && body.metadata.continue.length > 0
          ? body.metadata.continue
          : undefined;
        if (!cont) return { ok: true, items };
      }
      return { ok: false, reason: "error", message: `listing ${spec.plural}: more than ${MAX_PAGES} pages` };
    } catch (err) {
      return failure(err, `listing ${spec.plural}`);
    }
  }

  async function discovery(
    groups: readonly { group: string; version: string }[],
  ): Promise<DiscoveryOutcome> {
    try {
      const out = await Promise.all(groups.map(async ({ group, version }): Promise<GroupVersionResources> => {
        const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
        try {
          // deno-lint-ignore no-explicit-any
          const body = await getJson(path) as any;
          const resources: string[] = Array.isArray(body?.resources)
            ? body.resources.map((r: { name?: unknown }) => r?.name).filter((n: unknown): n is string =>
              typeof n === "string" && !n.includes("/")
            )
            : [];
          return { group, version, resources };
        } catch (err) {
          if (httpStatusOf(err) === 404) return { group, version, resources: [] };
          throw err;
        }
      }));
      return { ok: true, groups: out };
    } catch (err) {
      return failure(err, "reading API discovery");
    }
  }

  async function execViaApi(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ApiExecOutcome> {
    let stdout = "";
    let stderr = "";
    const decoderOut = new TextDecoder();
    const decoderErr = new TextDecoder();
    const outStream = new Writable({
      write(chunk: Uint8Array | string, _enc, cb) {
        if (stdout.length < MAX_EXEC_OUTPUT) {
          stdout += typeof chunk === "string" ? chunk : decoderOut.decode(chunk, { stream: true });
        }
        cb();
      },
    });
    const errStream = new Writable({
      write(chunk: Uint8Array | string, _enc, cb) {
        if (stderr.length < MAX_EXEC_OUTPUT) {
          stderr += typeof chunk === "string" ? chunk : decoderErr.decode(chunk, { stream: true });
        }
        cb();
      },
    });
    const exec = new k8s.Exec(kc);
    // deno-lint-ignore no-explicit-any
    let ws: any = null;
    type Done =
      // deno-lint-ignore no-explicit-any
      | { kind: "status"; status: any }
      | { kind: "closed" }
      | { kind: "error"; error: unknown; opened: boolean }
      | { kind: "timeout" };
    let settle: (d: Done) => void = () => {};
    const finished = new Promise<Done>((resolve) => (settle = resolve));
    const timer: ReturnType<typeof setTimeout> = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
    let over = false;
    const connecting = exec.exec(namespace, pod, container, [...command], outStream, errStream, null, false, (
      status,
    ) => {
      settle({ kind: "status", status });
    }).then((socket) => {
      if (over || closed) {
        // The exec already ended (timeout) or the source was closed while connecting.
        terminate(socket);
        return;
      }
      ws = socket;
      sockets.add(socket);
      socket.on?.("close", () => setTimeout(() => settle({ kind: "closed" }), 0));
      socket.on?.("error", (error: unknown) => settle({ kind: "error", error, opened: true }));
    }, (error: unknown) => settle({ kind: "error", error, opened: false }));
    pending.add(connecting);
    connecting.finally(() => pending.delete(connecting));
    const done = await finished;
    over = true;
    clearTimeout(timer);
    if (ws) {
      sockets.delete(ws);
      if (done.kind === "status") {
        try {
          ws.close();
        } catch {
          // already closed
        }
      } else terminate(ws);
    }
    const where = `${namespace}/${pod}`;
    switch (done.kind) {
      case "timeout":
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where} timed out after ${timeoutMs} ms`,
          fallback: false,
        };
      case "closed":
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where}: the connection closed without an exit status`,
          fallback: false,
        };
      case "error": {
        const tool = toToolError(done.error, netPurpose, { server });
        if (tool && tool.name === "PermissionError") {
          return { ok: false, reason: "error", message: tool.message, fallback: false };
        }
        const msg = shortError(done.error);
        const m = /Unexpected server response: (\d+)/.exec(msg);
        const status = m ? Number(m[1]) : undefined;
        if (status === 404) {
          return {
            ok: false,
            reason: "missing",
            message: `exec in ${where}: pod or container not found (404)`,
            fallback: false,
          };
        }
        if (status === 403) {
          return {
            ok: false,
            reason: "forbidden",
            message: `exec in ${where}: forbidden (403, pods/exec)`,
            fallback: true,
          };
        }
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where}: ${
            status ? `upgrade refused (HTTP ${status})` : tool ? tool.message : msg
          }`,
          fallback: true,
        };
      }
      case "status": {
        const st = done.status ?? {};
        if (st.status === "Success") return { ok: true, stdout, stderr, exitCode: 0, via: "api" };
        if (st.reason === "NonZeroExitCode") {
          // deno-lint-ignore no-explicit-any
          const cause = (st.details?.causes ?? []).find((c: any) => c?.reason === "ExitCode");
          const code = Number(cause?.message);
          return { ok: true, stdout, stderr, exitCode: Number.isFinite(code) ? code : 1, via: "api" };
        }
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where}: ${typeof st.message === "string" ? st.message : JSON.stringify(st)}`,
          fallback: false,
        };
      }
    }
  }

  function kubectlAllowed(): boolean {
    try {
      return Deno.permissions.querySync({ name: "run", command: "kubectl" }).state === "granted";
    } catch {
      return false;
    }
  }

  async function execViaKubectl(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ExecOutcome> {
    const args: string[] = [];
    const env: Record<string, string> = {};
    if (loaded.paths.length === 1) args.push("--kubeconfig", loaded.paths[0]);
    else env.KUBECONFIG = loaded.path;
    args.push("--context", contextName, "--request-timeout", `${Math.ceil(timeoutMs / 1000)}s`);
    args.push("exec", "-n", namespace, pod, "-c", container, "--", ...command);
    const where = `${namespace}/${pod}`;
    try {
      const out = await new Deno.Command("kubectl", {
        args,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(timeoutMs),
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      let stderr = new TextDecoder().decode(out.stderr);
      if (out.signal) {
        return {
          ok: false,
          reason: "error",
          message: `kubectl exec in ${where} timed out after ${timeoutMs} ms`,
        };
      }
      if (out.code !== 0) {
        const firstLine = stderr.trim().split("\n").find((l) => l.trim().length > 0) ?? "";
        if (/Error from server \(Forbidden\)/.test(stderr)) {
          return { ok: false, reason: "forbidden", message: `kubectl exec in ${where}: ${firstLine}` };
        }
        if (/Error from server \(NotFound\)/.test(stderr)) {
          return { ok: false, reason: "missing", message: `kubectl exec in ${where}: ${firstLine}` };
        }
        if (/^(Error from server|error:|Unable to connect|The connection to the server)/m.test(stderr)) {
          return { ok: false, reason: "error", message: `kubectl exec in ${where}: ${firstLine}` };
        }
      }
      // kubectl appends its own line after the remote stderr (not always on a new line).
      stderr = stderr.replace(/command terminated with exit code \d+\s*$/, "");
      return {
        ok: true,
        stdout,
        stderr: stderr.trim().length === 0 ? "" : stderr,
        exitCode: out.code,
        via: "kubectl",
      };
    } catch (err) {
      if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError")) {
        return {
          ok: false,
          reason: "error",
          message: `kubectl exec in ${where} timed out after ${timeoutMs} ms`,
        };
      }
      const tool = toToolError(err, "run kubectl (exec fallback)");
      return {
        ok: false,
        reason: "error",
        message: `kubectl exec in ${where}: ${tool ? tool.message : shortError(err)}`,
      };
    }
  }

  async function exec(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ExecOutcome> {
    const out = await execOnce(namespace, pod, container, command);
    return out.ok ? { ...out, takenAt: Date.now() } : out;
  }

  async function execOnce(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ExecOutcome> {
    if (execVia === "kubectl") {
      if (loaded.paths.length === 0) {
        return {
          ok: false,
          reason: "error",
          message: "exec via kubectl needs a kubeconfig file (not inline)",
        };
      }
      if (!kubectlAllowed()) {
        return {
          ok: false,
          reason: "error",
          message: `exec in ${namespace}/${pod} via kubectl needs --allow-run=kubectl`,
        };
      }
      return await execViaKubectl(namespace, pod, container, command);
    }
    const api = await execViaApi(namespace, pod, container, command);
    if (api.ok) return api;
    const { fallback, ...outcome } = api;
    if (!fallback) return outcome;
    if (!allowKubectl || execVia === "api") {
      return { ...outcome, message: `${outcome.message}; the kubectl exec fallback is disabled` };
    }
    if (loaded.paths.length === 0) {
      return {
        ...outcome,
        message: `${outcome.message}; no kubectl exec fallback with an inline kubeconfig`,
      };
    }
    if (!kubectlAllowed()) {
      return {
        ...outcome,
        message: `${outcome.message}; the kubectl exec fallback needs --allow-run=kubectl`,
      };
    }
    const viaKubectl = await execViaKubectl(namespace, pod, container, command);
    if (viaKubectl.ok) return viaKubectl;
    // kubectl's own diagnosis is vaguer than the API's: keep the API's reason unless kubectl is more specific.
    return {
      ok: false,
      reason: viaKubectl.reason === "error" ? outcome.reason : viaKubectl.reason,
      message: `${outcome.message}; fallback: ${viaKubectl.message}`,
    };
  }

  async function probeReachable(): Promise<void> {
    try {
      await getJson("/version");
    } catch (err) {
      const status = httpStatusOf(err);
      if (status === 401 || status === 403) {
        throw new ToolError(
          `the API server at ${server} rejected the credentials of context ${contextName} (${status})`,
          { cause: err },
        );
      }
      const tool = toToolError(err, netPurpose, { server, context: contextName, firstRequest: true });
      if (tool) throw tool;
      if (status !== undefined) {
        throw new ToolError(
          `the API server at ${server} answered /version with ${status}: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      throw new ToolError(`cannot reach the API server at ${server}: ${shortError(err)}`, { cause: err });
    }
  }

  async function close(): Promise<void> {
    closed = true;
    // Exec websockets still connecting are terminated as soon as they open; wait a little for them.
    if (pending.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...pending]),
        new Promise((r) => timer = setTimeout(r, 2_000)),
      ]);
      clearTimeout(timer);
    }
    for (const s of sockets) terminate(s);
    sockets.clear();
    http.close();
  }

  return {
    endpoint,
    now: () => new Date(),
    isSnapshot: false,
    kubeconfigPath: loaded.path,
    list,
    discovery,
    exec,
    probeReachable,
    close,
  };
}

function terminate(socket: { terminate?: () => void; close: () => void }): void {
  try {
    if (typeof socket.terminate === "function") socket.terminate();
    else socket.close();
  } catch {
    // already closed
  }
}
