/**
 * Server side of the Kubernetes exec channel protocol over WebSocket (v4/v5.channel.k8s.io, and
 * v4.base64.channel.k8s.io): each binary frame starts with a channel byte (1 stdout, 2 stderr,
 * 3 status); the exit status is a metav1.Status JSON on channel 3, then the socket is closed.
 */
import type { ExecResult } from "./exec.ts";

/** Subprotocols the fake server speaks, in its order of preference. */
export const SUPPORTED_PROTOCOLS: readonly string[] = [
  "v5.channel.k8s.io",
  "v4.channel.k8s.io",
  "v4.base64.channel.k8s.io",
];

/** Prefix of the subprotocol that carries a bearer token (base64url, no padding). */
export const BEARER_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";

/** Channel numbers. */
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** Splits a Sec-WebSocket-Protocol header into protocol names. */
export function parseProtocols(header: string | null): string[] {
  return (header ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** The first protocol the client offers that the server supports, or null. */
export function pickProtocol(offered: readonly string[]): string | null {
  return offered.find((p) => SUPPORTED_PROTOCOLS.includes(p)) ?? null;
}

/** Bearer token carried in a subprotocol, if any. */
export function tokenFromProtocols(offered: readonly string[]): string | null {
  const p = offered.find((x) => x.startsWith(BEARER_PROTOCOL_PREFIX));
  if (!p) return null;
  const b64 = p.slice(BEARER_PROTOCOL_PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
  try {
    return atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  } catch {
    return null;
  }
}

/** Encodes one frame for `protocol`: binary (channel byte + data) or base64 text. */
export function encodeFrame(protocol: string, channel: number, data: Uint8Array): Uint8Array | string {
  if (protocol.includes("base64")) {
    let bin = "";
    for (const b of data) bin += String.fromCharCode(b);
    return String.fromCharCode(48 + channel) + btoa(bin);
  }
  const out = new Uint8Array(data.length + 1);
  out[0] = channel;
  out.set(data, 1);
  return out;
}

/** The metav1.Status an exec ends with. */
export function execStatus(command: readonly string[], r: ExecResult): Record<string, unknown> {
  if (r.exitCode === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: command '${
      command.join(" ")
    }' exited with ${r.exitCode}: ${r.stderr.trim()}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(r.exitCode) }] },
  };
}

/** Streams an exec result over an upgraded socket, then closes it. */
export function streamExec(
  socket: WebSocket,
  protocol: string,
  command: readonly string[],
  result: ExecResult,
  opts: { stdout: boolean; stderr: boolean },
): void {
  const enc = new TextEncoder();
  socket.binaryType = "arraybuffer";
  socket.onmessage = () => {
    // stdin, resize and v5 close (255) frames from the client are accepted and ignored.
  };
  socket.onerror = () => {};
  socket.onopen = () => {
    try {
      if (opts.stdout && result.stdout !== "") {
        socket.send(encodeFrame(protocol, CHANNEL.stdout, enc.encode(result.stdout)));
      }
      if (opts.stderr && result.stderr !== "") {
        socket.send(encodeFrame(protocol, CHANNEL.stderr, enc.encode(result.stderr)));
      }
      socket.send(
        encodeFrame(protocol, CHANNEL.error, enc.encode(JSON.stringify(execStatus(command, result)))),
      );
      socket.close(1000);
    } catch {
      // client went away
    }
  };
}

/**
 * Misbehaves on an upgraded exec socket (fault injection, see faults.ts): `malformed-status` sends
 * stdout and then a channel-3 frame that is not a Status; `unknown-channel` sends data on channel 7
 * before a successful status; `close` sends half of stdout and closes without any status; `hang`
 * sends nothing and keeps the socket open until the server closes it.
 */
export function streamExecFault(
  socket: WebSocket,
  protocol: string,
  result: ExecResult,
  fault: "malformed-status" | "unknown-channel" | "close" | "hang",
): void {
  const enc = new TextEncoder();
  socket.binaryType = "arraybuffer";
  socket.onmessage = () => {};
  socket.onerror = () => {};
  socket.onopen = () => {
    try {
      switch (fault) {
        case "hang":
          return;
        case "close":
          socket.send(encodeFrame(protocol, CHANNEL.stdout, enc.encode(result.stdout.slice(0, 40))));
          socket.close(1000);
          return;
        case "malformed-status":
          if (result.stdout !== "") {
            socket.send(encodeFrame(protocol, CHANNEL.stdout, enc.encode(result.stdout)));
          }
          socket.send(encodeFrame(protocol, CHANNEL.error, enc.encode('{"metadata":{},"status":"Succ')));
          socket.close(1000);
          return;
        case "unknown-channel":
          socket.send(encodeFrame(protocol, 7, enc.encode("data on a channel nobody opened")));
          if (result.stdout !== "") {
            socket.send(encodeFrame(protocol, CHANNEL.stdout, enc.encode(result.stdout)));
          }
          socket.send(
            encodeFrame(
              protocol,
              CHANNEL.error,
              enc.encode(JSON.stringify({ metadata: {}, status: "Success" })),
            ),
          );
          socket.close(1000);
          return;
      }
    } catch {
      // client went away
    }
  };
}
