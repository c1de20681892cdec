/**
 * Running a command in a container: through the Exec API (client-node's websocket, channel protocol
 * v5/v4) with the cluster's loaded kubeconfig, falling back to `kubectl exec` when the API refuses
 * the upgrade (needs `--allow-run=kubectl` and a kubeconfig file), or straight through kubectl
 * (`execVia: "kubectl"`). Output is bounded; every exec times out.
 */
import { toToolError } from "../../errors.ts";
import { importClientNode, type KubeConfig } from "../kubeconfig.ts";
import type { ExecOutcome, Unavailable } from "../source.ts";
import { type KubeClient, shortError } from "./client.ts";

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
/** v5.channel.k8s.io close-stream channel. */
const CLOSE_CHANNEL = 255;

type ClientNode = typeof import("@kubernetes/client-node");
type Status = import("@kubernetes/client-node").V1Status;
/** The websocket client-node's Exec returns (ws). */
type ExecSocket = Awaited<ReturnType<InstanceType<ClientNode["Exec"]>["exec"]>>;

type ApiExecOutcome =
  | Extract<ExecOutcome, { ok: true }>
  | { ok: false; reason: Unavailable; message: string; fallback: boolean };

type Done =
  | { kind: "status"; status: Status | undefined }
  | { kind: "frame"; channel: number | null; message: string }
  | { kind: "closed" }
  | { kind: "error"; error: unknown; opened: boolean }
  | { kind: "timeout" };

function terminate(socket: ExecSocket): void {
  try {
    if (typeof socket.terminate === "function") socket.terminate();
    else socket.close();
  } catch {
    // already closed
  }
}

/**
 * Wraps the `onmessage` a websocket is given (ws's accessor, found on its prototype chain) so that an
 * exception thrown by the handler goes to `onError` instead of escaping the event as an uncaught error.
 */
function guardMessages(socket: object, onError: (e: unknown) => void): void {
  let proto: object | null = socket;
  let desc: PropertyDescriptor | undefined;
  while (proto && !desc) {
    desc = Object.getOwnPropertyDescriptor(proto, "onmessage");
    proto = Object.getPrototypeOf(proto);
  }
  const accessor = desc;
  if (!accessor?.set || !accessor.get) return;
  Object.defineProperty(socket, "onmessage", {
    configurable: true,
    get: () => accessor.get!.call(socket),
    set: (fn: unknown) => {
      accessor.set!.call(
        socket,
        typeof fn === "function"
          ? (ev: unknown) => {
            try {
              fn.call(socket, ev);
            } catch (e) {
              onError(e);
            }
          }
          : fn,
      );
    },
  });
}

function kubectlAllowed(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command: "kubectl" }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * Prepares exec on the client's cluster. Websockets still open when the client closes are
 * terminated (those still connecting: as soon as they open, waiting at most 2 s).
 */
export async function createExecutor(client: KubeClient, opts: ExecOptions = {}): Promise<Executor> {
  const k8s = await importClientNode();
  const { Writable } = await import("node:stream");
  const { kc, loaded, timeoutMs, netPurpose } = client;
  const { contextName, server } = loaded;
  const allowKubectl = opts.allowKubectl ?? true;
  const execVia = opts.execVia ?? "auto";
  const sockets = new Set<ExecSocket>();
  const pending = new Set<Promise<void>>();

  client.onClose(async () => {
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
  });

  /**
   * A writable that keeps the first {@link MAX_EXEC_OUTPUT} characters of a stream. Its errors (a
   * frame written after the stream was ended by a status or close-stream frame) are swallowed: an
   * `error` event without a listener would crash the process.
   */
  function collector(): { stream: InstanceType<typeof Writable>; text: () => string } {
    let text = "";
    const decoder = new TextDecoder();
    const stream = new Writable({
      write(chunk: Uint8Array | string, _enc, cb) {
        if (text.length < MAX_EXEC_OUTPUT) {
          text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
        }
        cb();
      },
    });
    stream.on("error", () => {});
    return { stream, text: () => text };
  }

  /**
   * client-node's Exec, made safe against malformed frames: its message handler throws inside the
   * websocket's message event (non-JSON status on channel 3, data on an unknown channel, an empty or
   * truncated frame), which is an uncaught error that ends the process. Here each message is handled
   * inside a try — the socket's `onmessage` is wrapped as client-node sets it (the socket is reached
   * through ws's `finishRequest` option, on a per-exec view of the kubeconfig) — and a failure ends the
   * exec through `onBadFrame`. v5 close-stream frames (255) are accepted; client-node ends the
   * handler's own streams on them, which are pointed at this exec's collectors (never the tool's
   * process.stdout).
   */
  function safeExec(
    out: InstanceType<typeof Writable>,
    err: InstanceType<typeof Writable>,
    onBadFrame: (channel: number | null, message: string) => void,
  ): InstanceType<ClientNode["Exec"]> {
    const bad = (channel: number | null, e: unknown): void =>
      onBadFrame(channel, e instanceof Error ? e.message : String(e));
    const view: KubeConfig = Object.create(kc, {
      applyToHTTPSOptions: {
        value: async (opts: Record<string, unknown>): Promise<void> => {
          await kc.applyToHTTPSOptions(opts);
          opts.finishRequest = (req: { end(): void }, socket: object): void => {
            guardMessages(socket, (e) => bad(null, e));
            req.end();
          };
        },
      },
    });
    const exec = new k8s.Exec(view);
    const inner = exec.handler;
    const handler = inner as unknown as { streams?: unknown };
    if (typeof handler === "object" && handler !== null && "streams" in handler) {
      handler.streams = { stdin: { pause: () => {} }, stdout: out, stderr: err };
    }
    exec.handler = {
      connect: (path, textHandler, binaryHandler) =>
        inner.connect(
          path,
          textHandler,
          binaryHandler &&
            ((channel: number, buff: Parameters<NonNullable<typeof binaryHandler>>[1]): boolean => {
              if (channel === CLOSE_CHANNEL) return true;
              try {
                return binaryHandler(channel, buff);
              } catch (e) {
                bad(channel, e);
                return false;
              }
            }),
        ),
    };
    return exec;
  }

  async function execViaApi(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
  ): Promise<ApiExecOutcome> {
    const out = collector();
    const err = collector();
    let ws: ExecSocket | null = null;
    let settle: (d: Done) => void = () => {};
    const finished = new Promise<Done>((resolve) => (settle = resolve));
    const exec = safeExec(
      out.stream,
      err.stream,
      (channel, message) => settle({ kind: "frame", channel, message }),
    );
    const timer: ReturnType<typeof setTimeout> = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
    let over = false;
    const connecting = exec.exec(
      namespace,
      pod,
      container,
      [...command],
      out.stream,
      err.stream,
      null,
      false,
      (status) => settle({ kind: "status", status }),
    ).then((socket) => {
      // Errors after the outcome was decided (e.g. a reset while terminating) must not go unheard.
      socket.on("error", () => {});
      if (over || client.closed) {
        // The exec already ended (timeout) or the source was closed while connecting.
        terminate(socket);
        return;
      }
      ws = socket;
      sockets.add(socket);
      socket.on("close", () => setTimeout(() => settle({ kind: "closed" }), 0));
      socket.on("error", (error: unknown) => settle({ kind: "error", error, opened: true }));
    }, (error: unknown) => settle({ kind: "error", error, opened: false }));
    pending.add(connecting);
    connecting.finally(() => pending.delete(connecting));
    const done = await finished;
    over = true;
    clearTimeout(timer);
    const socket: ExecSocket | null = ws;
    if (socket) {
      sockets.delete(socket);
      if (done.kind === "status") {
        try {
          socket.close();
        } catch {
          // already closed
        }
      } else terminate(socket);
    }
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
        const st: Status = typeof done.status === "object" && done.status !== null ? done.status : {};
        if (typeof done.status !== "object" || done.status === null) {
          return {
            ok: false,
            reason: "error",
            message: `exec in ${where}: malformed exec status ${JSON.stringify(done.status)}`,
            fallback: false,
          };
        }
        if (st.status === "Success") return { ok: true, stdout, stderr, exitCode: 0, via: "api" };
        if (st.reason === "NonZeroExitCode") {
          const cause = (st.details?.causes ?? []).find((c) => c?.reason === "ExitCode");
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

  return {
    async exec(namespace, pod, container, command): Promise<ExecOutcome> {
      const out = await execOnce(namespace, pod, container, command);
      return out.ok ? { ...out, takenAt: Date.now() } : out;
    },
  };
}
