/**
 * Opening the clusters a run looks at, in one place for every command and the library: the local
 * source and, in dual mode, the remote one — live (over one keep-alive client per cluster) or a
 * snapshot bundle replayed offline. A remote that cannot be opened is left out with the reason (the
 * local cluster is still checked) unless the cause is a missing permission or a bug. Nothing is sent
 * here: /version goes out with the run's first lists (diagnose/run.ts).
 */
import { PermissionError, ToolError } from "../errors.ts";
import type { KubeClient } from "../kube/live/client.ts";
import type { LiveClusterSource } from "../kube/live/source.ts";
import type { ClusterSource } from "../kube/source.ts";

/** The cluster-selection flags shared by every command that reads clusters. */
export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
  /** A bundle written by `flyingfish collect`: replayed offline instead of connecting. */
  snapshot?: string;
}

/** The clusters a run looks at: the local source and, in dual mode, the remote one (or why not). */
export interface OpenSources {
  local: ClusterSource;
  remote: { source: ClusterSource | null; error?: string } | null;
}

/** The remote cluster, or why it is left out; null when no remote flag was given. */
export type OpenedRemote<S extends ClusterSource> = { source: S | null; error?: string } | null;

/** Says that the remote cluster is left out, and why (the CLI prints it on stderr). */
export type RemoteNotice = (error: string) => void;

/** {@link RemoteNotice} that also names the local cluster's context (the one still checked). */
export type RemoteLeftOut = (error: string, localContext: string) => void;

/**
 * Opens the remote cluster named by the flags with `open`; on a tool error says so through `notice`
 * ("remote cluster unavailable: …") and returns it left out. Other errors are thrown.
 */
export async function openRemote<S extends ClusterSource>(
  flags: Pick<ClusterFlags, "kubeconfig" | "remoteKubeconfig" | "remoteContext">,
  open: (o: { kubeconfig?: string; context?: string }) => Promise<S>,
  notice: RemoteNotice,
): Promise<OpenedRemote<S>> {
  if (!flags.remoteKubeconfig && !flags.remoteContext) return null;
  try {
    return {
      source: await open({
        kubeconfig: flags.remoteKubeconfig ?? flags.kubeconfig,
        context: flags.remoteContext,
      }),
    };
  } catch (err) {
    if (err instanceof PermissionError || !(err instanceof ToolError)) throw err;
    const error = `remote cluster unavailable: ${err.message}`;
    notice(error);
    return { source: null, error };
  }
}

/** Connects to the clusters the flags name (live, or a snapshot bundle). */
export async function openSources(
  opts: ClusterFlags,
  requestTimeoutMs: number,
  notice: RemoteLeftOut,
): Promise<OpenSources> {
  if (opts.snapshot !== undefined) {
    const conflicting = (["kubeconfig", "context", "remoteKubeconfig", "remoteContext"] as const).filter((
      k,
    ) => opts[k] !== undefined);
    if (conflicting.length > 0) {
      const flag = conflicting[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      throw new ToolError(`--snapshot replays a collected bundle: it cannot be combined with --${flag}`);
    }
    const { openSnapshot } = await import("../kube/snapshot.ts");
    return await openSnapshot(opts.snapshot);
  }
  const { createLiveSource } = await import("../kube/live/source.ts");
  const local = await createLiveSource({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    requestTimeoutMs,
  });
  try {
    const remote = await openRemote(
      opts,
      (o) => createLiveSource({ ...o, requestTimeoutMs }),
      (error) => notice(error, local.endpoint.context),
    );
    return { local, remote };
  } catch (err) {
    await local.close();
    throw err;
  }
}

/** The live clusters of an active run: sources for the passive checks, clients for the writes. */
export interface ActiveClusters {
  local: { source: LiveClusterSource; client: KubeClient };
  remote: { source: LiveClusterSource | null; client: KubeClient | null; error?: string } | null;
}

/** Opens the live clusters the flags name, keeping each one's client (ONE connection per cluster). */
export async function openActiveClusters(
  opts: ClusterFlags,
  requestTimeoutMs: number,
  notice: RemoteLeftOut,
): Promise<ActiveClusters> {
  if (opts.snapshot !== undefined) {
    throw new ToolError("active probes need live clusters: --snapshot cannot be combined with probes");
  }
  const { openLiveCluster } = await import("../kube/live/source.ts");
  const local = await openLiveCluster({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    requestTimeoutMs,
  });
  let remoteClient: KubeClient | null = null;
  const remote = await openRemote(
    opts,
    async (o) => {
      const c = await openLiveCluster({ ...o, requestTimeoutMs });
      remoteClient = c.client;
      return c.source;
    },
    (error) => notice(error, local.source.endpoint.context),
  );
  return {
    local: { source: local.source, client: local.client },
    remote: remote ? { source: remote.source, client: remoteClient, error: remote.error } : null,
  };
}

/** Closes every source of an active run. */
export async function closeActiveClusters(clusters: ActiveClusters): Promise<void> {
  await clusters.local.source.close();
  await clusters.remote?.source?.close();
}
