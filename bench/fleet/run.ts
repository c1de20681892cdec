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
 * once; the CLI's own default is 4) and `--latency` are options.
 */
import { parseArgs } from "node:util";
import {
  DEFAULT_REFERENCE_TIME,
  type FakeCluster,
  loadBase,
  shiftCertificates,
  shiftTimestamps,
  startFakeCluster,
  type WireguardState,
} from "../../fakekube/mod.ts";
import { generateScaleCluster } from "../scale/generate.ts";
import { providerOf } from "./healthy.ts";
import type { K8sObject } from "../../kube/source.ts";

const { values } = parseArgs({
  options: {
    parallel: { type: "string", default: "20" },
    latency: { type: "string", default: "50" },
    pairs: { type: "string", default: "10" },
  },
});
const PAIRS = Number(values.pairs), LATENCY = Number(values.latency), PARALLEL = Number(values.parallel);
const PEERS = 4;
const ROOT = new URL("../../", import.meta.url);
const TIME = "/usr/bin/time";

const cons = (i: number) => `cons${String(i).padStart(2, "0")}-7d8e9f`;
const prov = (i: number) => `prov${String(i % PAIRS).padStart(2, "0")}-5a1b2c`;

function renamed<T>(v: T, map: Record<string, string>): T {
  let text = JSON.stringify(v);
  for (const [from, to] of Object.entries(map)) text = text.split(from).join(to);
  return JSON.parse(text) as T;
}

async function shifted(objects: K8sObject[], now: Date): Promise<K8sObject[]> {
  const delta = now.getTime() - Date.parse(DEFAULT_REFERENCE_TIME);
  return await shiftCertificates(shiftTimestamps(objects, delta), delta);
}

async function serveFleet(now: Date): Promise<{ clusters: Map<string, FakeCluster>; kubeconfig: string }> {
  const rome = await loadBase("rome");
  const milan = await loadBase("milan");
  const consumer = generateScaleCluster(rome, {
    peers: PEERS,
    nodes: 5,
    pods: 200,
    namespaces: 10,
    broken: false,
  });
  const clusters = new Map<string, FakeCluster>();
  const serve = async (name: string, objects: K8sObject[], wireguard: WireguardState) =>
    clusters.set(
      name,
      await startFakeCluster({
        name,
        objects: await shifted(objects, now),
        wireguard,
        latencyMs: LATENCY,
        execClockStepSeconds: 1,
      }),
    );
  for (let i = 0; i < PAIRS; i++) {
    const map: Record<string, string> = { "rome-4b2a9e": cons(i) };
    consumer.peers.forEach((p, k) => (map[p] = prov(i + k)));
    await serve(cons(i), renamed(consumer.objects, map), renamed(consumer.wireguard, map));
  }
  // Provider j serves every consumer i that has it as its k-th peer, each tenant matching that view.
  for (let j = 0; j < PAIRS; j++) {
    const tenants = Array.from({ length: PEERS }, (_, k) => ({
      consumer: cons((j - k + PAIRS) % PAIRS),
      swap: consumer.peerSwaps[k],
    }));
    const p = providerOf(milan, prov(j), tenants);
    await serve(prov(j), p.objects, p.wireguard);
  }
  const { parse, stringify } = await import("yaml");
  const kc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [] as unknown[],
    users: [] as unknown[],
    contexts: [] as unknown[],
  };
  for (const [name, c] of clusters) {
    const one = parse(c.kubeconfigYaml()) as Record<string, { name: string }[]>;
    kc.clusters.push(...one.clusters);
    kc.users.push(...one.users);
    kc.contexts.push(...one.contexts);
    void name;
  }
  const dir = await Deno.makeTempDir({ prefix: "ff-bench-fleet-" });
  const kubeconfig = `${dir}/fleet.yaml`;
  await Deno.writeTextFile(kubeconfig, stringify({ ...kc, "current-context": cons(0) }));
  return { clusters, kubeconfig };
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
let served: { clusters: Map<string, FakeCluster>; kubeconfig: string } | null = null;
async function fresh() {
  if (served) await stop(served);
  served = await serveFleet(new Date());
  return served;
}
async function stop(s: { clusters: Map<string, FakeCluster>; kubeconfig: string }) {
  await Promise.all([...s.clusters.values()].map((c) => c.close()));
  await Deno.remove(s.kubeconfig.replace(/\/fleet\.yaml$/, ""), { recursive: true });
}
try {
  const names = [...(await fresh()).clusters.keys()];
  console.log(
    `fleet bench: ${names.length} clusters, ${
      PAIRS * PEERS
    } edges, ${LATENCY} ms latency, --parallel ${PARALLEL}`,
  );
  const single = new Map<string, { wallMs: number; cpuS: number | null; requests: number; log: string[] }>();
  const logOf = (s: { clusters: Map<string, FakeCluster> }, name: string) =>
    s.clusters.get(name)!.requests.map((q) => `${q.method} ${q.path}?${q.query}`);
  for (const name of names) {
    const s = await fresh();
    const r = await cli(["check", "--kubeconfig", s.kubeconfig, "--context", name, ...COMMON]);
    if (r.code === 3) throw new Error(`single run of ${name} failed: ${r.stderr}`);
    single.set(name, {
      wallMs: r.wallMs,
      cpuS: r.cpuS,
      requests: s.clusters.get(name)!.requests.length,
      log: logOf(s, name),
    });
  }
  const s = await fresh();
  const fleet = await cli([
    "check",
    "--kubeconfig",
    s.kubeconfig,
    "--all-contexts",
    "--parallel",
    String(PARALLEL),
    ...COMMON,
  ]);
  if (fleet.code === 3) throw new Error(`fleet run failed: ${fleet.stderr}`);
  const doc = JSON.parse(fleet.stdout);
  if (Deno.env.get("FLEET_BENCH_DUMP")) {
    await Deno.writeTextFile(Deno.env.get("FLEET_BENCH_DUMP")!, fleet.stdout);
  }
  const clusters = s.clusters;
  const before = new Map(names.map((n) => [n, 0]));
  const slowest = Math.max(...[...single.values()].map((s) => s.wallMs));
  const mismatched = [...clusters.keys()].filter((n) =>
    clusters.get(n)!.requests.length - before.get(n)! !== single.get(n)!.requests
  );
  const req = (n: string) =>
    `${n} ${single.get(n)!.requests}→${clusters.get(n)!.requests.length - before.get(n)!}`;
  const rows: [string, string][] = [
    [
      "edges",
      `${doc.summary.edges} (${Object.entries(doc.summary.byClass).map(([k, v]) => `${v} ${k}`).join(", ")})`,
    ],
    ["verdicts", Object.entries(doc.summary.byVerdict).map(([k, v]) => `${v} ${k}`).join(", ")],
    ["slowest single-cluster run", `${(slowest / 1000).toFixed(2)} s`],
    [
      "fleet run (wall)",
      `${(fleet.wallMs / 1000).toFixed(2)} s (target ≤ ${((slowest + 1000) / 1000).toFixed(2)} s)`,
    ],
    [
      "requests per cluster",
      mismatched.length
        ? `DIFFER: ${mismatched.map(req).join(", ")}`
        : `equal to each single run (e.g. ${req(cons(0))}, ${req(prov(0))})`,
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
      "fleet peak RSS",
      fleet.rssKb === null
        ? "n/a (no /usr/bin/time)"
        : `${(fleet.rssKb / 1024).toFixed(0)} MB (target < 400 MB)`,
    ],
  ];
  for (const [k, v] of rows) console.log(`  ${k.padEnd(28)} ${v}`);
  for (const n of mismatched.slice(0, 2)) {
    const a = single.get(n)!.log, b = logOf(s, n);
    const extra = b.filter((x) => b.filter((y) => y === x).length > a.filter((y) => y === x).length);
    console.log(`  ${n}: requests only the fleet run made more of: ${[...new Set(extra)].join(" | ")}`);
  }
  const ok = fleet.wallMs <= slowest + 1000 && mismatched.length === 0 && (fleet.rssKb ?? 0) < 400 * 1024;
  console.log(ok ? "targets met" : "TARGETS MISSED");
  Deno.exitCode = ok ? 0 : 1;
} finally {
  if (served) await stop(served);
}
