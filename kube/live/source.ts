/**
 * The live ClusterSource: reads one cluster through its API server with the kubeconfig's
 * credentials (client certificates, tokens, exec credential plugins, custom CAs — all applied by
 * FlyingFish's own client: client.ts over kube/credentials.ts and kube/http.ts). It is assembled from one-job modules over ONE client per cluster:
 *
 * - client.ts — the kubeconfig loaded once, one keep-alive HTTP client, error mapping, /version probe
 * - list.ts — paginated lists, secrets reduced to public facts on read
 * - discovery.ts — which resources the Liqo group/versions serve
 * - exec.ts — the Exec API websocket (v5/v4) with the `kubectl exec` fallback
 * - logs.ts — bounded container logs (also the source's `logs` read) and /version text, for `flyingfish collect`
 *
 * The commands that talk to a cluster import this module lazily (cli/check.ts, cli/demo.ts, …), so
 * `--help` and `version` never load the client or its node: modules.
 */
import type { ClusterSource, ServerVersion } from "../source.ts";
import { type KubeClient, type KubeClientOptions, openKubeClient } from "./client.ts";
import { accessClient } from "./access.ts";
import { readDiscovery } from "./discovery.ts";
import { createExecutor, type ExecOptions } from "./exec.ts";
import { listKind } from "./list.ts";
import { type ClusterReader, createClusterReader, readContainerLog } from "./logs.ts";

export { ApiStatusError } from "./client.ts";
export { LIST_PAGE_SIZE, REDACTED_KEYS_ANNOTATION, sanitizeObject } from "./list.ts";

/** Options of {@link createLiveSource}. */
export interface LiveSourceOptions extends KubeClientOptions, ExecOptions {
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
  probeReachable(): Promise<ServerVersion>;
  /** The kubeconfig file(s) in use (joined like KUBECONFIG when several). */
  readonly kubeconfigPath: string;
}

/** A live source and the collector's raw reads, sharing one kubeconfig load and one client. */
export interface LiveCluster {
  /** The source (closing it closes the client, and so the reader). */
  source: LiveClusterSource;
  /** Logs and /version through the same client. */
  reader: ClusterReader;
  /** The client: the loaded kubeconfig (`client.kc`, e.g. to know its credentials) and the endpoint. */
  client: KubeClient;
}

/** Builds the live source on an open client; closing the source closes the client. */
export async function liveSourceOn(client: KubeClient, opts: ExecOptions = {}): Promise<LiveClusterSource> {
  const executor = await createExecutor(client, opts);
  return {
    endpoint: client.endpoint,
    now: () => new Date(),
    isSnapshot: false,
    kubeconfigPath: client.loaded.path,
    list: (spec, scope, opts) => listKind(client, spec, scope, opts),
    discovery: (groups) => readDiscovery(client, groups),
    exec: (namespace, pod, container, command) => executor.exec(namespace, pod, container, command),
    logs: (namespace, pod, container, req) => readContainerLog(client, namespace, pod, container, req),
    probeReachable: () => client.probeReachable(),
    access: accessClient(client),
    close: () => client.close(),
  };
}

/**
 * Connects to the cluster of a kubeconfig context. Loading the kubeconfig can fail with a
 * {@link ToolError}; the API server is first contacted by {@link LiveClusterSource.probeReachable}.
 */
export async function createLiveSource(opts: LiveSourceOptions = {}): Promise<LiveClusterSource> {
  return await liveSourceOn(await openKubeClient(opts), opts);
}

/**
 * Opens a cluster for `flyingfish collect`: the live source and the raw reads (logs, /version) over
 * ONE kubeconfig load and ONE HTTP client. Nothing is sent before the first request.
 */
export async function openLiveCluster(opts: LiveSourceOptions = {}): Promise<LiveCluster> {
  const client = await openKubeClient(opts);
  const source = await liveSourceOn(client, opts);
  return { source, reader: createClusterReader(client), client };
}
