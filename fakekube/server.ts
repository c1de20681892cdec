/**
 * A fake Kubernetes API server on 127.0.0.1 that behaves like a real kube-apiserver for what
 * FlyingFish reads: HTTPS with a generated CA and bearer-token auth, discovery, list/get with label
 * and field selectors and pagination, 403/404 Status objects, the exec WebSocket (channel protocol
 * v4/v5) answering `wg show …` from scenario state, and pod logs; tests can inject faults per path
 * (status codes, delays, resets, truncated or malformed lists, exec faults: see faults.ts), the demo
 * injects none. Writes (POST create with dryRun, DELETE, SelfSubjectAccessReviews) go to writes.ts,
 * and what follows them over time (scheduling, pod start, namespace purge) to lifecycle.ts; other
 * methods get 405. Every request is logged. It spawns no processes and writes no files, so
 * `flyingfish demo` can run it with only `--allow-net=127.0.0.1`.
 */
import { stringify } from "yaml";
import { LIQO_CRDS } from "./crds.ts";
import { type PodWireguardState, runCommand, type WireguardState } from "./exec.ts";
import { field, type K8sObject } from "./object.ts";
import { type Matcher, parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";
import { generateTlsMaterial } from "./tls.ts";
import {
  parseProtocols,
  pickProtocol,
  streamExec,
  streamExecFault,
  tokenFromProtocols,
} from "./websocket.ts";
import { type ExecFault, type FaultRule, FaultTable, LOOP_CONTINUE_TOKEN, transformBody } from "./faults.ts";
import { isWatchRequest, WatchHub } from "./watch.ts";
import { forbiddenResponse, json, notFoundResource, statusResponse } from "./status.ts";
import { resourcePath } from "./paths.ts";
import type { NetworkHost } from "./netmodel.ts";
import { streamExecWhenReady } from "./probe_exec.ts";
import { ClusterStore, routeWrite, type WriteContext } from "./writes.ts";
import { LifecycleController, lifecycleDefaults, type LifecycleInput } from "./lifecycle.ts";
import type { LiqoReflection } from "./reflection.ts";
import { PermissionTable } from "./admission.ts";

export type { PodWireguardState, WireguardState } from "./exec.ts";
export type { ExecFault, FaultAction, FaultMatch, FaultRule } from "./faults.ts";

/** One request the server received. */
export interface RequestLogEntry {
  /** HTTP method. */
  method: string;
  /** URL path. */
  path: string;
  /** Query string without the leading "?". */
  query: string;
  /** True for WebSocket upgrade requests. */
  upgrade: boolean;
  /** Response status (101 for accepted WebSocket upgrades). */
  status: number;
}

/** What one fake cluster serves. */
export interface FakeClusterConfig {
  /** Cluster, context and user name in the kubeconfig. */
  name: string;
  /** Objects with apiVersion/kind. */
  objects: K8sObject[];
  /** "namespace/pod" -> WireGuard state. */
  wireguard: WireguardState;
  /** Resource plurals (or "plural.group"), "pods/exec" or "pods/log", answered 403. */
  forbid?: string[];
  /** Added to every response. */
  latencyMs?: number;
  /** Default true: HTTPS with a CA generated at start-up. */
  tls?: boolean;
  /** Pod logs by "namespace/pod/container". */
  logs?: Record<string, string>;
  /**
   * API groups whose CRDs are not installed (e.g. "ipam.liqo.io"): absent from discovery, 404 on
   * their paths like any unknown resource, and their objects are not served.
   */
  missingGroups?: string[];
  /**
   * How the WireGuard transfer counters advance (see exec.ts `counters`): by default with the wall
   * clock (seconds since the server started). With a number, a virtual clock instead: it moves by
   * that many seconds on every exec call, and not otherwise. Two `wg show` samples any distance
   * apart then always show movement for moving peers (at least rate × step bytes) and none for
   * stalled ones, so tests can sample 100 ms apart without depending on timing.
   */
  execClockStepSeconds?: number;
  /** Injected faults (tests only, see faults.ts); also settable later with {@link FakeCluster.setFaults}. */
  faults?: FaultRule[];
  /** How written objects live on: permission table, Pod Security default, delays… (see lifecycle.ts). */
  lifecycle?: LifecycleInput;
  /**
   * The scenario's data plane (netmodel.ts), shared by both clusters: exec asks it first (probe
   * commands); null falls through to the WireGuard/iproute2 emulation of exec.ts.
   */
  network?: NetworkHost;
  /**
   * Liqo's reflection between the clusters of one scenario (shared like `network`): offloaded
   * namespaces, pods, Services and EndpointSlices appear in the served provider (reflection.ts).
   */
  reflection?: LiqoReflection;
}

/** A running fake cluster. */
export interface FakeCluster {
  /** Cluster/context/user name. */
  readonly name: string;
  /** https://127.0.0.1:<port> (http:// without TLS). */
  readonly url: string;
  /** CA that signed the server certificate; null without TLS. */
  readonly caPem: string | null;
  /** Bearer token the server accepts. */
  readonly token: string;
  /** Every request received, in order. */
  readonly requests: RequestLogEntry[];
  /** TCP connections accepted and bytes sent (counted by the TLS front; zeros without TLS). */
  readonly traffic: Readonly<Traffic>;
  /** A kubeconfig with one cluster/user/context, all named `name`. */
  kubeconfigYaml(): string;
  /** Replaces the injected faults (see faults.ts); `[]` serves normally again. */
  setFaults(rules: readonly FaultRule[]): void;
  /** The requests that got a fault since the last {@link FakeCluster.setFaults} ("GET /path -> type"). */
  readonly faultHits: readonly string[];
  /** Stops the server (idempotent). */
  close(): Promise<void>;
  /**
   * Serves `objects` from now on (and `wireguard`, when given), like a cluster that changed: every
   * object added, changed or removed gets a new resourceVersion and an ADDED/MODIFIED/DELETED event
   * on the open watches (see watch.ts). Returns how many objects changed.
   */
  replaceObjects(objects: K8sObject[], wireguard?: WireguardState): number;
  /** Every object served now (base + created - deleted), with apiVersion/kind; deep copies. */
  objects(): K8sObject[];
  /** Watch controls for tests: bookmarks now, forget history (410), cut or end every stream. */
  readonly watches: {
    bookmark(): void;
    compact(): void;
    breakAll(): void;
    endAll(): void;
    readonly open: number;
  };
}

/** The user name the fake server reports in 403 messages. */
export const FAKE_USER = "flyingfish";

/** Kubernetes version reported by /version. */
export const FAKE_GIT_VERSION = "v1.31.4";

/** Builds a kubeconfig for one cluster (HTTPS with CA data, or plain HTTP / unknown CA with skip-verify). */
export function kubeconfigFor(name: string, url: string, caPem: string | null, token: string): string {
  const cluster: Record<string, unknown> = { server: url };
  if (caPem) cluster["certificate-authority-data"] = btoa(caPem);
  else cluster["insecure-skip-tls-verify"] = true;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
    preferences: {},
  });
}

interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  builtin: boolean;
  objects: K8sObject[];
}

type Builtin = [group: string, plural: string, kind: string, namespaced: boolean];

const BUILTINS: Builtin[] = [
  ["", "nodes", "Node", false],
  ["", "namespaces", "Namespace", false],
  ["", "pods", "Pod", true],
  ["", "services", "Service", true],
  ["", "configmaps", "ConfigMap", true],
  ["", "secrets", "Secret", true],
  ["", "endpoints", "Endpoints", true],
  ["", "events", "Event", true],
  ["", "serviceaccounts", "ServiceAccount", true],
  ["", "persistentvolumeclaims", "PersistentVolumeClaim", true],
  ["", "persistentvolumes", "PersistentVolume", false],
  ["apps", "deployments", "Deployment", true],
  ["apps", "daemonsets", "DaemonSet", true],
  ["apps", "replicasets", "ReplicaSet", true],
  ["apps", "statefulsets", "StatefulSet", true],
  ["discovery.k8s.io", "endpointslices", "EndpointSlice", true],
  ["networking.k8s.io", "networkpolicies", "NetworkPolicy", true],
  ["networking.k8s.io", "ingresses", "Ingress", true],
  ["networking.k8s.io", "ingressclasses", "IngressClass", false],
];

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  return i < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Maps an object's apiVersion/kind to its resource plural (Liqo CRDs, built-ins, else lowercase kind + "s"). */
export function pluralFor(apiVersion: string, kind: string): { plural: string; namespaced: boolean | null } {
  const { group } = splitApiVersion(apiVersion);
  for (const k of LIQO_CRDS) {
    if (k.group === group && k.kind === kind) return { plural: k.plural, namespaced: k.namespaced };
  }
  for (const [g, plural, kk, namespaced] of BUILTINS) {
    if (g === group && kk === kind) return { plural, namespaced };
  }
  return { plural: kind.toLowerCase() + "s", namespaced: null };
}

function buildResources(objects: K8sObject[]): Map<string, Resource> {
  const res = new Map<string, Resource>();
  const key = (g: string, v: string, p: string): string => `${g}/${v}/${p}`;
  const add = (r: Omit<Resource, "objects">): Resource => {
    const k = key(r.group, r.version, r.plural);
    let e = res.get(k);
    if (!e) res.set(k, e = { ...r, objects: [] });
    return e;
  };
  for (const [group, plural, kind, namespaced] of BUILTINS) {
    add({ group, version: "v1", plural, kind, namespaced, builtin: true });
  }
  const groupVersions = new Set<string>();
  for (const o of objects) {
    if (!o.apiVersion || !o.kind) throw new Error(`object ${o.metadata?.name} has no apiVersion/kind`);
    const { group, version } = splitApiVersion(o.apiVersion);
    const { plural, namespaced } = pluralFor(o.apiVersion, o.kind);
    groupVersions.add(`${group}/${version}`);
    add({
      group,
      version,
      plural,
      kind: o.kind,
      namespaced: namespaced ?? o.metadata.namespace !== undefined,
      builtin: false,
    }).objects.push(o);
  }
  // A served group/version also serves every kind FlyingFish knows in it (CRD installed, no objects).
  for (const k of LIQO_CRDS) {
    if (groupVersions.has(`${k.group}/${k.version}`)) {
      add({
        group: k.group,
        version: k.version,
        plural: k.plural,
        kind: k.kind,
        namespaced: k.namespaced,
        builtin: false,
      });
    }
  }
  for (const r of res.values()) r.objects.sort(compareObjects);
  return res;
}

function compareObjects(a: K8sObject, b: K8sObject): number {
  const ka = `${a.metadata.namespace ?? ""}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace ?? ""}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function stripTypeMeta(o: K8sObject): K8sObject {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest as K8sObject;
}

function encodeContinue(rv: string, offset: number): string {
  return btoa(JSON.stringify({ v: "meta.k8s.io/v1", rv, start: offset })).replace(/=+$/, "");
}

function decodeContinue(token: string): number | null {
  try {
    const o = JSON.parse(atob(token + "=".repeat((4 - token.length % 4) % 4)));
    return typeof o.start === "number" && o.start >= 0 ? o.start : null;
  } catch {
    return null;
  }
}

const delay = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((r) => {
    if (signal?.aborted) return r();
    const t = setTimeout(r, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), r()), { once: true });
  });

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  410: "Expired",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

function randomToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(24));
  return "ff-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Starts a fake API server on 127.0.0.1 (random port) serving `cfg`. */
export async function startFakeCluster(cfg: FakeClusterConfig): Promise<FakeCluster> {
  const useTls = cfg.tls ?? true;
  const tls = useTls ? await generateTlsMaterial() : null;
  const token = randomToken();
  const missingGroups = new Set(cfg.missingGroups ?? []);
  const resources = buildResources(
    cfg.objects.filter((o) => !missingGroups.has(splitApiVersion(o.apiVersion ?? "").group)),
  );
  const requests: RequestLogEntry[] = [];
  const startedAt = Date.now();
  let execTicks = 0;
  const execElapsedSeconds = (): number =>
    cfg.execClockStepSeconds === undefined
      ? (Date.now() - startedAt) / 1000
      : ++execTicks * cfg.execClockStepSeconds;
  const forbid = new Set(cfg.forbid ?? []);
  const faults = new FaultTable(cfg.faults ?? []);
  /** Exec faults of upgrade requests, found by the handler and applied by handleExec. */
  const execFaults = new WeakMap<Request, ExecFault>();
  /** Aborted on close: ends held-back (delayed) answers. */
  const closing = new AbortController();
  /** Exec sockets left hanging by a fault, closed on close. */
  const hanging = new Set<WebSocket>();
  let port = 0;
  let listRv = String(
    cfg.objects.reduce((m, o) => Math.max(m, Number(o.metadata.resourceVersion) || 0), 1000) + 1,
  );
  const watchHub = new WatchHub(Number(listRv));
  cfg.network?.attach(cfg.name, () => [...resources.values()].flatMap((r) => r.objects));
  const lifecycleCfg = lifecycleDefaults(cfg.lifecycle);
  const permissions = new PermissionTable([...forbid], lifecycleCfg.deny);
  const store = new ClusterStore(resources, watchHub, () => {
    listRv = watchHub.resourceVersion;
    cfg.reflection?.changed();
  });
  const lifecycle = new LifecycleController(store, lifecycleCfg);
  const writes: WriteContext<LifecycleController> = {
    store,
    lifecycle,
    config: lifecycleCfg,
    permissions,
    user: FAKE_USER,
  };
  cfg.reflection?.attach(cfg.name, writes);

  const forbidden = (
    verb: string,
    r: { plural: string; group: string },
    ns?: string,
    name?: string,
  ): Response => forbiddenResponse(FAKE_USER, verb, r, ns, name);

  const groupVersions = (): Map<string, string[]> => {
    const m = new Map<string, string[]>();
    for (const r of resources.values()) {
      if (r.group === "") continue;
      const vs = m.get(r.group) ?? [];
      if (!vs.includes(r.version)) vs.push(r.version);
      m.set(r.group, vs);
    }
    return m;
  };

  const apiGroup = (name: string, versions: string[]): unknown => ({
    name,
    versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
  });

  const resourceList = (group: string, version: string): Response => {
    const list = [...resources.values()].filter((r) => r.group === group && r.version === version);
    if (list.length === 0) return notFoundResource();
    const gv = group === "" ? version : `${group}/${version}`;
    const items: unknown[] = [];
    for (const r of list.sort((a, b) => a.plural.localeCompare(b.plural))) {
      items.push({
        name: r.plural,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.builtin
          ? ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
          : ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
        storageVersionHash: btoa(`${gv}/${r.plural}`).slice(0, 11),
      });
      if (group === "" && r.plural === "pods") {
        items.push({
          name: "pods/exec",
          singularName: "",
          namespaced: true,
          kind: "PodExecOptions",
          verbs: ["create", "get"],
        });
        items.push({ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] });
      }
      if (!r.builtin) {
        items.push({
          name: `${r.plural}/status`,
          singularName: "",
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: ["get", "patch", "update"],
        });
      }
    }
    return json({ kind: "APIResourceList", apiVersion: "v1", groupVersion: gv, resources: items });
  };

  const findPod = (ns: string, name: string): K8sObject | undefined =>
    resources.get("/v1/pods")?.objects.find((p) => p.metadata.namespace === ns && p.metadata.name === name);

  const containerFor = (pod: K8sObject, requested: string | null): string | Response => {
    const containers = field(pod.spec, "containers");
    const names: string[] = Array.isArray(containers) ? containers.map((c) => String(field(c, "name"))) : [];
    if (requested) {
      if (names.length > 0 && !names.includes(requested)) {
        return statusResponse(
          400,
          "BadRequest",
          `container ${requested} is not valid for pod ${pod.metadata.name}`,
        );
      }
      return requested;
    }
    if (names.length === 1) return names[0];
    if (names.length === 0) return "";
    return statusResponse(
      400,
      "BadRequest",
      `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(" ")}]`,
    );
  };

  const handleExec = (req: Request, url: URL, ns: string, podName: string): Response => {
    const r = { plural: "pods/exec", group: "" };
    if (
      !permissions.allows({
        verb: "create",
        resource: "pods",
        subresource: "exec",
        namespace: ns,
        name: podName,
      })
    ) {
      return forbidden("create", r, ns, podName);
    }
    const pod = findPod(ns, podName);
    if (!pod) {
      return statusResponse(404, "NotFound", `pods "${podName}" not found`, { name: podName, kind: "pods" });
    }
    const container = containerFor(pod, url.searchParams.get("container"));
    if (container instanceof Response) return container;
    const command = url.searchParams.getAll("command");
    if (command.length === 0) {
      return statusResponse(400, "BadRequest", "you must specify at least one command for the container");
    }
    const phase = field(pod.status, "phase");
    if (phase === "Succeeded" || phase === "Failed") {
      return statusResponse(
        400,
        "BadRequest",
        `cannot exec into a container in a completed pod; current phase is ${phase}`,
      );
    }
    if (phase === "Pending") {
      return statusResponse(
        500,
        "InternalError",
        `unable to upgrade connection: container not found ("${container}")`,
      );
    }
    if ((req.headers.get("upgrade") ?? "").toLowerCase() !== "websocket") {
      return statusResponse(400, "BadRequest", "Upgrade request required");
    }
    const protocol = pickProtocol(parseProtocols(req.headers.get("sec-websocket-protocol")));
    if (!protocol) {
      return statusResponse(
        400,
        "BadRequest",
        "unable to upgrade: no supported subprotocol (want v5/v4.channel.k8s.io)",
      );
    }
    const key = `${ns}/${podName}`;
    const state: PodWireguardState | undefined = Object.hasOwn(cfg.wireguard, key)
      ? cfg.wireguard[key]
      : undefined;
    // Probe commands go to the scenario's network model; it runs until done or the client leaves.
    const netAbort = new AbortController();
    const pending = execFaults.has(req)
      ? null
      : cfg.network?.exec(cfg.name, pod, container, command, netAbort.signal) ?? null;
    if (pending) {
      const { socket, response } = Deno.upgradeWebSocket(req);
      response.headers.set("sec-websocket-protocol", protocol);
      const stop = () => netAbort.abort();
      socket.addEventListener("close", stop);
      closing.signal.addEventListener("abort", stop, { once: true });
      const done = pending.finally(() => closing.signal.removeEventListener("abort", stop));
      streamExecWhenReady(socket, protocol, command, done, {
        stdout: url.searchParams.get("stdout") !== "false",
        stderr: url.searchParams.get("stderr") !== "false",
      });
      return response;
    }
    const result = runCommand(state, command, {
      now: new Date(),
      elapsedSeconds: execElapsedSeconds(),
    });
    // Deno only matches `protocol` against a header split on ", "; clients such as Node's `ws` send
    // "a,b". Upgrade without it and set the negotiated protocol on the 101 response ourselves.
    const { socket, response } = Deno.upgradeWebSocket(req);
    response.headers.set("sec-websocket-protocol", protocol);
    const execFault = execFaults.get(req);
    if (execFault) {
      if (execFault === "hang") {
        hanging.add(socket);
        socket.addEventListener("close", () => hanging.delete(socket));
      }
      streamExecFault(socket, protocol, result, execFault);
      return response;
    }
    streamExec(socket, protocol, command, result, {
      stdout: url.searchParams.get("stdout") !== "false",
      stderr: url.searchParams.get("stderr") !== "false",
    });
    return response;
  };

  const handleLog = (url: URL, ns: string, podName: string): Response => {
    if (
      !permissions.allows({ verb: "get", resource: "pods", subresource: "log", namespace: ns, name: podName })
    ) {
      return forbidden("get", { plural: "pods/log", group: "" }, ns, podName);
    }
    const pod = findPod(ns, podName);
    if (!pod) {
      return statusResponse(404, "NotFound", `pods "${podName}" not found`, { name: podName, kind: "pods" });
    }
    const container = containerFor(pod, url.searchParams.get("container"));
    if (container instanceof Response) return container;
    let text = cfg.logs?.[`${ns}/${podName}/${container}`] ??
      [
          `I1130 02:06:31.104233       1 main.go:112] starting ${container}`,
          `I1130 02:06:31.388812       1 manager.go:63] Starting manager`,
          `I1130 02:06:32.007415       1 controller.go:214] Starting workers`,
        ].join("\n") + "\n";
    const tail = url.searchParams.get("tailLines");
    if (tail !== null && /^\d+$/.test(tail)) {
      const ls = text.replace(/\n$/, "").split("\n");
      text = ls.slice(Math.max(0, ls.length - Number(tail))).join("\n") + (ls.length ? "\n" : "");
    }
    return new Response(text, { headers: { "content-type": "text/plain" } });
  };

  const handleResource = (
    req: Request,
    url: URL,
    group: string,
    version: string,
    rest: string[],
  ): Response => {
    const path = resourcePath(rest);
    if (!path) return notFoundResource();
    const { ns, plural, name, sub } = path;
    if (sub !== undefined) {
      if (group === "" && plural === "pods" && ns !== undefined && name !== undefined) {
        if (sub === "exec") return handleExec(req, url, ns, name);
        if (sub === "log") return handleLog(url, ns, name);
      }
      return notFoundResource();
    }
    const r = resources.get(`${group}/${version}/${plural}`);
    if (!r) return notFoundResource();
    if (ns !== undefined && !r.namespaced) return notFoundResource();
    if (name !== undefined && ns === undefined && r.namespaced) return notFoundResource();
    const verb = name !== undefined ? "get" : isWatchRequest(url) ? "watch" : "list";
    if (!permissions.allows({ verb, resource: r.plural, group: r.group, namespace: ns, name })) {
      return forbidden(verb === "watch" ? "list" : verb, r, ns, name);
    }
    const apiVersion = group === "" ? version : `${group}/${version}`;
    if (name !== undefined) {
      const o = r.objects.find((x) =>
        x.metadata.name === name && (ns === undefined || x.metadata.namespace === ns)
      );
      if (!o) {
        const details: Record<string, unknown> = { name, kind: plural };
        if (group !== "") details.group = group;
        return statusResponse(
          404,
          "NotFound",
          `${group === "" ? plural : `${plural}.${group}`} "${name}" not found`,
          details,
        );
      }
      return json({ ...o, apiVersion, kind: r.kind });
    }
    let matchers: Matcher[];
    try {
      matchers = [];
      const ls = url.searchParams.get("labelSelector");
      if (ls) matchers.push(parseLabelSelector(ls));
      const fs = url.searchParams.get("fieldSelector");
      if (fs) matchers.push(parseFieldSelector(fs));
    } catch (e) {
      if (e instanceof SelectorError) return statusResponse(400, "BadRequest", e.message);
      throw e;
    }
    if (isWatchRequest(url)) return watchHub.serve(r, url, ns, matchers, closing.signal);
    const all = r.objects.filter((o) =>
      (ns === undefined || o.metadata.namespace === ns) && matchers.every((m) => m(o))
    );
    let start = 0;
    const cont = url.searchParams.get("continue");
    if (cont) {
      const s = decodeContinue(cont);
      if (s === null) {
        return statusResponse(
          400,
          "BadRequest",
          "continue key is not valid: incorrect encoded start resourceVersion",
        );
      }
      start = s;
    }
    const limitRaw = url.searchParams.get("limit");
    const limit = limitRaw && /^\d+$/.test(limitRaw) && Number(limitRaw) > 0 ? Number(limitRaw) : Infinity;
    const page = all.slice(start, start + limit);
    const metadata: Record<string, unknown> = { resourceVersion: listRv };
    if (start + page.length < all.length) {
      metadata.continue = encodeContinue(listRv, start + page.length);
      metadata.remainingItemCount = all.length - start - page.length;
    }
    return json({ kind: `${r.kind}List`, apiVersion, metadata, items: page.map(stripTypeMeta) });
  };

  const route = (req: Request, url: URL): Response | Promise<Response> => {
    const segs = url.pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);
    if (req.method !== "GET" && req.method !== "HEAD") return routeWrite(writes, req, url, segs);
    const p = segs.join("/");
    if (p === "version") {
      return json({
        major: "1",
        minor: "31",
        gitVersion: FAKE_GIT_VERSION,
        gitCommit: "a3cfc3a4be0a3e1d4bd2f2fa84b4e0b5cfd4d6f1",
        gitTreeState: "clean",
        buildDate: "2024-12-10T12:00:00Z",
        goVersion: "go1.22.9",
        compiler: "gc",
        platform: "linux/amd64",
      });
    }
    if (p === "healthz" || p === "livez" || p === "readyz") return new Response("ok");
    if (p === "api") {
      return json({
        kind: "APIVersions",
        versions: ["v1"],
        serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: `127.0.0.1:${port}` }],
      });
    }
    if (p === "apis") {
      const groups = [...groupVersions()].sort(([a], [b]) => a.localeCompare(b)).map(([g, vs]) =>
        apiGroup(g, vs)
      );
      return json({ kind: "APIGroupList", apiVersion: "v1", groups });
    }
    if (segs[0] === "api") {
      if (segs[1] !== "v1") return notFoundResource();
      if (segs.length === 2) return resourceList("", "v1");
      return handleResource(req, url, "", "v1", segs.slice(2));
    }
    if (segs[0] === "apis" && segs.length >= 2) {
      const vs = groupVersions().get(segs[1]);
      if (!vs) return notFoundResource();
      if (segs.length === 2) {
        return json({ kind: "APIGroup", apiVersion: "v1", ...apiGroup(segs[1], vs) as object });
      }
      if (!vs.includes(segs[2])) return notFoundResource();
      if (segs.length === 3) return resourceList(segs[1], segs[2]);
      return handleResource(req, url, segs[1], segs[2], segs.slice(3));
    }
    return notFoundResource();
  };

  /** Routes a request through the fault rules (see faults.ts): the first matching rule applies. */
  const routeWithFaults = async (
    req: Request,
    url: URL,
    query: string,
    upgrade: boolean,
  ): Promise<Response> => {
    const fault = faults.empty ? null : faults.take(req.method, url.pathname, query, upgrade);
    if (!fault) return route(req, url);
    switch (fault.type) {
      case "status": {
        const res = statusResponse(
          fault.status,
          REASONS[fault.status] ?? "InternalError",
          fault.message ?? `fakekube: injected fault (HTTP ${fault.status})`,
          {},
        );
        if (fault.retryAfterSeconds !== undefined) {
          res.headers.set("retry-after", String(fault.retryAfterSeconds));
        }
        return res;
      }
      case "delay":
        await delay(fault.ms, closing.signal);
        return route(req, url);
      case "exec":
        execFaults.set(req, fault.exec);
        return route(req, url);
      case "loop-continue": {
        const first = new URL(url);
        first.searchParams.delete("continue");
        const res = await route(req, first);
        if (res.status !== 200) return res;
        const body = await res.json();
        if (typeof body !== "object" || body === null || !Array.isArray(body.items)) return json(body);
        return json({ ...body, metadata: { ...body.metadata, continue: LOOP_CONTINUE_TOKEN } });
      }
      default:
        return await transformBody(await route(req, url), fault);
    }
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const upgrade = (req.headers.get("upgrade") ?? "").toLowerCase() === "websocket";
    const entry: RequestLogEntry = {
      method: req.method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      upgrade,
      status: 0,
    };
    requests.push(entry);
    let res: Response;
    try {
      if (cfg.latencyMs && cfg.latencyMs > 0) await delay(cfg.latencyMs);
      const auth = req.headers.get("authorization");
      const wsToken = upgrade
        ? tokenFromProtocols(parseProtocols(req.headers.get("sec-websocket-protocol")))
        : null;
      if (auth !== `Bearer ${token}` && wsToken !== token) {
        res = statusResponse(401, "Unauthorized", "Unauthorized");
      } else {
        res = await routeWithFaults(req, url, entry.query, upgrade);
      }
    } catch (e) {
      res = statusResponse(500, "InternalError", `fakekube: ${e instanceof Error ? e.message : String(e)}`);
    }
    entry.status = res.status;
    return res;
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const front = tls ? startTlsFront(server.addr.port, tls.certPem, tls.keyPem) : null;
  port = front ? front.port : server.addr.port;
  const url = `${useTls ? "https" : "http"}://127.0.0.1:${port}`;
  let closed = false;
  return {
    name: cfg.name,
    url,
    caPem: tls?.caPem ?? null,
    token,
    requests,
    traffic: front?.traffic ?? { connections: 0, bytesSent: 0 },
    kubeconfigYaml: () => kubeconfigFor(cfg.name, url, tls?.caPem ?? null, token),
    setFaults: (rules) => faults.set(rules),
    faultHits: faults.hits,
    replaceObjects: (objects, wireguard) => {
      const served = objects.filter((o) => !missingGroups.has(splitApiVersion(o.apiVersion ?? "").group));
      const next = buildResources(served);
      const changed = watchHub.replace(resources, next);
      resources.clear();
      for (const [k, v] of next) resources.set(k, v);
      listRv = watchHub.resourceVersion;
      if (wireguard) cfg.wireguard = wireguard;
      return changed;
    },
    objects: () => store.objects(),
    watches: {
      bookmark: () => watchHub.bookmark(),
      compact: () => watchHub.compact(),
      breakAll: () => watchHub.breakAll(),
      endAll: () => watchHub.endAll(),
      get open(): number {
        return watchHub.openStreams;
      },
    },
    close: async () => {
      if (closed) return;
      closed = true;
      cfg.reflection?.detach(cfg.name);
      lifecycle.stop();
      closing.abort();
      for (const s of hanging) {
        try {
          s.close(1001);
        } catch {
          // already closing
        }
      }
      front?.stopAccepting();
      await server.shutdown();
      await front?.close();
    },
  };
}

interface TlsFront {
  port: number;
  /** Connections accepted and bytes sent to clients so far. */
  readonly traffic: Traffic;
  stopAccepting(): void;
  close(): Promise<void>;
}

/** What the server's clients cost it: connections opened and bytes sent back. */
export interface Traffic {
  connections: number;
  bytesSent: number;
}

/**
 * Terminates TLS (HTTP/1.1 only via ALPN) on 127.0.0.1 and pipes each connection to the plain
 * HTTP server. Deno.serve would offer HTTP/2, and Deno's node:http2 client (used by undici inside
 * @kubernetes/client-node) can abort the whole process on the GOAWAY a closing in-process server
 * sends (nghttp2 assertion in find_stream_on_goaway_func).
 */
function startTlsFront(backendPort: number, cert: string, key: string): TlsFront {
  const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key, alpnProtocols: ["http/1.1"] });
  const conns = new Set<Deno.Conn>();
  const pipes = new Set<Promise<unknown>>();
  const traffic: Traffic = { connections: 0, bytesSent: 0 };
  const serveConn = async (conn: Deno.TlsConn): Promise<void> => {
    conns.add(conn);
    traffic.connections++;
    let backend: Deno.TcpConn | null = null;
    try {
      backend = await Deno.connect({ hostname: "127.0.0.1", port: backendPort });
      conns.add(backend);
      await Promise.allSettled([
        conn.readable.pipeTo(backend.writable),
        backend.readable.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, ctl) {
              traffic.bytesSent += chunk.byteLength;
              ctl.enqueue(chunk);
            },
          }),
        ).pipeTo(conn.writable),
      ]);
    } catch {
      // handshake failure or peer gone
    } finally {
      for (const c of [conn, backend]) {
        if (!c) continue;
        conns.delete(c);
        try {
          c.close();
        } catch {
          // already closed by the pipe
        }
      }
    }
  };
  const acceptLoop = (async () => {
    try {
      for await (const conn of listener) {
        const p = serveConn(conn);
        pipes.add(p);
        p.finally(() => pipes.delete(p));
      }
    } catch {
      // listener closed
    }
  })();
  let accepting = true;
  const stopAccepting = (): void => {
    if (!accepting) return;
    accepting = false;
    listener.close();
  };
  return {
    port: (listener.addr as Deno.NetAddr).port,
    traffic,
    stopAccepting,
    close: async () => {
      stopAccepting();
      await acceptLoop;
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      await Promise.allSettled([...pipes]);
    },
  };
}
