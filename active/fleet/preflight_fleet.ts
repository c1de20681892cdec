/**
 * The objects of a `preflight --probe` run, through the one fleet machinery: the pre-flight
 * (SelfSubjectAccessReviews, one error listing every denial: nothing created), the run namespace
 * `flyingfish-preflight-<id>` in both clusters (labelled, Pod Security `restricted`, expiring), a
 * `dryRun=All` of every template, then the pods (echo server, client) and the throwaway UDP Service
 * — and ONE wait per cluster for the pods (fleet.ts waitForPods) beside the wait for the
 * LoadBalancer's address. Admission refusing a pod (at the dry run or the create: Pod Security,
 * a webhook, a ResourceQuota) is not a tool error here: the probe it served is inconclusive, and
 * says so. Removal is cleanup.ts `cleanupRun(…, {kind: "preflight"})`, whatever happened here.
 */
import { ToolError } from "../../errors.ts";
import { collectionPath, WAIT_BACKOFF } from "../../kube/live/write.ts";
import type { K8sObject } from "../../kube/source.ts";
import { poll } from "../../time.ts";
import { type CreatedObject, PROBE_LABELS, runNamespace, type Side } from "../model.ts";
import { Progress, RUN_EXPIRY_MS, waitForPods } from "./fleet.ts";
import type { ExpectedPod } from "./pod_verdict.ts";
import { admissionName, preflight, PREFLIGHT_RBAC_POINTER, preflightAccessNeeds } from "./preflight.ts";
import type { ProbeTarget } from "./target.ts";
import {
  type GatewayPlacement,
  namespaceManifest,
  PREFLIGHT_PODS,
  PREFLIGHT_SERVICE,
  preflightPodManifest,
  type PreflightRole,
  preflightServiceManifest,
  runSelector,
} from "./templates.ts";

/** What one cluster of a preflight run gets. */
export interface PreflightSidePlan {
  target: ProbeTarget;
  /** The roles of the pods it runs (echo: it may be the server; client: it dials the other). */
  roles: PreflightRole[];
  /** The Service in front of the echo pod, when it may be the server. */
  service: { type: "LoadBalancer" | "NodePort"; port: number; nodePort?: number } | null;
  /** Each role's placement (the gateway server template's for the echo pod, the client's for the client). */
  placement?: Partial<Record<PreflightRole, GatewayPlacement>>;
}

/** Everything {@link openPreflightFleet} creates, decided beforehand. */
export interface PreflightFleetPlan {
  runId: string;
  image: string;
  /** The UDP port the echo pods serve (the gateway port). */
  port: number;
  /** Bound on the pods' start and on the LoadBalancer's address. */
  timeoutMs: number;
  sides: PreflightSidePlan[];
  now?: Date;
}

/** A pod that runs, or why it does not. */
export type PreflightPodState =
  | { state: "ready"; name: string; node: string; podIP: string }
  | { state: "rejected"; name: string; by: string; message: string }
  | { state: "failed"; name: string; reason: string };

/** One cluster's share once up. */
export interface PreflightSideHandle {
  side: Side;
  target: ProbeTarget;
  pods: Partial<Record<PreflightRole, PreflightPodState>>;
  /** The Service as last read (its LoadBalancer ingress, its NodePort), or why it is not there. */
  service: { object: K8sObject | null; waitedMs: number; refused?: string } | null;
}

/** The open preflight fleet. */
export interface PreflightFleet {
  namespace: string;
  sides: PreflightSideHandle[];
  created: CreatedObject[];
}

/** True once a LoadBalancer Service has an ingress address (or a NodePort Service, at once). */
function hasAddress(svc: K8sObject | null): boolean {
  const spec = (svc?.spec ?? {}) as { type?: string };
  if (spec.type !== "LoadBalancer") return svc !== null;
  const ingress = ((svc?.status ?? {}) as { loadBalancer?: { ingress?: unknown[] } }).loadBalancer?.ingress;
  return Array.isArray(ingress) && ingress.length > 0;
}

/**
 * Opens the preflight fleet (see the module comment). Throws a {@link ToolError} (exit 3) when the
 * pre-flight finds missing permissions (nothing created) or a namespace cannot be created; the
 * rest is reported per pod and per Service.
 */
export async function openPreflightFleet(
  plan: PreflightFleetPlan,
  opts: { signal: AbortSignal; onProgress?: (line: string) => void; onCreated?: (c: CreatedObject) => void },
): Promise<PreflightFleet> {
  const { signal } = opts;
  const say = (l: string) => opts.onProgress?.(l);
  const ns = runNamespace(plan.runId, "preflight");
  const created: CreatedObject[] = [];
  const record = (t: ProbeTarget, obj: K8sObject) => {
    const c: CreatedObject = {
      cluster: t.name,
      kind: obj.kind ?? "",
      namespace: obj.metadata.namespace ?? null,
      name: obj.metadata.name,
    };
    created.push(c);
    opts.onCreated?.(c);
  };
  const targets = plan.sides.map((s) => s.target);

  // 1. Every permission in both clusters, one error listing all denials.
  const needs: Partial<Record<Side, ReturnType<typeof preflightAccessNeeds>>> = {};
  for (const s of plan.sides) needs[s.target.side] = preflightAccessNeeds(ns);
  await preflight(targets, needs, { signal, pointer: PREFLIGHT_RBAC_POINTER });
  say(`pre-flight: permissions granted in ${targets.map((t) => t.name).join(", ")}`);

  // 2. The run namespace.
  const start = plan.now ?? new Date();
  const nsObj = namespaceManifest(plan.runId, new Date(start.getTime() + RUN_EXPIRY_MS), "preflight");
  const nsResults = await Promise.all(targets.map(async (t) => ({
    t,
    res: await t.writer.create(collectionPath(nsObj), nsObj, { signal }),
  })));
  for (const { t, res } of nsResults) if (res.ok) record(t, nsObj);
  const refusedNs = nsResults.filter((r) => !r.res.ok);
  if (refusedNs.length > 0) {
    throw new ToolError(
      `cannot create namespace ${ns}: ${
        refusedNs.map(({ t, res }) => `${t.name}: ${res.ok ? "" : `${res.reason}: ${res.message}`}`).join(
          "; ",
        )
      }`,
    );
  }
  say(`namespace ${ns} created in ${targets.map((t) => t.name).join(", ")}`);

  // 3. Dry run, then create what admission lets through; a refusal is that object's state.
  const deadline = Date.now() + plan.timeoutMs;
  const sides = await Promise.all(plan.sides.map(async (s): Promise<PreflightSideHandle> => {
    const t = s.target;
    const handle: PreflightSideHandle = { side: t.side, target: t, pods: {}, service: null };
    const pods = s.roles.map((role) => ({
      role,
      manifest: preflightPodManifest({
        runId: plan.runId,
        role,
        image: plan.image,
        udpPort: plan.port,
        placement: s.placement?.[role],
      }),
    }));
    const svc = s.service
      ? preflightServiceManifest({
        runId: plan.runId,
        type: s.service.type,
        port: s.service.port,
        nodePort: s.service.nodePort,
      })
      : null;
    const admit = async (obj: K8sObject): Promise<{ by: string; message: string } | null> => {
      const dry = await t.writer.create(collectionPath(obj), obj, { dryRun: true, signal });
      if (!dry.ok) return { by: admissionName(dry.reason, dry.message), message: dry.message };
      const res = await t.writer.create(collectionPath(obj), obj, { signal });
      if (!res.ok) return { by: admissionName(res.reason, res.message), message: res.message };
      record(t, obj);
      return null;
    };
    if (svc) {
      const refused = await admit(svc);
      handle.service = refused
        ? {
          object: null,
          waitedMs: 0,
          refused: `Service ${ns}/${PREFLIGHT_SERVICE} rejected by ${refused.by}: ${refused.message}`,
        }
        : { object: null, waitedMs: 0 };
    }
    const expected: ExpectedPod[] = [];
    for (const p of pods) {
      const refused = await admit(p.manifest);
      if (refused) {
        handle.pods[p.role] = { state: "rejected", name: p.manifest.metadata.name, ...refused };
        say(`${t.name}: pod ${p.manifest.metadata.name} rejected by ${refused.by}`);
      } else {
        expected.push({
          side: t.side,
          execSide: t.side,
          name: p.manifest.metadata.name,
          node: "(scheduler)",
          image: plan.image,
          offloaded: false,
        });
      }
    }
    // The pods' wait and the LoadBalancer's, side by side, both bounded by the same deadline.
    const progress = new Progress(expected.length, (l) => say(`${t.name}: ${l}`));
    const selector = `${runSelector(plan.runId)},${PROBE_LABELS.component}=probe`;
    const [waited] = await Promise.all([
      expected.length > 0
        ? waitForPods(t, plan.runId, expected, deadline, progress, signal, { namespace: ns, selector })
        : Promise.resolve(null),
      handle.service && !handle.service.refused
        ? waitService(t, ns, handle, deadline, signal)
        : Promise.resolve(),
    ]);
    for (const e of expected) {
      const role = (Object.keys(PREFLIGHT_PODS) as PreflightRole[]).find((r) =>
        PREFLIGHT_PODS[r] === e.name
      )!;
      const ready = waited?.ready.get(e.name);
      if (ready) handle.pods[role] = { state: "ready", name: e.name, node: ready.node, podIP: ready.podIP };
      else {
        const why = waited?.failure ?? (waited?.pending.find((p) => p.startsWith(e.name)) ??
          `not Ready within ${plan.timeoutMs / 1000} s`);
        handle.pods[role] = { state: "failed", name: e.name, reason: why };
      }
    }
    return handle;
  }));
  return { namespace: ns, sides, created };
}

/** Polls the Service until it has an address (LoadBalancer) or the deadline; keeps the last read. */
async function waitService(
  t: ProbeTarget,
  ns: string,
  handle: PreflightSideHandle,
  deadline: number,
  signal: AbortSignal,
): Promise<void> {
  const path = `/api/v1/namespaces/${ns}/services/${PREFLIGHT_SERVICE}`;
  const t0 = Date.now();
  const got = await poll<K8sObject>(async () => {
    const r = await t.writer.get(path, { signal });
    if (!r.ok) return undefined;
    handle.service!.object = r.object;
    return hasAddress(r.object) ? r.object : undefined;
  }, { intervalMs: WAIT_BACKOFF.firstMs, maxIntervalMs: WAIT_BACKOFF.maxMs, deadline, signal });
  if (got.done) handle.service!.object = got.value;
  handle.service!.waitedMs = Date.now() - t0;
}

/** The failure text of pods that never came up (for a probe's `unknown`). */
export function podFailureText(states: readonly PreflightPodState[]): string {
  return states.map((s) =>
    s.state === "rejected"
      ? `pod ${s.name} rejected by ${s.by}: ${s.message}`
      : s.state === "failed"
      ? s.reason
      : ""
  ).filter((x) => x !== "").join("; ");
}
