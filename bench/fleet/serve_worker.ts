/**
 * A serving worker of bench/fleet/run.ts: builds and serves its share of the fleet's fake clusters
 * on its own thread (a real fleet has an API server per cluster; one thread serving all twenty would
 * make the fake, not the CLI, the bottleneck of the fleet run). Messages: `start` → the kubeconfigs,
 * `requests` → each cluster's request log, `close`.
 */
/// <reference lib="deno.worker" />
import { type FakeCluster, startFakeCluster } from "../../fakekube/mod.ts";
import { clusterConfig, type FleetShape } from "./fleet_data.ts";

let clusters: Map<string, FakeCluster> = new Map();

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as
    | { type: "start"; shape: FleetShape; names: string[]; now: string; latencyMs: number }
    | { type: "requests" }
    | { type: "close" };
  if (m.type === "start") {
    clusters = new Map();
    for (const name of m.names) {
      const cfg = await clusterConfig(m.shape, name, new Date(m.now));
      clusters.set(name, await startFakeCluster({ ...cfg, latencyMs: m.latencyMs, execClockStepSeconds: 1 }));
    }
    self.postMessage({
      type: "started",
      kubeconfigs: [...clusters].map(([n, c]) => [n, c.kubeconfigYaml()]),
    });
  } else if (m.type === "requests") {
    self.postMessage({
      type: "requests",
      logs: [...clusters].map(([n, c]) => [n, c.requests.map((q) => `${q.method} ${q.path}?${q.query}`)]),
    });
  } else {
    await Promise.all([...clusters.values()].map((c) => c.close()));
    self.postMessage({ type: "closed" });
  }
};
