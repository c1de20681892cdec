/**
 * Test support for check unit tests: inventories built from the base example clusters (or any
 * YAML), a scripted ProbeHub, and a CheckContext factory. E2E tests use the fake API server instead.
 */
import { parseAllDocuments } from "yaml";
import { Inventory } from "../../kube/inventory.ts";
import { Objects } from "../../liqo/views/mod.ts";
import { type KindId, KINDS } from "../../kube/kinds.ts";
import type { DiscoveryOutcome, K8sObject } from "../../kube/source.ts";
import { clusterIdOf, liqoNamespaceOf, tenantNamespaceOf } from "../../liqo/lookups.ts";
import type {
  CheckContext,
  CheckDef,
  ClusterView,
  InputResult,
  Outcome,
  PeerView,
  RunOptions,
} from "../../checks/types.ts";
import type { LogEvidence, ProbeHub, TlsDialResult, UdpProbeResult, WgEvidence } from "../../probes/hub.ts";

/** Reference time of the base examples. */
export const BASE_TIME = new Date("2026-11-30T02:30:00Z");

/**
 * A fixture object whose fields tests read and rewrite freely: test data, not product input (the
 * product reads objects only through the typed views of liqo/views).
 */
// deno-lint-ignore no-explicit-any
export type Loose = K8sObject & { spec?: any; status?: any; data?: any };

/** A fixture object, loosely typed for test set-up. */
export function loose(o: K8sObject): Loose {
  return o as Loose;
}

/** Parses every object in a YAML text. */
export function parseObjects(text: string): Loose[] {
  return parseAllDocuments(text).map((d) => d.toJS()).filter((o) => o && o.kind && o.apiVersion);
}

/** Parsed base examples: each file is parsed once per process (it is ~180 kB of YAML). */
const baseCache = new Map<string, Promise<Loose[]>>();

/** Objects of a base example cluster ("rome" or "milan"), deep-copied. */
export async function baseObjects(name: "rome" | "milan"): Promise<Loose[]> {
  let parsed = baseCache.get(name);
  if (!parsed) {
    const url = new URL(`../../testdata/base/${name}.yaml`, import.meta.url);
    parsed = Deno.readTextFile(url).then(parseObjects);
    baseCache.set(name, parsed);
    parsed.catch(() => baseCache.delete(name));
  }
  return structuredClone(await parsed);
}

/** Groups objects into inventory lists by kind (every kind in KINDS is present, maybe empty). */
export function inventoryOf(
  objects: K8sObject[],
  errors: Partial<Record<KindId, { reason: "forbidden" | "missing" | "error"; message: string }>> = {},
  discovery: DiscoveryOutcome | null = null,
): Objects {
  const lists: Partial<Record<KindId, K8sObject[]>> = {};
  for (const id of Object.keys(KINDS) as KindId[]) if (!errors[id]) lists[id] = [];
  for (const o of objects) {
    const id = (Object.keys(KINDS) as KindId[]).find((k) => KINDS[k].kind === o.kind);
    if (id && lists[id]) lists[id]!.push(o);
  }
  return new Objects(Inventory.fromLists(lists, errors, discovery));
}

/** A ClusterView over an inventory. */
export function viewOf(inv: Objects, now: Date = BASE_TIME, context = "test"): ClusterView {
  const id = clusterIdOf(inv);
  return {
    name: id ?? context,
    clusterId: id,
    liqoNamespace: liqoNamespaceOf(inv),
    context,
    server: "https://127.0.0.1:6443",
    inv,
    now,
    isSnapshot: false,
  };
}

/** PeerViews for every ForeignCluster in a view. */
export function peersOf(view: ClusterView): PeerView[] {
  return view.inv.items("foreignclusters").map((fc) => ({
    clusterId: fc.spec?.clusterID ?? fc.metadata.name,
    foreignCluster: fc,
    tenantNamespace: tenantNamespaceOf(view.inv, fc),
  }));
}

/** Default run options for tests. */
export const TEST_OPTIONS: RunOptions = {
  networkProbes: false,
  preciseUdp: false,
  sampleIntervalMs: 10,
  latencyThresholdMs: 200,
  checkTimeoutMs: 5000,
};

/** A ProbeHub answering from scripted values. */
export function scriptedProbes(script: {
  wireguard?: (cluster: string, ns: string, pod: string) => WgEvidence;
  udp?: (host: string, port: number) => UdpProbeResult;
  tls?: (url: string) => TlsDialResult;
  /** Container logs; unscripted ones are "missing" (no log lines in the evidence beyond that). */
  logs?: (cluster: string, ns: string, pod: string, container: string, previous: boolean) => LogEvidence;
} = {}): ProbeHub {
  return {
    wireguard: (c, ns, pod) =>
      Promise.resolve(
        script.wireguard?.(c, ns, pod) ??
          { ok: false, namespace: ns, pod, reason: "error", message: "no scripted wireguard state" },
      ),
    udp: (h, p) =>
      Promise.resolve(script.udp?.(h, p) ?? { outcome: "unavailable", detail: "network probes disabled" }),
    tls: (u) =>
      Promise.resolve(script.tls?.(u) ?? { outcome: "unavailable", detail: "network probes disabled" }),
    logs: (c, ns, pod, container, o) =>
      Promise.resolve(
        script.logs?.(c, ns, pod, container, o?.previous === true) ??
          { ok: false, namespace: ns, pod, container, reason: "missing", message: "no scripted log" },
      ),
  };
}

/** A CheckContext for one cluster (and optionally one peer and a remote). */
export function contextOf(
  cluster: ClusterView,
  opts: {
    peer?: PeerView | null;
    remote?: ClusterView | null;
    remotePeer?: PeerView | null;
    probes?: ProbeHub;
    options?: Partial<RunOptions>;
    /** Results of input checks, by ID (see CheckDef.inputs). */
    inputs?: Readonly<Record<string, InputResult>>;
  } = {},
): CheckContext {
  return {
    cluster,
    peer: opts.peer ?? null,
    remote: opts.remote ?? null,
    remotePeer: opts.remotePeer ?? null,
    probes: opts.probes ?? scriptedProbes(),
    options: { ...TEST_OPTIONS, ...opts.options },
    signal: new AbortController().signal,
    active: null,
    input: (id) => opts.inputs?.[id] ?? null,
  };
}

/** Finds one object in a list by kind and name (and namespace), for mutation in tests. */
export function find(objects: K8sObject[], kind: string, name: string, namespace?: string): Loose {
  const o = objects.find((x) =>
    x.kind === kind && x.metadata.name === name &&
    (namespace === undefined || x.metadata.namespace === namespace)
  );
  if (!o) throw new Error(`fixture has no ${kind} ${namespace ? namespace + "/" : ""}${name}`);
  return o;
}

/**
 * Runs one check of `checks` on a base example cluster, after `mutate` (which may edit the objects
 * in place or return a new list); peer-scoped checks run for the cluster's first peer.
 */
export async function runOnBase(
  checks: readonly CheckDef[],
  id: string,
  cluster: "rome" | "milan",
  mutate?: (o: Loose[]) => K8sObject[] | void,
): Promise<Outcome> {
  const def = checks.find((c) => c.id === id);
  if (!def) throw new Error(`no check ${id} in this catalog slice`);
  let objs = await baseObjects(cluster);
  objs = mutate?.(objs) ?? objs;
  const view = viewOf(inventoryOf(objs));
  const peer = def.perPeer ? peersOf(view)[0] : null;
  return await def.run(contextOf(view, { peer }));
}
