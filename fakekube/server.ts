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
 *
 * This module holds the configuration, the per-cluster state and the request front (logging,
 * token auth, latency, faults); the routes live in routes/ (discovery.ts, read.ts for get/list/
 * watch, exec.ts, log.ts, faults.ts, router.ts dispatching to them and to writes.ts).
 */
import { stringify } from "yaml";
import type { FakeClusterConfig } from "./config.ts";
import type { WireguardState } from "./exec.ts";
import type { K8sObject } from "./object.ts";
import { generateTlsMaterial } from "./tls.ts";
import { parseProtocols, tokenFromProtocols } from "./websocket.ts";
import { type FaultRule, FaultTable } from "./faults.ts";
import { WatchHub } from "./watch.ts";
import { statusResponse } from "./status.ts";
import { ClusterStore, type WriteContext } from "./writes.ts";
import { LifecycleController, lifecycleDefaults } from "./lifecycle.ts";
import { PermissionTable } from "./admission.ts";
import { buildResources, splitApiVersion } from "./resources.ts";
import { startTlsFront, type Traffic } from "./tls_front.ts";
import { delay, routeWithFaults } from "./routes/faults.ts";
import { router } from "./routes/router.ts";
import { FAKE_USER, type ServerState } from "./routes/state.ts";

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

export type { FakeClusterConfig } from "./config.ts";

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

export { FAKE_USER } from "./routes/state.ts";
export { FAKE_GIT_VERSION } from "./routes/discovery.ts";
export type { Traffic } from "./tls_front.ts";

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
  const faults = new FaultTable(cfg.faults ?? []);
  const highestRv = (m: number, o: K8sObject): number => Math.max(m, Number(o.metadata.resourceVersion) || 0);
  const initialRv = cfg.objects.reduce(highestRv, 1000) + 1;
  const watchHub = new WatchHub(initialRv);
  cfg.network?.attach(cfg.name, () => [...resources.values()].flatMap((r) => r.objects));
  const lifecycleCfg = lifecycleDefaults(cfg.lifecycle);
  cfg.network?.configure?.(cfg.name, { loadBalancerDropsUdp: lifecycleCfg.loadBalancer.mode === "dropsUdp" });
  const permissions = new PermissionTable([...new Set(cfg.forbid ?? [])], lifecycleCfg.deny);
  const store = new ClusterStore(resources, watchHub, () => {
    state.listRv = watchHub.resourceVersion;
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
  const state: ServerState = {
    cfg,
    resources,
    permissions,
    watchHub,
    writes,
    listRv: String(initialRv),
    port: 0,
    closing: new AbortController(),
    execFaults: new WeakMap(),
    hanging: new Set(),
    execElapsedSeconds: () =>
      cfg.execClockStepSeconds === undefined
        ? (Date.now() - startedAt) / 1000
        : ++execTicks * cfg.execClockStepSeconds,
  };
  cfg.reflection?.attach(cfg.name, writes);
  const route = router(state);

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
        res = await routeWithFaults(state, faults, route, req, url, entry.query, upgrade);
      }
    } catch (e) {
      res = statusResponse(500, "InternalError", `fakekube: ${e instanceof Error ? e.message : String(e)}`);
    }
    entry.status = res.status;
    return res;
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const front = tls ? startTlsFront(server.addr.port, tls.certPem, tls.keyPem) : null;
  state.port = front ? front.port : server.addr.port;
  const url = `${useTls ? "https" : "http"}://127.0.0.1:${state.port}`;
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
      state.listRv = watchHub.resourceVersion;
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
      state.closing.abort();
      for (const socket of state.hanging) {
        try {
          socket.close(1001);
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
