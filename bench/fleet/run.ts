/**
 * `deno task bench:fleet`: fleet mode at scale — 20 clusters, 40 edges, 50 ms of API latency.
 *
 * Ten consumers, each the scale generator's rome with four providers (bench/scale/generate.ts,
 * 5 nodes, 200 pods), and ten providers, each the base milan serving four consumers
 * (bench/fleet/healthy.ts providerOf): consumer i's k-th peer is provider i+k, whose tenant for it
 * matches its view — 40 paired, healthy edges, each judged in full dual mode. Every cluster is
 * served by the fake API server with 50 ms added to every response, behind one merged kubeconfig.
 *
 * Measured, through the real CLI: each cluster's single run (`check --context X`), then the fleet
 * run (`check --all-contexts`) — wall time against the slowest single run (target: ≤ slowest + 1 s),
 * requests per cluster (must equal the single run's: nothing read twice), the fleet process's peak
 * RSS (`/usr/bin/time -f %M`; target < 400 MB). `--parallel` (default 20 here, every cluster at
 * once; the CLI's own default is 4) and `--latency` are options. Each fleet run is made with `-v`
 * and its per-phase times (multicluster/timings.ts: startup, the clusters' reads, the `wg show`
 * samples landing, the edges' judging, rendering) are printed. Single and fleet runs start the same
 * way (the same `deno run` of cli/main.ts, the same flags), so both pay the same process start.
 * `--fleet-runs N` makes N fleet runs (the slowest is judged); `--singles N` makes only N single
 * runs, for a quick look (the target then compares against those only).
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { parse, stringify } from "yaml";
import { clusterNames, cons, type FleetShape, prov } from "./fleet_data.ts";

const { values } = parseArgs({
  options: {
    parallel: { type: "string", default: "20" },
    latency: { type: "string", default: "50" },
    pairs: { type: "string", default: "10" },
    /** Fleet runs to make (each on freshly served clusters); the slowest is judged. */
    "fleet-runs": { type: "string", default: "1" },
    /** Single-cluster runs to make (default: every cluster; fewer for a quick look). */
    singles: { type: "string" },
  },
});
const PAIRS = Number(values.pairs), LATENCY = Number(values.latency), PARALLEL = Number(values.parallel);
const FLEET_RUNS = Number(values["fleet-runs"]);
const PEERS = 4;
const SHAPE: FleetShape = { pairs: PAIRS, peers: PEERS };
const ROOT = new URL("../../", import.meta.url);
const TIME = "/usr/bin/time";

/** The fleet served by {@link WORKERS} threads, behind one merged kubeconfig. */
interface Served {
  names: string[];
  kubeconfig: string;
  /** Each cluster's request log so far ("METHOD path?query"). */
  requests(): Promise<Map<string, string[]>>;
  close(): Promise<void>;
}

/** Serving threads (each cluster's fake API server lives on one of them). */
const WORKERS = 4;

/** CPU seconds (user + system) this process — the fake API servers' threads — has used so far. */
function serverCpuS(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function ask<T>(w: Worker, msg: unknown, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (e: MessageEvent) => {
      if (e.data?.type !== reply) return;
      w.removeEventListener("message", on);
      resolve(e.data as T);
    };
    w.addEventListener("message", on);
    w.postMessage(msg);
  });
}

async function serveFleet(now: Date, workers: Worker[]): Promise<Served> {
  const names = clusterNames(SHAPE);
  const shares = workers.map((_, w) => names.filter((_, i) => i % workers.length === w));
  const started = await Promise.all(workers.map((w, i) =>
    ask<{ kubeconfigs: [string, string][] }>(w, {
      type: "start",
      shape: SHAPE,
      names: shares[i],
      now: now.toISOString(),
      latencyMs: LATENCY,
    }, "started")
  ));
  const kc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [] as unknown[],
    users: [] as unknown[],
    contexts: [] as unknown[],
  };
  const byName = new Map(started.flatMap((s) => s.kubeconfigs));
  for (const name of names) {
    const one = parse(byName.get(name)!) as Record<string, unknown[]>;
    kc.clusters.push(...one.clusters);
    kc.users.push(...one.users);
    kc.contexts.push(...one.contexts);
  }
  const dir = await Deno.makeTempDir({ prefix: "ff-bench-fleet-" });
  const kubeconfig = `${dir}/fleet.yaml`;
  await Deno.writeTextFile(kubeconfig, stringify({ ...kc, "current-context": cons(0) }));
  return {
    names,
    kubeconfig,
    requests: async () =>
      new Map(
        (await Promise.all(
          workers.map((w) => ask<{ logs: [string, string[]][] }>(w, { type: "requests" }, "requests")),
        ))
          .flatMap((r) => r.logs),
      ),
    close: async () => {
      await Promise.all(workers.map((w) => ask(w, { type: "close" }, "closed")));
      await Deno.remove(dir, { recursive: true });
    },
  };
}

interface Run {
  code: number;
  wallMs: number;
  rssKb: number | null;
  /** User + system CPU seconds of the CLI process. */
  cpuS: number | null;
  stdout: string;
  stderr: string;
}

async function cli(args: string[]): Promise<Run> {
  const timeFile = await Deno.stat(TIME).then(() => Deno.makeTempFile(), () => null);
  const argv = [
    "run",
    "--frozen",
    "--config",
    decodeURIComponent(new URL("deno.json", ROOT).pathname),
    "--allow-env",
    "--allow-read",
    "--allow-net=127.0.0.1",
    decodeURIComponent(new URL("cli/main.ts", ROOT).pathname),
    ...args,
  ];
  const t0 = performance.now();
  const out = await new Deno.Command(timeFile ? TIME : Deno.execPath(), {
    args: timeFile ? ["-f", "%M %U %S", "-o", timeFile, Deno.execPath(), ...argv] : argv,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wallMs = performance.now() - t0;
  let rssKb: number | null = null;
  let cpuS: number | null = null;
  if (timeFile) {
    const m = (await Deno.readTextFile(timeFile)).trim().split("\n").pop()?.match(
      /^(\d+) ([\d.]+) ([\d.]+)$/,
    );
    if (m) [rssKb, cpuS] = [Number(m[1]), Number(m[2]) + Number(m[3])];
    await Deno.remove(timeFile);
  }
  const dec = new TextDecoder();
  return {
    code: out.code,
    wallMs,
    rssKb,
    cpuS,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

const COMMON = ["--no-network-probes", "-o", "json", "--timeout", "5m"];

// Each run gets freshly served clusters: the objects' timestamps are shifted to the moment they are
// served, and a minute-old Connection reads as stale (TUN-01) — across 21 runs it would be.
const workers = Array.from(
  { length: WORKERS },
  () => new Worker(new URL("./serve_worker.ts", import.meta.url).href, { type: "module" }),
);
let served: Served | null = null;
async function fresh(): Promise<Served> {
  if (served) await served.close();
  served = await serveFleet(new Date(), workers);
  return served;
}
try {
  const names = (await fresh()).names;
  console.log(
    `fleet bench: ${names.length} clusters, ${
      PAIRS * PEERS
    } edges, ${LATENCY} ms latency, --parallel ${PARALLEL}, ` +
      `fake API servers on ${WORKERS} threads`,
  );
  const single = new Map<string, { wallMs: number; cpuS: number | null; log: string[] }>();
  let singleServerCpu = 0;
  const singles = values.singles === undefined ? names : [
    // A quick look: the first consumers and providers alike.
    ...names.filter((n) => n === cons(0) || n === prov(SHAPE, 0)),
    ...names.filter((n) => n !== cons(0) && n !== prov(SHAPE, 0)),
  ].slice(0, Number(values.singles));
  for (const name of singles) {
    const s = await fresh();
    const c0 = serverCpuS();
    const r = await cli(["check", "--kubeconfig", s.kubeconfig, "--context", name, ...COMMON]);
    singleServerCpu += serverCpuS() - c0;
    if (r.code === 3) throw new Error(`single run of ${name} failed: ${r.stderr}`);
    single.set(name, { wallMs: r.wallMs, cpuS: r.cpuS, log: (await s.requests()).get(name)! });
  }
  let fleet: Run | null = null;
  let fleetServerCpu = 0;
  let logs = new Map<string, string[]>();
  const walls: number[] = [];
  for (let run = 1; run <= FLEET_RUNS; run++) {
    const s = await fresh();
    const f0 = serverCpuS();
    const r = await cli([
      "check",
      "--kubeconfig",
      s.kubeconfig,
      "--all-contexts",
      "--parallel",
      String(PARALLEL),
      "-v",
      ...COMMON,
    ]);
    if (r.code === 3) throw new Error(`fleet run failed: ${r.stderr}`);
    walls.push(r.wallMs);
    console.log(`  fleet run ${run}: ${(r.wallMs / 1000).toFixed(2)} s wall; where it went:`);
    for (const l of r.stderr.split("\n")) {
      const m = l.match(/^flyingfish: fleet timing: (.*)$/);
      if (m) console.log(`    ${m[1]}`);
    }
    // The slowest run is the one judged (and whose requests are compared).
    if (!fleet || r.wallMs > fleet.wallMs) {
      fleet = r;
      fleetServerCpu = serverCpuS() - f0;
      logs = await s.requests();
    }
  }
  if (!fleet) throw new Error("no fleet run (--fleet-runs 0)");
  const doc = JSON.parse(fleet.stdout);
  if (Deno.env.get("FLEET_BENCH_DUMP")) {
    await Deno.writeTextFile(Deno.env.get("FLEET_BENCH_DUMP")!, fleet.stdout);
  }
  const slowest = Math.max(...[...single.values()].map((x) => x.wallMs));
  const mismatched = singles.filter((n) => logs.get(n)!.length !== single.get(n)!.log.length);
  const req = (n: string) => `${n} ${single.get(n)!.log.length}→${logs.get(n)!.length}`;
  const rows: [string, string][] = [
    [
      "edges",
      `${doc.summary.edges} (${Object.entries(doc.summary.byClass).map(([k, v]) => `${v} ${k}`).join(", ")})`,
    ],
    ["verdicts", Object.entries(doc.summary.byVerdict).map(([k, v]) => `${v} ${k}`).join(", ")],
    [
      "slowest single-cluster run",
      `${(slowest / 1000).toFixed(2)} s (of ${single.size}${
        single.size < names.length ? `: --singles ${single.size}, not every cluster` : ""
      })`,
    ],
    [
      "fleet run (wall)",
      `${(fleet.wallMs / 1000).toFixed(2)} s (target ≤ ${((slowest + 1000) / 1000).toFixed(2)} s)` +
      (walls.length > 1 ? `; every run: ${walls.map((w) => (w / 1000).toFixed(2)).join(", ")} s` : ""),
    ],
    [
      "requests per cluster",
      mismatched.length
        ? `DIFFER: ${mismatched.map(req).join(", ")}`
        : `equal to each single run (e.g. ${singles.slice(0, 2).map(req).join(", ")})`,
    ],
    [
      "CLI CPU (user + sys)",
      fleet.cpuS === null
        ? "n/a"
        : `fleet ${fleet.cpuS.toFixed(1)} s; the ${single.size} single runs together ${
          [...single.values()].reduce((t, x) => t + (x.cpuS ?? 0), 0).toFixed(1)
        } s`,
    ],
    [
      "fake API servers' CPU",
      `during the fleet run ${fleetServerCpu.toFixed(1)} s; during the single runs together ${
        singleServerCpu.toFixed(1)
      } s`,
    ],
    [
      "fleet peak RSS",
      fleet.rssKb === null
        ? "n/a (no /usr/bin/time)"
        : `${(fleet.rssKb / 1024).toFixed(0)} MB (target < 400 MB)`,
    ],
  ];
  for (const [k, v] of rows) console.log(`  ${k.padEnd(28)} ${v}`);
  for (const n of mismatched.slice(0, 2)) {
    const a = single.get(n)!.log, b = logs.get(n)!;
    const extra = b.filter((x) => b.filter((y) => y === x).length > a.filter((y) => y === x).length);
    console.log(`  ${n}: requests only the fleet run made more of: ${[...new Set(extra)].join(" | ")}`);
  }
  const ok = fleet.wallMs <= slowest + 1000 && mismatched.length === 0 && (fleet.rssKb ?? 0) < 400 * 1024;
  console.log(ok ? "targets met" : "TARGETS MISSED");
  Deno.exitCode = ok ? 0 : 1;
} finally {
  await (served as Served | null)?.close();
  for (const w of workers) w.terminate();
}
