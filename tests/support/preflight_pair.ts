/**
 * Two fake clusters as `preflight --probe` meets them (tests): testdata/base's rome-solo (the
 * would-be consumer) and milan-solo (the would-be provider) — Liqo installed, not peered — one shared data plane
 * (`network.wan` and the rest of the network model), each cluster's lifecycle knobs (its
 * LoadBalancer controller, quotas, webhooks), node patches (ExternalIPs), opened through the real
 * client, exec and writer.
 */
import {
  createNetworkHost,
  type FakeCluster,
  type K8sObject,
  type LifecycleInput,
  loadBase,
  startFakeCluster,
} from "../../fakekube/mod.ts";
import type { ActiveCluster } from "../../active/context.ts";
import { openActiveCluster } from "./active_cluster.ts";

/** One side's knobs. */
export interface PairSide {
  lifecycle?: LifecycleInput;
  /** Node name → ExternalIP to add to its `status.addresses`. */
  externalIPs?: Record<string, string>;
}

/** The pair's shape: the data plane and each side. */
export interface PairShape {
  network?: unknown;
  rome?: PairSide;
  milan?: PairSide;
  tls?: boolean;
  /** testdata/base names (default rome-solo, milan-solo; rome/milan: the peered base). */
  bases?: { rome: string; milan: string };
}

/** The open pair. */
export interface PreflightPair {
  consumer: ActiveCluster;
  provider: ActiveCluster;
  fakes: { rome: FakeCluster; milan: FakeCluster };
  /** Objects of the run left in a cluster (namespace `flyingfish-preflight-*` and what is in it). */
  leftovers(name: "rome" | "milan"): string[];
  close(): Promise<void>;
}

function withExternal(objects: K8sObject[], ips: Record<string, string>): K8sObject[] {
  return objects.map((o) => {
    if (o.kind !== "Node" || !(o.metadata.name in ips)) return o;
    const status = (o.status ?? {}) as { addresses?: unknown[] };
    return {
      ...o,
      status: {
        ...status,
        addresses: [...(status.addresses ?? []), { type: "ExternalIP", address: ips[o.metadata.name] }],
      },
    };
  });
}

/** Starts the pair (see the module comment). */
export async function preflightPair(shape: PairShape = {}): Promise<PreflightPair> {
  // Simulated waits at 2 % of their nominal time (a lost datagram's 5 s is 0.1 s) unless a test says.
  const network = createNetworkHost({ timeScale: 0.02, ...(shape.network as object ?? {}) });
  const fakes = {} as Record<"rome" | "milan", FakeCluster>;
  const closers: (() => Promise<void>)[] = [];
  for (const name of ["rome", "milan"] as const) {
    const base = await loadBase(shape.bases?.[name] ?? `${name}-solo`);
    const side = shape[name] ?? {};
    fakes[name] = await startFakeCluster({
      name,
      objects: withExternal(base.objects, side.externalIPs ?? {}),
      wireguard: base.wireguard,
      tls: shape.tls ?? false,
      network,
      lifecycle: {
        scheduleDelayMs: 5,
        startDelayMs: 5,
        namespaceDeleteDelayMs: 20,
        ...side.lifecycle,
        loadBalancer: { delayMs: 20, ...side.lifecycle?.loadBalancer },
      },
    });
    closers.push(() => fakes[name].close());
  }
  const open = async (name: "rome" | "milan", side: "local" | "remote") => {
    const o = await openActiveCluster(fakes[name].kubeconfigYaml(), side, name);
    closers.unshift(o.close);
    return o.cluster;
  };
  const consumer = await open("rome", "local");
  const provider = await open("milan", "remote");
  return {
    consumer,
    provider,
    fakes,
    leftovers: (name) =>
      fakes[name].objects().filter((o) =>
        (o.kind === "Namespace" && o.metadata.name.startsWith("flyingfish-preflight-")) ||
        (o.metadata.namespace ?? "").startsWith("flyingfish-preflight-")
      ).map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`),
    close: async () => {
      for (const c of closers) await c();
    },
  };
}
