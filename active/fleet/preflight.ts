/**
 * Pre-flight of a probe run, before anything is created: which permissions the run needs in each
 * cluster ({@link accessNeeds}), one SelfSubjectAccessReview per need, all in parallel, and ONE
 * tool error (exit 3) listing every denial ({@link preflight}); then, once the run namespace exists,
 * every template created with `dryRun=All` so that admission (Pod Security, webhooks, quotas) speaks
 * before a real create ({@link dryRunAll}).
 */
import { ToolError } from "../../errors.ts";
import { type AccessAttributes, type AccessVerdict, collectionPath } from "../../kube/live/write.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { ProbeTarget } from "./target.ts";
import type { ProbeMode, ProbeName, Side } from "../model.ts";

/** Where the docs tell how to grant what a probe run needs. */
export const RBAC_POINTER =
  "grant the ClusterRole in deploy/probe-clusterrole.yaml (docs/active-probes.md, RBAC)";

/** The same pointer for `preflight --probe`. */
export const PREFLIGHT_RBAC_POINTER =
  "grant the ClusterRole in deploy/preflight-probe-clusterrole.yaml (docs/preflight.md, --probe)";

/** What the run will do in one cluster, as far as permissions go. */
export interface AccessNeedsInput {
  /** The cluster's side: `remote` creates pods only in direct mode (offload: Liqo runs them). */
  side: Side;
  mode: ProbeMode;
  probes: readonly ProbeName[];
  /** The run namespace (`flyingfish-probe-<id>`). */
  runNamespace: string;
  /** The tenant namespace of this cluster's gateway pod (mtu and trace exec into it); null: unknown. */
  gatewayNamespace?: string | null;
  /**
   * The run namespace is offloaded (always in offload mode; in direct mode when the service probe
   * runs, active/offload.ts offloadingWanted): the NamespaceOffloading is created, read and deleted.
   */
  offloading?: boolean;
}

const OFFLOADING_GROUP = "offloading.liqo.io";

/**
 * The probes that run in probe pods (matrix, udp, service: between them; trace: sent from them).
 * PROBE-MTU pings from the Liqo gateway pod alone: a run of it needs no namespace, no pod.
 */
export const FLEET_PROBES: ReadonlySet<ProbeName> = new Set(["matrix", "udp", "service", "trace"]);

/** True when one of `probes` needs the run namespace and its probe pods. */
export function usesProbePods(probes: readonly ProbeName[]): boolean {
  return probes.some((p) => FLEET_PROBES.has(p));
}

/**
 * The permissions a run needs in one cluster: create/delete/get of the run namespace; create, get,
 * list, watch, delete of pods and create of pods/exec in it; create of Services (service probe) and
 * create/delete/get of the NamespaceOffloading (offload mode) there; create of pods/exec in the
 * gateway's tenant namespace (mtu, trace); get and list of nodes (placement). A remote cluster in
 * offload mode needs nothing (the run never writes to it). A run of probes that use no probe pod
 * ({@link usesProbePods}: mtu alone) needs only the exec in the gateway's namespace.
 */
export function accessNeeds(input: AccessNeedsInput): AccessAttributes[] {
  const { side, mode, probes, runNamespace: ns } = input;
  if (side === "remote" && mode === "offload") return [];
  const out: AccessAttributes[] = [];
  const add = (verbs: string[], a: Omit<AccessAttributes, "verb">): void => {
    for (const verb of verbs) out.push({ verb, ...a });
  };
  const gw = input.gatewayNamespace;
  const gatewayExec = (): void => {
    if (gw && (probes.includes("mtu") || probes.includes("trace"))) {
      add(["create"], { resource: "pods", subresource: "exec", namespace: gw });
    }
  };
  // Only gateway execs (probe mtu): nothing is created, so nothing else is asked for.
  if (!usesProbePods(probes)) {
    gatewayExec();
    return out;
  }
  add(["create", "delete", "get"], { resource: "namespaces" });
  add(["create", "get", "list", "watch", "delete"], { resource: "pods", namespace: ns });
  add(["create"], { resource: "pods", subresource: "exec", namespace: ns });
  if (side === "local" && probes.includes("service")) {
    add(["create"], { resource: "services", namespace: ns });
  }
  if (side === "local" && (mode === "offload" || input.offloading)) {
    add(["create", "delete", "get"], {
      resource: "namespaceoffloadings",
      group: OFFLOADING_GROUP,
      namespace: ns,
    });
  }
  gatewayExec();
  add(["get", "list"], { resource: "nodes" });
  return out;
}

/** `pods/exec`, `namespaceoffloadings.offloading.liqo.io`, … */
export function resourceName(a: AccessAttributes): string {
  const res = a.group ? `${a.resource}.${a.group}` : a.resource;
  return a.subresource ? `${res}/${a.subresource}` : res;
}

/** `cannot <verb> <resource>[/<sub>] in namespace <ns> (cluster <name>)` (cluster-wide: no namespace part). */
export function denialLine(cluster: string, v: AccessAttributes): string {
  const where = v.namespace ? ` in namespace ${v.namespace}` : "";
  return `cannot ${v.verb} ${resourceName(v)}${where} (cluster ${cluster})`;
}

/** A pre-flight that found missing permissions: the tool error, with the denials for callers. */
export class PreflightError extends ToolError {
  /** Creates the error from every denial, by cluster. */
  constructor(
    readonly denials: readonly { cluster: string; verdict: AccessVerdict }[],
    pointer: string = RBAC_POINTER,
  ) {
    const lines = denials.map((d) => {
      const why = d.verdict.reason ? ` [${d.verdict.reason}]` : "";
      return denialLine(d.cluster, d.verdict) + why;
    });
    super(
      `pre-flight: the probe run lacks permissions (nothing was created): ${lines.join("; ")}; ${pointer}`,
    );
    this.name = "PreflightError";
  }
}

/**
 * Asks every cluster about every need, all at once; throws ONE {@link PreflightError} (exit 3)
 * listing every denial of every cluster, or resolves when all is allowed. A target without needs is
 * not asked. Transport failures (unreachable server, missing Deno permission) throw their own
 * tool error.
 */
export async function preflight(
  targets: readonly ProbeTarget[],
  needs: Partial<Record<Side, readonly AccessAttributes[]>>,
  opts: { signal?: AbortSignal; pointer?: string } = {},
): Promise<void> {
  const answers = await Promise.all(targets.map(async (t) => {
    const asked = needs[t.side] ?? [];
    const verdicts = asked.length > 0 ? await t.writer.accessReview(asked, { signal: opts.signal }) : [];
    return verdicts.filter((v) => !v.allowed).map((verdict) => ({ cluster: t.name, verdict }));
  }));
  const denials = answers.flat();
  if (denials.length > 0) throw new PreflightError(denials, opts.pointer);
}

/** Who said no: the admission plugin or webhook named in a refusal, else the Status reason. */
export function admissionName(reason: string, message: string): string {
  const psa = /violates PodSecurity "([^"]+)"/.exec(message);
  if (psa) return `PodSecurity "${psa[1]}"`;
  const hook = /admission webhook "([^"]+)"/.exec(message);
  if (hook) return `admission webhook "${hook[1]}"`;
  if (/exceeded quota/.test(message)) return "ResourceQuota";
  return reason || "the API server";
}

/** A dry run that admission refused: the tool error, with each rejection for callers. */
export class DryRunError extends ToolError {
  /** Creates the error from every rejection. */
  constructor(
    readonly rejections: readonly {
      cluster: string;
      kind: string;
      name: string;
      by: string;
      message: string;
    }[],
  ) {
    const lines = rejections.map((r) =>
      `${r.kind.toLowerCase()} ${r.name} rejected by ${r.by} (cluster ${r.cluster}): ${r.message}`
    );
    super(`pre-flight dry run (dryRun=All) refused: ${lines.join("; ")}`);
    this.name = "DryRunError";
  }
}

/**
 * Creates each object with `?dryRun=All` (admission runs, nothing is stored), all in parallel, and
 * throws ONE {@link DryRunError} (exit 3) naming every rejection: the object, the admission rule that
 * refused it and the server's message. The run namespace must exist (dry runs are checked in it).
 */
export async function dryRunAll(
  target: ProbeTarget,
  objects: readonly K8sObject[],
  opts: { signal?: AbortSignal } = {},
): Promise<void> {
  const outcomes = await Promise.all(objects.map(async (obj) => ({
    obj,
    res: await target.writer.create(collectionPath(obj), obj, { dryRun: true, signal: opts.signal }),
  })));
  const rejections = outcomes.flatMap(({ obj, res }) =>
    res.ok ? [] : [{
      cluster: target.name,
      kind: obj.kind ?? "object",
      name: obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name,
      by: admissionName(res.reason, res.message),
      message: res.message,
    }]
  );
  if (rejections.length > 0) throw new DryRunError(rejections);
}

/**
 * The permissions a `preflight --probe` run needs in each cluster (both are written to: each may
 * host the echo server and the client): create/delete/get of its namespace; create, get, list,
 * watch, delete of pods and create of pods/exec in it; create, get, delete of Services there (the
 * throwaway UDP Service); get and list of nodes (their addresses for NodePort).
 */
export function preflightAccessNeeds(runNamespace: string): AccessAttributes[] {
  const out: AccessAttributes[] = [];
  const add = (verbs: string[], a: Omit<AccessAttributes, "verb">): void => {
    for (const verb of verbs) out.push({ verb, ...a });
  };
  add(["create", "delete", "get"], { resource: "namespaces" });
  add(["create", "get", "list", "watch", "delete"], { resource: "pods", namespace: runNamespace });
  add(["create"], { resource: "pods", subresource: "exec", namespace: runNamespace });
  add(["create", "get", "delete"], { resource: "services", namespace: runNamespace });
  add(["get", "list"], { resource: "nodes" });
  return out;
}
