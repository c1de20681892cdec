/**
 * Brings a run's probe pods up, fast and truthfully: pre-flight (every permission, one error), the
 * run namespace, a `dryRun=All` of every template (admission speaks before anything real exists),
 * then (offload) the NamespaceOffloading until Liqo says Ready, then every pod in both clusters at
 * once, then ONE poll loop per cluster over the run namespace's pods until all are Ready — failing
 * at the first Unschedulable, image pull failure, container config error or failed pod, with the
 * pod, node, image and the kubelet's message, and never waiting past the probe timeout.
 *
 * Everything created is recorded ({@link FleetHandle.created}); removing it is the session's
 * `cleanupRun` (cleanup.ts), which finds it by the run's labels whatever happened here.
 */
import { ToolError } from "../../errors.ts";
import type { AccessAttributes, WriteOutcome } from "../../kube/live/write.ts";
import { collectionPath, WAIT_BACKOFF } from "../../kube/live/write.ts";
import type { K8sObject } from "../../kube/source.ts";
import { poll } from "../../time.ts";
import { accessNeeds, dryRunAll, preflight, usesProbePods } from "./preflight.ts";
import type { ProbeTarget } from "./target.ts";
import { arr, rec, type RecordLike, str } from "./_loose.ts";
import {
  describeFailures,
  type ExpectedPod,
  listSome,
  type PodFailure,
  type PodVerdict,
  podVerdict,
} from "./pod_verdict.ts";
import {
  namespaceManifest,
  namespaceOffloadingManifest,
  offloadedPodManifest,
  type OffloadSpread,
  probePodManifest,
  probePodSelector,
  runLabels,
  serviceManifest,
} from "./templates.ts";
import {
  type CreatedObject,
  type ExcludedNode,
  type Fleet,
  type ProbeMode,
  type ProbeName,
  probeNamespace,
  type ProbePod,
  type Side,
} from "../model.ts";

/** One cluster's share of the fleet in direct mode: where to create, and one pod per node. */
export interface FleetSidePlan {
  target: ProbeTarget;
  /** Nodes that get a probe pod (selectNodes' `nodes`). */
  nodes: string[];
  /** `kubernetes.io/hostname` of each node when it differs from the name (selectNodes' `hostnames`). */
  hostnames?: Record<string, string>;
}

/** One pod offloaded to the peer through its virtual node. */
export interface OffloadedPodPlan {
  virtualNode: string;
  /** 0-based; names the pod (`ff-probe-<virtual node>-<index>`). */
  index: number;
  /** Liqo's spreading of the remote pod (active/offload.ts `offloadSpread`). */
  spread?: OffloadSpread;
}

/**
 * The run namespace offloaded to the peer, and the pods sent there. Offload mode always has it;
 * direct mode has it when the service probe needs a Service reflected to the peer.
 */
export interface FleetOffloadPlan {
  pods: OffloadedPodPlan[];
}

/** Everything {@link openFleet} creates, decided beforehand (active/plan.ts builds it). */
export interface FleetPlan {
  runId: string;
  mode: ProbeMode;
  /** Remote cluster ID of the peer probed. */
  peer: string;
  /** The probes of the run (for the permissions pre-flight asks about). */
  probes: readonly ProbeName[];
  /** Images by role; the probe pods run `images.probe`. */
  images: Readonly<Record<string, string>>;
  /** `--tolerate` taint keys. */
  tolerate: readonly string[];
  /** Bound on everything openFleet waits for (offloading Ready, pods Ready). */
  probeTimeoutMs: number;
  /** The consumer: its probe pods (one per node) and, offloading, the NamespaceOffloading. */
  local: FleetSidePlan;
  /** Direct mode: the provider's probe pods, created with its own kubeconfig (ignored in offload mode). */
  remote: FleetSidePlan | null;
  /** Offloading of the run namespace to the peer; null: none. */
  offload: FleetOffloadPlan | null;
  /** Nodes left out (reported with the fleet). */
  excluded: ExcludedNode[];
  /** The run will create the probe Service (service probe): it is dry-run with the other templates. */
  service?: boolean;
  /** Tenant namespace of each side's gateway pod (mtu/trace exec there): asked about in pre-flight. */
  gatewayNamespaces?: Partial<Record<Side, string | null>>;
  /** Start of the run (the namespace expires one hour later); default now. */
  now?: Date;
}

/** The open fleet. */
export interface FleetHandle {
  /** The Ready probe pods (all of them when {@link FleetHandle.failure} is null). */
  fleet: Fleet;
  /** Pods offloaded to the peer (also in `fleet.remote` in offload mode). */
  offloaded: ProbePod[];
  /** Every object created, in order. */
  created: CreatedObject[];
  /** Why the fleet is not all Ready (fail-fast reason, timeout or interruption); null when it is. */
  failure: string | null;
  /** Creates `obj` in the run namespace of a side's cluster, labelled with the run, and records it. */
  create(side: Side, obj: K8sObject): Promise<WriteOutcome>;
}

/** Options of {@link openFleet}. */
export interface FleetOptions {
  /** Interrupts the wait (SIGINT/SIGTERM): the handle comes back with a failure. */
  signal: AbortSignal;
  /** Progress lines for the user ("3/6 probe pods Ready"). */
  onProgress?: (line: string) => void;
  /** Called for each object as soon as it was created (so a caller keeps the list even if this throws). */
  onCreated?: (obj: CreatedObject) => void;
}

/** How long a run namespace lives before anyone may remove it as a leftover. */
export const RUN_EXPIRY_MS = 60 * 60 * 1000;

function secondsOf(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Tracks Ready pods across the clusters and says so when the count moves. */
export class Progress {
  readonly #ready = new Set<string>();
  #last = -1;
  constructor(readonly total: number, readonly emit: (line: string) => void) {}
  set(key: string, ready: boolean): void {
    if (ready) this.#ready.add(key);
    else this.#ready.delete(key);
  }
  get count(): number {
    return this.#ready.size;
  }
  report(): void {
    if (this.#ready.size === this.#last) return;
    this.#last = this.#ready.size;
    this.emit(`${this.#ready.size}/${this.total} probe pods Ready`);
  }
}

/**
 * An ImagePullBackOff only says "Back-off pulling image"; the registry's answer (not found,
 * unauthorized, …) is in the kubelet's `Failed` event. Best effort, one read per cluster: without
 * the permission to list events the back-off message stays.
 */
export async function explainBackOff(
  target: ProbeTarget,
  runId: string,
  failures: PodFailure[],
  namespace: string = probeNamespace(runId),
): Promise<void> {
  const f = failures.find((x) =>
    x.reason === "ImagePullBackOff" && /^Back-off pulling image/.test(x.message)
  );
  if (!f || failures.some((x) => x.reason === "ErrImagePull")) return;
  try {
    const selector = encodeURIComponent(`involvedObject.name=${f.pod.name}`);
    const json = rec(
      await target.client.getJson(
        `/api/v1/namespaces/${namespace}/events?fieldSelector=${selector}`,
      ),
    );
    // The kubelet's `Failed` events: "Failed to pull image …: <registry's answer>", then "Error: ErrImagePull".
    const events = arr(json.items).map(rec).filter((e) =>
      str(e.reason) === "Failed" && str(rec(e.involvedObject).name) === f.pod.name &&
      /^Failed to pull image/.test(str(e.message))
    );
    const when = (e: RecordLike): string => str(e.lastTimestamp) || str(e.eventTime) || str(e.firstTimestamp);
    const last = events.sort((a, b) => when(a).localeCompare(when(b))).at(-1);
    if (last) f.message = `${f.message} (kubelet: ${str(last.message)})`;
  } catch {
    // No events to read (permission, older server): the back-off message is what there is.
  }
}

/** What one cluster's wait loop ended with. */
export interface WaitResult {
  ready: Map<string, { pod: ExpectedPod; podIP: string; node: string }>;
  failure: string | null;
  pending: string[];
}

/**
 * ONE poll loop over the run namespace's probe pods in one cluster (`where`: another run
 * namespace and selector, for `preflight --probe`) (a label-selected list, 250 ms
 * doubling to 1 s), until every expected pod is Ready, one fails for good, the deadline passes or
 * `signal` aborts (then it rejects with the reason).
 */
export async function waitForPods(
  target: ProbeTarget,
  runId: string,
  expected: readonly ExpectedPod[],
  deadline: number,
  progress: Progress,
  signal: AbortSignal,
  where: { namespace: string; selector: string } = {
    namespace: probeNamespace(runId),
    selector: probePodSelector(runId),
  },
): Promise<WaitResult> {
  const path = `/api/v1/namespaces/${where.namespace}/pods`;
  const ready = new Map<string, { pod: ExpectedPod; podIP: string; node: string }>();
  let lastError: string | null = null;
  let pending: string[] = expected.map((p) => `${p.name} (node ${p.node}, ${target.name}): not created yet`);
  const polled = await poll<WaitResult>(async () => {
    const listed = await target.writer.list(path, { labelSelector: where.selector, signal });
    if (!listed.ok) {
      lastError = `listing pods in ${target.name}: ${listed.message}`;
      if (listed.status === 401 || listed.status === 403) return { ready, failure: lastError, pending };
    } else {
      lastError = null;
      const byName = new Map(listed.items.map((p) => [p.metadata.name, p]));
      const failures: PodFailure[] = [];
      pending = [];
      for (const pod of expected) {
        const obj = byName.get(pod.name);
        const v: PodVerdict = obj ? podVerdict(obj) : { state: "pending", detail: "not found" };
        const key = `${target.side}/${pod.name}`;
        progress.set(key, v.state === "ready");
        if (v.state === "ready") ready.set(pod.name, { pod, podIP: v.podIP, node: v.node });
        else {
          ready.delete(pod.name);
          if (v.state === "failed") {
            failures.push({ pod, cluster: target.name, reason: v.reason, message: v.message });
          } else pending.push(`${pod.name} (node ${pod.node}, ${target.name}): ${v.detail}`);
        }
      }
      progress.report();
      if (failures.length > 0) {
        await explainBackOff(target, runId, failures, where.namespace);
        return { ready, failure: describeFailures(failures), pending };
      }
      if (ready.size === expected.length) return { ready, failure: null, pending: [] };
    }
    return undefined;
  }, { intervalMs: WAIT_BACKOFF.firstMs, maxIntervalMs: WAIT_BACKOFF.maxMs, deadline, signal });
  if (polled.done) return polled.value;
  return { ready, failure: null, pending: lastError ? [...pending, lastError] : pending };
}

/** The message of a NamespaceOffloading that settled in a failed phase (per-cluster conditions). */
export function offloadingVerdict(obj: K8sObject | null, peer: string): boolean | string {
  const status = rec(obj?.status);
  const phase = str(status.offloadingPhase);
  if (phase === "Ready") return true;
  if (phase !== "AllFailed" && phase !== "SomeFailed" && phase !== "NoClusterSelected") return false;
  const perCluster = rec(status.remoteNamespacesConditions);
  const lines = Object.entries(perCluster).flatMap(([cluster, conds]) =>
    arr(conds).map(rec).filter((c) => c.status !== "True").map((c) =>
      `${cluster}: ${str(c.type)}=${str(c.status)}${c.reason ? ` (${str(c.reason)})` : ""}${
        c.message ? `: ${str(c.message)}` : ""
      }`
    )
  );
  const why = phase === "NoClusterSelected"
    ? ` (no virtual node with liqo.io/remote-cluster-id=${peer} matches the cluster selector)`
    : "";
  return `NamespaceOffloading phase ${phase}${why}${lines.length ? `: ${lines.join("; ")}` : ""}`;
}

/**
 * Opens the fleet of a run (see the module comment). Throws a ToolError (exit 3) when pre-flight
 * finds missing permissions (nothing created), when a run namespace cannot be created, or when
 * admission refuses a template at the dry run (the namespace exists then: the caller's cleanup
 * removes it). A fleet that does not come up (refused create, Unschedulable, image pull failure,
 * failed pod, timeout, interruption) is a finding, not an error: the handle comes back with
 * `failure` set and the pods that did become Ready.
 */
export async function openFleet(plan: FleetPlan, opts: FleetOptions): Promise<FleetHandle> {
  const { signal } = opts;
  const say = (line: string): void => opts.onProgress?.(line);
  const ns = probeNamespace(plan.runId);
  const image = plan.images.probe;
  if (!image) throw new Error("FleetPlan.images has no `probe` image");
  const offloading = plan.offload !== null && plan.offload.pods.length > 0;
  const created: CreatedObject[] = [];
  const targetOf = (side: Side): ProbeTarget | null =>
    side === "local" ? plan.local.target : plan.mode === "direct" ? plan.remote?.target ?? null : null;
  // Offload mode never writes to the provider: Liqo runs the remote pods.
  const sides: FleetSidePlan[] = plan.remote && plan.mode === "direct"
    ? [plan.local, plan.remote]
    : [plan.local];
  const offloaded: ProbePod[] = [];
  const fleet: Fleet = {
    runId: plan.runId,
    mode: plan.mode,
    peer: plan.peer,
    local: [],
    remote: [],
    excluded: plan.excluded,
  };

  const record = (target: ProbeTarget, obj: K8sObject): void => {
    const c: CreatedObject = {
      cluster: target.name,
      kind: obj.kind ?? "",
      namespace: obj.metadata.namespace ?? null,
      name: obj.metadata.name,
    };
    created.push(c);
    opts.onCreated?.(c);
  };

  const handle: FleetHandle = {
    fleet,
    offloaded,
    created,
    failure: null,
    async create(side: Side, obj: K8sObject): Promise<WriteOutcome> {
      const target = targetOf(side);
      if (!target) {
        return {
          ok: false,
          status: 0,
          reason: "NoTarget",
          message: `no run namespace in the ${side} cluster (${plan.mode} mode)`,
        };
      }
      const body: K8sObject = {
        ...obj,
        metadata: {
          ...obj.metadata,
          namespace: ns,
          labels: { ...obj.metadata.labels, ...runLabels(plan.runId) },
        },
      };
      const res = await target.writer.create(collectionPath(body), body, { signal });
      if (res.ok) record(target, body);
      return res;
    },
  };

  // Probes that need no probe pod (mtu: the gateway's own ping): no namespace, no pod, no dry run —
  // the pre-flight asks only for the execs they run.
  if (!usesProbePods(plan.probes)) {
    const needs: Partial<Record<Side, AccessAttributes[]>> = {};
    for (const s of sides) {
      const side = s.target.side;
      needs[side] = accessNeeds({
        side,
        mode: plan.mode,
        probes: plan.probes,
        runNamespace: ns,
        gatewayNamespace: plan.gatewayNamespaces?.[side] ?? null,
      });
    }
    const targets = sides.map((s) => s.target);
    await preflight(targets, needs, { signal });
    const n = Object.values(needs).reduce((k, l) => k + (l?.length ?? 0), 0);
    say(
      `pre-flight: ${n} permission${n === 1 ? "" : "s"} granted; ${plan.probes.join(", ")} use no probe pod`,
    );
    return handle;
  }

  // Nothing to probe on a side: say so before anything is created.
  if (plan.mode === "offload" && !offloading) {
    handle.failure = `offload mode with no pod to offload to ${plan.peer}`;
    return handle;
  }
  const empty = sides.filter((s) => s.nodes.length === 0);
  if (empty.length > 0) {
    handle.failure = empty.map((s) => {
      const left = plan.excluded.filter((e) => e.side === s.target.side);
      return `no schedulable node for probe pods in ${s.target.name}${
        left.length ? ` (left out: ${listSome(left.map((e) => `${e.node}: ${e.reason}`))})` : ""
      }`;
    }).join("; ");
    return handle;
  }

  // 1. Pre-flight: every permission of the run, in every cluster, one error listing all denials.
  const needs: Partial<Record<Side, AccessAttributes[]>> = {};
  for (const s of sides) {
    const side = s.target.side;
    const list = accessNeeds({
      side,
      mode: plan.mode,
      probes: plan.probes,
      runNamespace: ns,
      gatewayNamespace: plan.gatewayNamespaces?.[side] ?? null,
      offloading,
    });
    if (side === "local" && plan.service && !plan.probes.includes("service")) {
      list.push({ verb: "create", resource: "services", namespace: ns });
    }
    needs[side] = list;
  }
  const targets = sides.map((s) => s.target);
  await preflight(targets, needs, { signal });
  say(
    `pre-flight: ${Object.values(needs).reduce((n, l) => n + (l?.length ?? 0), 0)} permissions granted in ${
      targets.map((t) => t.name).join(", ")
    }`,
  );

  // 2. The run namespace in every cluster.
  const start = plan.now ?? new Date();
  const nsObj = namespaceManifest(plan.runId, new Date(start.getTime() + RUN_EXPIRY_MS));
  const nsResults = await Promise.all(targets.map(async (t) => ({
    t,
    res: await t.writer.create(collectionPath(nsObj), nsObj, { signal }),
  })));
  for (const { t, res } of nsResults) if (res.ok) record(t, nsObj);
  const nsRefused = nsResults.filter((r) => !r.res.ok);
  if (nsRefused.length > 0) {
    throw new ToolError(
      `cannot create namespace ${ns}: ${
        nsRefused.map(({ t, res }) => `${t.name}: ${res.ok ? "" : `${res.reason}: ${res.message}`}`).join(
          "; ",
        )
      }`,
    );
  }
  say(`namespace ${ns} created in ${targets.map((t) => t.name).join(", ")}`);

  // 3. Every template, dry-run in its cluster (admission: Pod Security, webhooks, quotas).
  const podsBySide = new Map<Side, { expected: ExpectedPod; manifest: K8sObject }[]>();
  for (const s of sides) {
    const side = s.target.side;
    podsBySide.set(
      side,
      s.nodes.map((node) => {
        const manifest = probePodManifest({
          runId: plan.runId,
          node,
          hostname: s.hostnames?.[node],
          image,
          tolerate: plan.tolerate,
          side,
        });
        return {
          manifest,
          expected: { side, execSide: side, name: manifest.metadata.name, node, image, offloaded: false },
        };
      }),
    );
  }
  const offloadedPods = (plan.offload?.pods ?? []).map((p) => {
    const manifest = offloadedPodManifest({
      runId: plan.runId,
      image,
      virtualNode: p.virtualNode,
      index: p.index,
      spread: p.spread,
    });
    return {
      manifest,
      expected: {
        side: "remote" as Side,
        execSide: "local" as Side,
        name: manifest.metadata.name,
        node: p.virtualNode,
        image,
        offloaded: true,
      },
    };
  });
  const offloadingObj = namespaceOffloadingManifest(plan.peer, plan.runId);
  const dryRuns = sides.map((s) => {
    const side = s.target.side;
    const objects = podsBySide.get(side)!.map((p) => p.manifest);
    if (side === "local") {
      objects.push(...offloadedPods.map((p) => p.manifest));
      if (offloading) objects.push(offloadingObj);
      if (plan.service) objects.push(serviceManifest(plan.runId));
    }
    return { target: s.target, objects };
  });
  await Promise.all(dryRuns.map((d) => dryRunAll(d.target, d.objects, { signal })));
  say(`dry run: ${dryRuns.reduce((n, d) => n + d.objects.length, 0)} templates admitted`);

  const deadline = Date.now() + plan.probeTimeoutMs;
  try {
    // 4. Every pod of every cluster at once. Offloading: the NamespaceOffloading goes first and the
    // pods bound to the virtual node wait for it to be Ready (they could not start before); the
    // local and direct pods start meanwhile.
    const all: { target: ProbeTarget; expected: ExpectedPod; manifest: K8sObject }[] = [];
    for (const s of sides) {
      for (const p of podsBySide.get(s.target.side)!) all.push({ target: s.target, ...p });
    }
    const refused: PodFailure[] = [];
    const createPods = async (pods: typeof all): Promise<void> => {
      const creates = await Promise.all(pods.map(async (p) => ({
        ...p,
        res: await p.target.writer.create(collectionPath(p.manifest), p.manifest, { signal }),
      })));
      for (const c of creates) {
        if (c.res.ok) record(c.target, c.manifest);
        else {
          refused.push({
            pod: c.expected,
            cluster: c.target.name,
            reason: `FailedCreate (${c.res.reason})`,
            message: c.res.message,
          });
        }
      }
    };
    if (offloading) {
      const res = await plan.local.target.writer.create(collectionPath(offloadingObj), offloadingObj, {
        signal,
      });
      if (!res.ok) {
        handle.failure =
          `cannot create NamespaceOffloading ${ns}/${offloadingObj.metadata.name} in ${plan.local.target.name}: ${res.reason}: ${res.message}`;
        return handle;
      }
      record(plan.local.target, offloadingObj);
      say(
        `creating ${all.length} probe pods; waiting for NamespaceOffloading ${ns}/offloading (peer ${plan.peer})`,
      );
      const [, waited] = await Promise.all([
        createPods(all),
        plan.local.target.writer.waitFor(
          `${collectionPath(offloadingObj)}/${offloadingObj.metadata.name}`,
          (obj) => offloadingVerdict(obj, plan.peer),
          { timeoutMs: Math.max(0, deadline - Date.now()), signal },
        ),
      ]);
      if (waited.state === "failed") {
        handle.failure = `offloading ${ns} to ${plan.peer} failed: ${waited.reason}`;
        return handle;
      }
      if (waited.state === "timeout") {
        const phase = str(rec(waited.object?.status).offloadingPhase) || "no phase yet";
        handle.failure =
          `NamespaceOffloading ${ns}/offloading not Ready after ${secondsOf(plan.probeTimeoutMs)} ` +
          `(phase ${phase}${waited.error ? `; last error: ${waited.error}` : ""})`;
        return handle;
      }
      say(
        `NamespaceOffloading Ready: ${ns} offloaded to ${plan.peer}; offloading ${offloadedPods.length} probe pods`,
      );
      const sent = offloadedPods.map((p) => ({ target: plan.local.target, ...p }));
      all.push(...sent);
      if (refused.length === 0) await createPods(sent);
    } else {
      say(`creating ${all.length} probe pods`);
      await createPods(all);
    }
    if (refused.length > 0) {
      handle.failure = describeFailures(refused);
      return handle;
    }

    // 5. ONE poll loop per cluster; the first failure anywhere stops them all.
    const progress = new Progress(all.length, say);
    const stop = new AbortController();
    const both = AbortSignal.any([signal, stop.signal]);
    const loops = [...new Set(all.map((p) => p.target))].map((target) => {
      const expected = all.filter((p) => p.target === target).map((p) => p.expected);
      return waitForPods(target, plan.runId, expected, deadline, progress, both).then((r) => {
        if (r.failure) stop.abort(new Error("fleet failed"));
        return { target, result: r };
      }, (err) => {
        if (stop.signal.aborted && !signal.aborted) return { target, result: null };
        throw err;
      });
    });
    const results = await Promise.all(loops);
    const failure = results.map((r) => r.result?.failure).find((f): f is string => !!f) ?? null;
    const pending = results.flatMap((r) => r.result?.pending ?? []);
    for (const r of results) {
      for (const { pod, podIP, node } of r.result?.ready.values() ?? []) {
        const probePod: ProbePod = {
          side: pod.side,
          execSide: pod.execSide,
          namespace: ns,
          name: pod.name,
          node: pod.offloaded ? pod.node : node || pod.node,
          podIP,
        };
        if (pod.offloaded) offloaded.push(probePod);
        else if (pod.side === "local") fleet.local.push(probePod);
        else fleet.remote.push(probePod);
      }
    }
    const byNode = (a: ProbePod, b: ProbePod): number =>
      a.node.localeCompare(b.node) || a.name.localeCompare(b.name);
    fleet.local.sort(byNode);
    fleet.remote.sort(byNode);
    offloaded.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    if (plan.mode === "offload") fleet.remote.push(...offloaded);
    if (failure) handle.failure = failure;
    else if (progress.count < all.length) {
      handle.failure = `probe pods not Ready after ${
        secondsOf(plan.probeTimeoutMs)
      }: ${progress.count}/${all.length} Ready; ${listSome(pending)}`;
    }
    return handle;
  } catch (err) {
    if (!signal.aborted) throw err;
    handle.failure = `interrupted before the probe pods were Ready (${
      err instanceof Error ? err.message : String(err)
    })`;
    return handle;
  }
}
