/**
 * Writes to the fake API server: POST (create, with `?dryRun=All`), DELETE (objects, and
 * namespaces through Terminating), and SelfSubjectAccessReviews — with kube-apiserver's order of
 * authorization → defaulting/mutation → validation → Pod Security → storage, and its Status
 * bodies (403 Forbidden, 404 NotFound, 409 AlreadyExists/Conflict, 422 Invalid).
 *
 * {@link ClusterStore} is the one way state changes after start-up: every commit goes through the
 * WatchHub (new resourceVersion, ADDED/MODIFIED/DELETED on the open watches), so lists, gets and
 * watches see created objects exactly like the base ones.
 */
import { allocateNodePorts, policyRefusal } from "./policy.ts";
import { field, type K8sObject } from "./object.ts";
import type { WatchHub } from "./watch.ts";
import {
  defaultNamespace,
  defaultNamespaceOffloading,
  defaultPod,
  defaultService,
  enforcedLevel,
  invalidMessage,
  type PermissionTable,
  podSecurityMessage,
  podSecurityViolations,
  validate,
} from "./admission.ts";
import { nextFree, nowStamp } from "./alloc.ts";
import { resourcePath } from "./paths.ts";
import { forbiddenResponse, json, notFoundResource, statusResponse } from "./status.ts";
import type { Lifecycle } from "./lifecycle_schema.ts";

/** What the write path tells the lifecycle controller (lifecycle.ts `LifecycleController`). */
export interface LifecycleHooks {
  created(key: string, obj: K8sObject): void;
  deleted(key: string, obj: K8sObject): void;
  finalizing(key: string, obj: K8sObject): void;
  namespaceTerminating(name: string): void;
}

/** A served resource and its objects (the server's own record, shared by reference). */
export interface StoredResource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  builtin: boolean;
  objects: K8sObject[];
}

/** One object left in a namespace being purged, with its resource (`plural` or `plural.group`). */
export interface RemainingObject {
  resource: string;
  object: K8sObject;
}

function compareObjects(a: K8sObject, b: K8sObject): number {
  const ka = `${a.metadata.namespace ?? ""}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace ?? ""}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};

/**
 * The mutable state of one fake cluster over the server's resource map. Resource references are
 * the server's keys (`group/version/plural`, core: `/v1/pods`) or `group/plural` (any version).
 */
export class ClusterStore {
  readonly #resources: Map<string, StoredResource>;
  readonly #hub: WatchHub;
  readonly #onChange: () => void;

  /** A store over `resources` (mutated in place), publishing through `hub`; `onChange` after each commit. */
  constructor(resources: Map<string, StoredResource>, hub: WatchHub, onChange: () => void) {
    this.#resources = resources;
    this.#hub = hub;
    this.#onChange = onChange;
  }

  /** The server key of a reference, or null when the resource is not served. */
  resolve(ref: string): string | null {
    if (this.#resources.has(ref)) return ref;
    const parts = ref.split("/");
    if (parts.length !== 2) return null;
    for (const [k, r] of this.#resources) if (r.group === parts[0] && r.plural === parts[1]) return k;
    return null;
  }

  /** True when the resource is served. */
  has(ref: string): boolean {
    return this.resolve(ref) !== null;
  }

  /** The served resource behind a reference. */
  resource(ref: string): StoredResource | undefined {
    const k = this.resolve(ref);
    return k === null ? undefined : this.#resources.get(k);
  }

  /** The objects of a resource (empty when not served). */
  list(ref: string): readonly K8sObject[] {
    return this.resource(ref)?.objects ?? [];
  }

  /** One object, or undefined. */
  get(ref: string, ns: string | undefined, name: string): K8sObject | undefined {
    return this.list(ref).find((o) => o.metadata.name === name && o.metadata.namespace === ns);
  }

  /** Every object served now, with apiVersion/kind (deep copies). */
  objects(): K8sObject[] {
    const out: K8sObject[] = [];
    for (const r of this.#resources.values()) {
      const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
      for (const o of r.objects) out.push(structuredClone({ ...o, apiVersion, kind: r.kind }));
    }
    return out;
  }

  /** The cluster ID in `liqo-clusterid-configmap` (any namespace), or null. */
  localClusterId(): string | null {
    const cm = this.list("/v1/configmaps").find((c) => c.metadata.name === "liqo-clusterid-configmap");
    const id = field(cm?.data, "CLUSTER_ID");
    return typeof id === "string" && id !== "" ? id : null;
  }

  /** Replaces a resource's objects in one commit; returns the stored (rv-stamped) objects. */
  #commit(key: string, next: K8sObject[]): K8sObject[] {
    const before = this.#resources.get(key)!;
    const after: StoredResource = { ...before, objects: next.sort(compareObjects) };
    this.#hub.replace(new Map([[key, before]]), new Map([[key, after]]));
    this.#resources.set(key, after);
    this.#onChange();
    return after.objects;
  }

  /** Stores a new object (ADDED); returns it as stored. */
  insert(ref: string, obj: K8sObject): K8sObject {
    const key = this.resolve(ref);
    if (key === null) throw new Error(`fakekube: resource ${ref} is not served`);
    const stored = this.#commit(key, [...this.#resources.get(key)!.objects, obj]);
    return stored.find((o) =>
      o.metadata.name === obj.metadata.name && o.metadata.namespace === obj.metadata.namespace
    )!;
  }

  /** Changes one object (MODIFIED when it changed); returns it as stored, or undefined when absent. */
  update(
    ref: string,
    ns: string | undefined,
    name: string,
    fn: (o: K8sObject) => K8sObject,
  ): K8sObject | undefined {
    const key = this.resolve(ref);
    if (key === null) return undefined;
    const objects = this.#resources.get(key)!.objects;
    const i = objects.findIndex((o) => o.metadata.name === name && o.metadata.namespace === ns);
    if (i < 0) return undefined;
    const next = [...objects];
    next[i] = fn(structuredClone(objects[i]));
    const stored = this.#commit(key, next);
    return stored.find((o) => o.metadata.name === name && o.metadata.namespace === ns);
  }

  /** Removes one object (DELETED); returns what was removed. */
  remove(ref: string, ns: string | undefined, name: string): K8sObject | undefined {
    const key = this.resolve(ref);
    if (key === null) return undefined;
    const objects = this.#resources.get(key)!.objects;
    const gone = objects.find((o) => o.metadata.name === name && o.metadata.namespace === ns);
    if (!gone) return undefined;
    this.#commit(key, objects.filter((o) => o !== gone));
    return gone;
  }

  /**
   * Removes everything in namespace `ns` (DELETED events). With `keepFinalized`, objects that carry
   * finalizers stay, marked with a deletionTimestamp, and are returned.
   */
  purgeNamespaceContent(ns: string, opts: { keepFinalized: boolean }): RemainingObject[] {
    const remaining: RemainingObject[] = [];
    const now = nowStamp();
    for (const [key, r] of [...this.#resources]) {
      if (!r.namespaced || !r.objects.some((o) => o.metadata.namespace === ns)) continue;
      const next: K8sObject[] = [];
      for (const o of r.objects) {
        if (o.metadata.namespace !== ns) next.push(o);
        else if (opts.keepFinalized && (o.metadata.finalizers ?? []).length > 0) {
          const marked = {
            ...o,
            metadata: { ...o.metadata, deletionTimestamp: o.metadata.deletionTimestamp ?? now },
          };
          next.push(marked);
          remaining.push({ resource: r.group === "" ? r.plural : `${r.plural}.${r.group}`, object: marked });
        }
      }
      this.#commit(key, next);
    }
    return remaining;
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** What the write routes need from the server. */
export interface WriteContext<L extends LifecycleHooks = LifecycleHooks> {
  store: ClusterStore;
  /** The lifecycle controller (lifecycle.ts); the write path only calls its hooks. */
  lifecycle: L;
  config: Lifecycle;
  permissions: PermissionTable;
  /** The user named in 403 messages. */
  user: string;
}

const status = statusResponse;

const qualified = (r: { plural: string; group: string }): string =>
  r.group === "" ? r.plural : `${r.plural}.${r.group}`;

function details(
  r: StoredResource,
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const d: Record<string, unknown> = { name };
  if (r.group !== "") d.group = r.group;
  d.kind = r.plural;
  return { ...d, ...extra };
}

function forbidden(ctx: WriteContext, verb: string, r: StoredResource, ns?: string, name?: string): Response {
  return forbiddenResponse(ctx.user, verb, r, ns, name);
}

const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
const randomSuffix = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(5)), (b) => NAME_CHARS[b % NAME_CHARS.length]).join("");

function isDryRun(url: URL, body?: Record<string, unknown>): boolean {
  return url.searchParams.getAll("dryRun").includes("All") ||
    (Array.isArray(body?.dryRun) && (body.dryRun as unknown[]).includes("All"));
}

async function readJson(req: Request): Promise<Record<string, unknown> | null | "invalid"> {
  const text = await req.text();
  if (text.trim() === "") return null;
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : "invalid";
  } catch {
    return "invalid";
  }
}

/**
 * Routes one non-GET request (`segs` = decoded path segments). Everything the fake does not write
 * (PUT, PATCH, collection deletes, subresources) gets 405 like a read-only resource would.
 */
export async function routeWrite(
  ctx: WriteContext,
  req: Request,
  url: URL,
  segs: string[],
): Promise<Response> {
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === "api" && segs[1] === "v1") [group, version, rest] = ["", "v1", segs.slice(2)];
  else if (segs[0] === "apis" && segs.length >= 3) [group, version, rest] = [segs[1], segs[2], segs.slice(3)];
  else return notFoundResource();
  if (
    req.method === "POST" && group === "authorization.k8s.io" && version === "v1" &&
    rest.length === 1 && rest[0] === "selfsubjectaccessreviews"
  ) {
    return await accessReview(ctx, req);
  }
  const path = resourcePath(rest);
  if (!path) return notFoundResource();
  const { ns, plural, name, sub } = path;
  const r = ctx.store.resource(`${group}/${version}/${plural}`);
  if (!r || r.version !== version) return notFoundResource();
  if (ns !== undefined && !r.namespaced) return notFoundResource();
  const notAllowed = (): Response =>
    status(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`, {});
  if (sub !== undefined) return notAllowed();
  if (req.method === "POST" && name === undefined) {
    if (r.namespaced && ns === undefined) return notAllowed();
    return await create(ctx, req, url, r, ns);
  }
  if (req.method === "DELETE" && name !== undefined) {
    if (r.namespaced && ns === undefined) return notFoundResource();
    return await remove(ctx, req, url, r, ns, name);
  }
  return notAllowed();
}

async function create(
  ctx: WriteContext,
  req: Request,
  url: URL,
  r: StoredResource,
  ns: string | undefined,
): Promise<Response> {
  const { store } = ctx;
  if (!ctx.permissions.allows({ verb: "create", resource: r.plural, group: r.group, namespace: ns })) {
    return forbidden(ctx, "create", r, ns);
  }
  const body = await readJson(req);
  if (body === null || body === "invalid") {
    return status(
      400,
      "BadRequest",
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
      {},
    );
  }
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    return status(
      400,
      "BadRequest",
      `the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersion})`,
      {},
    );
  }
  if (body.kind !== undefined && body.kind !== r.kind) {
    return status(
      400,
      "BadRequest",
      `the kind in the data (${body.kind}) does not match the expected kind (${r.kind})`,
      {},
    );
  }
  const meta = { ...rec(body.metadata) } as K8sObject["metadata"];
  if (ns !== undefined && meta.namespace !== undefined && meta.namespace !== ns) {
    return status(
      400,
      "BadRequest",
      "the namespace of the provided object does not match the namespace sent on the request",
      {},
    );
  }
  if (!meta.name && typeof meta.generateName === "string" && meta.generateName !== "") {
    meta.name = `${meta.generateName}${randomSuffix()}`;
  }
  if (!meta.name) {
    return status(
      422,
      "Invalid",
      invalidMessage(r.kind, "", ["metadata.name: Required value: name or generateName is required"]),
      {
        kind: r.kind,
        causes: [{
          reason: "FieldValueRequired",
          message: "Required value: name or generateName is required",
          field: "metadata.name",
        }],
      },
    );
  }
  const name = meta.name;
  if (ns !== undefined) meta.namespace = ns;
  else delete meta.namespace;
  // Fields only the server sets.
  for (
    const k of [
      "uid",
      "resourceVersion",
      "creationTimestamp",
      "deletionTimestamp",
      "generation",
      "managedFields",
    ]
  ) {
    delete meta[k];
  }

  let nsObj: K8sObject | undefined;
  if (ns !== undefined) {
    nsObj = store.get("/v1/namespaces", undefined, ns);
    if (!nsObj) {
      return status(404, "NotFound", `namespaces "${ns}" not found`, { name: ns, kind: "namespaces" });
    }
    if (nsObj.metadata.deletionTimestamp || field(nsObj.status, "phase") === "Terminating") {
      const message = `unable to create new content in namespace ${ns} because it is being terminated`;
      return status(
        403,
        "Forbidden",
        `${qualified(r)} "${name}" is forbidden: ${message}`,
        details(r, name, {
          causes: [{ reason: "NamespaceTerminating", message, field: "metadata.namespace" }],
        }),
      );
    }
  }

  let obj: K8sObject = { ...body, apiVersion, kind: r.kind, metadata: meta };
  delete obj.status;
  // Defaulting and mutating admission.
  if (r.group === "" && r.plural === "pods") {
    const offloading = store.list("offloading.liqo.io/namespaceoffloadings").find((o) =>
      o.metadata.namespace === ns
    );
    obj = defaultPod(
      obj,
      nsObj,
      offloading ? String(field(offloading.spec, "podOffloadingStrategy") ?? "LocalAndRemote") : undefined,
    );
  } else if (r.group === "" && r.plural === "namespaces") obj = defaultNamespace(obj);
  else if (r.group === "" && r.plural === "services") {
    obj = allocateNodePorts(defaultService(obj, () => allocateClusterIP(ctx)), store.list("/v1/services"));
  } else if (r.group === "offloading.liqo.io" && r.plural === "namespaceoffloadings") {
    obj = defaultNamespaceOffloading(obj);
  }

  const errs = validate(r.kind, obj);
  if (errs.length > 0) {
    return status(422, "Invalid", invalidMessage(r.kind, name, errs), {
      ...details(r, name),
      kind: r.kind,
      causes: errs.map((e) => {
        const i = e.indexOf(": ");
        return { reason: "FieldValueInvalid", message: e.slice(i + 2), field: e.slice(0, i) };
      }),
    });
  }

  // Validating admission webhooks run after validation, dry runs included.
  const hook = ctx.config.admissionDeny.find((a) =>
    a.resource === r.plural || a.resource === `${r.plural}.${r.group}`
  );
  if (hook) {
    return status(
      403,
      "Forbidden",
      `admission webhook "${hook.webhook}" denied the request: ${hook.message}`,
      details(r, name),
    );
  }
  if (r.group === "" && r.plural === "pods") {
    const { level, version: psVersion } = enforcedLevel(nsObj, ctx.config.podSecurity);
    const violations = podSecurityViolations(obj, level);
    if (violations.length > 0) {
      return status(
        403,
        "Forbidden",
        podSecurityMessage(name, level, psVersion, violations),
        details(r, name),
      );
    }
  }

  // Webhooks and quotas (policy.ts), after Pod Security as the API server orders them.
  const podsHere = ns === undefined
    ? 0
    : store.list("/v1/pods").filter((p) => p.metadata.namespace === ns).length;
  const refused = policyRefusal(r.kind, qualified(r), name, ns, ctx.config, podsHere);
  if (refused) return status(refused.code, refused.reason, refused.message, details(r, name));

  if (store.get(`${r.group}/${r.version}/${r.plural}`, ns, name)) {
    return status(409, "AlreadyExists", `${qualified(r)} "${name}" already exists`, details(r, name));
  }

  obj = {
    ...obj,
    metadata: {
      ...obj.metadata,
      uid: crypto.randomUUID(),
      creationTimestamp: nowStamp(),
      ...(r.group !== "" ? { generation: 1 } : {}),
    },
  };
  if (isDryRun(url)) return json(obj, 201);
  const stored = store.insert(`${r.group}/${r.version}/${r.plural}`, obj);
  ctx.lifecycle.created(`${r.group}/${r.version}/${r.plural}`, stored);
  return json({ ...stored, apiVersion, kind: r.kind }, 201);
}

/** A free ClusterIP of the cluster's service CIDR (also used by the Liqo reflection, reflection.ts). */
export function allocateClusterIP(ctx: Pick<WriteContext, "store" | "config">): string | null {
  const network = ctx.store.list("ipam.liqo.io/networks").find((n) => n.metadata.name === "service-cidr");
  const fromNetwork = field(network?.spec, "cidr");
  const cidr = ctx.config.serviceCIDR ?? (typeof fromNetwork === "string" ? fromNetwork : "10.96.0.0/12");
  const used = new Set<string>();
  for (const s of ctx.store.list("/v1/services")) {
    const ip = field(s.spec, "clusterIP");
    if (typeof ip === "string") used.add(ip);
  }
  return nextFree(cidr, used);
}

async function remove(
  ctx: WriteContext,
  req: Request,
  url: URL,
  r: StoredResource,
  ns: string | undefined,
  name: string,
): Promise<Response> {
  const { store } = ctx;
  const key = `${r.group}/${r.version}/${r.plural}`;
  if (!ctx.permissions.allows({ verb: "delete", resource: r.plural, group: r.group, namespace: ns, name })) {
    return forbidden(ctx, "delete", r, ns, name);
  }
  const body = await readJson(req);
  if (body === "invalid") {
    return status(400, "BadRequest", "the body of the request was in an unknown format", {});
  }
  const propagation = url.searchParams.get("propagationPolicy") ?? body?.propagationPolicy;
  if (
    propagation !== undefined && propagation !== null &&
    !["Background", "Foreground", "Orphan"].includes(String(propagation))
  ) {
    return status(
      400,
      "BadRequest",
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${propagation}": supported values: "Foreground", "Background", "Orphan", "nil"`,
      {},
    );
  }
  const current = store.get(key, ns, name);
  if (!current) return status(404, "NotFound", `${qualified(r)} "${name}" not found`, details(r, name));
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  const typed = (o: K8sObject): K8sObject => ({ ...o, apiVersion, kind: r.kind });
  const dryRun = isDryRun(url, body ?? undefined);
  const now = nowStamp();

  if (r.group === "" && r.plural === "namespaces") {
    if (current.metadata.deletionTimestamp) {
      return status(
        409,
        "Conflict",
        `Operation cannot be fulfilled on namespaces "${name}": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.`,
        { name, kind: "namespaces" },
      );
    }
    const terminating = (o: K8sObject): K8sObject => ({
      ...o,
      metadata: { ...o.metadata, deletionTimestamp: now },
      status: { ...rec(o.status), phase: "Terminating" },
    });
    if (dryRun) return json(typed(terminating(current)), 200);
    const stored = store.update(key, undefined, name, terminating)!;
    ctx.lifecycle.namespaceTerminating(name);
    return json(typed(stored), 200);
  }

  if (current.metadata.deletionTimestamp && (current.metadata.finalizers ?? []).length > 0) {
    return json(typed(current), 200);
  }
  if (r.group === "" && r.plural === "pods") {
    const grace = Number(
      body?.gracePeriodSeconds ?? url.searchParams.get("gracePeriodSeconds") ??
        field(current.spec, "terminationGracePeriodSeconds") ?? 30,
    );
    const marked = typed({
      ...current,
      metadata: { ...current.metadata, deletionTimestamp: now, deletionGracePeriodSeconds: grace },
    });
    if (dryRun) return json(marked, 200);
    // The stub kubelet stops containers at once: the pod is gone right away.
    store.remove(key, ns, name);
    ctx.lifecycle.deleted(key, current);
    return json(marked, 200);
  }
  if ((current.metadata.finalizers ?? []).length > 0) {
    const mark = (o: K8sObject): K8sObject => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: now } });
    if (dryRun) return json(typed(mark(current)), 200);
    const stored = store.update(key, ns, name, mark)!;
    ctx.lifecycle.finalizing(key, stored);
    return json(typed(store.get(key, ns, name) ?? stored), 200);
  }
  if (!dryRun) {
    store.remove(key, ns, name);
    ctx.lifecycle.deleted(key, current);
  }
  // Pods, namespaces, services and custom resources return the object; other built-ins a Status.
  if (!r.builtin || r.plural === "services") return json(typed(current), 200);
  return json({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { ...details(r, name), uid: current.metadata.uid },
  }, 200);
}

async function accessReview(ctx: WriteContext, req: Request): Promise<Response> {
  // The review itself is authorized like any create (a role without it gets the API server's 403).
  const review = { verb: "create", resource: "selfsubjectaccessreviews", group: "authorization.k8s.io" };
  if (!ctx.permissions.allows(review)) {
    return status(
      403,
      "Forbidden",
      `selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "${ctx.user}" cannot create resource ` +
        `"selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope`,
      { group: "authorization.k8s.io", kind: "selfsubjectaccessreviews" },
    );
  }
  const body = await readJson(req);
  if (body === null || body === "invalid") {
    return status(400, "BadRequest", "the body of the request was in an unknown format", {});
  }
  const spec = rec(body.spec);
  const attrs = rec(spec.resourceAttributes);
  const out = {
    kind: "SelfSubjectAccessReview",
    apiVersion: "authorization.k8s.io/v1",
    metadata: { creationTimestamp: null },
    spec,
  };
  if (spec.resourceAttributes === undefined) {
    if (spec.nonResourceAttributes === undefined) {
      return status(
        422,
        "Invalid",
        'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
        {
          group: "authorization.k8s.io",
          kind: "SelfSubjectAccessReview",
        },
      );
    }
    return json({ ...out, status: { allowed: true } }, 201);
  }
  const str = (v: unknown): string | undefined => typeof v === "string" && v !== "" ? v : undefined;
  const decision = ctx.permissions.decide({
    verb: str(attrs.verb) ?? "",
    resource: str(attrs.resource) ?? "",
    group: str(attrs.group),
    subresource: str(attrs.subresource),
    namespace: str(attrs.namespace),
    name: str(attrs.name),
  });
  return json({
    ...out,
    status: decision.allowed ? { allowed: true } : { allowed: false, reason: decision.reason },
  }, 201);
}
