/**
 * A fake cluster opened as the active session sees one (tests and bench/active): the real client,
 * exec and writer over its kubeconfig, and the view a full passive plan reads.
 */
import type { ActiveCluster } from "../../active/context.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { PROBE_CHECKS } from "../../active/catalog.ts";
import { loadView, planFor } from "../../diagnose/views.ts";
import { openKubeClient } from "../../kube/live/client.ts";
import { liveSourceOn } from "../../kube/live/source.ts";
import { probeTarget } from "../../active/fleet/target.ts";
import type { Side } from "../../active/model.ts";

/** Opens `kubeconfigYaml` as the `side` end of an active run; `close` closes its connection. */
export async function openActiveCluster(
  kubeconfigYaml: string,
  side: Side,
  context: string,
): Promise<{ cluster: ActiveCluster; close: () => Promise<void> }> {
  const client = await openKubeClient({ kubeconfigYaml });
  const source = await liveSourceOn(client, { execVia: "api" });
  const view = await loadView(source, planFor([...CATALOG, ...PROBE_CHECKS]));
  const target = probeTarget({
    side,
    name: view.name,
    client,
    exec: (ns, pod, container, command) => source.exec(ns, pod, container, command),
    flags: side === "local" ? `--context ${context}` : `--remote-context ${context}`,
  });
  return { cluster: { side, view, target }, close: () => source.close() };
}
