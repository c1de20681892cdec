/**
 * Tool errors: what makes a run impossible (bad kubeconfig, unreachable API server, rejected
 * credentials, a missing Deno permission). Each becomes one clear line and exit code 3.
 *
 * This module has no dependencies so that `--help` and the error path stay cheap.
 */

/** An error that stops the run; printed as one line, exit code 3. */
export class ToolError extends Error {
  /** Process exit code for tool errors. */
  readonly exitCode: number = 3;

  /** Creates a tool error with a one-line message. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
  }
}

/** A Deno permission the run needs but was not granted. */
export class PermissionError extends ToolError {
  /** Creates the error for the missing `flag` (e.g. `--allow-net`) and what it was needed for. */
  constructor(
    /** The Deno flag that grants the permission, e.g. `--allow-run=kubectl`. */
    readonly flag: string,
    /** What the permission was needed for, e.g. "read the kubeconfig". */
    readonly purpose: string,
    options?: ErrorOptions,
  ) {
    super(`missing Deno permission ${flag} (needed to ${purpose})`, options);
    this.name = "PermissionError";
  }
}

/** Where an error happened, so that network and auth failures can name the API server. */
export interface ErrorEndpoint {
  /** API server URL. */
  server?: string;
  /** kubeconfig context name. */
  context?: string;
  /** True when the failing request was the first one made to this server. */
  firstRequest?: boolean;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "EPIPE",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_TLS_HANDSHAKE_TIMEOUT",
]);

const NETWORK_ERROR_NAMES = new Set([
  "ConnectionRefused",
  "ConnectionReset",
  "ConnectionAborted",
  "TimedOut",
  "NotConnected",
  "AddrNotAvailable",
  "TimeoutError",
  "NetworkUnreachable",
  "HostUnreachable",
]);

const NETWORK_MESSAGE =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|connection refused|connection reset|timed out|dns error|failed to lookup|certificate|self[- ]signed|tls handshake|wrong version number|socket hang up/i;

const PERMISSION_MESSAGE = /Requires (\w+) access(?: to "([^"]*)")?/;

const SYS_DESCRIPTORS = new Set([
  "hostname",
  "osRelease",
  "osUptime",
  "loadavg",
  "networkInterfaces",
  "systemMemoryInfo",
  "uid",
  "gid",
  "cpus",
  "homedir",
  "username",
  "statfs",
  "getPriority",
  "setPriority",
  "userInfo",
]);

/** The Deno flag that grants a permission kind (`read`, `net`, …) for a target. */
export function permissionFlag(kind: string, target?: string): string {
  switch (kind) {
    case "run":
      // A program given by path is granted by its path: `--allow-run=aws` only covers the `aws` that
      // PATH resolves to, so `--allow-run=/opt/tools/aws` is the value that always works.
      return target ? `--allow-run=${target}` : "--allow-run";
    case "sys":
      // Only some targets are valid descriptors (Deno also asks for sys access when it loads the
      // system CA store, with a target it does not accept back as a flag value).
      return target && SYS_DESCRIPTORS.has(target) ? `--allow-sys=${target}` : "--allow-sys";
    default:
      return `--allow-${kind}`;
  }
}

function defaultPurpose(kind: string, target?: string): string {
  const t = target ? ` ${target}` : "";
  switch (kind) {
    case "read":
      return `read${t || " a file"}`;
    case "write":
      return `write${t || " a file"}`;
    case "net":
      return `reach${t || " the network"}`;
    case "env":
      return target ? `read the environment variable ${target}` : "read the environment";
    case "run":
      return `run${t || " a subprocess"}`;
    case "sys":
      return target ? `read system information "${target}"` : "read system information";
    case "ffi":
      return "load a native library";
    default:
      return `${kind} access${t}`;
  }
}

/** The error and its `.cause` chain (plus `.error` of websocket ErrorEvents and AggregateError members). */
export function errorChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 16) {
    const e = queue.shift();
    if (e === undefined || e === null || out.includes(e)) continue;
    out.push(e);
    if (typeof e === "object") {
      const o = e as { cause?: unknown; error?: unknown; errors?: unknown };
      if (o.cause !== undefined) queue.push(o.cause);
      if (o.error !== undefined && o.error !== e) queue.push(o.error);
      if (Array.isArray(o.errors)) queue.push(...o.errors);
    }
  }
  return out;
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "object" && e !== null && typeof (e as { message?: unknown }).message === "string") {
    return (e as { message: string }).message;
  }
  return String(e);
}

function codeOf(e: unknown): string | undefined {
  const c = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof c === "string" ? c : undefined;
}

/** HTTP status carried by an error (`status`, `statusCode`, or a numeric `code`), if any. */
export function httpStatusOf(e: unknown): number | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const o = e as { status?: unknown; statusCode?: unknown; code?: unknown };
  for (const v of [o.status, o.statusCode, o.code]) {
    if (typeof v === "number" && v >= 100 && v < 600) return v;
  }
  return undefined;
}

/** A short, single-line description of a network error, e.g. `connect ECONNREFUSED 127.0.0.1:1`. */
export function describeNetworkError(err: unknown): string | null {
  for (const e of errorChain(err)) {
    const code = codeOf(e);
    const name = e instanceof Error ? e.name : "";
    const msg = oneLine(messageOf(e));
    if ((code && NETWORK_CODES.has(code)) || NETWORK_ERROR_NAMES.has(name) || NETWORK_MESSAGE.test(msg)) {
      return code && !msg.includes(code) ? `${msg} (${code})` : msg;
    }
  }
  return null;
}

/** Finds a missing-Deno-permission error in the chain and returns the permission kind and target. */
export function findPermissionDenial(err: unknown): { kind: string; target?: string; error: unknown } | null {
  for (const e of errorChain(err)) {
    const msg = messageOf(e);
    const m = PERMISSION_MESSAGE.exec(msg);
    if (m) return { kind: m[1], target: m[2], error: e };
    if (e instanceof Deno.errors.NotCapable) return { kind: "unknown", error: e };
  }
  return null;
}

/**
 * Maps an error to a {@link ToolError} when it is one of the known run-stopping causes: a missing Deno
 * permission (anywhere in the `.cause` chain), an OS permission denial, an unreachable API server,
 * or rejected credentials on the first request. Returns null for anything else.
 */
export function toToolError(err: unknown, purpose?: string, endpoint?: ErrorEndpoint): ToolError | null {
  const chain = errorChain(err);
  for (const e of chain) if (e instanceof ToolError) return e;

  const denial = findPermissionDenial(err);
  if (denial) {
    if (denial.kind === "unknown") {
      return new ToolError(
        `a Deno permission is missing${purpose ? ` (needed to ${purpose})` : ""}: ${
          oneLine(messageOf(denial.error))
        }`,
        { cause: err },
      );
    }
    const flag = permissionFlag(denial.kind, denial.target);
    return new PermissionError(flag, purpose ?? defaultPurpose(denial.kind, denial.target), { cause: err });
  }
  for (const e of chain) {
    if (e instanceof Deno.errors.PermissionDenied || codeOf(e) === "EACCES") {
      return new ToolError(
        `${purpose ? `cannot ${purpose}` : "operation not permitted"}: ${oneLine(messageOf(e))}`,
        { cause: err },
      );
    }
  }

  const where = endpoint?.server ? ` at ${endpoint.server}` : "";
  for (const e of chain) {
    const status = httpStatusOf(e);
    if ((status === 401 || status === 403) && endpoint?.firstRequest) {
      const ctx = endpoint.context ? ` of context ${endpoint.context}` : "";
      return new ToolError(`the API server${where} rejected the credentials${ctx} (${status})`, {
        cause: err,
      });
    }
  }
  const net = describeNetworkError(err);
  if (net) return new ToolError(`cannot reach the API server${where}: ${net}`, { cause: err });
  return null;
}

/** Collapses a multi-line message into one line. */
export function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}
