/**
 * Test support for the GATEWAY EXPOSURE check tests: run a check by ID over fixture objects (rome is
 * the GatewayClient side, milan the GatewayServer side), with an optional remote cluster and probes.
 * Lives in tests/ so that nothing in the product imports test code.
 */
import { fixText } from "../../report/remediation.ts";
import type { CheckDef, Outcome } from "../../checks/types.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { ProbeHub } from "../../probes/hub.ts";
import { BASE_TIME, baseObjects, contextOf, inventoryOf, type Loose, peersOf, viewOf } from "./fixtures.ts";
import { GATEWAY_CHECKS } from "../../checks/gateway/mod.ts";

export { GATEWAY_CHECKS };

export const ROME_NS = "liqo-tenant-milan-8d1f03";
export const MILAN_NS = "liqo-tenant-rome-4b2a9e";
export const MILAN_POD = "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm";
export const ROME_POD = "gw-milan-8d1f03-7c9d5b6f8d-q4xzt";

function check(id: string): CheckDef {
  const c = GATEWAY_CHECKS.find((x) => x.id === id);
  if (!c) throw new Error(`no ${id}`);
  return c;
}

export interface RunOpts {
  remote?: K8sObject[];
  probes?: ProbeHub;
  networkProbes?: boolean;
  preciseUdp?: boolean;
}

export async function run(id: string, objects: K8sObject[], opts: RunOpts = {}): Promise<Outcome> {
  const view = viewOf(inventoryOf(objects), BASE_TIME);
  const peer = peersOf(view)[0];
  const remoteView = opts.remote ? viewOf(inventoryOf(opts.remote), BASE_TIME) : null;
  const remotePeer = remoteView ? peersOf(remoteView)[0] : null;
  const ctx = contextOf(view, {
    peer,
    remote: remoteView,
    remotePeer,
    probes: opts.probes,
    options: { networkProbes: opts.networkProbes ?? false, preciseUdp: opts.preciseUdp ?? false },
  });
  return await check(id).run(ctx);
}

export const rome = () => baseObjects("rome");
export const milan = () => baseObjects("milan");

export function text(o: Outcome): string {
  return [o.summary, ...(o.evidence ?? []), fixText(o.remediation)].join("\n");
}

/** A container status of a fixture pod, for mutation in tests. */
// deno-lint-ignore no-explicit-any -- test set-up writes arbitrary container states into raw fixtures
export function container(pod: Loose, name: string): any {
  return pod.status!.containerStatuses.find((c: { name: string }) => c.name === name);
}
