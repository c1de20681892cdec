/**
 * Loading a kubeconfig the way kubectl does (explicit path, else `KUBECONFIG` merged, else
 * `~/.kube/config`), failing loudly where @kubernetes/client-node would silently fall back to
 * `http://localhost:8080`. client-node is imported lazily so that `--help` never loads it.
 */
import { parse as parseYaml } from "yaml";
import { PermissionError, ToolError, toToolError } from "../errors.ts";

type ClientNode = typeof import("@kubernetes/client-node");
/** client-node's KubeConfig class (type only; the module is loaded lazily). */
export type KubeConfig = import("@kubernetes/client-node").KubeConfig;

/** Where the kubeconfig comes from and which context to use. */
export interface KubeConfigOptions {
  /** Explicit kubeconfig path (`--kubeconfig`); disables `KUBECONFIG` and `~/.kube/config`. */
  kubeconfig?: string;
  /** Context to use instead of the current-context (`--context`). */
  context?: string;
  /** kubeconfig text given directly (demo, tests); wins over `kubeconfig`; no file is read. */
  kubeconfigYaml?: string;
}

/** The `path` reported for a kubeconfig given as text. */
export const INLINE_PATH = "(inline kubeconfig)";

/** A kubeconfig loaded and checked, with its context selected. */
export interface LoadedKubeConfig {
  /** client-node configuration with the context set as current. */
  kc: KubeConfig;
  /** The selected context. */
  contextName: string;
  /** API server URL of the context's cluster. */
  server: string;
  /** The file(s) it came from; several files are joined with the path-list separator, as in KUBECONFIG. */
  path: string;
  /** Each file that was read, in merge order (empty for an inline kubeconfig). */
  paths: string[];
}

let clientNode: Promise<ClientNode> | null = null;

/** Imports @kubernetes/client-node once, mapping a missing permission at import time to a clear error. */
export function importClientNode(): Promise<ClientNode> {
  clientNode ??= import("@kubernetes/client-node").catch((err) => {
    clientNode = null;
    throw toToolError(err, "load the Kubernetes client (it reads its settings from the environment)") ?? err;
  });
  return clientNode;
}

/** The top level of a kubeconfig document, as far as it is read before client-node parses it. */
type KubeconfigDoc = Record<string, unknown>;

interface RawFile {
  path: string;
  text: string;
  inline: boolean;
  doc: KubeconfigDoc;
}

/** A YAML mapping (not a list, not a scalar). */
function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function envGet(name: string, purpose: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (err) {
    throw toToolError(err, purpose) ?? err;
  }
}

async function readKubeconfig(path: string, optional: boolean): Promise<RawFile | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound && optional) return null;
    if (err instanceof Deno.errors.NotCapable) {
      throw new PermissionError("--allow-read", `read the kubeconfig ${path}`, { cause: err });
    }
    throw new ToolError(`cannot read kubeconfig ${path}: ${readFailure(err)}`, { cause: err });
  }
  return parseKubeconfig(path, text, false);
}

/** Parses kubeconfig text; `inline` files have no directory to resolve relative paths against. */
function parseKubeconfig(path: string, text: string, inline: boolean): RawFile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    const denied = toToolError(err, `parse the kubeconfig ${path}`);
    if (denied instanceof PermissionError) throw denied;
    const msg = err instanceof Error ? err.message.split("\n")[0] : String(err);
    throw new ToolError(`cannot read kubeconfig ${path}: invalid YAML: ${msg}`, { cause: err });
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isMapping(doc)) {
    throw new ToolError(`cannot read kubeconfig ${path}: not a kubeconfig (expected a mapping)`);
  }
  for (const key of ["clusters", "contexts", "users"]) {
    const v = doc[key];
    if (v !== undefined && v !== null && !Array.isArray(v)) {
      throw new ToolError(`cannot read kubeconfig ${path}: "${key}" must be a list`);
    }
  }
  return { path, text, doc, inline };
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : i === 0 ? "/" : path.slice(0, i);
}

function resolvePath(path: string): string {
  if (path.startsWith("/")) return path;
  try {
    return `${Deno.cwd()}/${path}`;
  } catch {
    return path;
  }
}

function pathListSeparator(): string {
  return Deno.build.os === "windows" ? ";" : ":";
}

/** Finds the kubeconfig file(s) to read, in kubectl's order. */
async function locate(opts: KubeConfigOptions): Promise<RawFile[]> {
  if (opts.kubeconfigYaml !== undefined) return [parseKubeconfig(INLINE_PATH, opts.kubeconfigYaml, true)];
  if (opts.kubeconfig) {
    return [(await readKubeconfig(resolvePath(opts.kubeconfig), false))!];
  }
  const env = envGet("KUBECONFIG", "read the KUBECONFIG environment variable");
  if (env && env.length > 0) {
    const paths = [...new Set(env.split(pathListSeparator()).filter((p) => p.length > 0))];
    const files: RawFile[] = [];
    for (const p of paths) {
      const f = await readKubeconfig(resolvePath(p), true);
      if (f) files.push(f);
    }
    if (files.length === 0) {
      throw new ToolError(
        `no kubeconfig: none of the files in KUBECONFIG exists (${
          paths.join(", ")
        }); pass --kubeconfig or fix KUBECONFIG`,
      );
    }
    return files;
  }
  const home = envGet("HOME", "find ~/.kube/config (HOME)");
  if (home) {
    const f = await readKubeconfig(`${home.replace(/\/$/, "")}/.kube/config`, true);
    if (f) return [f];
  }
  throw new ToolError("no kubeconfig: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config");
}

/** The entries of a named list (`clusters`, `users`, `contexts`) that have a string `name`. */
function namedEntries(doc: KubeconfigDoc, key: string): { name: string; value: Record<string, unknown> }[] {
  const list: unknown = doc[key];
  if (!Array.isArray(list)) return [];
  return list.flatMap((e: unknown) =>
    isMapping(e) && typeof e.name === "string" ? [{ name: e.name, value: e }] : []
  );
}

/**
 * Loads and checks a kubeconfig: explicit path, else `KUBECONFIG` (a path list merged like kubectl:
 * the first file that defines a name or the current-context wins), else `~/.kube/config`. Throws a
 * {@link ToolError} with a one-line explanation when there is no usable configuration, and a
 * {@link PermissionError} when Deno refuses to read it.
 */
export async function loadKubeConfig(opts: KubeConfigOptions): Promise<LoadedKubeConfig> {
  const files = await locate(opts);
  const paths = files.filter((f) => !f.inline).map((f) => f.path);
  const where = files.map((f) => f.path).join(", ");
  const k8s = await importClientNode();

  // Merge, first definition wins (kubectl semantics); relative file references resolve per file.
  const clusters = new Map<string, import("@kubernetes/client-node").Cluster>();
  const users = new Map<string, import("@kubernetes/client-node").User>();
  const contexts = new Map<string, import("@kubernetes/client-node").Context>();
  const rawClusters = new Map<string, { path: string; value: unknown }>();
  const rawUsers = new Map<string, { path: string; inline: boolean; value: Record<string, unknown> }>();
  let currentContext: string | undefined;
  for (const f of files) {
    const one = new k8s.KubeConfig();
    try {
      one.loadFromString(f.text.trim() === "" ? "{}" : f.text, { onInvalidEntry: "filter" });
      if (!f.inline) one.makePathsAbsolute(dirname(f.path));
    } catch (err) {
      const msg = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new ToolError(`cannot read kubeconfig ${f.path}: ${msg}`, { cause: err });
    }
    for (const c of one.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of one.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of one.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    for (const c of namedEntries(f.doc, "clusters")) {
      if (!rawClusters.has(c.name)) rawClusters.set(c.name, { path: f.path, value: c.value });
    }
    for (const u of namedEntries(f.doc, "users")) {
      if (!rawUsers.has(u.name)) rawUsers.set(u.name, { path: f.path, inline: f.inline, value: u.value });
    }
    const cur = f.doc["current-context"];
    if (!currentContext && typeof cur === "string" && cur.length > 0) currentContext = cur;
  }

  let contextName: string;
  if (opts.context) {
    if (!contexts.has(opts.context)) {
      const available = [...contexts.keys()];
      throw new ToolError(
        `context "${opts.context}" not found in ${where} (available: ${available.join(", ") || "none"})`,
      );
    }
    contextName = opts.context;
  } else {
    if (!currentContext) {
      const available = [...contexts.keys()];
      throw new ToolError(
        `no current-context in ${where}: pass --context (available: ${
          available.join(", ") || "none"
        }) or run \`kubectl config use-context\``,
      );
    }
    if (!contexts.has(currentContext)) {
      throw new ToolError(
        `current-context "${currentContext}" is not defined in ${where} (available: ${
          [...contexts.keys()].join(", ") || "none"
        })`,
      );
    }
    contextName = currentContext;
  }

  const ctx = contexts.get(contextName)!;
  const cluster = clusters.get(ctx.cluster);
  if (!cluster) {
    if (rawClusters.has(ctx.cluster)) {
      throw new ToolError(
        `cluster "${ctx.cluster}" of context "${contextName}" has no server URL in ${
          rawClusters.get(ctx.cluster)!.path
        }`,
      );
    }
    throw new ToolError(
      `context "${contextName}" refers to cluster "${ctx.cluster}", which is not defined in ${where}`,
    );
  }
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new ToolError(
      `cluster "${cluster.name}" of context "${contextName}" has an invalid server URL "${cluster.server}"`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ToolError(
      `cluster "${cluster.name}" has an unsupported server URL "${cluster.server}" (need https://)`,
    );
  }
  if (url.protocol === "http:" && !cluster.skipTLSVerify) {
    throw new ToolError(
      `cluster "${cluster.name}" uses plain HTTP (${cluster.server}); the Kubernetes client only allows that with insecure-skip-tls-verify: true`,
    );
  }
  if (ctx.user && !users.has(ctx.user)) {
    throw new ToolError(
      `context "${contextName}" refers to user "${ctx.user}", which is not defined in ${where}`,
    );
  }

  checkCaData(cluster.name, cluster.caData);
  const user = ctx.user ? users.get(ctx.user) : undefined;
  const rawUser = ctx.user ? rawUsers.get(ctx.user) : undefined;
  if (user && rawUser && !user.token) {
    const token = await readTokenFile(rawUser.value, rawUser.inline ? null : dirname(rawUser.path));
    if (token !== null) users.set(user.name, { ...user, token });
  }

  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext: contextName,
  });
  const path = paths.length > 0 ? paths.join(pathListSeparator()) : INLINE_PATH;
  return { kc, contextName, server: cluster.server, path, paths };
}

/**
 * Garbage in `certificate-authority-data` fails late and obscurely (a TLS error on the first request,
 * or none at all); say what is wrong instead.
 */
function checkCaData(clusterName: string, caData: string | undefined): void {
  if (caData === undefined || caData === null || caData === "") return;
  let text: string;
  try {
    text = atob(String(caData).replace(/\s+/g, ""));
  } catch {
    throw new ToolError(
      `certificate-authority-data of cluster ${clusterName} is not a PEM certificate (not valid base64)`,
    );
  }
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(text)) {
    throw new ToolError(
      `certificate-authority-data of cluster ${clusterName} is not a PEM certificate ` +
        `(base64 of "-----BEGIN CERTIFICATE-----…" expected)`,
    );
  }
}

/**
 * The token of a user's `tokenFile` (client-go's field; client-node ignores it, so without this the
 * request goes out without credentials and comes back 401). A file that cannot be read is a file
 * error, not a credential rejection. Null when the user has no tokenFile.
 */
async function readTokenFile(user: Record<string, unknown>, baseDir: string | null): Promise<string | null> {
  const inner = isMapping(user.user) ? user.user : {};
  const file = inner.tokenFile ?? inner["token-file"];
  if (typeof file !== "string" || file === "") return null;
  const path = file.startsWith("/") || baseDir === null ? file : `${baseDir}/${file}`;
  try {
    const token = (await Deno.readTextFile(path)).trim();
    if (token === "") throw new ToolError(`cannot read tokenFile ${path}: the file is empty`);
    return token;
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (err instanceof Deno.errors.NotCapable) {
      throw new PermissionError("--allow-read", `read the tokenFile ${path}`, { cause: err });
    }
    throw new ToolError(`cannot read tokenFile ${path}: ${readFailure(err)}`, { cause: err });
  }
}

/**
 * A view of `kc` whose credentials step (run before every request: it may start an exec credential
 * plugin such as `aws eks get-token`) gives up after `timeoutMs`: a hanging plugin would otherwise
 * hang the run forever, whatever `--timeout` says. The plugin process is killed and a
 * {@link ToolError} names it and the timeout.
 */
export function withCredentialTimeout(kc: KubeConfig, timeoutMs: number, contextName: string): KubeConfig {
  const plugin = kc.getCurrentUser()?.exec?.command;
  if (!plugin) return kc;
  // client-node's ExecAuth spawns through its replaceable `execFn`; track the children to kill them.
  const children = new Set<{ kill(): unknown }>();
  const auths = (kc as unknown as { authenticators?: unknown }).authenticators;
  for (const a of Array.isArray(auths) ? auths : []) {
    const auth = a as {
      execFn?: (...args: unknown[]) => { kill(): unknown; on(e: string, f: () => void): void };
    };
    const spawn = auth.execFn;
    if (typeof spawn !== "function") continue;
    auth.execFn = (...args: unknown[]) => {
      const child = spawn(...args);
      children.add(child);
      child.on("close", () => children.delete(child));
      return child;
    };
  }
  const apply = kc.applyToHTTPSOptions.bind(kc);
  return Object.create(kc, {
    applyToHTTPSOptions: {
      value: async (opts: Parameters<KubeConfig["applyToHTTPSOptions"]>[0]): Promise<void> => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const expired = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            for (const c of children) {
              try {
                c.kill();
              } catch {
                // already gone
              }
            }
            reject(
              new ToolError(
                `the exec credential plugin ${plugin} of context ${contextName} did not answer within ` +
                  `${timeoutMs} ms (--timeout)`,
              ),
            );
          }, timeoutMs);
        });
        try {
          await Promise.race([apply(opts), expired]);
        } finally {
          clearTimeout(timer);
        }
      },
    },
  });
}

/** Why a file could not be read, in a few words. */
function readFailure(err: unknown): string {
  return err instanceof Deno.errors.NotFound
    ? "no such file"
    : err instanceof Deno.errors.IsADirectory
    ? "is a directory"
    : err instanceof Error
    ? err.message
    : String(err);
}
