/**
 * In-cluster credentials: inside a pod, with no kubeconfig, the API server is
 * `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` and the pod's service account gives
 * the token, the cluster CA and the namespace under
 * `/var/run/secrets/kubernetes.io/serviceaccount` (client-go's `rest.InClusterConfig`).
 *
 * The result is kubeconfig text (for `createLiveSource({ kubeconfigYaml })`) whose user names the
 * token by `tokenFile`, so a projected token that the kubelet rotates is read again while a long
 * run lasts (kube/credentials.ts), and whose cluster names the CA by file.
 */
import { stringify } from "yaml";
import { PermissionError, ToolError, toToolError } from "../errors.ts";

/** Where the kubelet mounts the pod's service account. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The context (and cluster and user) name of the in-cluster kubeconfig. */
export const IN_CLUSTER_CONTEXT = "in-cluster";

/** Where to look: the environment and the service-account directory (injectable for tests). */
export interface InClusterOptions {
  /** The service-account directory (default {@link SERVICE_ACCOUNT_DIR}). */
  root?: string;
  /** Reads an environment variable (default `Deno.env.get`, a missing permission is a PermissionError). */
  env?: (name: string) => string | undefined;
}

/** The in-cluster configuration found. */
export interface InClusterConfig {
  /** kubeconfig text: server, CA file, tokenFile, namespace; no secret in it. */
  kubeconfigYaml: string;
  /** The API server URL. */
  server: string;
  /** The pod's namespace (null: the file is absent). */
  namespace: string | null;
}

function defaultEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (err) {
    throw toToolError(err, `read ${name} (in-cluster credentials)`) ??
      new PermissionError(`--allow-env=${name}`, `read ${name} (in-cluster credentials)`, { cause: err });
  }
}

/**
 * The API server of the pod's cluster from `KUBERNETES_SERVICE_HOST`/`_PORT`, or null when either
 * is unset (not running in a pod).
 */
export function inClusterServer(env: (name: string) => string | undefined = defaultEnv): string | null {
  const host = env("KUBERNETES_SERVICE_HOST")?.trim();
  const port = env("KUBERNETES_SERVICE_PORT")?.trim();
  if (!host || !port) return null;
  // An IPv6 service address needs brackets in a URL.
  return `https://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

async function requireFile(path: string, what: string): Promise<void> {
  try {
    const st = await Deno.stat(path);
    if (!st.isFile) throw new ToolError(`in-cluster credentials: ${what} ${path} is not a file`);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (err instanceof Deno.errors.NotCapable) {
      throw new PermissionError(`--allow-read=${SERVICE_ACCOUNT_DIR}`, `read the ${what} ${path}`, {
        cause: err,
      });
    }
    if (err instanceof Deno.errors.NotFound) {
      throw new ToolError(
        `in-cluster credentials: no ${what} at ${path} (is automountServiceAccountToken false for this pod?)`,
        { cause: err },
      );
    }
    throw new ToolError(`in-cluster credentials: cannot read ${what} ${path}: ${String(err)}`, {
      cause: err,
    });
  }
}

async function readNamespace(path: string): Promise<string | null> {
  try {
    const ns = (await Deno.readTextFile(path)).trim();
    return ns === "" ? null : ns;
  } catch {
    return null; // optional: only recorded as the context's namespace
  }
}

/**
 * The in-cluster kubeconfig, or null outside a pod (no `KUBERNETES_SERVICE_HOST`/`_PORT`). Inside
 * one, a missing token or CA file is a {@link ToolError} that says so.
 */
export async function inClusterConfig(opts: InClusterOptions = {}): Promise<InClusterConfig | null> {
  const server = inClusterServer(opts.env ?? defaultEnv);
  if (server === null) return null;
  const root = (opts.root ?? SERVICE_ACCOUNT_DIR).replace(/\/$/, "");
  const tokenFile = `${root}/token`;
  const caFile = `${root}/ca.crt`;
  await requireFile(tokenFile, "service-account token");
  await requireFile(caFile, "cluster CA certificate");
  const namespace = await readNamespace(`${root}/namespace`);
  const name = IN_CLUSTER_CONTEXT;
  const kubeconfigYaml = stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "certificate-authority": caFile } }],
    // tokenFile, not token: the kubelet rotates a projected token (read again, kube/credentials.ts).
    users: [{ name, user: { tokenFile } }],
    contexts: [{ name, context: { cluster: name, user: name, ...(namespace ? { namespace } : {}) } }],
    "current-context": name,
  });
  return { kubeconfigYaml, server, namespace };
}
