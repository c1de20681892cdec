/**
 * What stands between a write and the fake cluster's store, in the API server's order:
 * authorization (the permission table behind SelfSubjectAccessReviews and 403s), defaulting and
 * mutating admission (API defaults, Liqo's pod webhook in offloaded namespaces), validation (422
 * Invalid) and Pod Security admission (403 with the real `violates PodSecurity "restricted:latest":
 * …` message). Pure functions over plain objects; writes.ts applies them.
 */
import { field, type K8sObject } from "./object.ts";

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];

// ---------------------------------------------------------------------------------------------
// Authorization

/** One access request, as in a SelfSubjectAccessReview's `spec.resourceAttributes`. */
export interface AccessRequest {
  verb: string;
  resource: string;
  group?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The verdict on an {@link AccessRequest}. */
export interface AccessDecision {
  allowed: boolean;
  /** Why not (empty when allowed). */
  reason: string;
}

/**
 * Who may do what: everything, except the scenario's `forbid` list (resource plurals,
 * "plural.group", "pods/exec", "pods/log": every verb refused) and its `lifecycle.deny` table
 * ("verb resource[/sub]", resource as plural or plural.group, verb "*" for all).
 */
export class PermissionTable {
  readonly #forbid: ReadonlySet<string>;
  readonly #deny: { verb: string; resource: string }[];

  /** A table from the two scenario lists. */
  constructor(forbid: readonly string[], deny: readonly string[]) {
    this.#forbid = new Set(forbid);
    this.#deny = deny.map((d) => {
      const [verb, resource] = d.trim().split(/\s+/);
      return { verb, resource };
    });
  }

  /** The decision on one request. */
  decide(a: AccessRequest): AccessDecision {
    const group = a.group ?? "";
    const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const names = group === ""
      ? [res]
      : [res, `${a.resource}.${group}${a.subresource ? `/${a.subresource}` : ""}`];
    if (names.some((n) => this.#forbid.has(n))) {
      return { allowed: false, reason: `no RBAC rule grants any verb on "${names[names.length - 1]}"` };
    }
    const rule = this.#deny.find((d) => (d.verb === "*" || d.verb === a.verb) && names.includes(d.resource));
    if (rule) {
      const where = a.namespace ? ` in namespace "${a.namespace}"` : " at the cluster scope";
      return { allowed: false, reason: `no RBAC rule allows "${a.verb}" on "${rule.resource}"${where}` };
    }
    return { allowed: true, reason: "" };
  }

  /** True when the request is allowed. */
  allows(a: AccessRequest): boolean {
    return this.decide(a).allowed;
  }
}

// ---------------------------------------------------------------------------------------------
// Pod Security admission

/** A Pod Security Standards level. */
export type PodSecurityLevel = "privileged" | "baseline" | "restricted";

/** The level (and version) a namespace enforces: its labels, else the cluster default. */
export function enforcedLevel(
  namespace: K8sObject | undefined,
  clusterDefault: PodSecurityLevel,
): { level: PodSecurityLevel; version: string } {
  const labels = namespace?.metadata.labels ?? {};
  const raw = labels["pod-security.kubernetes.io/enforce"];
  const level: PodSecurityLevel = raw === "privileged" || raw === "baseline" || raw === "restricted"
    ? raw
    : clusterDefault;
  return { level, version: labels["pod-security.kubernetes.io/enforce-version"] ?? "latest" };
}

/** Sysctls the baseline level allows (pod-security-admission, up to v1.31). */
export const SAFE_SYSCTLS: readonly string[] = [
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
];

const BASELINE_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

const RESTRICTED_VOLUME_TYPES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

/** The checks only the restricted level has (the rest are baseline checks). */
const RESTRICTED_CHECKS = new Set([
  "allowPrivilegeEscalation",
  "capabilities_restricted",
  "restrictedVolumes",
  "runAsNonRoot",
  "runAsUser",
  "seccompProfile_restricted",
]);

const quoted = (xs: readonly string[]): string => xs.map((x) => `"${x}"`).join(", ");
const containersPhrase = (names: readonly string[]): string =>
  `${names.length === 1 ? "container" : "containers"} ${quoted(names)}`;

interface Container {
  name: string;
  sc: Record<string, unknown>;
  ports: Record<string, unknown>[];
}

function allContainers(spec: Record<string, unknown>): Container[] {
  return [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)].map(rec)
    .map((c) => ({ name: String(c.name ?? ""), sc: rec(c.securityContext), ports: arr(c.ports).map(rec) }));
}

/**
 * The Pod Security violations of `pod` at `level`, formatted and ordered like pod-security-admission
 * (baseline checks, then restricted ones, each by check ID): e.g. `allowPrivilegeEscalation != false (container "probe" must set
 * securityContext.allowPrivilegeEscalation=false)`. Empty when the pod passes.
 */
export function podSecurityViolations(pod: K8sObject, level: PodSecurityLevel): string[] {
  if (level === "privileged") return [];
  const restricted = level === "restricted";
  const spec = rec(pod.spec);
  const podSc = rec(spec.securityContext);
  const containers = allContainers(spec);
  const out: [id: string, text: string][] = [];

  // allowPrivilegeEscalation (restricted)
  if (restricted) {
    const bad = containers.filter((c) => c.sc.allowPrivilegeEscalation !== false).map((c) => c.name);
    if (bad.length) {
      out.push([
        "allowPrivilegeEscalation",
        `allowPrivilegeEscalation != false (${
          containersPhrase(bad)
        } must set securityContext.allowPrivilegeEscalation=false)`,
      ]);
    }
  }

  // capabilities: baseline (non-default adds) or restricted (drop ALL, add only NET_BIND_SERVICE)
  if (restricted) {
    const noDrop = containers.filter((c) => !arr(rec(c.sc.capabilities).drop).map(String).includes("ALL"))
      .map((c) => c.name);
    const parts: string[] = [];
    if (noDrop.length) {
      parts.push(`${containersPhrase(noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
    }
    for (const c of containers) {
      const add = arr(rec(c.sc.capabilities).add).map(String).filter((x) => x !== "NET_BIND_SERVICE");
      if (add.length) {
        parts.push(
          `container "${c.name}" must not include ${quoted(add)} in securityContext.capabilities.add`,
        );
      }
    }
    if (parts.length) {
      out.push(["capabilities_restricted", `unrestricted capabilities (${parts.join("; ")})`]);
    }
  } else {
    const parts: string[] = [];
    for (const c of containers) {
      const add = arr(rec(c.sc.capabilities).add).map(String).filter((x) => !BASELINE_CAPABILITIES.has(x));
      if (add.length) {
        parts.push(
          `container "${c.name}" must not include ${quoted(add)} in securityContext.capabilities.add`,
        );
      }
    }
    if (parts.length) out.push(["capabilities_baseline", `non-default capabilities (${parts.join("; ")})`]);
  }

  // hostNamespaces
  const hostNs = ["hostNetwork", "hostPID", "hostIPC"].filter((k) => spec[k] === true).map((k) =>
    `${k}=true`
  );
  if (hostNs.length) out.push(["hostNamespaces", `host namespaces (${hostNs.join(", ")})`]);

  // hostPathVolumes (baseline; restricted reports them again as restricted volume types)
  const volumes = arr(spec.volumes).map(rec);
  {
    const hp = volumes.filter((v) => v.hostPath !== undefined).map((v) => String(v.name));
    if (hp.length) {
      out.push([
        "hostPathVolumes",
        `hostPath volumes (${hp.length === 1 ? "volume" : "volumes"} ${quoted(hp)})`,
      ]);
    }
  }

  // hostPorts
  const hostPorts: string[] = [];
  for (const c of containers) {
    const ports = c.ports.map((p) => p.hostPort).filter((p) => typeof p === "number" && p !== 0).map(String);
    if (ports.length) {
      hostPorts.push(
        `container "${c.name}" uses ${ports.length === 1 ? "hostPort" : "hostPorts"} ${ports.join(", ")}`,
      );
    }
  }
  if (hostPorts.length) {
    out.push(["hostPorts", `${hostPorts.length === 1 ? "hostPort" : "hostPorts"} (${hostPorts.join("; ")})`]);
  }

  // privileged
  const priv = containers.filter((c) => c.sc.privileged === true).map((c) => c.name);
  if (priv.length) {
    out.push([
      "privileged",
      `privileged (${containersPhrase(priv)} must not set securityContext.privileged=true)`,
    ]);
  }

  // restrictedVolumes
  if (restricted) {
    const bad: [string, string][] = [];
    for (const v of volumes) {
      const type = Object.keys(v).find((k) => k !== "name");
      if (type !== undefined && !RESTRICTED_VOLUME_TYPES.has(type)) bad.push([String(v.name), type]);
    }
    if (bad.length) {
      const names = bad.map(([n]) => n);
      const types = [...new Set(bad.map(([, t]) => t))];
      out.push([
        "restrictedVolumes",
        `restricted volume types (${bad.length === 1 ? "volume" : "volumes"} ${quoted(names)} ${
          bad.length === 1 ? "uses" : "use"
        } ${types.length === 1 ? "restricted volume type" : "restricted volume types"} ${quoted(types)})`,
      ]);
    }
  }

  // runAsNonRoot (restricted)
  if (restricted) {
    const parts: string[] = [];
    if (podSc.runAsNonRoot === false) parts.push("pod must not set securityContext.runAsNonRoot=false");
    const explicitFalse = containers.filter((c) => c.sc.runAsNonRoot === false).map((c) => c.name);
    if (explicitFalse.length) {
      parts.push(`${containersPhrase(explicitFalse)} must not set securityContext.runAsNonRoot=false`);
    }
    if (podSc.runAsNonRoot !== true) {
      const unset = containers.filter((c) => c.sc.runAsNonRoot === undefined).map((c) => c.name);
      if (unset.length) {
        parts.push(
          `pod or ${unset.length === 1 ? "container" : "containers"} ${
            quoted(unset)
          } must set securityContext.runAsNonRoot=true`,
        );
      }
    }
    if (parts.length) out.push(["runAsNonRoot", `runAsNonRoot != true (${parts.join("; ")})`]);
  }

  // runAsUser (restricted)
  if (restricted) {
    const parts: string[] = [];
    if (podSc.runAsUser === 0) parts.push("pod must not set runAsUser=0");
    const zero = containers.filter((c) => c.sc.runAsUser === 0).map((c) => c.name);
    if (zero.length) parts.push(`${containersPhrase(zero)} must not set runAsUser=0`);
    if (parts.length) out.push(["runAsUser", `runAsUser=0 (${parts.join("; ")})`]);
  }

  // seccompProfile: baseline forbids Unconfined; restricted requires RuntimeDefault or Localhost
  {
    const ok = (t: unknown): boolean => t === "RuntimeDefault" || t === "Localhost";
    const podType = rec(podSc.seccompProfile).type;
    const parts: string[] = [];
    if (restricted) {
      if (podType !== undefined && !ok(podType)) {
        parts.push(`pod must not set securityContext.seccompProfile.type to "${podType}"`);
      }
      const badExplicit = containers.filter((c) => {
        const t = rec(c.sc.seccompProfile).type;
        return t !== undefined && !ok(t);
      });
      for (const c of badExplicit) {
        parts.push(
          `container "${c.name}" must not set securityContext.seccompProfile.type to "${
            rec(c.sc.seccompProfile).type
          }"`,
        );
      }
      if (!ok(podType)) {
        const unset = containers.filter((c) => rec(c.sc.seccompProfile).type === undefined).map((c) =>
          c.name
        );
        if (unset.length) {
          parts.push(
            `pod or ${unset.length === 1 ? "container" : "containers"} ${
              quoted(unset)
            } must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
          );
        }
      }
      if (parts.length) out.push(["seccompProfile_restricted", `seccompProfile (${parts.join("; ")})`]);
    } else {
      if (podType === "Unconfined") {
        parts.push('pod must not set securityContext.seccompProfile.type to "Unconfined"');
      }
      const bad = containers.filter((c) => rec(c.sc.seccompProfile).type === "Unconfined").map((c) => c.name);
      if (bad.length) {
        parts.push(
          `${containersPhrase(bad)} must not set securityContext.seccompProfile.type to "Unconfined"`,
        );
      }
      if (parts.length) out.push(["seccompProfile_baseline", `seccompProfile (${parts.join("; ")})`]);
    }
  }

  // sysctls
  const sysctls = arr(podSc.sysctls).map((s) => String(rec(s).name)).filter((n) => !SAFE_SYSCTLS.includes(n));
  if (sysctls.length) out.push(["sysctls", `forbidden sysctls (${sysctls.join(", ")})`]);

  // Baseline checks first, then the restricted ones, each by check ID (pod-security-admission's order).
  const rank = (id: string): string => `${RESTRICTED_CHECKS.has(id) ? 1 : 0}${id}`;
  return out.sort(([a], [b]) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0)).map(([, t]) => t);
}

/** The 403 message pod-security-admission writes. */
export function podSecurityMessage(
  podName: string,
  level: PodSecurityLevel,
  version: string,
  violations: readonly string[],
): string {
  return `pods "${podName}" is forbidden: violates PodSecurity "${level}:${version}": ${
    violations.join(", ")
  }`;
}

// ---------------------------------------------------------------------------------------------
// Defaulting and mutating admission

/** The toleration Liqo's pod webhook adds in offloaded namespaces (virtual nodes' NoExecute taint). */
export const VIRTUAL_NODE_TOLERATION = {
  key: "virtual-node.liqo.io/not-allowed",
  operator: "Exists",
  effect: "NoExecute",
} as const;

const imagePullPolicy = (image: string): string => {
  if (image.includes("@")) return "IfNotPresent";
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  const tag = colon > slash ? image.slice(colon + 1) : "latest";
  return tag === "latest" ? "Always" : "IfNotPresent";
};

function qosClass(containers: Record<string, unknown>[]): string {
  let anyRequest = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const r = rec(c.resources);
    const req = rec(r.requests);
    const lim = rec(r.limits);
    if (Object.keys(req).length || Object.keys(lim).length) anyRequest = true;
    for (const k of ["cpu", "memory"]) {
      if (lim[k] === undefined || (req[k] !== undefined && String(req[k]) !== String(lim[k]))) {
        guaranteed = false;
      }
    }
  }
  return guaranteed ? "Guaranteed" : anyRequest ? "Burstable" : "BestEffort";
}

/**
 * A pod as the API server stores it: API defaults, DefaultTolerationSeconds, and, in a namespace
 * labelled `liqo.io/scheduling-enabled=true` (offloaded), Liqo's webhook toleration for virtual
 * nodes plus the placement its `podOffloadingStrategy` imposes (Remote: virtual nodes only; Local:
 * no virtual node).
 */
export function defaultPod(
  pod: K8sObject,
  namespace: K8sObject | undefined,
  offloadingStrategy?: string,
): K8sObject {
  const spec = { ...rec(pod.spec) };
  const containers = arr(spec.containers).map((c) => {
    const x = { ...rec(c) };
    const image = String(x.image ?? "");
    x.imagePullPolicy ??= imagePullPolicy(image);
    x.terminationMessagePath ??= "/dev/termination-log";
    x.terminationMessagePolicy ??= "File";
    x.resources ??= {};
    if (Array.isArray(x.ports)) x.ports = x.ports.map((p) => ({ protocol: "TCP", ...rec(p) }));
    return x;
  });
  spec.containers = containers;
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.schedulerName ??= "default-scheduler";
  spec.securityContext ??= {};
  spec.serviceAccountName ??= "default";
  spec.serviceAccount ??= spec.serviceAccountName;
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= "PreemptLowerPriority";
  const tolerations = arr(spec.tolerations).map(rec);
  const offloaded = namespace?.metadata.labels?.["liqo.io/scheduling-enabled"] === "true";
  if (offloaded && !tolerations.some((t) => t.key === VIRTUAL_NODE_TOLERATION.key)) {
    tolerations.push({ ...VIRTUAL_NODE_TOLERATION });
  }
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
    if (!tolerations.some((t) => t.key === key && (t.effect === "NoExecute" || t.effect === undefined))) {
      tolerations.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
    }
  }
  spec.tolerations = tolerations;
  if (offloaded && (offloadingStrategy === "Remote" || offloadingStrategy === "Local")) {
    const expr = {
      key: "liqo.io/type",
      operator: offloadingStrategy === "Remote" ? "In" : "NotIn",
      values: ["virtual-node"],
    };
    const affinity = rec(spec.affinity);
    const nodeAffinity = rec(affinity.nodeAffinity);
    const required = rec(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution);
    const terms = arr(required.nodeSelectorTerms).map(rec);
    const merged = (terms.length ? terms : [{}]).map((t) => ({
      ...t,
      matchExpressions: [...arr(t.matchExpressions), expr],
    }));
    spec.affinity = {
      ...affinity,
      nodeAffinity: {
        ...nodeAffinity,
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: merged },
      },
    };
  }
  return {
    ...pod,
    spec,
    status: { phase: "Pending", qosClass: qosClass(containers) },
  };
}

/** A namespace as stored: the name label, the `kubernetes` finalizer, phase Active. */
export function defaultNamespace(ns: K8sObject): K8sObject {
  return {
    ...ns,
    metadata: {
      ...ns.metadata,
      labels: { ...ns.metadata.labels, "kubernetes.io/metadata.name": ns.metadata.name },
    },
    spec: { finalizers: ["kubernetes"], ...rec(ns.spec) },
    status: { phase: "Active" },
  };
}

/** A Service as stored: type, IP families, ports defaulted; ClusterIP from `allocate()` unless headless. */
export function defaultService(svc: K8sObject, allocate: () => string | null): K8sObject {
  const spec = { ...rec(svc.spec) };
  spec.type ??= "ClusterIP";
  spec.sessionAffinity ??= "None";
  spec.internalTrafficPolicy ??= "Cluster";
  spec.ipFamilies ??= ["IPv4"];
  spec.ipFamilyPolicy ??= "SingleStack";
  spec.ports = arr(spec.ports).map((p) => {
    const x = rec(p);
    return { protocol: "TCP", ...x, targetPort: x.targetPort ?? x.port };
  });
  if (spec.clusterIP === undefined || spec.clusterIP === "") {
    const ip = allocate();
    if (ip !== null) spec.clusterIP = ip;
  }
  if (spec.clusterIP !== undefined) spec.clusterIPs ??= [spec.clusterIP];
  return { ...svc, spec, status: { loadBalancer: {} } };
}

/** A NamespaceOffloading as stored: Liqo's CRD defaults. */
export function defaultNamespaceOffloading(o: K8sObject): K8sObject {
  return {
    ...o,
    spec: {
      namespaceMappingStrategy: "DefaultName",
      podOffloadingStrategy: "LocalAndRemote",
      ...rec(o.spec),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Validation

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Field errors of an object about to be created (`field: Required value`, …); empty when valid. */
export function validate(kind: string, o: K8sObject): string[] {
  const errs: string[] = [];
  const name = o.metadata.name;
  const labelName = kind === "Namespace" || kind === "Service";
  if (
    labelName
      ? !DNS1123_LABEL.test(name) || name.length > 63
      : !DNS1123_SUBDOMAIN.test(name) || name.length > 253
  ) {
    errs.push(
      `metadata.name: Invalid value: "${name}": a lowercase RFC 1123 ${
        labelName ? "label" : "subdomain"
      } must consist ` +
        `of lower case alphanumeric characters, '-'${
          labelName ? "" : " or '.'"
        }, and must start and end with an ` +
        `alphanumeric character`,
    );
  }
  if (kind === "Pod") {
    const containers = arr(field(o.spec, "containers"));
    if (containers.length === 0) errs.push("spec.containers: Required value");
    containers.map(rec).forEach((c, i) => {
      if (!c.name) errs.push(`spec.containers[${i}].name: Required value`);
      if (!c.image) errs.push(`spec.containers[${i}].image: Required value`);
    });
  }
  if (kind === "Service") {
    const ports = arr(field(o.spec, "ports"));
    const type = field(o.spec, "type") ?? "ClusterIP";
    if (ports.length === 0 && type !== "ExternalName" && field(o.spec, "clusterIP") !== "None") {
      errs.push("spec.ports: Required value");
    }
  }
  return errs;
}

/** The 422 message for field errors: `Pod "x" is invalid: a` or `… is invalid: [a, b]`. */
export function invalidMessage(kind: string, name: string, errs: readonly string[]): string {
  return `${kind} "${name}" is invalid: ${errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`}`;
}
