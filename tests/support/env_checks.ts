/**
 * Test support for the ENV check tests: run a check over fixture objects, and the fixture edits
 * several of them share. Holds no test case.
 */
import { fixText } from "../../report/remediation.ts";
import type { CheckDef, Outcome } from "../../checks/types.ts";
import type { DiscoveryOutcome, K8sObject } from "../../kube/source.ts";
import { contextOf, find, inventoryOf, type Loose, peersOf, viewOf } from "./fixtures.ts";

/** Runs the check `id` (one of the given definitions) over objects, with an optional remote cluster. */
export type Run = (
  id: string,
  objects: K8sObject[],
  opts?: { discovery?: DiscoveryOutcome | null; remote?: K8sObject[] },
) => Promise<Outcome>;

/** A `run` over the given check definitions. */
export function runner(defs: readonly CheckDef[]): Run {
  const check = (id: string): CheckDef => defs.find((c) => c.id === id)!;
  return async (id, objects, opts = {}) => {
    const view = viewOf(inventoryOf(objects, {}, opts.discovery ?? null));
    const remote = opts.remote ? viewOf(inventoryOf(opts.remote)) : null;
    const def = check(id);
    const peer = def.perPeer ? peersOf(view)[0] ?? null : null;
    const remotePeer = remote && def.perPeer ? peersOf(remote)[0] ?? null : null;
    return await def.run(contextOf(view, { peer, remote, remotePeer }));
  };
}

export const text = (o: Outcome): string =>
  [o.summary, ...(o.evidence ?? []), fixText(o.remediation)].join("\n");

export function setCm(objects: K8sObject[], mutate: (args: string[]) => string[]): void {
  const cm = find(objects, "Deployment", "liqo-controller-manager", "liqo");
  const c = cm.spec.template.spec.containers[0];
  c.args = mutate(c.args);
}

export function crashLoop(pod: Loose, message?: string): void {
  const cs = pod.status.containerStatuses[0];
  cs.ready = false;
  cs.restartCount = 9;
  cs.state = { waiting: { reason: "CrashLoopBackOff" } };
  cs.lastState = { terminated: { exitCode: 1, reason: "Error", ...(message ? { message } : {}) } };
}

/** Marks a node as lost: Ready Unknown since `since`, unreachable taints. */
export function loseNode(node: Loose, since = "2026-11-30T02:23:00Z"): void {
  for (const c of node.status.conditions) {
    Object.assign(c, {
      status: "Unknown",
      reason: "NodeStatusUnknown",
      message: "Kubelet stopped posting node status.",
      lastTransitionTime: since,
    });
  }
  node.spec.taints = [
    { key: "node.kubernetes.io/unreachable", effect: "NoSchedule" },
    { key: "node.kubernetes.io/unreachable", effect: "NoExecute" },
  ];
}
