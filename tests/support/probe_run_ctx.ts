/**
 * Test support for the active probe runners: a real {@link createProbeRunContext} over the base
 * rome ↔ milan fixture views, with each cluster's exec answered by a test function (no API server)
 * and a small fleet of probe pods. rome hosts the GatewayClient, milan the GatewayServer.
 */
import { createAddressing } from "../../active/addressing.ts";
import { type ActiveOptions, createProbeRunContext, type ProbeRunContext } from "../../active/context.ts";
import type { ClusterView } from "../../checks/types.ts";
import type { ExecOutcome, K8sObject } from "../../kube/source.ts";
import type { FleetHandle } from "../../active/fleet/fleet.ts";
import type { ProbeTarget } from "../../active/fleet/target.ts";
import type { Fleet, ProbeMode, ProbePod, Side } from "../../active/model.ts";
import { baseObjects, inventoryOf, type Loose, viewOf } from "./fixtures.ts";

/** The peering's cluster IDs in the base fixtures. */
export const ROME_ID = "rome-4b2a9e";
export const MILAN_ID = "milan-8d1f03";
/** Active gateway pods of the base fixtures (rome: client toward milan; milan: server toward rome). */
export const ROME_GW = { namespace: "liqo-tenant-milan-8d1f03", pod: "gw-milan-8d1f03-7c9d5b6f8d-q4xzt" };
export const MILAN_GW = { namespace: "liqo-tenant-rome-4b2a9e", pod: "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm" };

/** One exec as the fake sees it. */
export interface ExecCall {
  side: Side;
  namespace: string;
  pod: string;
  container: string;
  command: readonly string[];
}

/** Answers one exec (may wait: captures end when their window does). */
export type FakeExec = (call: ExecCall) => ExecOutcome | Promise<ExecOutcome>;

/** A successful exec result. */
export function ran(stdout: string, stderr = "", exitCode = 0): ExecOutcome {
  return { ok: true, stdout, stderr, exitCode, via: "api" };
}

/** A probe pod of the fleet. */
export function probePod(side: Side, node: string, podIP: string, name = `ff-probe-${node}`): ProbePod {
  return { side, execSide: side, namespace: "flyingfish-probe-test0001", name, node, podIP };
}

/** Options for {@link fakeProbeContext}. */
export interface FakeContextOptions {
  /** Which base cluster is the local one (default rome). */
  local?: "rome" | "milan";
  /** Direct mode with the other cluster's view and exec (default true). */
  withRemote?: boolean;
  mode?: ProbeMode;
  /** Edit the base objects before the views are built. */
  mutate?: (side: Side, objects: Loose[]) => void;
  localPods?: ProbePod[];
  remotePods?: ProbePod[];
  signal?: AbortSignal;
}

async function view(
  name: "rome" | "milan",
  side: Side,
  mutate?: FakeContextOptions["mutate"],
): Promise<ClusterView> {
  const objs = await baseObjects(name);
  mutate?.(side, objs);
  return viewOf(inventoryOf(objs as K8sObject[]));
}

/** A probe-run context over the base fixtures whose execs go to `exec`; also returns every call made. */
export async function fakeProbeContext(
  exec: FakeExec,
  o: FakeContextOptions = {},
): Promise<{ ctx: ProbeRunContext; calls: ExecCall[] }> {
  const localName = o.local ?? "rome";
  const remoteName = localName === "rome" ? "milan" : "rome";
  const withRemote = o.withRemote ?? true;
  const localView = await view(localName, "local", o.mutate);
  const remoteView = withRemote ? await view(remoteName, "remote", o.mutate) : null;
  const calls: ExecCall[] = [];
  const target = (side: Side, v: ClusterView): ProbeTarget =>
    ({
      side,
      name: v.name,
      flags: "",
      exec: async (namespace: string, pod: string, container: string, command: readonly string[]) => {
        const call = { side, namespace, pod, container, command };
        calls.push(call);
        return await exec(call);
      },
    }) as unknown as ProbeTarget;
  const peer = remoteName === "milan" ? MILAN_ID : ROME_ID;
  const fleet: Fleet = {
    runId: "test0001",
    mode: o.mode ?? "direct",
    peer,
    local: o.localPods ?? [],
    remote: o.remotePods ?? [],
    excluded: [],
  };
  const options: ActiveOptions = {
    probes: ["mtu", "trace"],
    mode: fleet.mode,
    peer,
    keep: false,
    images: {},
    tolerate: [],
    probeTimeoutMs: 30_000,
    cleanupTimeoutMs: 30_000,
  };
  const local = { side: "local" as Side, view: localView, target: target("local", localView) };
  const remote = remoteView
    ? { side: "remote" as Side, view: remoteView, target: target("remote", remoteView) }
    : null;
  const ctx = createProbeRunContext({
    local,
    remote,
    peer,
    fleet,
    handle: { fleet, created: [] } as unknown as FleetHandle,
    addressing: createAddressing({ local: localView, remote: remoteView, peer }),
    options,
    signal: o.signal ?? new AbortController().signal,
  });
  return { ctx, calls };
}
