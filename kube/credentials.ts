/**
 * A kubeconfig user turned into what each request carries: the Authorization header (bearer token,
 * `tokenFile` re-read like client-go, basic auth, an exec credential plugin's token, an OIDC
 * id-token), impersonation headers, and the client certificate and key for the TLS handshake
 * (from the kubeconfig or from the plugin). Legacy auth providers that need a cloud SDK (`gcp`,
 * `azure`) and an expired OIDC token are one clear error naming what to use instead.
 */
import { PermissionError, ToolError } from "../errors.ts";
import { createExecPlugin, type ExecPlugin } from "./exec_credential.ts";
import { type Cluster, readFailure, readTokenFile, type User } from "./kubeconfig.ts";

/** What one request carries. */
export interface RequestCredentials {
  /** Headers to send (Authorization, Impersonate-*). */
  headers: Record<string, string>;
  /** Client certificate (PEM) for the TLS handshake. */
  cert?: string;
  /** Its key (PEM). */
  key?: string;
}

/** The credentials of one context, refreshed as they expire. */
export interface CredentialSource {
  /** The credentials for the next request (may run the exec plugin: bounded by the request timeout). */
  get(): Promise<RequestCredentials>;
  /**
   * After a 401: forgets credentials that may have been revoked early (an exec plugin's); true when
   * asking again may help, so the request is worth one more try.
   */
  renew(): boolean;
  /** The exec credential plugin, if the user has one (named in messages). */
  readonly plugin: string | null;
  /** Kills a running plugin; idempotent. */
  close(): Promise<void>;
}

/** How often a `tokenFile` is read again (client-go caches it for a minute). */
export const TOKEN_FILE_TTL_MS = 60_000;

/** Options of {@link createCredentialSource}. */
export interface CredentialOptions {
  /** The context (named in errors). */
  contextName: string;
  /** Its cluster (exec plugins may be given its details). */
  cluster: Cluster;
  /** Most time one run of an exec plugin may take. */
  timeoutMs: number;
  /** How long a tokenFile's content is used before it is read again (default {@link TOKEN_FILE_TTL_MS}). */
  tokenFileTtlMs?: number;
  /** Whether standard input is a terminal, for interactive exec plugins (default: asked of Deno.stdin). */
  terminal?: boolean;
}

async function readPem(path: string, what: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new PermissionError("--allow-read", `read the ${what} ${path}`, { cause: err });
    }
    throw new ToolError(`cannot read ${what} ${path}: ${readFailure(err)}`, { cause: err });
  }
}

function fromBase64(data: string, what: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(data.replace(/\s+/g, "")), (c) => c.charCodeAt(0)));
  } catch {
    throw new ToolError(`${what} is not valid base64`);
  }
}

/** The `exp` claim of a JWT (epoch ms), null when it has none or is not a JWT. */
export function jwtExpiry(token: string): number | null {
  const part = token.split(".")[1];
  if (!part) return null;
  try {
    const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
    const claims: unknown = JSON.parse(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)));
    const exp = typeof claims === "object" && claims !== null ? (claims as { exp?: unknown }).exp : undefined;
    return typeof exp === "number" ? exp * 1000 : null;
  } catch {
    return null;
  }
}

/** The bearer token of an `oidc` auth-provider: its id-token while it is valid, else a clear error. */
function oidcToken(user: User, config: Record<string, string>, contextName: string): string {
  const who = `user "${user.name}" of context ${contextName}`;
  const refresh =
    "log in again (kubelogin: `kubectl oidc-login get-token …`, or your IdP's helper) or switch " +
    "the user to an exec plugin (`kubectl oidc-login setup` prints one); FlyingFish does not refresh OIDC tokens";
  const token = config["id-token"];
  if (!token) throw new ToolError(`the oidc auth-provider of ${who} has no id-token: ${refresh}`);
  const exp = jwtExpiry(token);
  if (exp !== null && exp <= Date.now()) {
    throw new ToolError(
      `the OIDC id-token of ${who} expired at ${new Date(exp).toISOString()}: ${refresh}`,
    );
  }
  return token;
}

/** The error for an auth-provider FlyingFish does not run (legacy cloud providers and unknown ones). */
function unsupportedProvider(user: User, name: string, contextName: string): ToolError {
  const who = `user "${user.name}" of context ${contextName}`;
  switch (name) {
    case "gcp":
      return new ToolError(
        `${who} uses the removed "gcp" auth-provider: install gke-gcloud-auth-plugin ` +
          "(`gcloud components install gke-gcloud-auth-plugin`) and run `gcloud container clusters get-credentials <cluster>` " +
          "to switch the kubeconfig to it",
      );
    case "azure":
      return new ToolError(
        `${who} uses the removed "azure" auth-provider: install kubelogin and run ` +
          "`kubelogin convert-kubeconfig -l azurecli` to switch the kubeconfig to it",
      );
    default:
      return new ToolError(
        `${who} uses the auth-provider "${name}", which FlyingFish does not support: use an exec credential plugin`,
      );
  }
}

/**
 * Prepares the credentials of `user` (none: anonymous). Static material is read on the first
 * request; an auth-provider FlyingFish cannot use fails there too, with its replacement named.
 */
export function createCredentialSource(user: User | undefined, opts: CredentialOptions): CredentialSource {
  const { contextName } = opts;
  const plugin: ExecPlugin | null = user?.exec ? createExecPlugin(user.exec, opts) : null;
  let staticPart: Promise<{ headers: Record<string, string>; cert?: string; key?: string }> | null = null;
  let fileToken: { token: string; readAt: number } | null = user?.tokenFile && user.token
    ? { token: user.token, readAt: Date.now() }
    : null;

  /** Everything that does not change while the run lasts, read once. */
  async function readStatic(): Promise<{ headers: Record<string, string>; cert?: string; key?: string }> {
    const headers: Record<string, string> = {};
    if (!user) return { headers };
    if (user.impersonateUser) headers["Impersonate-User"] = user.impersonateUser;
    if (user.impersonateGroups) headers["Impersonate-Group"] = user.impersonateGroups.join(", ");
    if (user.authProvider && user.authProvider.name !== "oidc") {
      throw unsupportedProvider(user, user.authProvider.name, contextName);
    }
    if (user.username !== undefined && user.password !== undefined && !user.token && !user.tokenFile) {
      headers.Authorization = `Basic ${btoa(`${user.username}:${user.password}`)}`;
    }
    const who = `of user "${user.name}"`;
    const cert = user.certFile
      ? await readPem(user.certFile, "client-certificate")
      : user.certData
      ? fromBase64(user.certData, `client-certificate-data ${who}`)
      : undefined;
    const key = user.keyFile
      ? await readPem(user.keyFile, "client-key")
      : user.keyData
      ? fromBase64(user.keyData, `client-key-data ${who}`)
      : undefined;
    if (Boolean(cert) !== Boolean(key)) {
      throw new ToolError(
        `user "${user.name}" has a client certificate without its key (or a key without its certificate)`,
      );
    }
    return { headers, cert, key };
  }

  /** The token of the tokenFile, read again once it is older than {@link TOKEN_FILE_TTL_MS}. */
  async function tokenFromFile(path: string): Promise<string> {
    const ttl = opts.tokenFileTtlMs ?? TOKEN_FILE_TTL_MS;
    if (fileToken && Date.now() - fileToken.readAt < ttl) return fileToken.token;
    try {
      fileToken = { token: await readTokenFile(path), readAt: Date.now() };
    } catch (err) {
      // client-go keeps the last good token when a re-read fails (a rotation in progress).
      if (!fileToken) throw err;
      fileToken = { ...fileToken, readAt: Date.now() };
    }
    return fileToken.token;
  }

  return {
    plugin: user?.exec?.command ?? null,
    async get(): Promise<RequestCredentials> {
      staticPart ??= readStatic();
      let base;
      try {
        base = await staticPart;
      } catch (err) {
        staticPart = null;
        throw err;
      }
      const out: RequestCredentials = { headers: { ...base.headers }, cert: base.cert, key: base.key };
      if (!user) return out;
      // A token in the kubeconfig wins over a plugin's (client-go and client-node agree).
      let token = user.tokenFile ? await tokenFromFile(user.tokenFile) : user.token;
      if (!token && user.authProvider?.name === "oidc") {
        token = oidcToken(user, user.authProvider.config, contextName);
      }
      if (plugin) {
        const cred = await plugin.get();
        token ??= cred.token;
        if (cred.cert && cred.key) {
          out.cert = cred.cert;
          out.key = cred.key;
        }
      }
      if (token) out.headers.Authorization = `Bearer ${token}`;
      return out;
    },
    renew(): boolean {
      if (!plugin || user?.token || user?.tokenFile) return false;
      plugin.invalidate();
      return true;
    },
    async close(): Promise<void> {
      await plugin?.close();
    },
  };
}
