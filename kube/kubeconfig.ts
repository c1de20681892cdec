/**
 * Loading a kubeconfig the way kubectl does (explicit path, else `KUBECONFIG` merged, else
 * `~/.kube/config`), failing loudly where a client would silently fall back to
 * `http://localhost:8080`. Each file is parsed ONCE with `yaml`; what the run needs is read into
 * plain typed entries (kube/credentials.ts turns the user into request credentials, kube/http.ts the
 * cluster into TLS options).
 */
import { parse as parseYaml } from "yaml";
import { PermissionError, ToolError, toToolError } from "../errors.ts";
import { displayUrl } from "./display_url.ts";
import { parsedCaPem } from "./ca.ts";
import { X509Certificate } from "node:crypto";

/** Where the kubeconfig comes from and which context to use. */
export interface KubeConfigOptions {
  /** Explicit kubeconfig path (`--kubeconfig`); disables `KUBECONFIG` and `~/.kube/config`. */
  kubeconfig?: string;
  /** Context to use instead of the current-context (`--context`). */
  context?: string;
  /** kubeconfig text given directly (demo, tests); wins over `kubeconfig`; no file is read. */
  kubeconfigYaml?: string;
  /**
   * Several explicit kubeconfig files (`--kubeconfig` repeated, fleet mode), merged as kubectl merges
   * KUBECONFIG; wins over `kubeconfig`. Unlike KUBECONFIG, a file that does not exist is an error.
   */
  kubeconfigs?: readonly string[];
}

/** The `path` reported for a kubeconfig given as text. */
export const INLINE_PATH = "(inline kubeconfig)";

/** A cluster entry (field names as in @kubernetes/client-node, which FlyingFish used to load them). */
export interface Cluster {
  /** Entry name. */
  name: string;
  /** API server URL. */
  server: string;
  /** `certificate-authority-data` (base64 PEM). */
  caData?: string;
  /** `certificate-authority`, made absolute against the kubeconfig's directory. */
  caFile?: string;
  /** `insecure-skip-tls-verify`. */
  skipTLSVerify: boolean;
  /** `tls-server-name`: the name the server certificate is checked against (and SNI). */
  tlsServerName?: string;
  /** `proxy-url` (http://, https:// or socks5://). */
  proxyUrl?: string;
  /** `extensions[name=client.authentication.k8s.io/exec].extension`: handed to exec plugins. */
  execExtension?: unknown;
}

/** An exec credential plugin (`users[].user.exec`). */
export interface ExecConfig {
  /** The program; made absolute against the kubeconfig's directory when it is a relative path with a slash. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Extra environment variables. */
  env: { name: string; value: string }[];
  /** `client.authentication.k8s.io/v1` or `/v1beta1`. */
  apiVersion: string;
  /** What to tell the user when the program is not installed. */
  installHint?: string;
  /** Pass the cluster's details in KUBERNETES_EXEC_INFO. */
  provideClusterInfo: boolean;
  /** `Never`, `IfAvailable` (default) or `Always`. */
  interactiveMode: "Never" | "IfAvailable" | "Always";
}

/** A user entry (field names as in @kubernetes/client-node). */
export interface User {
  /** Entry name. */
  name: string;
  /** Bearer token (`token`, or the content of `tokenFile` read at load). */
  token?: string;
  /** `tokenFile`, made absolute (re-read while the run lasts, see kube/credentials.ts). */
  tokenFile?: string;
  /** Basic auth user name. */
  username?: string;
  /** Basic auth password. */
  password?: string;
  /** `client-certificate-data` (base64 PEM). */
  certData?: string;
  /** `client-certificate`, made absolute. */
  certFile?: string;
  /** `client-key-data` (base64 PEM). */
  keyData?: string;
  /** `client-key`, made absolute. */
  keyFile?: string;
  /** `as`: user to impersonate. */
  impersonateUser?: string;
  /** `as-groups`: groups to impersonate. */
  impersonateGroups?: string[];
  /** Exec credential plugin. */
  exec?: ExecConfig;
  /** Legacy auth provider (`oidc`, `gcp`, `azure`, …) with its string config. */
  authProvider?: { name: string; config: Record<string, string> };
}

/** A context entry. */
export interface Context {
  /** Entry name. */
  name: string;
  /** Cluster entry name. */
  cluster: string;
  /** User entry name (none: anonymous). */
  user?: string;
  /** Default namespace. */
  namespace?: string;
}

/**
 * A merged kubeconfig with its context selected: the entries plus the lookups FlyingFish (and code
 * written against client-node's `KubeConfig`) uses.
 */
export class KubeConfig {
  /** Creates the merged view; `currentContext` must name one of `contexts`. */
  constructor(
    readonly clusters: readonly Cluster[],
    readonly users: readonly User[],
    readonly contexts: readonly Context[],
    readonly currentContext: string,
  ) {}

  /** Every cluster entry. */
  getClusters(): readonly Cluster[] {
    return this.clusters;
  }

  /** Every user entry. */
  getUsers(): readonly User[] {
    return this.users;
  }

  /** Every context entry. */
  getContexts(): readonly Context[] {
    return this.contexts;
  }

  /** The selected context's name. */
  getCurrentContext(): string {
    return this.currentContext;
  }

  /** The selected context. */
  getContextObject(name: string = this.currentContext): Context | null {
    return this.contexts.find((c) => c.name === name) ?? null;
  }

  /** The selected context's cluster. */
  getCurrentCluster(): Cluster | null {
    const ctx = this.getContextObject();
    return ctx ? this.clusters.find((c) => c.name === ctx.cluster) ?? null : null;
  }

  /** The selected context's user (null: anonymous). */
  getCurrentUser(): User | null {
    const ctx = this.getContextObject();
    return ctx?.user ? this.users.find((u) => u.name === ctx.user) ?? null : null;
  }
}

/** A kubeconfig loaded and checked, with its context selected. */
export interface LoadedKubeConfig {
  /** The merged configuration with the context set as current. */
  kc: KubeConfig;
  /** The selected context. */
  contextName: string;
  /** API server URL of the context's cluster, as shown and stored: without userinfo ({@link displayUrl}). */
  server: string;
  /** The context's cluster (its `server` as written, userinfo included: requests send it). */
  cluster: Cluster;
  /** The context's user (undefined: anonymous). */
  user?: User;
  /** The file(s) it came from; several files are joined with the path-list separator, as in KUBECONFIG. */
  path: string;
  /** Each file that was read, in merge order (empty for an inline kubeconfig). */
  paths: string[];
}

/** One parsed kubeconfig file. */
interface RawFile {
  path: string;
  /** Directory relative paths resolve against (null: inline, relative to the working directory). */
  dir: string | null;
  doc: Record<string, unknown>;
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
  return parseKubeconfig(path, text, dirname(path));
}

/** Parses kubeconfig text (the one YAML parse of the file). */
function parseKubeconfig(path: string, text: string, dir: string | null): RawFile {
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
  return { path, dir, doc };
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

/** A file named in a kubeconfig, made absolute against that kubeconfig's directory (kubectl's rule). */
function fileIn(dir: string | null, file: string): string {
  return file.startsWith("/") || dir === null ? file : `${dir}/${file}`;
}

function pathListSeparator(): string {
  return Deno.build.os === "windows" ? ";" : ":";
}

/** Finds the kubeconfig file(s) to read, in kubectl's order. */
async function locate(opts: KubeConfigOptions): Promise<RawFile[]> {
  if (opts.kubeconfigYaml !== undefined) return [parseKubeconfig(INLINE_PATH, opts.kubeconfigYaml, null)];
  if (opts.kubeconfigs?.length) {
    const files: RawFile[] = [];
    for (const p of new Set(opts.kubeconfigs.map(resolvePath))) files.push((await readKubeconfig(p, false))!);
    return files;
  }
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
function namedEntries(
  doc: Record<string, unknown>,
  key: string,
): { name: string; value: Record<string, unknown> }[] {
  const list: unknown = doc[key];
  if (!Array.isArray(list)) return [];
  return list.flatMap((e: unknown) =>
    isMapping(e) && typeof e.name === "string" && e.name !== "" ? [{ name: e.name, value: e }] : []
  );
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** A cluster entry, or null when it has no server URL. */
function readCluster(name: string, entry: Record<string, unknown>, dir: string | null): Cluster | null {
  const c = isMapping(entry.cluster) ? entry.cluster : {};
  const server = str(c.server);
  if (!server) return null;
  const caFile = str(c["certificate-authority"]);
  const exts = Array.isArray(c.extensions) ? c.extensions : [];
  const execExt = exts.find((e: unknown) => isMapping(e) && e.name === "client.authentication.k8s.io/exec");
  return {
    name,
    server,
    caData: str(c["certificate-authority-data"]),
    caFile: caFile ? fileIn(dir, caFile) : undefined,
    skipTLSVerify: c["insecure-skip-tls-verify"] === true,
    tlsServerName: str(c["tls-server-name"]),
    proxyUrl: str(c["proxy-url"]),
    execExtension: isMapping(execExt) ? execExt.extension : undefined,
  };
}

const INTERACTIVE_MODES = new Set(["Never", "IfAvailable", "Always"]);

function readExec(userName: string, e: Record<string, unknown>, dir: string | null): ExecConfig {
  const command = str(e.command);
  if (!command) throw new ToolError(`user "${userName}": exec credential plugin without a command`);
  const apiVersion = str(e.apiVersion) ?? "";
  const mode = str(e.interactiveMode);
  if (mode !== undefined && !INTERACTIVE_MODES.has(mode)) {
    throw new ToolError(
      `user "${userName}": exec interactiveMode "${mode}" is not one of Never, IfAvailable, Always`,
    );
  }
  // kubectl resolves a relative command against the kubeconfig only when it is a path (has a slash).
  const resolved = command.includes("/") && !command.startsWith("/") && dir !== null
    ? fileIn(dir, command)
    : command;
  return {
    command: resolved,
    args: Array.isArray(e.args) ? e.args.map(String) : [],
    env: (Array.isArray(e.env) ? e.env : []).flatMap((v: unknown) =>
      isMapping(v) && typeof v.name === "string" ? [{ name: v.name, value: String(v.value ?? "") }] : []
    ),
    apiVersion,
    installHint: str(e.installHint),
    provideClusterInfo: e.provideClusterInfo === true,
    interactiveMode: (mode ?? "IfAvailable") as ExecConfig["interactiveMode"],
  };
}

function readUser(name: string, entry: Record<string, unknown>, dir: string | null): User {
  const u = isMapping(entry.user) ? entry.user : {};
  const file = (k: string): string | undefined => {
    const f = str(u[k]);
    return f ? fileIn(dir, f) : undefined;
  };
  const ap = isMapping(u["auth-provider"]) ? u["auth-provider"] : undefined;
  const groups = Array.isArray(u["as-groups"]) ? u["as-groups"].map(String) : undefined;
  return {
    name,
    token: str(u.token),
    tokenFile: file("tokenFile") ?? file("token-file"),
    username: str(u.username),
    password: str(u.password),
    certData: str(u["client-certificate-data"]),
    certFile: file("client-certificate"),
    keyData: str(u["client-key-data"]),
    keyFile: file("client-key"),
    impersonateUser: str(u.as),
    impersonateGroups: groups && groups.length > 0 ? groups : undefined,
    exec: isMapping(u.exec) ? readExec(name, u.exec, dir) : undefined,
    authProvider: ap && typeof ap.name === "string"
      ? {
        name: ap.name,
        config: Object.fromEntries(
          Object.entries(isMapping(ap.config) ? ap.config : {}).map(([k, v]) => [k, String(v)]),
        ),
      }
      : undefined,
  };
}

function readContext(name: string, entry: Record<string, unknown>): Context | null {
  const c = isMapping(entry.context) ? entry.context : null;
  if (!c || typeof c.cluster !== "string") return null;
  return { name, cluster: c.cluster, user: str(c.user), namespace: str(c.namespace) };
}

/** One context of a merged kubeconfig, as fleet mode lists them (nothing is sent to read it). */
export interface ContextEntry {
  /** The context's name. */
  name: string;
  /** Its cluster entry's name. */
  cluster: string;
  /** Its user entry's name (undefined: anonymous). */
  user?: string;
  /** The API server URL without userinfo (null: the cluster entry is missing or has no server). */
  server: string | null;
  /**
   * What the client trusts: `sha256:<hex>` of the first certificate of the CA (data or file),
   * `insecure` (insecure-skip-tls-verify), `system` (no CA: the system roots), or `unreadable: …`.
   */
  ca: string;
}

/**
 * Every context of the merged kubeconfig (same files and merge rule as {@link loadKubeConfig}), in
 * merge order, with what identifies the cluster it reaches before any request: the API server URL
 * and the CA's fingerprint. No context needs to be current, and no user is read.
 */
export async function listContexts(
  opts: KubeConfigOptions,
): Promise<{ contexts: ContextEntry[]; path: string }> {
  const files = await locate(opts);
  const clusters = new Map<string, { file: RawFile; entry: Record<string, unknown> }>();
  const contexts = new Map<string, Context>();
  for (const f of files) {
    for (const c of namedEntries(f.doc, "clusters")) {
      if (!clusters.has(c.name)) clusters.set(c.name, { file: f, entry: c.value });
    }
    for (const c of namedEntries(f.doc, "contexts")) {
      const ctx = readContext(c.name, c.value);
      if (ctx && !contexts.has(c.name)) contexts.set(c.name, ctx);
    }
  }
  const out: ContextEntry[] = [];
  for (const ctx of contexts.values()) {
    const raw = clusters.get(ctx.cluster);
    const cluster = raw ? readCluster(ctx.cluster, raw.entry, raw.file.dir) : null;
    out.push({
      name: ctx.name,
      cluster: ctx.cluster,
      ...(ctx.user ? { user: ctx.user } : {}),
      server: cluster ? displayUrl(cluster.server) : null,
      ca: cluster ? await caIdentity(cluster) : "unreadable: no cluster entry",
    });
  }
  const paths = files.filter((f) => f.path !== INLINE_PATH).map((f) => f.path);
  return { contexts: out, path: paths.length > 0 ? paths.join(pathListSeparator()) : INLINE_PATH };
}

/** The CA a cluster entry trusts, as {@link ContextEntry.ca} spells it. */
async function caIdentity(cluster: Cluster): Promise<string> {
  if (cluster.skipTLSVerify) return "insecure";
  let pem: string;
  try {
    if (cluster.caData) pem = atob(cluster.caData.replace(/\s+/g, ""));
    else if (cluster.caFile) pem = await Deno.readTextFile(cluster.caFile);
    else return "system";
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new PermissionError("--allow-read", `read the CA file ${cluster.caFile}`, { cause: err });
    }
    return `unreadable: ${readFailure(err)}`;
  }
  const block = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(pem)?.[0];
  if (!block) return "unreadable: no certificate";
  try {
    return `sha256:${new X509Certificate(block).fingerprint256.replace(/:/g, "").toLowerCase()}`;
  } catch (err) {
    return `unreadable: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * Loads and checks a kubeconfig: explicit path, else `KUBECONFIG` (a path list merged like kubectl:
 * the first file that defines a name or the current-context wins), else `~/.kube/config`. Throws a
 * {@link ToolError} with a one-line explanation when there is no usable configuration, and a
 * {@link PermissionError} when Deno refuses to read it.
 */
export async function loadKubeConfig(opts: KubeConfigOptions): Promise<LoadedKubeConfig> {
  const files = await locate(opts);
  const paths = files.filter((f) => f.path !== INLINE_PATH).map((f) => f.path);
  const where = files.map((f) => f.path).join(", ");

  // Merge, first definition wins (kubectl semantics); relative file references resolve per file.
  // Only the selected context's user is read in full (its exec/auth-provider settings are checked).
  const clusters = new Map<string, { file: RawFile; entry: Record<string, unknown> }>();
  const users = new Map<string, { file: RawFile; entry: Record<string, unknown> }>();
  const contexts = new Map<string, Context>();
  let currentContext: string | undefined;
  for (const f of files) {
    for (const c of namedEntries(f.doc, "clusters")) {
      if (!clusters.has(c.name)) clusters.set(c.name, { file: f, entry: c.value });
    }
    for (const u of namedEntries(f.doc, "users")) {
      if (!users.has(u.name)) users.set(u.name, { file: f, entry: u.value });
    }
    for (const c of namedEntries(f.doc, "contexts")) {
      const ctx = readContext(c.name, c.value);
      if (ctx && !contexts.has(c.name)) contexts.set(c.name, ctx);
    }
    const cur = f.doc["current-context"];
    if (!currentContext && typeof cur === "string" && cur.length > 0) currentContext = cur;
  }
  const available = (): string => [...contexts.keys()].join(", ") || "none";

  let contextName: string;
  if (opts.context) {
    if (!contexts.has(opts.context)) {
      throw new ToolError(`context "${opts.context}" not found in ${where} (available: ${available()})`);
    }
    contextName = opts.context;
  } else {
    if (!currentContext) {
      throw new ToolError(
        `no current-context in ${where}: pass --context (available: ${available()}) or run \`kubectl config use-context\``,
      );
    }
    if (!contexts.has(currentContext)) {
      throw new ToolError(
        `current-context "${currentContext}" is not defined in ${where} (available: ${available()})`,
      );
    }
    contextName = currentContext;
  }

  const ctx = contexts.get(contextName)!;
  const rawCluster = clusters.get(ctx.cluster);
  if (!rawCluster) {
    throw new ToolError(
      `context "${contextName}" refers to cluster "${ctx.cluster}", which is not defined in ${where}`,
    );
  }
  const cluster = readCluster(ctx.cluster, rawCluster.entry, rawCluster.file.dir);
  if (!cluster) {
    throw new ToolError(
      `cluster "${ctx.cluster}" of context "${contextName}" has no server URL in ${rawCluster.file.path}`,
    );
  }
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new ToolError(
      `cluster "${cluster.name}" of context "${contextName}" has an invalid server URL "${
        displayUrl(cluster.server)
      }"`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ToolError(
      `cluster "${cluster.name}" has an unsupported server URL "${
        displayUrl(cluster.server)
      }" (need https://)`,
    );
  }
  // An http:// server (`kubectl proxy`, a local API server) is talked to in plain HTTP, as kubectl does.
  if (ctx.user && !users.has(ctx.user)) {
    throw new ToolError(
      `context "${contextName}" refers to user "${ctx.user}", which is not defined in ${where}`,
    );
  }
  checkCaData(cluster.name, cluster.caData, rawCluster.file.path);

  let user: User | undefined;
  if (ctx.user) {
    const raw = users.get(ctx.user)!;
    user = readUser(ctx.user, raw.entry, raw.file.dir);
    if (!user.token && user.tokenFile) user = { ...user, token: await readTokenFile(user.tokenFile) };
  }

  // The other entries, for code that looks at every user (collect scrubs their secrets).
  const allClusters = [...clusters].flatMap(([name, c]) =>
    name === cluster.name ? [cluster] : [readCluster(name, c.entry, c.file.dir)].filter((x) => x !== null)
  );
  const allUsers = [...users].flatMap(([name, u]) => {
    if (user && name === user.name) return [user];
    try {
      return [readUser(name, u.entry, u.file.dir)];
    } catch {
      return []; // an unused user with a broken exec block does not stop the run
    }
  });
  const kc = new KubeConfig(allClusters, allUsers, [...contexts.values()], contextName);
  const path = paths.length > 0 ? paths.join(pathListSeparator()) : INLINE_PATH;
  return { kc, contextName, server: displayUrl(cluster.server), cluster, user, path, paths };
}

/**
 * Garbage in `certificate-authority-data` fails late and obscurely (TLS noise on every connection,
 * then an error that blames the server); say what is wrong, where, before connecting (kube/ca.ts).
 */
function checkCaData(clusterName: string, caData: string | undefined, file: string): void {
  if (caData === undefined || caData === "") return;
  const where = `certificate-authority-data of cluster "${clusterName}" in ${file}`;
  let text: string;
  try {
    text = atob(String(caData).replace(/\s+/g, ""));
  } catch {
    throw new ToolError(`the CA cannot be parsed: ${where} is not valid base64`);
  }
  parsedCaPem(text, where);
}

/**
 * The token in a user's `tokenFile` (client-go's field). A file that cannot be read is a file error,
 * not a credential rejection.
 */
export async function readTokenFile(path: string): Promise<string> {
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

/** Why a file could not be read, in a few words. */
export function readFailure(err: unknown): string {
  return err instanceof Deno.errors.NotFound
    ? "no such file"
    : err instanceof Deno.errors.IsADirectory
    ? "is a directory"
    : err instanceof Error
    ? err.message
    : String(err);
}
