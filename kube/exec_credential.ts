/**
 * Exec credential plugins (`users[].user.exec`: `aws eks get-token`, `gke-gcloud-auth-plugin`,
 * `kubelogin get-token`, …), the client.authentication.k8s.io v1 and v1beta1 protocol as client-go
 * speaks it: the plugin gets KUBERNETES_EXEC_INFO (with the cluster's details when
 * `provideClusterInfo`), prints an ExecCredential, and its token or client certificate is cached
 * until `expirationTimestamp`. Each run of the plugin is bounded by the request timeout and killed
 * on close; a plugin Deno may not run is a {@link PluginPermissionError} that prints the command
 * line that works.
 */
import { z } from "zod";
import { oneLine, ToolError, toToolError } from "../errors.ts";
import type { Cluster, ExecConfig } from "./kubeconfig.ts";
import { rerunCommand } from "./rerun.ts";
import { within } from "../time.ts";

/** The API versions of the exec credential protocol spoken here. */
export const EXEC_API_VERSIONS: readonly string[] = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
];

/** What an ExecCredential supplies. */
export interface PluginCredential {
  /** Bearer token. */
  token?: string;
  /** Client certificate (PEM). */
  cert?: string;
  /** Client key (PEM). */
  key?: string;
  /** When it expires (epoch ms), null: valid for the whole run. */
  expiresAt: number | null;
}

/** The ExecCredential a plugin prints, as it comes off the pipe. */
const ExecCredentialOutput = z.object({
  apiVersion: z.string(),
  kind: z.literal("ExecCredential"),
  status: z.object({
    token: z.string().optional(),
    clientCertificateData: z.string().optional(),
    clientKeyData: z.string().optional(),
    expirationTimestamp: z.string().optional(),
  }),
});

/**
 * Deno may not run the plugin (`--allow-run` lacks it). A {@link ToolError} (exit 3) whose one line
 * names the flag and the full command line that works (see kube/rerun.ts).
 */
export class PluginPermissionError extends ToolError {
  /** Creates the error for `plugin`; `command` is the working command line (null: none can be built). */
  constructor(
    /** The plugin as the kubeconfig names it. */
    readonly plugin: string,
    /** The flag that grants it, e.g. `--allow-run=kubectl,aws`. */
    readonly flag: string,
    /** The working command line, or null inside a compiled binary. */
    readonly command: string | null,
    contextName: string,
  ) {
    super(
      `missing Deno permission --allow-run=${plugin} (needed to run the exec credential plugin ${plugin} ` +
        `of context ${contextName}); ` +
        (command
          ? `run: ${command}`
          : `this binary was compiled without it: rebuild it with ${flag} or run FlyingFish with deno run … ${flag}`),
    );
    this.name = "PluginPermissionError";
  }
}

/** Options of {@link createExecPlugin}. */
export interface ExecPluginOptions {
  /** The context whose user runs the plugin (named in errors). */
  contextName: string;
  /** The context's cluster (for KUBERNETES_EXEC_INFO). */
  cluster: Cluster;
  /** Most time one run of the plugin may take. */
  timeoutMs: number;
  /** Whether standard input is a terminal (default: asked of Deno.stdin; tests set it). */
  terminal?: boolean;
}

/** A plugin with its credential cache. */
export interface ExecPlugin {
  /** The cached credential, or a fresh one from a run of the plugin (one run at a time). */
  get(): Promise<PluginCredential>;
  /** Forgets the cached credential (after a 401); the next {@link ExecPlugin.get} runs the plugin. */
  invalidate(): void;
  /** Kills any running plugin process and waits for it to exit. */
  close(): Promise<void>;
}

function stdinIsTerminal(): boolean {
  try {
    return Deno.stdin.isTerminal();
  } catch {
    return false;
  }
}

/** The cluster block of KUBERNETES_EXEC_INFO (client-go's `Cluster` of the ExecCredential spec). */
async function clusterInfo(cluster: Cluster): Promise<Record<string, unknown>> {
  let ca = cluster.caData;
  if (!ca && cluster.caFile) {
    try {
      const bytes = await Deno.readFile(cluster.caFile);
      ca = btoa(String.fromCharCode(...bytes));
    } catch {
      // the request itself will say why the CA cannot be read
    }
  }
  const info: Record<string, unknown> = { server: cluster.server };
  if (cluster.tlsServerName) info["tls-server-name"] = cluster.tlsServerName;
  if (cluster.skipTLSVerify) info["insecure-skip-tls-verify"] = true;
  if (ca) info["certificate-authority-data"] = ca;
  if (cluster.proxyUrl) info["proxy-url"] = cluster.proxyUrl;
  if (cluster.execExtension !== undefined) info.config = cluster.execExtension;
  return info;
}

function firstLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  return (lines.at(-1) ?? "").slice(0, 300);
}

/** Prepares the exec plugin of a user; nothing runs before the first {@link ExecPlugin.get}. */
export function createExecPlugin(exec: ExecConfig, opts: ExecPluginOptions): ExecPlugin {
  const { contextName, timeoutMs } = opts;
  const name = exec.command;
  const what = `the exec credential plugin ${name} of context ${contextName}`;
  const children = new Set<Deno.ChildProcess>();
  let cached: PluginCredential | null = null;
  let running: Promise<PluginCredential> | null = null;
  let closed = false;

  function checkPermission(): void {
    let state: Deno.PermissionState = "denied";
    try {
      state = Deno.permissions.querySync({ name: "run", command: name }).state;
    } catch {
      // an unusual command string: let the spawn say what is wrong
      state = "granted";
    }
    if (state === "granted") return;
    let netHost: string | undefined;
    try {
      netHost = new URL(opts.cluster.server).host;
    } catch {
      // no host to keep
    }
    throw new PluginPermissionError(
      name,
      `--allow-run=kubectl,${name}`,
      rerunCommand({ run: [name], netHost }),
      contextName,
    );
  }

  async function run(): Promise<PluginCredential> {
    if (!EXEC_API_VERSIONS.includes(exec.apiVersion)) {
      throw new ToolError(
        `${what} uses apiVersion "${exec.apiVersion}", which is not supported (use ${
          EXEC_API_VERSIONS.join(" or ")
        })`,
      );
    }
    checkPermission();
    const terminal = opts.terminal ?? stdinIsTerminal();
    if (exec.interactiveMode === "Always" && !terminal) {
      throw new ToolError(
        `${what} needs an interactive terminal (interactiveMode: Always) but standard input is not a terminal`,
      );
    }
    const interactive = exec.interactiveMode !== "Never" && terminal;
    const spec: Record<string, unknown> = { interactive };
    if (exec.provideClusterInfo) spec.cluster = await clusterInfo(opts.cluster);
    const env: Record<string, string> = {
      KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion: exec.apiVersion, kind: "ExecCredential", spec }),
    };
    for (const e of exec.env) env[e.name] = e.value;

    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(name, {
        args: exec.args,
        env,
        stdin: interactive ? "inherit" : "null",
        stdout: "piped",
        // Interactive plugins talk to the user on stderr (client-go passes it through).
        stderr: interactive ? "inherit" : "piped",
      }).spawn();
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new ToolError(
          `${what} is not installed (not found)${exec.installHint ? `: ${oneLine(exec.installHint)}` : ""}`,
          { cause: err },
        );
      }
      throw toToolError(err, `run ${what}`) ??
        new ToolError(`cannot start ${what}: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
    }
    children.add(child);
    const output = child.output().finally(() => children.delete(child));
    const answered = await within(output, timeoutMs);
    if (!answered.done) {
      kill(child);
      throw new ToolError(`${what} did not answer within ${timeoutMs} ms (--request-timeout)`);
    }
    const out = answered.value;
    const dec = new TextDecoder();
    if (!out.success) {
      const why = interactive ? "" : firstLine(dec.decode(out.stderr));
      throw new ToolError(
        `${what} failed (${out.signal ? `killed by ${out.signal}` : `exit code ${out.code}`})${
          why ? `: ${why}` : ""
        }`,
      );
    }
    return parseCredential(dec.decode(out.stdout));
  }

  function parseCredential(text: string): PluginCredential {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ToolError(`${what} did not print an ExecCredential (not JSON)`);
    }
    const parsed = ExecCredentialOutput.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ToolError(
        `${what} printed an invalid ExecCredential (${issue.path.join(".") || "document"}: ${issue.message})`,
      );
    }
    const { apiVersion, status } = parsed.data;
    if (apiVersion !== exec.apiVersion) {
      throw new ToolError(`${what} answered with apiVersion ${apiVersion}, not ${exec.apiVersion}`);
    }
    const hasCert = Boolean(status.clientCertificateData);
    if (hasCert !== Boolean(status.clientKeyData)) {
      throw new ToolError(
        `${what} printed a client certificate without its key (or a key without its certificate)`,
      );
    }
    if (!status.token && !hasCert) {
      throw new ToolError(`${what} printed an ExecCredential with neither a token nor a client certificate`);
    }
    let expiresAt: number | null = null;
    if (status.expirationTimestamp) {
      expiresAt = Date.parse(status.expirationTimestamp);
      if (Number.isNaN(expiresAt)) {
        throw new ToolError(`${what} printed an invalid expirationTimestamp "${status.expirationTimestamp}"`);
      }
    }
    return {
      token: status.token || undefined,
      cert: status.clientCertificateData,
      key: status.clientKeyData,
      expiresAt,
    };
  }

  function kill(child: Deno.ChildProcess): void {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }

  return {
    get(): Promise<PluginCredential> {
      if (closed) return Promise.reject(new Error("the cluster source is closed"));
      if (cached && (cached.expiresAt === null || cached.expiresAt > Date.now())) {
        return Promise.resolve(cached);
      }
      running ??= run().then((c) => (cached = c)).finally(() => (running = null));
      return running;
    },
    invalidate(): void {
      cached = null;
    },
    async close(): Promise<void> {
      closed = true;
      const waits = [...children].map((c) => {
        kill(c);
        return c.status.catch(() => {});
      });
      await Promise.all(waits);
    },
  };
}
