/**
 * PROBE-SVC, the judge: a Service in the run namespace selecting every probe pod (local and
 * offloaded) must be listed by the EndpointSlices on both sides (the consumer's own slice; on the
 * provider the reflected Service's native slice for the offloaded pods plus the slice Liqo reflects
 * for the local ones, label `endpointslice.kubernetes.io/managed-by: endpointslice.reflection.liqo.io`,
 * Liqo's `pkg/virtualKubelet/forge/endpointslices.go`), must resolve by DNS from a pod on each side to that side's ClusterIP, and every
 * backend must answer a sweep of requests through it. Pure: measurement in, Outcome out
 * (active/service.ts measures).
 */
import { flyingfish, kubectlIn, type RemediationStep, step, unique } from "../../checks/remediation.ts";
import type { Hop, Outcome } from "../../checks/types.ts";
import type { Side } from "../model.ts";

/** Check ID, title and the data-path hops PROBE-SVC speaks for. */
export const PROBE_SVC = {
  id: "PROBE-SVC",
  title: "Reflected Service reaches every backend",
  hops: ["local-pod", "gateway", "wireguard", "remote-pod"] as readonly Hop[],
} as const;

/** Label value Liqo puts on the EndpointSlices it reflects (`pkg/virtualKubelet/forge/endpointslices.go`). */
export const REFLECTED_SLICE_MANAGER = "endpointslice.reflection.liqo.io";

/** One probe pod the Service should reach. */
export interface ServiceBackend {
  /** Pod name (offloaded pods keep their name on the provider; netexec /hostname answers it). */
  pod: string;
  /** The pod network it sits in (offloaded pods: `remote`). */
  side: Side;
  /** Node (offloaded pods: the virtual node, or the remote node when known). */
  node: string;
  /** Pod IP as the consumer sees it (offloaded pods: already remapped). */
  address: string;
}

/** One endpoint of an EndpointSlice, as read. */
export interface SliceEndpointSeen {
  /** `targetRef.name` (Liqo keeps the pod name in reflected slices, kind RemotePod). */
  pod: string | null;
  addresses: string[];
  /** `conditions.ready` (absent counts as ready, as in Kubernetes). */
  ready: boolean;
}

/** One EndpointSlice of the Service on one side. */
export interface SliceSeen {
  name: string;
  /** Reflected by Liqo (managed-by endpointslice.reflection.liqo.io). */
  reflected: boolean;
  endpoints: SliceEndpointSeen[];
}

/** What one side's API shows for the Service and its slices, after the bounded wait. */
export interface SliceSideMeasurement {
  side: Side;
  /** Display name of the cluster read. */
  cluster: string;
  namespace: string;
  /** The Service on this side (reflected on the provider); null when it does not exist. */
  service: { name: string; clusterIP: string | null } | null;
  slices: SliceSeen[];
  /**
   * Backends this side's slices must list; `address` null when only membership is judged (the
   * provider's addresses of offloaded pods are not known from the consumer).
   */
  expected: { pod: string; address: string | null; reflected: boolean }[];
  /** A read failure, or why the wait ended without everything listed (e.g. "timed out after 20 s"). */
  error: string | null;
}

/** DNS from one pod. */
export interface DnsMeasurement {
  /** The side whose DNS answered (offloaded pods: `remote`). */
  side: Side;
  fromPod: string;
  /** The name looked up (`<svc>.<ns>.svc.cluster.local` in that pod's own namespace). */
  name: string;
  addresses: string[];
  /** The ClusterIP of the Service on that side, when known. */
  expected: string | null;
  /** Why the lookup failed (exec failure, exit code, stderr); null when it resolved. */
  error: string | null;
}

/** The backend sweep from one pod. */
export interface SweepMeasurement {
  side: Side;
  fromPod: string;
  /** Host dialled (ClusterIP or name). */
  target: string;
  /** Pod names that must answer. */
  expected: string[];
  /** Answers per pod name (names not expected are recorded too). */
  answered: Record<string, number>;
  /** Requests sent. */
  requests: number;
  /** The bound: backends × 10. */
  bound: number;
  /** Failed requests, e.g. "ERR 28" (curl exit codes). */
  errors: number;
  /** Why the sweep stopped. */
  stop: "all-answered" | "bound" | "timeout" | "exec-failed" | "aborted";
  /** For exec-failed/timeout: what happened. */
  detail: string;
}

/** Everything PROBE-SVC measured. */
export interface ServiceMeasurement {
  service: string;
  /** The run namespace on the consumer. */
  namespace: string;
  /** The offloaded namespace on the provider (NamespaceOffloading status.remoteNamespaceName). */
  remoteNamespace: string | null;
  /** Consumer cluster name. */
  cluster: string;
  peer: string;
  backends: ServiceBackend[];
  slices: SliceSideMeasurement[];
  dns: DnsMeasurement[];
  sweeps: SweepMeasurement[];
  /** Context lines (e.g. the provider side not inspected without --remote-kubeconfig). */
  notes: string[];
}

const sideName = (side: Side): string => side === "local" ? "consumer" : "provider";

function judgeSlices(
  m: ServiceMeasurement,
  s: SliceSideMeasurement,
  problems: string[],
  fixes: RemediationStep[],
) {
  const where = `${s.cluster} (${sideName(s.side)}, namespace ${s.namespace})`;
  if (!s.service) {
    problems.push(
      s.side === "remote"
        ? `reflected Service ${m.service} missing in ${where}${s.error ? `: ${s.error}` : ""}`
        : `Service ${m.service} missing in ${where}${s.error ? `: ${s.error}` : ""}`,
    );
    if (s.side === "remote") {
      fixes.push(
        step(
          kubectlIn("local", m.namespace, "get", "namespaceoffloading", "offloading", "-o", "yaml"),
          "is the namespace offloaded?",
        ),
        step(
          kubectlIn("local", `liqo-tenant-${m.peer}`, "logs", `deploy/vk-${m.peer}`),
          "the virtual kubelet reflects Services",
        ),
      );
    }
    return;
  }
  const seen = new Map<string, { slice: SliceSeen; ep: SliceEndpointSeen }>();
  for (const slice of s.slices) {
    for (const ep of slice.endpoints) if (ep.pod) seen.set(ep.pod, { slice, ep });
  }
  const missing = s.expected.filter((e) => !seen.has(e.pod));
  const reflectedMissing = missing.filter((e) => e.reflected);
  if (reflectedMissing.length && !s.slices.some((sl) => sl.reflected)) {
    problems.push(
      `reflected EndpointSlice of ${m.service} (managed-by ${REFLECTED_SLICE_MANAGER}) missing in ${where}: ${
        reflectedMissing.map((e) => e.pod).join(", ")
      } not listed${s.error ? ` (${s.error})` : ""}`,
    );
    fixes.push(
      step(
        kubectlIn(
          "remote",
          s.namespace,
          ...["get", "shadowendpointslices,endpointslices", "-l", `kubernetes.io/service-name=${m.service}`],
        ),
      ),
      step(
        kubectlIn("local", `liqo-tenant-${m.peer}`, "logs", `deploy/vk-${m.peer}`),
        "the virtual kubelet reflects EndpointSlices",
      ),
    );
  }
  for (
    const e of missing.filter((x) => !(reflectedMissing.includes(x) && !s.slices.some((sl) => sl.reflected)))
  ) {
    problems.push(
      `EndpointSlices of ${m.service} in ${where} do not list backend ${e.pod}${
        s.error ? ` (${s.error})` : ""
      }`,
    );
  }
  for (const e of s.expected) {
    const hit = seen.get(e.pod);
    if (!hit) continue;
    if (!hit.ep.ready) {
      problems.push(
        `EndpointSlice ${hit.slice.name} in ${where} lists backend ${e.pod} not ready${
          hit.slice.reflected
            ? " (Liqo forces ready=false while the peering's network is not Established)"
            : ""
        }`,
      );
    }
    if (e.address !== null && !hit.ep.addresses.includes(e.address)) {
      problems.push(
        `EndpointSlice ${hit.slice.name} in ${where} lists backend ${e.pod} at ${
          hit.ep.addresses.join(", ") || "no address"
        }, expected ${e.address}`,
      );
    }
  }
  if (missing.length) {
    fixes.push(
      step(
        kubectlIn(
          s.side,
          s.namespace,
          "get",
          "endpointslices",
          "-l",
          `kubernetes.io/service-name=${m.service}`,
          "-o",
          "yaml",
        ),
      ),
    );
  }
}

function judgeDns(m: ServiceMeasurement, d: DnsMeasurement, problems: string[], fixes: RemediationStep[]) {
  const who = `${d.fromPod} (${sideName(d.side)})`;
  if (d.error !== null) {
    problems.push(`DNS on the ${sideName(d.side)} side: ${d.name} does not resolve from ${who}: ${d.error}`);
    fixes.push(
      step(
        kubectlIn(d.side, "kube-system", "get", "pods", "-l", "k8s-app=kube-dns"),
        `the ${sideName(d.side)}'s cluster DNS`,
      ),
    );
    if (d.side === "remote") {
      fixes.push(step(kubectlIn("remote", m.remoteNamespace ?? "<remote ns>", "get", "svc,endpointslices")));
    }
    return;
  }
  if (d.expected !== null && !d.addresses.includes(d.expected)) {
    problems.push(
      `DNS on the ${sideName(d.side)} side: ${d.name} resolves to ${
        d.addresses.join(", ")
      } from ${who}, but the Service's ClusterIP there is ${d.expected}`,
    );
  }
}

function judgeSweep(
  m: ServiceMeasurement,
  w: SweepMeasurement,
  problems: string[],
  fixes: RemediationStep[],
) {
  const silent = w.expected.filter((p) => !w.answered[p]);
  const from = `${w.fromPod} (${sideName(w.side)})`;
  if ((w.stop === "exec-failed" || w.stop === "aborted") && w.requests === 0) {
    problems.push(`backend sweep from ${from} to ${w.target} did not run: ${w.detail}`);
    return;
  }
  const ended = w.stop === "timeout"
    ? ` before its share of the probe timeout ran out (${w.detail})`
    : w.stop === "bound"
    ? ` (bound ${w.bound})`
    : ` (sweep ended: ${w.detail})`;
  for (const pod of silent) {
    const b = m.backends.find((x) => x.pod === pod);
    problems.push(
      `backend ${pod}${
        b ? ` (${sideName(b.side)}, node ${b.node}, ${b.address})` : ""
      } never answered: ${w.requests} ` +
        `request(s) from ${from} to ${w.target}${ended}${w.errors ? `, ${w.errors} failed` : ""}`,
    );
    if (b) {
      fixes.push(
        b.side === "local" ? step(kubectlIn("local", m.namespace, "get", "pod", pod, "-o", "wide")) : step(
          kubectlIn("local", m.namespace, "describe", "pod", pod),
          "offloaded: the virtual kubelet's events",
        ),
      );
    }
  }
  if (silent.length) {
    fixes.push(step(flyingfish("probe", "matrix"), "test each pod pair's path through the tunnel"));
  }
}

/** Judges PROBE-SVC: fail naming each backend that never answered, each slice missing, each side whose DNS failed. */
export function judgeService(m: ServiceMeasurement): Outcome {
  const problems: string[] = [];
  const fixes: RemediationStep[] = [];
  for (const s of m.slices) judgeSlices(m, s, problems, fixes);
  for (const d of m.dns) judgeDns(m, d, problems, fixes);
  for (const w of m.sweeps) judgeSweep(m, w, problems, fixes);

  const local = m.backends.filter((b) => b.side === "local").length;
  const remote = m.backends.length - local;
  const evidence = [
    `Service ${m.namespace}/${m.service} selects ${m.backends.length} probe pod(s): ${local} local, ${remote} offloaded to ${m.peer}` +
    (m.remoteNamespace ? ` (provider namespace ${m.remoteNamespace})` : ""),
    ...m.slices.map((s) =>
      `${s.cluster} (${sideName(s.side)}): Service ${
        s.service ? `ClusterIP ${s.service.clusterIP ?? "none"}` : "absent"
      }, ${
        s.slices.map((sl) =>
          `${sl.name}${sl.reflected ? " [reflected]" : ""} ${sl.endpoints.length} endpoint(s)`
        )
          .join("; ") || "no EndpointSlices"
      }`
    ),
    ...m.dns.map((d) =>
      `DNS from ${d.fromPod} (${sideName(d.side)}): ${d.name} → ${
        d.error ?? (d.addresses.join(", ") || "nothing")
      }${d.expected ? ` (ClusterIP ${d.expected})` : ""}`
    ),
    ...m.sweeps.map((w) =>
      `sweep from ${w.fromPod} (${sideName(w.side)}) to ${w.target}: ${w.requests} request(s), ${
        w.expected.filter((p) => w.answered[p]).length
      }/${w.expected.length} backends answered${w.errors ? `, ${w.errors} failed` : ""} (${w.stop})`
    ),
    ...m.notes,
  ];
  if (problems.length === 0) {
    return {
      status: "pass",
      summary: `Service ${m.service}: ${m.backends.length} backend(s) listed on ${
        m.slices.length === 2 ? "both sides" : `the ${m.slices.map((s) => sideName(s.side)).join("")} side`
      }, DNS resolves from ${m.dns.map((d) => sideName(d.side)).join(" and ")}, every backend answered (${
        m.sweeps.map((w) => w.requests).join(" + ")
      } requests)`,
      evidence,
    };
  }
  return {
    status: "fail",
    summary: problems.length === 1 ? problems[0] : `${problems[0]} (+${problems.length - 1} more)`,
    evidence: [...evidence, ...problems],
    remediation: unique(fixes),
  };
}
