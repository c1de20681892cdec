/**
 * `deno task bench:active`: `probe all` (matrix, udp, mtu, service, trace) in direct mode on 3 + 3
 * schedulable workers against the fake API server (plain HTTP, in-process, the healthy data plane),
 * through the real session (active/session.ts): pre-flight, namespace, dry run, pods, probes,
 * cleanup. Reports the wall time (total and per phase, from the progress lines), the execs and API
 * requests each cluster served, and what was left behind (must be nothing).
 *
 * The clusters are testdata/base's rome and milan with a third worker each, cloned from worker-2
 * (Node, InternalNode, GeneveTunnel, …: every object named after it, its pod CIDR moved to .3).
 *
 *   deno task bench:active [--runs N]
 */
import { runActive } from "../../active/session.ts";
import type { ActiveCluster, ActiveOptions } from "../../active/context.ts";
import type { K8sObject } from "../../kube/source.ts";
import {
  activeScenariosRoot,
  buildClusterConfig,
  createNetworkHost,
  type FakeCluster,
  LiqoReflection,
  loadScenario,
  startFakeCluster,
} from "../../fakekube/mod.ts";
import { PROBE_IMAGES } from "../../active/fleet/images.ts";
import { PROBE_LABELS, type Side } from "../../active/model.ts";
import { probesFor } from "../../cli/probe_cmd.ts";
import { openActiveCluster } from "../../tests/support/active_cluster.ts";

/** Every object named after `from` (not its pods), cloned for `to`; the Node's pod CIDR moved to `cidr`. */
export function cloneWorker(
  objects: readonly K8sObject[],
  from: string,
  to: string,
  cidr: string,
): K8sObject[] {
  const named = objects.filter((o) => o.kind !== "Pod" && o.metadata.name.includes(from));
  return named.map((o) => {
    const text = JSON.stringify(o).replaceAll(from, to);
    const clone = JSON.parse(text) as K8sObject & { spec?: { podCIDR?: string; podCIDRs?: string[] } };
    delete clone.metadata.uid;
    if (clone.kind === "Node" && clone.spec) {
      clone.spec.podCIDR = cidr;
      clone.spec.podCIDRs = [cidr];
    }
    return clone;
  });
}

interface Bench {
  local: ActiveCluster;
  remote: ActiveCluster;
  fakes: Record<"rome" | "milan", FakeCluster>;
  close(): Promise<void>;
}

async function start(): Promise<Bench> {
  const s = await loadScenario("healthy", activeScenariosRoot());
  const network = createNetworkHost(s.network ?? {});
  // Liqo's reflection between the two fakes, as serveScenario gives it (the service probe needs it).
  const reflection = new LiqoReflection();
  const fakes = {} as Record<"rome" | "milan", FakeCluster>;
  const closers: (() => Promise<void>)[] = [];
  for (const name of ["rome", "milan"] as const) {
    const cfg = await buildClusterConfig(s, name);
    cfg.objects.push(...cloneWorker(cfg.objects, `${name}-worker-2`, `${name}-worker-3`, "10.244.3.0/24"));
    fakes[name] = await startFakeCluster({ ...cfg, tls: false, network, reflection });
    closers.push(() => fakes[name].close());
  }
  const open = async (name: "rome" | "milan", side: Side): Promise<ActiveCluster> => {
    const opened = await openActiveCluster(fakes[name].kubeconfigYaml(), side, name);
    closers.unshift(opened.close);
    return opened.cluster;
  };
  const local = await open("rome", "local");
  const remote = await open("milan", "remote");
  return {
    local,
    remote,
    fakes,
    close: async () => {
      for (const c of closers) await c();
    },
  };
}

const OPTIONS: ActiveOptions = {
  // What `probe all` runs in direct mode.
  probes: probesFor("direct"),
  mode: "direct",
  peer: null,
  keep: false,
  images: { ...PROBE_IMAGES },
  tolerate: [],
  probeTimeoutMs: 60_000,
  cleanupTimeoutMs: 30_000,
};

function counts(f: FakeCluster): { execs: number; writes: number; reads: number } {
  let execs = 0;
  let writes = 0;
  let reads = 0;
  for (const r of f.requests) {
    if (r.path.endsWith("/exec")) execs++;
    else if (r.method === "GET") reads++;
    else writes++;
  }
  return { execs, writes, reads };
}

async function once(run: number): Promise<void> {
  const b = await start();
  const before = { rome: b.fakes.rome.requests.length, milan: b.fakes.milan.requests.length };
  const t0 = performance.now();
  const marks: string[] = [];
  try {
    const out = await runActive(b.local, b.remote, OPTIONS, {
      signal: new AbortController().signal,
      onProgress: (line) =>
        marks.push(`${((performance.now() - t0) / 1000).toFixed(2).padStart(6)} s  ${line}`),
      signalHost: { add: () => {}, remove: () => {} },
    });
    const wall = performance.now() - t0;
    console.log(
      `run ${run}: probe all on 3 + 3 workers in ${(wall / 1000).toFixed(2)} s (run ${out.record?.runId})`,
    );
    for (const m of marks) console.log(`  ${m}`);
    for (const r of out.results) {
      console.log(
        `  ${r.id.padEnd(13)} ${r.status.padEnd(7)} ${(r.durationMs / 1000).toFixed(2)} s  ${r.summary}`,
      );
    }
    for (const name of ["rome", "milan"] as const) {
      const f = b.fakes[name];
      f.requests.splice(0, before[name]);
      const c = counts(f);
      const left = f.objects().filter((o) => o.metadata.labels?.[PROBE_LABELS.runId] === out.record?.runId);
      console.log(
        `  ${name}: ${c.execs} execs, ${c.writes} writes, ${c.reads} reads; ${left.length} objects of the run left`,
      );
    }
    console.log(
      `  cleanup: ${out.record?.cleanup.map((c) => `${c.cluster} ${c.status} (${c.detail})`).join("; ")}`,
    );
  } finally {
    await b.close();
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--runs");
  const runs = i >= 0 ? Math.max(1, Number(Deno.args[i + 1]) || 1) : 1;
  for (let r = 1; r <= runs; r++) await once(r);
}
