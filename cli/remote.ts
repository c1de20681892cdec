/**
 * The other end of a peering, as `check`, `watch` and `serve` open it: its own kubeconfig/context (or
 * the local kubeconfig with `--remote-context`); a remote that cannot be opened is left out with the
 * reason — the local cluster is still checked — unless the cause is a missing permission or a bug.
 */
import { PermissionError, ToolError } from "../errors.ts";
import type { ClusterSource } from "../kube/source.ts";

/** The remote-cluster flags. */
export interface RemoteFlags {
  kubeconfig?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
}

/** The remote cluster, or why it is left out; null when no remote flag was given. */
export type OpenedRemote<S extends ClusterSource> = { source: S | null; error?: string } | null;

/**
 * Opens the remote cluster named by the flags with `open`; on a tool error says so through `notice`
 * ("remote cluster unavailable: …") and returns it left out. Other errors are thrown.
 */
export async function openRemote<S extends ClusterSource>(
  flags: RemoteFlags,
  open: (o: { kubeconfig?: string; context?: string }) => Promise<S>,
  notice: (error: string) => void,
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
