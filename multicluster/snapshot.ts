/**
 * A fleet bundle (`collect --all-contexts`) as the contexts of a fleet run: each captured cluster
 * is a context of its own (never grouped with another: its CA is its folder), opened as the
 * bundle's replaying source, or refused with the reason it was left out of the bundle.
 */
import { ToolError } from "../errors.ts";
import type { ManifestCluster } from "../kube/bundle.ts";
import type { ContextEntry } from "../kube/kubeconfig.ts";
import type { ClusterSource } from "../kube/source.ts";

/** A captured cluster: its manifest entry and its source (null: not captured). */
export interface CapturedCluster {
  entry: ManifestCluster;
  source: ClusterSource | null;
}

/** The context a captured cluster stands for (its kubeconfig context when the manifest names one). */
export function contextOfEntry(entry: ManifestCluster): ContextEntry {
  return {
    name: entry.context || entry.name,
    cluster: entry.name,
    server: entry.server || null,
    ca: `snapshot:${entry.name}`,
  };
}

/** The contexts and the opener a fleet run over `clusters` needs. */
export function snapshotFleet(clusters: readonly CapturedCluster[]): {
  contexts: ContextEntry[];
  open: (context: string) => Promise<ClusterSource>;
} {
  const byContext = new Map(clusters.map((c) => [contextOfEntry(c.entry).name, c]));
  return {
    contexts: clusters.map((c) => contextOfEntry(c.entry)),
    open: (context) => {
      const c = byContext.get(context);
      if (!c?.source) return Promise.reject(new ToolError(c?.entry.error ?? "not captured"));
      return Promise.resolve(c.source);
    },
  };
}
