/**
 * PROBE-SVC, the measurement: create the Service over every probe pod of the run (local and
 * offloaded), wait — polling, bounded by the probe timeout — until the consumer's EndpointSlices
 * list every backend and, with the provider's kubeconfig, the reflected Service and its slices exist
 * in the offloaded namespace; resolve the Service by DNS from a pod on each side; sweep each side's
 * Service until every backend answered (batches of one request per backend, at most backends × 10
 * requests in all, never a guessed repeat count). The judge is active/service/judge.ts.
 *
 * {@link measureService} is independent of the session's context type ({@link runService} adapts it
 * at the end of this file), so it is tested with plain fakes of {@link ServiceProbeIo}.
 */
import type { Outcome } from "../../checks/types.ts";
import type { ExecOutcome, K8sObject } from "../../kube/source.ts";
import { resolveName, serviceSweep } from "../commands.ts";
import { PROBE_SERVICE, serviceManifest } from "../fleet/templates.ts";
import type { ProbePod, Side } from "../model.ts";
import { probeNamespace } from "../model.ts";
import {
  judgeService,
  REFLECTED_SLICE_MANAGER,
  type ServiceBackend,
  type ServiceMeasurement,
  type SliceSeen,
  type SliceSideMeasurement,
  type SweepMeasurement,
} from "./judge.ts";
import { remoteNamespaceOf } from "../offload.ts";
import type { ProbeRun, ProbeRunContext } from "../context.ts";
import type { ProbeTarget } from "../fleet/target.ts";
import { poll, rest } from "../../time.ts";
import { MANAGED_BY_LABEL, offloadingPath, SHADOW_ENDPOINTSLICE_MANAGER } from "../../liqo/names.ts";

/** The cluster DNS domain the FQDNs are built with (Kubernetes' default). */
export const CLUSTER_DOMAIN = "cluster.local";

/** Requests per backend a sweep may send at most (the bound is backends × this). */
export const SWEEP_REQUESTS_PER_BACKEND = 10;

/**
 * Most requests in one sweep exec: each may take curl's 2 s `--max-time` when its backend is dead,
 * and a batch must end well inside the client's exec timeout (15 s by default).
 */
export const SWEEP_BATCH_MAX = 6;

/**
 * Shares of the probe timeout: the EndpointSlice wait ends at 40 % of it, no sweep batch starts
 * after 75 % — so DNS, the last batch (≤ {@link SWEEP_BATCH_MAX} × curl's 2 s) and the verdict
 * land inside the session's per-probe bound, and a slice that never appears is reported as such
 * instead of the whole probe timing out.
 */
export const BUDGET = { slices: 0.4, sweeps: 0.75 } as const;

/** First and longest pause between two polls of the EndpointSlices. */
export const POLL_BACKOFF = { firstMs: 250, maxMs: 1_000 } as const;

/** A read that may fail (KubeWriter's outcomes have this shape). */
export type ReadOutcome = { ok: true; object: K8sObject } | { ok: false; status: number; message: string };
/** A list that may fail. */
export type ListOutcome = { ok: true; items: K8sObject[] } | { ok: false; status: number; message: string };

/** Reads on one cluster. */
export interface ServiceApi {
  get(path: string): Promise<ReadOutcome>;
  list(path: string, labelSelector: string): Promise<ListOutcome>;
}

/** Everything the service probe touches. */
export interface ServiceProbeIo {
  runId: string;
  peer: string;
  /** The consumer (where the Service is created). */
  consumer: { name: string; clusterId: string | null; api: ServiceApi };
  /** The provider, when its kubeconfig was given. */
  provider: { name: string; api: ServiceApi } | null;
  /** Probe pods in the consumer's own network. */
  localPods: readonly ProbePod[];
  /** Probe pods offloaded to the peer (side remote, exec'd through the consumer's virtual kubelet). */
  offloadedPods: readonly ProbePod[];
  /** Where a backend should appear in a side's EndpointSlices (null: not known, membership only). */
  addressIn(pod: ProbePod, viewer: Side): string | null;
  /** Creates an object in the run namespace on the consumer (recorded for cleanup). */
  create(obj: K8sObject): Promise<ReadOutcome>;
  exec(pod: ProbePod, command: readonly string[]): Promise<ExecOutcome>;
  timeoutMs: number;
  signal: AbortSignal;
  progress(line: string): void;
  /** Clock (ms) and pause between polls; tests replace both. */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** What the service probe found, and the measurement behind it (null when it could not measure). */
export interface ServiceProbeOutput {
  outcome: Outcome;
  measurement: ServiceMeasurement | null;
}

/** The FQDN of the probe Service in `namespace`. */
export function serviceFqdn(namespace: string): string {
  return `${PROBE_SERVICE}.${namespace}.svc.${CLUSTER_DOMAIN}`;
}

/** Parsed output of one {@link serviceSweep} batch: the answering pod names, and failed requests. */
export interface SweepBatch {
  answers: string[];
  errors: string[];
}

/** Parses a sweep's stdout: one line per request, the pod name or `ERR <curl exit code>`. */
export function parseSweep(stdout: string): SweepBatch {
  const answers: string[] = [];
  const errors: string[] = [];
  for (const raw of stdout.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (/^ERR\b/.test(line)) errors.push(line);
    else answers.push(line);
  }
  return { answers, errors };
}

/** Runs one batch of `count` requests; an exec failure is a string. */
export type SweepRunner = (count: number) => Promise<SweepBatch | string>;

/**
 * Sweeps until every expected backend answered: batches of one request per backend (at most
 * {@link SWEEP_BATCH_MAX}, never more than the bound left), stopping as soon as all answered, at `expected.length` × 10 requests, at
 * the deadline (checked after the first batch), on an exec failure or on abort.
 */
export async function sweepBackends(
  run: SweepRunner,
  expected: readonly string[],
  opts: { deadline: number; now: () => number; signal: AbortSignal },
): Promise<Omit<SweepMeasurement, "side" | "fromPod" | "target">> {
  const bound = Math.max(1, expected.length) * SWEEP_REQUESTS_PER_BACKEND;
  const answered: Record<string, number> = {};
  let requests = 0;
  let errors = 0;
  const result = (stop: SweepMeasurement["stop"], detail = "") => ({
    expected: [...expected],
    answered,
    requests,
    bound,
    errors,
    stop,
    detail,
  });
  const allAnswered = () => expected.every((p) => answered[p]);
  while (true) {
    if (allAnswered()) return result("all-answered");
    if (requests >= bound) return result("bound");
    if (opts.signal.aborted) return result("aborted", "aborted");
    // The first batch always goes out, so a late start still says who answered.
    if (requests > 0 && opts.now() >= opts.deadline) return result("timeout", `${requests} request(s) sent`);
    const count = Math.min(Math.max(1, expected.length), SWEEP_BATCH_MAX, bound - requests);
    const batch = await run(count);
    if (typeof batch === "string") return result("exec-failed", batch);
    requests += count;
    errors += batch.errors.length;
    for (const name of batch.answers) answered[name] = (answered[name] ?? 0) + 1;
  }
}

interface ServiceShape {
  spec?: { clusterIP?: string };
}

interface SliceShape {
  metadata: { name: string; labels?: Record<string, string> };
  endpoints?:
    | {
      addresses?: string[] | null;
      conditions?: { ready?: boolean | null };
      targetRef?: { name?: string };
    }[]
    | null;
}

function sliceOf(obj: K8sObject): SliceSeen {
  const s = obj as unknown as SliceShape;
  return {
    name: s.metadata.name,
    // The provider's slice made from Liqo's ShadowEndpointSlice keeps the shadow's labels and adds
    // liqo.io/managed-by (pkg/liqo-controller-manager/offloading/shadowendpointslice-controller).
    reflected: s.metadata.labels?.["endpointslice.kubernetes.io/managed-by"] === REFLECTED_SLICE_MANAGER ||
      s.metadata.labels?.[MANAGED_BY_LABEL] === SHADOW_ENDPOINTSLICE_MANAGER,
    endpoints: (s.endpoints ?? []).map((ep) => ({
      pod: ep.targetRef?.name ?? null,
      addresses: ep.addresses ?? [],
      ready: ep.conditions?.ready !== false,
    })),
  };
}

/** True when every expected backend is listed, ready, at its address. */
function complete(m: SliceSideMeasurement): boolean {
  if (!m.service) return false;
  return m.expected.every((e) =>
    m.slices.some((s) =>
      s.endpoints.some((ep) =>
        ep.pod === e.pod && ep.ready && (e.address === null || ep.addresses.includes(e.address))
      )
    )
  );
}

async function readSide(
  api: ServiceApi,
  namespace: string,
  base: Omit<SliceSideMeasurement, "service" | "slices" | "error" | "namespace">,
): Promise<SliceSideMeasurement> {
  const [svc, slices] = await Promise.all([
    api.get(`/api/v1/namespaces/${namespace}/services/${PROBE_SERVICE}`),
    api.list(
      `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
      `kubernetes.io/service-name=${PROBE_SERVICE}`,
    ),
  ]);
  const error = !svc.ok && svc.status !== 404
    ? `Service read failed: ${svc.message}`
    : !slices.ok
    ? `EndpointSlices read failed: ${slices.message}`
    : null;
  return {
    ...base,
    namespace,
    service: svc.ok
      ? { name: PROBE_SERVICE, clusterIP: (svc.object as ServiceShape).spec?.clusterIP ?? null }
      : null,
    slices: slices.ok ? slices.items.map(sliceOf) : [],
    error,
  };
}

/** Polls one side until it is complete or the deadline; the last reading, with why it ended early. */
async function waitSide(
  io: ServiceProbeIo,
  read: () => Promise<SliceSideMeasurement>,
  deadline: number,
): Promise<SliceSideMeasurement> {
  const now = io.now ?? Date.now;
  const sleep = io.sleep ?? ((ms: number, signal: AbortSignal) => rest(ms, signal).then(() => {}));
  const start = now();
  let m!: SliceSideMeasurement;
  // No signal for the poll itself: an abort ends the wait with the last reading, not a rejection.
  const polled = await poll(async () => {
    m = await read();
    if (complete(m)) return m;
    if (io.signal.aborted) return { ...m, error: m.error ?? "aborted" };
    return undefined;
  }, {
    intervalMs: POLL_BACKOFF.firstMs,
    maxIntervalMs: POLL_BACKOFF.maxMs,
    deadline,
    now,
    sleep: (ms) => sleep(ms, io.signal),
  });
  if (polled.done) return polled.value;
  return { ...m, error: m.error ?? `still incomplete after ${Math.round((now() - start) / 1000)} s` };
}

async function dnsFrom(
  io: ServiceProbeIo,
  pod: ProbePod,
  side: Side,
  name: string,
  expected: string | null,
) {
  const out = await io.exec(pod, resolveName(name));
  const base = { side, fromPod: pod.name, name, expected };
  if (!out.ok) return { ...base, addresses: [], error: `exec failed: ${out.message}` };
  const addresses = out.stdout.split("\n").map((l) => l.trim().split(/\s+/)[0]).filter(Boolean);
  if (out.exitCode !== 0 || addresses.length === 0) {
    const why = out.exitCode === 2 ? "not found" : `exit ${out.exitCode}`;
    return {
      ...base,
      addresses,
      error: `getent hosts ${why}${out.stderr.trim() ? `: ${out.stderr.trim()}` : ""}`,
    };
  }
  return { ...base, addresses, error: null };
}

async function sweepFrom(
  io: ServiceProbeIo,
  pod: ProbePod,
  side: Side,
  target: string,
  expected: readonly string[],
  deadline: number,
): Promise<SweepMeasurement> {
  const run: SweepRunner = async (count) => {
    const out = await io.exec(pod, serviceSweep(target, count));
    if (!out.ok) return out.message;
    return parseSweep(out.stdout);
  };
  const res = await sweepBackends(run, expected, { deadline, now: io.now ?? Date.now, signal: io.signal });
  return { side, fromPod: pod.name, target, ...res };
}

/** Measures and judges PROBE-SVC. */
export async function measureService(io: ServiceProbeIo): Promise<ServiceProbeOutput> {
  const now = io.now ?? Date.now;
  const start = now();
  const waitDeadline = start + io.timeoutMs * BUDGET.slices;
  const sweepDeadline = start + io.timeoutMs * BUDGET.sweeps;
  const namespace = probeNamespace(io.runId);
  if (io.offloadedPods.length === 0) {
    return {
      outcome: {
        status: "unknown",
        summary:
          `no probe pod offloaded to ${io.peer}: a Service is reflected only from an offloaded namespace`,
        evidence: [`${io.localPods.length} local probe pod(s), none offloaded`],
      },
      measurement: null,
    };
  }
  const backends: ServiceBackend[] = [...io.localPods, ...io.offloadedPods].map((p) => ({
    pod: p.name,
    side: p.side,
    node: p.node,
    address: p.podIP,
  }));
  const names = backends.map((b) => b.pod);

  const created = await io.create(serviceManifest(io.runId));
  if (!created.ok && created.status !== 409) {
    return {
      outcome: {
        status: "unknown",
        summary:
          `could not create Service ${namespace}/${PROBE_SERVICE} on ${io.consumer.name}: ${created.message}`,
        evidence: [`POST services in ${namespace}: ${created.status} ${created.message}`],
      },
      measurement: null,
    };
  }
  io.progress(`service: Service ${PROBE_SERVICE} created, waiting for its EndpointSlices`);

  const offloading = await io.consumer.api.get(offloadingPath(namespace));
  const remoteNamespace = remoteNamespaceOf(
    offloading.ok ? offloading.object : null,
    namespace,
    io.consumer.clusterId,
  );
  const notes: string[] = [];

  const all = [...io.localPods, ...io.offloadedPods];
  const localSide = waitSide(
    io,
    () =>
      readSide(io.consumer.api, namespace, {
        side: "local",
        cluster: io.consumer.name,
        expected: all.map((p) => ({ pod: p.name, address: p.podIP, reflected: false })),
      }),
    waitDeadline,
  );
  let remoteSide: Promise<SliceSideMeasurement | null> = Promise.resolve(null);
  if (io.provider && remoteNamespace) {
    const provider = io.provider;
    remoteSide = waitSide(
      io,
      () =>
        readSide(provider.api, remoteNamespace, {
          side: "remote",
          cluster: provider.name,
          expected: all.map((p) => ({
            pod: p.name,
            address: io.addressIn(p, "remote"),
            reflected: p.side === "local",
          })),
        }),
      waitDeadline,
    );
  } else if (!io.provider) {
    notes.push(
      `provider side not inspected (no --remote-kubeconfig): its reflected Service and EndpointSlices are ` +
        `judged through DNS and the sweep from the offloaded pod`,
    );
  } else {
    notes.push(`provider namespace unknown (NamespaceOffloading has no status.remoteNamespaceName)`);
  }
  const [local, remote] = await Promise.all([localSide, remoteSide]);
  const slices = remote ? [local, remote] : [local];
  if (io.signal.aborted) {
    return {
      outcome: {
        status: "unknown",
        summary: `interrupted while waiting for the EndpointSlices of ${namespace}/${PROBE_SERVICE}`,
        evidence: slices.map((s) => `${s.cluster}: ${s.slices.length} EndpointSlice(s) read`),
      },
      measurement: null,
    };
  }
  io.progress(`service: EndpointSlices read on ${slices.length} side(s), resolving and sweeping`);

  // DNS and sweeps, both sides at once.
  const localPod = io.localPods[0];
  const offPod = io.offloadedPods[0];
  const localIP = local.service?.clusterIP ?? null;
  const remoteIP = remote?.service?.clusterIP ?? null;
  const remoteName = remoteNamespace ? serviceFqdn(remoteNamespace) : PROBE_SERVICE;
  if (!remoteNamespace) {
    notes.push(`offloaded pod resolves the short name ${PROBE_SERVICE} (its namespace is unknown)`);
  }
  const [dnsLocal, dnsRemote] = await Promise.all([
    localPod ? dnsFrom(io, localPod, "local", serviceFqdn(namespace), localIP) : Promise.resolve(null),
    dnsFrom(io, offPod, "remote", remoteName, remoteIP),
  ]);
  const dns = [dnsLocal, dnsRemote].filter((d) => d !== null);

  const sweeps: Promise<SweepMeasurement>[] = [];
  const localTarget = localIP ?? dnsLocal?.addresses[0] ?? null;
  if (localPod && localTarget) {
    sweeps.push(sweepFrom(io, localPod, "local", localTarget, names, sweepDeadline));
  } else if (localPod) {
    notes.push(`no sweep from ${localPod.name}: the Service has no ClusterIP and its name did not resolve`);
  }
  const remoteTarget = remoteIP ?? dnsRemote.addresses[0] ?? null;
  if (remoteTarget) {
    sweeps.push(sweepFrom(io, offPod, "remote", remoteTarget, names, sweepDeadline));
  } else {
    notes.push(`no sweep from ${offPod.name}: the reflected Service's name did not resolve on the provider`);
  }

  const measurement: ServiceMeasurement = {
    service: PROBE_SERVICE,
    namespace,
    remoteNamespace,
    cluster: io.consumer.name,
    peer: io.peer,
    backends,
    slices,
    dns,
    sweeps: await Promise.all(sweeps),
    notes,
  };
  return { outcome: judgeService(measurement), measurement };
}

// --- PROBE-SVC in a session: the adapter from the session's context ---------------------------
//
// Backends are the local probe pods plus the pods offloaded to the peer: in offload mode the fleet's
// `remote` pods; in direct mode the extra offloaded pods — direct mode's own remote pods live in the
// provider's run namespace, which Liqo never reflects into, so a session that runs the service probe
// offloads its run namespace as well (active/offload.ts offloadingWanted; the fleet keeps those pods in
// `handle.offloaded`, out of the matrix) and the provider's kubeconfig then lets the probe read the
// reflected Service and EndpointSlices directly.

/** The service probe's reads over a cluster's writer. */
export function serviceApi(w: Pick<ProbeTarget["writer"], "get" | "list">, signal: AbortSignal): ServiceApi {
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
  const api = (w: ProbeTarget["writer"]) => serviceApi(w, ctx.signal);
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
