/**
 * PROBE-SVC in a session: adapts the session's {@link ProbeRunContext} to the service probe
 * (active/service/measure.ts measures, active/service/judge.ts judges).
 *
 * Backends are the local probe pods plus the pods offloaded to the peer: in offload mode the
 * fleet's `remote` pods; in direct mode the extra offloaded pods — direct mode's own remote pods live in
 * the provider's run namespace, which Liqo never reflects into, so a session that runs the service
 * probe offloads its run namespace as well (active/offload.ts offloadingWanted; the fleet keeps
 * those pods in `handle.offloaded`, out of the matrix) and the provider's kubeconfig then lets the
 * probe read the reflected Service and EndpointSlices directly.
 */
import type { ProbeRun, ProbeRunContext } from "../context.ts";
import { measureService, type ServiceApi } from "./measure.ts";
import type { KubeWriter } from "../../kube/live/write.ts";
import type { ProbePod } from "../model.ts";

/** The service probe's reads over a cluster's writer. */
export function serviceApi(w: Pick<KubeWriter, "get" | "list">, signal: AbortSignal): ServiceApi {
  return {
    get: (path) => w.get(path, { signal }),
    list: (path, labelSelector) => w.list(path, { labelSelector, signal }),
  };
}

/**
 * The pods offloaded to the peer in this run (the fleet's, in both modes), with the provider node
 * when the session placed them (offload mode: `fleet.remote` carries the placed copies).
 */
export function offloadedPods(ctx: Pick<ProbeRunContext, "handle" | "fleet">): ProbePod[] {
  const placed = new Map(ctx.fleet.remote.map((p) => [p.name, p]));
  return ctx.handle.offloaded.filter((p) => p.execSide === "local").map((p) => placed.get(p.name) ?? p);
}

/** Runs PROBE-SVC. */
export async function runService(ctx: ProbeRunContext): Promise<ProbeRun> {
  const local = ctx.local;
  const remote = ctx.cluster("remote");
  const api = (w: KubeWriter) => serviceApi(w, ctx.signal);
  const out = await measureService({
    runId: ctx.fleet.runId,
    peer: ctx.peer,
    consumer: {
      name: local.view.name,
      clusterId: local.view.clusterId,
      api: api(local.target.writer),
    },
    provider: remote ? { name: remote.view.name, api: api(remote.target.writer) } : null,
    localPods: ctx.fleet.local,
    offloadedPods: offloadedPods(ctx),
    addressIn: (pod, viewer) => ctx.addressing.addressIn(pod, viewer).ip,
    create: (obj) => ctx.handle.create("local", obj),
    exec: (pod, command) => ctx.exec(pod, command),
    timeoutMs: ctx.options.probeTimeoutMs,
    signal: ctx.signal,
    progress: (line) => ctx.progress(line),
  });
  return { ...out.outcome, cluster: local.view.name };
}
