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
 * `--workers N` (default 3) gives each cluster N workers (clones of worker-2, pod CIDRs 10.244.k);
 * `--red` runs `probe matrix` alone on a peering where nothing crosses either way (every
 * cross-cluster packet dropped: a fully red matrix, each lost try waiting its timeout × the fake's
 * timeScale 0.1), the case whose cost grew with the cells.
 *
 *   deno task bench:active [--runs N] [--workers N] [--red]
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

/** What one bench run sets up: workers per cluster, and whether nothing crosses the peering. */
export interface BenchShape {
  workers: number;
  red: boolean;
}

async function start(shape: BenchShape): Promise<Bench> {
  const s = await loadScenario("healthy", activeScenariosRoot());
  const model = shape.red
    ? { ...(s.network ?? {}), drops: [{ from: "rome", to: "milan" }, { from: "milan", to: "rome" }] }
    : s.network ?? {};
  const network = createNetworkHost(model);
  // Liqo's reflection between the two fakes, as serveScenario gives it (the service probe needs it).
  const reflection = new LiqoReflection();
  const fakes = {} as Record<"rome" | "milan", FakeCluster>;
  const closers: (() => Promise<void>)[] = [];
  for (const name of ["rome", "milan"] as const) {
    const cfg = await buildClusterConfig(s, name);
    for (let k = 3; k <= shape.workers; k++) {
      cfg.objects.push(
        ...cloneWorker(cfg.objects, `${name}-worker-2`, `${name}-worker-${k}`, `10.244.${k}.0/24`),
      );
    }
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

async function once(run: number, shape: BenchShape): Promise<void> {
  const b = await start(shape);
  const options: ActiveOptions = shape.red ? { ...OPTIONS, probes: ["matrix"] } : OPTIONS;
  const before = { rome: b.fakes.rome.requests.length, milan: b.fakes.milan.requests.length };
  const t0 = performance.now();
  const marks: string[] = [];
  try {
    const out = await runActive(b.local, b.remote, options, {
      signal: new AbortController().signal,
      onProgress: (line) =>
        marks.push(`${((performance.now() - t0) / 1000).toFixed(2).padStart(6)} s  ${line}`),
      signalHost: { add: () => {}, remove: () => {} },
    });
    const wall = performance.now() - t0;
    console.log(
      `run ${run}: probe ${
        shape.red ? "matrix (nothing crosses)" : "all"
      } on ${shape.workers} + ${shape.workers} workers in ${
        (wall / 1000).toFixed(2)
      } s (run ${out.record?.runId})`,
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
  const arg = (name: string, dflt: number) => {
    const i = Deno.args.indexOf(name);
    return i >= 0 ? Math.max(1, Number(Deno.args[i + 1]) || dflt) : dflt;
  };
  const runs = arg("--runs", 1);
  const shape: BenchShape = { workers: Math.max(2, arg("--workers", 3)), red: Deno.args.includes("--red") };
  for (let r = 1; r <= runs; r++) await once(r, shape);
}
