/**
 * Running a command in a container: through the Exec API (a websocket speaking the channel protocol
 * v5.channel.k8s.io, or v4) with the cluster client's credentials and TLS settings, falling back to
 * `kubectl exec` when the API refuses the upgrade (needs `--allow-run=kubectl` and a kubeconfig
 * file), or straight through kubectl (`execVia: "kubectl"`). Output is bounded; every exec times out;
 * a malformed frame ends the exec with an error outcome, never an uncaught exception.
 */
import { toToolError } from "../../errors.ts";
import type { ExecOutcome, Unavailable } from "../source.ts";
import { type KubeClient, shortError } from "./client.ts";
import { within } from "../../time.ts";

/** How to exec. */
export interface ExecOptions {
  /**
   * Allow falling back to `kubectl exec` when the Exec API fails (default true); the fallback also
   * needs the Deno permission `--allow-run=kubectl`.
   */
  allowKubectl?: boolean;
  /**
   * "auto" (default) tries the Exec API and falls back to kubectl; "api" never uses kubectl;
   * "kubectl" goes straight to `kubectl exec` (e.g. where a proxy blocks websockets).
   */
  execVia?: "auto" | "api" | "kubectl";
}

/** Runs commands in the cluster's pods. */
export interface Executor {
  /** Runs `command` in the container; never throws. Successful outcomes carry `takenAt`. */
  exec(namespace: string, pod: string, container: string, command: readonly string[]): Promise<ExecOutcome>;
}

const MAX_EXEC_OUTPUT = 4 * 1024 * 1024;

/** Subprotocols offered, in order of preference (v5 adds the close-stream channel). */
export const EXEC_PROTOCOLS: readonly string[] = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

/** Channel numbers of the exec protocol. */
const CHANNEL = { stdout: 1, stderr: 2, status: 3, close: 255 } as const;

/** The part of a metav1.Status an exec ends with. */
interface ExecStatus {
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  details?: { causes?: { reason?: unknown; message?: unknown }[] };
}

/** The part of ws's WebSocket used here (ws ships no types). */
interface WsSocket {
  readonly protocol: string;
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  on(event: "open", fn: () => void): void;
  on(event: "message", fn: (data: Uint8Array | ArrayBuffer | Uint8Array[], isBinary: boolean) => void): void;
  on(event: "close", fn: () => void): void;
  on(event: "error", fn: (err: Error) => void): void;
  on(
    event: "unexpected-response",
    fn: (req: { destroy(): void }, res: { statusCode?: number; resume(): void }) => void,
  ): void;
  close(code?: number): void;
  terminate(): void;
}

type WsConstructor = new (url: string, protocols: string[], options: Record<string, unknown>) => WsSocket;

let wsModule: Promise<WsConstructor> | null = null;

/** Imports ws once, when the first exec needs it. */
function importWs(): Promise<WsConstructor> {
  wsModule ??= import("ws").then((m) => (m.default ?? m) as WsConstructor).catch((err) => {
    wsModule = null;
    throw err;
  });
  return wsModule;
}

type ApiExecOutcome =
  | Extract<ExecOutcome, { ok: true }>
  | { ok: false; reason: Unavailable; message: string; fallback: boolean };

type Done =
  | { kind: "status"; status: unknown }
  | { kind: "frame"; channel: number | null; message: string }
  | { kind: "closed" }
  | { kind: "refused"; status: number }
  | { kind: "error"; error: unknown; opened: boolean }
  | { kind: "timeout" };

function terminate(socket: WsSocket): void {
  try {
    socket.terminate();
  } catch {
    // already closed
  }
}

function kubectlAllowed(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command: "kubectl" }).state === "granted";
  } catch {
    return false;
  }
}

/** Keeps the first {@link MAX_EXEC_OUTPUT} characters of a stream of chunks. */
function collector(): { add(chunk: Uint8Array): void; end(): void; text(): string } {
  let text = "";
  let ended = false;
  const decoder = new TextDecoder();
  return {
    add(chunk) {
      if (!ended && text.length < MAX_EXEC_OUTPUT) text += decoder.decode(chunk, { stream: true });
    },
    end() {
      if (!ended) text += decoder.decode();
      ended = true;
    },
    text: () => text,
  };
}

function toBytes(data: Uint8Array | ArrayBuffer | Uint8Array[]): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  const out = new Uint8Array(data.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of data) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** The exec API URL (ws:// or wss://) of a command in a container. */
export function execUrl(
  server: string,
  namespace: string,
  pod: string,
  container: string,
  command: readonly string[],
): string {
  const q = new URLSearchParams();
  for (const c of command) q.append("command", c);
  q.set("container", container);
  q.set("stdout", "true");
  q.set("stderr", "true");
  q.set("stdin", "false");
  q.set("tty", "false");
  const base = server.replace(/\/+$/, "").replace(/^http/, "ws");
  return `${base}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${
    encodeURIComponent(pod)
  }/exec?${q}`;
}

/**
 * Prepares exec on the client's cluster. Websockets still open when the client closes are
 * terminated; those still connecting (an exec that timed out during the handshake) are closed as
 * soon as they open — waiting at most 2 s — so that the server sees a clean end rather than an
 * upgrade on a dead connection.
 */
export function createExecutor(client: KubeClient, opts: ExecOptions = {}): Promise<Executor> {
  const { loaded, timeoutMs, netPurpose } = client;
  const { contextName } = loaded;
  // Requests go to the server as written (userinfo included); messages name loaded.server.
  const server = loaded.cluster.server;
  const allowKubectl = opts.allowKubectl ?? true;
  const execVia = opts.execVia ?? "auto";
  const sockets = new Set<WsSocket>();
  /** Sockets given up on while still connecting, each with a promise that settles once it is gone. */
  const connecting = new Map<WsSocket, Promise<void>>();

  client.onClose(async () => {
    if (connecting.size > 0) await within(Promise.allSettled([...connecting.values()]), 2_000);
    for (const s of [...sockets, ...connecting.keys()]) terminate(s);
    sockets.clear();
    connecting.clear();
  });

  /** Ends a socket: at once when it is open, else as soon as its handshake ends. */
  function release(socket: WsSocket): void {
    sockets.delete(socket);
    if (socket.readyState !== 0) return terminate(socket);
    connecting.set(
      socket,
      new Promise<void>((resolve) => {
        const gone = (): void => {
          connecting.delete(socket);
          terminate(socket);
          resolve();
        };
        socket.on("open", gone);
        socket.on("close", gone);
        socket.on("error", gone);
      }),
    );
  }

  /** Runs the exec over one websocket; resolves when it ended one way or another. */
  async function exchange(
    url: string,
    out: ReturnType<typeof collector>,
    err: ReturnType<typeof collector>,
  ): Promise<Done> {
    let settle: (d: Done) => void = () => {};
    const finished = new Promise<Done>((resolve) => (settle = resolve));
    const timer: ReturnType<typeof setTimeout> = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
    let socket: WsSocket | null = null;
    try {
      const [WebSocket, conn] = await Promise.all([importWs(), client.connectOptions()]);
      if (client.closed) {
        return { kind: "error", error: new Error("the cluster source is closed"), opened: false };
      }
      let opened = false;
      let over = false;
      const closedStreams = new Set<number>();
      socket = new WebSocket(url, [...EXEC_PROTOCOLS], {
        ...conn.tls,
        ...(conn.createConnection ? { createConnection: conn.createConnection } : {}),
        headers: { ...conn.headers, "User-Agent": "flyingfish" },
        perMessageDeflate: false,
        followRedirects: false,
      });
      const ws = socket;
      sockets.add(ws);
      const end = (d: Done): void => {
        if (over) return;
        over = true;
        settle(d);
      };
      ws.on("unexpected-response", (req, res) => {
        res.resume();
        req.destroy();
        end({ kind: "refused", status: res.statusCode ?? 0 });
      });
      ws.on("open", () => (opened = true));
      ws.on("error", (error) => end({ kind: "error", error, opened }));
      ws.on("close", () => setTimeout(() => end({ kind: "closed" }), 0));
      ws.on("message", (data, isBinary) => {
        if (over) return;
        const bytes = toBytes(data);
        if (!isBinary) return end({ kind: "frame", channel: null, message: "text frame" });
        if (bytes.length === 0) return end({ kind: "frame", channel: null, message: "empty frame" });
        const channel = bytes[0];
        const payload = bytes.subarray(1);
        if (channel === CHANNEL.close && ws.protocol === "v5.channel.k8s.io") {
          if (payload.length > 0) closedStreams.add(payload[0]);
          return;
        }
        if (channel === CHANNEL.stdout || channel === CHANNEL.stderr) {
          if (!closedStreams.has(channel)) (channel === CHANNEL.stdout ? out : err).add(payload);
          return;
        }
        if (channel === CHANNEL.status) {
          const text = new TextDecoder().decode(payload);
          try {
            return end({ kind: "status", status: JSON.parse(text) });
          } catch (e) {
            return end({ kind: "frame", channel, message: e instanceof Error ? e.message : String(e) });
          }
        }
        end({ kind: "frame", channel, message: `data on unknown channel ${channel}` });
      });
      return await finished;
    } catch (error) {
      return { kind: "error", error, opened: false };
    } finally {
      clearTimeout(timer);
      out.end();
      err.end();
      if (socket) release(socket);
    }
  }

  async function execViaApi(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ApiExecOutcome> {
    const out = collector();
    const err = collector();
    const done = await exchange(execUrl(server, namespace, pod, container, command), out, err);
    const stdout = out.text();
    const stderr = err.text();
    const where = `${namespace}/${pod}`;
    switch (done.kind) {
      case "timeout":
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where} timed out after ${timeoutMs} ms`,
          fallback: false,
        };
      case "frame":
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where}: malformed exec frame${
            done.channel === null ? "" : ` on channel ${done.channel}`
          } (${done.message.split("\n")[0].slice(0, 120)})`,
          fallback: false,
        };
      case "closed":
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where}: the connection closed without an exit status`,
          fallback: false,
        };
      case "refused": {
        if (done.status === 404) {
          return {
            ok: false,
            reason: "missing",
            message: `exec in ${where}: pod or container not found (404)`,
            fallback: false,
          };
        }
        if (done.status === 403) {
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
          message: `exec in ${where}: upgrade refused (HTTP ${done.status})`,
          fallback: true,
        };
      }
      case "error": {
        const tool = toToolError(done.error, netPurpose, { server: loaded.server });
        if (tool && tool.name === "PermissionError") {
          return { ok: false, reason: "error", message: tool.message, fallback: false };
        }
        return {
          ok: false,
          reason: "error",
          message: `exec in ${where}: ${tool ? tool.message : shortError(done.error)}`,
          fallback: true,
        };
      }
      case "status": {
        if (typeof done.status !== "object" || done.status === null) {
          return {
            ok: false,
            reason: "error",
            message: `exec in ${where}: malformed exec status ${JSON.stringify(done.status)}`,
            fallback: false,
          };
        }
        const st = done.status as ExecStatus;
        if (st.status === "Success") return { ok: true, stdout, stderr, exitCode: 0, via: "api" };
        if (st.reason === "NonZeroExitCode") {
          const causes = Array.isArray(st.details?.causes) ? st.details.causes : [];
          const cause = causes.find((c) => c?.reason === "ExitCode");
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

  return Promise.resolve({
    async exec(namespace, pod, container, command): Promise<ExecOutcome> {
      const out = await execOnce(namespace, pod, container, command);
      return out.ok ? { ...out, takenAt: Date.now() } : out;
    },
  });
}
