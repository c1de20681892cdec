/**
 * The scale benchmark of issue 12 (`deno task bench`, which runs this inside an isolated network
 * namespace through isolated.sh). It generates the scale cluster (generate.ts), serves it healthy and
 * then broken from the fake API server (HTTPS, `--latency` ms per response, the WireGuard counters on
 * the wall clock), runs `flyingfish check` against each as a subprocess and prints:
 *
 * - wall: the CLI process from spawn to exit;
 * - floor: a bare client (floor.ts, its own process, start-up included; median of three) replaying
 *   every GET of the CLI's request log at once, plus the sampling interval, plus two exec round trips counted as
 *   2 × latency each (upgrade request + the command's answer) — the physical limit for the same answers;
 * - the ratio wall / floor;
 * - requests: lists, continuation pages, exec sessions, other (discovery, /version, gets, logs);
 *   repeated requests (same method+path+query; continuation pages and the two `wg show` samples
 *   excepted);
 * - bytes the server sent (= received by the CLI) and TCP connections it accepted (its TLS front);
 * - peak RSS of the CLI process (`/usr/bin/time -f %M`);
 * - exit code and diagnosis;
 * - start-up: median of `--help` and `version` (5 runs each).
 *
 * `--cli <path to cli/main.ts>` measures another checkout (its deno.json is used, or `--config`).
 * Run `deno run ... bench/scale/run.ts --help` for the options.
 */
import { parseArgs } from "node:util";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeCluster } from "../../fakekube/mod.ts";
import {
  FULL_SCALE,
  loadScaleCluster,
  type ScaleParams,
  SMALL_SCALE,
  withForeignClusters,
} from "./generate.ts";
import { replayableGets, type RequestStats, requestStats } from "./requests.ts";
import type { FloorPlan, FloorResult } from "./floor.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const TIME = "/usr/bin/time";
/** Replays of the floor per variant (the median is used). */
const REPLAYS = 3;

const USAGE = `usage: run.ts [options]
  --cli <path>        cli/main.ts to measure (default: this checkout's)
  --config <path>     deno.json for the CLI (default: the one beside the CLI's folder)
  --small             ${SMALL_SCALE.peers} peers, ${SMALL_SCALE.nodes} nodes, ${SMALL_SCALE.pods} pods, ${SMALL_SCALE.namespaces} namespaces
  --peers <n>         default ${FULL_SCALE.peers}
  --nodes <n>         default ${FULL_SCALE.nodes}
  --pods <n>          default ${FULL_SCALE.pods}
  --namespaces <n>    default ${FULL_SCALE.namespaces}
  --foreign-clusters <n[,n…]>  n more ForeignClusters, announced and never set up (the many-peers case;
                      default 0); a list measures each size in turn
  --many-peers        the many-peers case of issue 21: the small cluster plus 1000, then 5000 ForeignClusters
  --variant <v>       healthy | broken | both (default both)
  --latency <ms>      API latency per response (default 50)
  --interval <s>      --sample-interval of the CLI, in seconds (default 3)
  --runs <n>          CLI runs per variant, the median (by wall time) is reported (default 1)
  --no-startup        skip the --help / version start-up measurement
  --json              also print the results as JSON
  --verbose           print the repeated requests, the lists of several pages and the CLI's stderr
  --out <dir>         save each variant's report (<variant>.report.json) and request log (<variant>.requests.json)`;

/** What one variant measured. */
export interface VariantResult {
  variant: "healthy" | "broken";
  /** ForeignClusters added to the generated cluster (withForeignClusters). */
  foreignClusters: number;
  wallMs: number;
  /** Every run's wall time, ms. */
  wallsMs: number[];
  exitCode: number;
  diagnosis: string;
  peakRssMb: number | null;
  /** Size of the JSON report on stdout, bytes. */
  reportBytes: number;
  /** CPU seconds (user + system) of the reported run: what the CLI costs whatever else the machine runs. */
  cpuS: number | null;
  requests: RequestStats;
  bytesReceived: number;
  connections: number;
  /** The replay process, spawn to exit (null: no replay). */
  replayMs: number | null;
  /** Null when the replay could not run (thousands of lists at once: the replay's own TLS handshakes fail). */
  replay: FloorResult | null;
  /** replay + interval + 2 exec round trips (null: no replay). */
  floorMs: number | null;
  ratio: number | null;
  stderr: string;
  /** Objects served, per kind. */
  objects: Record<string, number>;
}

interface Options {
  cli: string;
  config: string;
  params: ScaleParams;
  /** Extra ForeignClusters (withForeignClusters), one measurement per size. */
  foreignClusters: number[];
  variants: ("healthy" | "broken")[];
  latencyMs: number;
  intervalS: number;
  runs: number;
  startup: boolean;
  json: boolean;
  verbose: boolean;
  out: string | null;
}

function options(args: string[]): Options {
  const { values } = parseArgs({
    args,
    options: {
      cli: { type: "string" },
      config: { type: "string" },
      small: { type: "boolean", default: false },
      peers: { type: "string" },
      nodes: { type: "string" },
      pods: { type: "string" },
      namespaces: { type: "string" },
      "foreign-clusters": { type: "string" },
      "many-peers": { type: "boolean", default: false },
      variant: { type: "string", default: "both" },
      latency: { type: "string", default: "50" },
      interval: { type: "string", default: "3" },
      runs: { type: "string", default: "1" },
      "no-startup": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const num = (v: string | undefined, d: number, what: string): number => {
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${what}: not a number: ${v}`);
    return n;
  };
  const base = values.small || values["many-peers"] ? SMALL_SCALE : FULL_SCALE;
  const cli = resolve(values.cli ?? join(HERE, "../../cli/main.ts"));
  const variant = values.variant;
  if (!["healthy", "broken", "both"].includes(variant)) throw new Error(`--variant: healthy, broken or both`);
  return {
    cli,
    config: resolve(values.config ?? join(dirname(cli), "../deno.json")),
    params: {
      peers: num(values.peers, base.peers, "peers"),
      nodes: num(values.nodes, base.nodes, "nodes"),
      pods: num(values.pods, base.pods, "pods"),
      namespaces: num(values.namespaces, base.namespaces, "namespaces"),
      broken: false,
    },
    foreignClusters: values["foreign-clusters"] !== undefined
      ? values["foreign-clusters"].split(",").map((x) => num(x, 0, "foreign-clusters"))
      : values["many-peers"]
      ? [1_000, 5_000]
      : [0],
    variants: variant === "both" ? ["healthy", "broken"] : [variant as "healthy" | "broken"],
    latencyMs: num(values.latency, 50, "latency"),
    intervalS: num(values.interval, 3, "interval"),
    runs: Math.max(1, Math.round(num(values.runs, 1, "runs"))),
    startup: !values["no-startup"],
    json: values.json,
    verbose: values.verbose,
    out: values.out ? resolve(values.out) : null,
  };
}

async function hasTime(): Promise<boolean> {
  try {
    await Deno.stat(TIME);
    return true;
  } catch {
    return false;
  }
}

/**
 * The runtime flags the checkout ships its CLI with (the `--v8-flags=…` of its `flyingfish` task):
 * the benchmark measures the CLI as users run it.
 */
function shippedRuntimeFlags(config: string, cli: string): string[] {
  try {
    const task = JSON.parse(Deno.readTextFileSync(config))?.tasks?.flyingfish;
    const flags = typeof task === "string"
      ? task.split(/\s+/).filter((t) => t.startsWith("--v8-flags="))
      : [];
    if (flags.length > 0) return flags;
  } catch {
    // no task: try the launcher
  }
  // Since issue 21 the task starts cli/launch.ts, which passes the runtime flags to the CLI it starts.
  try {
    const launcher = Deno.readTextFileSync(join(dirname(cli), "launch.ts"));
    return [...launcher.matchAll(/"(--v8-flags=[^"]+)"/g)].map((m) => m[1]);
  } catch {
    return [];
  }
}

/** `deno run` of the CLI with the benchmark's permissions. */
function cliArgs(o: Options, args: string[]): string[] {
  return [
    "run",
    "--frozen",
    ...shippedRuntimeFlags(o.config, o.cli),
    "--config",
    o.config,
    "--allow-env",
    "--allow-read",
    "--allow-net=127.0.0.1",
    "--allow-sys",
    o.cli,
    ...args,
  ];
}

interface Spawned {
  code: number;
  wallMs: number;
  stdout: string;
  stderr: string;
  rssKb: number | null;
  /** User + system CPU seconds of the process (from /usr/bin/time). */
  cpuS: number | null;
}

/** Runs the CLI (under /usr/bin/time when present) and times it from spawn to exit. */
async function runCli(o: Options, args: string[], timed: boolean): Promise<Spawned> {
  const timeFile = timed ? await Deno.makeTempFile({ prefix: "ff-bench-time-" }) : null;
  const argv = cliArgs(o, args);
  const t0 = performance.now();
  const child = new Deno.Command(timeFile ? TIME : Deno.execPath(), {
    args: timeFile ? ["-f", "%M %U %S", "-o", timeFile, Deno.execPath(), ...argv] : argv,
    cwd: dirname(o.config),
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = await child.output();
  const wallMs = performance.now() - t0;
  let rssKb: number | null = null;
  let cpuS: number | null = null;
  if (timeFile) {
    const text = await Deno.readTextFile(timeFile);
    await Deno.remove(timeFile);
    // the last line: "<max RSS KiB> <user s> <sys s>" (a line before it says when the exit code is not 0)
    const m = (text.trim().split("\n").pop() ?? "").match(/^(\d+) ([\d.]+) ([\d.]+)$/);
    if (m) {
      rssKb = Number(m[1]);
      cpuS = Number(m[2]) + Number(m[3]);
    }
  }
  const dec = new TextDecoder();
  return {
    code: out.code,
    wallMs,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    rssKb,
    cpuS,
  };
}

/** "TUN-01 paris-3a1b2c", or "none". */
function diagnosisOf(stdout: string): string {
  try {
    const d = JSON.parse(stdout);
    if (!d.diagnosis) return "none";
    return [d.diagnosis.id, d.diagnosis.peer].filter(Boolean).join(" ");
  } catch {
    return "(no JSON report)";
  }
}

async function replay(plan: FloorPlan): Promise<{ ms: number; result: FloorResult } | null> {
  const file = await Deno.makeTempFile({ prefix: "ff-bench-floor-", suffix: ".json" });
  try {
    await Deno.writeTextFile(file, JSON.stringify(plan));
    const t0 = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--allow-read", "--allow-net=127.0.0.1", join(HERE, "floor.ts"), file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const ms = performance.now() - t0;
    // Thousands of lists at once (the many-peers case) can fail the replay's own handshakes: no floor then.
    if (out.code !== 0) return null;
    return { ms, result: JSON.parse(new TextDecoder().decode(out.stdout)) };
  } finally {
    await Deno.remove(file);
  }
}

async function runVariant(
  o: Options,
  variant: "healthy" | "broken",
  foreignClusters: number,
  timed: boolean,
): Promise<VariantResult> {
  const cluster = withForeignClusters(
    await loadScaleCluster({ ...o.params, broken: variant === "broken" }),
    foreignClusters,
  );
  // The WireGuard counters follow the wall clock (no execClockStepSeconds): TUN-03 sees real movement.
  const fc = await startFakeCluster({
    name: "rome",
    objects: cluster.objects,
    wireguard: cluster.wireguard,
    latencyMs: o.latencyMs,
    tls: true,
  });
  const dir = await Deno.makeTempDir({ prefix: "ff-bench-" });
  try {
    const kc = join(dir, "kubeconfig");
    await Deno.writeTextFile(kc, fc.kubeconfigYaml());
    const args = [
      "check",
      "--kubeconfig",
      kc,
      "--sample-interval",
      `${o.intervalS}s`,
      "--no-network-probes",
      "-o",
      "json",
    ];
    const runs: { spawned: Spawned; log: typeof fc.requests; bytes: number; connections: number }[] = [];
    for (let i = 0; i < o.runs; i++) {
      const from = fc.requests.length;
      const before = { ...fc.traffic };
      const spawned = await runCli(o, args, timed);
      runs.push({
        spawned,
        log: fc.requests.slice(from),
        bytes: fc.traffic.bytesSent - before.bytesSent,
        connections: fc.traffic.connections - before.connections,
      });
    }
    const sorted = [...runs].sort((a, b) => a.spawned.wallMs - b.spawned.wallMs);
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    if (o.out) {
      await Deno.mkdir(o.out, { recursive: true });
      const tag = foreignClusters ? `${variant}-${foreignClusters}` : variant;
      await Deno.writeTextFile(join(o.out, `${tag}.report.json`), median.spawned.stdout);
      await Deno.writeTextFile(join(o.out, `${tag}.requests.json`), JSON.stringify(median.log, null, 1));
    }
    // The replay's median of three: one replay is as exposed to the machine's other load as one CLI run.
    const plan: FloorPlan = {
      url: fc.url,
      caPem: fc.caPem ?? "",
      token: fc.token,
      requests: replayableGets(median.log),
    };
    const replays: { ms: number; result: FloorResult }[] = [];
    for (let i = 0; i < REPLAYS; i++) {
      const one = await replay(plan);
      if (one === null) break;
      replays.push(one);
    }
    const r = replays.length === REPLAYS
      ? replays.sort((a, b) => a.ms - b.ms)[Math.floor(REPLAYS / 2)]
      : null;
    // Two exec round trips (the two `wg show` samples, each an upgrade and an answer: 2 × latency).
    const floorMs = r ? r.ms + o.intervalS * 1000 + 2 * 2 * o.latencyMs : null;
    const rss = runs.map((x) => x.spawned.rssKb).filter((x): x is number => x !== null);
    return {
      variant,
      foreignClusters,
      wallMs: median.spawned.wallMs,
      wallsMs: runs.map((x) => Math.round(x.spawned.wallMs)),
      exitCode: median.spawned.code,
      diagnosis: diagnosisOf(median.spawned.stdout),
      peakRssMb: rss.length ? Math.max(...rss) / 1024 : null,
      reportBytes: new TextEncoder().encode(median.spawned.stdout).length,
      cpuS: median.spawned.cpuS,
      requests: requestStats(median.log),
      bytesReceived: median.bytes,
      connections: median.connections,
      replayMs: r?.ms ?? null,
      replay: r?.result ?? null,
      floorMs,
      ratio: floorMs === null ? null : median.spawned.wallMs / floorMs,
      stderr: median.spawned.stderr,
      objects: cluster.counts,
    };
  } finally {
    await fc.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Start-up of `--help` and `version`: median and fastest of 5 runs, ms. */
interface Startup {
  help: number;
  helpMin: number;
  version: number;
  versionMin: number;
}

async function startup(o: Options): Promise<Startup> {
  const runs = async (args: string[]): Promise<number[]> => {
    await runCli(o, args, false); // warm the module cache
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) ms.push((await runCli(o, args, false)).wallMs);
    return ms.sort((a, b) => a - b);
  };
  const help = await runs(["--help"]), version = await runs(["version"]);
  return { help: help[2], helpMin: help[0], version: version[2], versionMin: version[0] };
}

function loadAverage(): string {
  try {
    return Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
  } catch {
    return "n/a";
  }
}

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mb = (b: number): string => `${(b / 1e6).toFixed(1)} MB`;

function table(o: Options, results: VariantResult[]): string {
  const rows: [string, (r: VariantResult) => string][] = [
    [
      "wall",
      (r) => s(r.wallMs) + (r.wallsMs.length > 1 ? ` (${r.wallsMs.map((x) => s(x)).join(", ")})` : ""),
    ],
    ["floor", (r) => (r.floorMs === null ? "n/a (replay failed)" : s(r.floorMs))],
    ["  replay of the GETs (start-up incl.)", (r) => (r.replayMs === null ? "n/a" : s(r.replayMs))],
    [`  + interval + 2 exec round trips`, () => s(o.intervalS * 1000 + 4 * o.latencyMs)],
    ["ratio wall / floor", (r) => (r.ratio === null ? "n/a" : r.ratio.toFixed(2))],
    ["requests", (r) => String(r.requests.total)],
    [
      "  lists / pages / exec / other",
      (r) => `${r.requests.lists} / ${r.requests.pages} / ${r.requests.exec} / ${r.requests.other}`,
    ],
    ["repeated requests", (r) => String(r.requests.repeated)],
    ["bytes received", (r) => mb(r.bytesReceived)],
    ["connections opened", (r) => String(r.connections)],
    ["JSON report", (r) => mb(r.reportBytes)],
    ["peak RSS", (r) => (r.peakRssMb === null ? "n/a (no /usr/bin/time)" : `${r.peakRssMb.toFixed(0)} MB`)],
    ["CLI CPU time (user + sys)", (r) => (r.cpuS === null ? "n/a" : `${r.cpuS.toFixed(2)} s`)],
    ["exit code", (r) => String(r.exitCode)],
    ["diagnosis", (r) => r.diagnosis],
  ];
  const w0 = Math.max(...rows.map(([l]) => l.length)) + 2;
  const w = Math.max(18, ...results.flatMap((r) => rows.map(([, f]) => f(r).length))) + 2;
  const head = (r: VariantResult) => r.foreignClusters ? `${r.variant} +${r.foreignClusters} FCs` : r.variant;
  const lines = [" ".repeat(w0) + results.map((r) => head(r).padEnd(w)).join("")];
  for (const [label, f] of rows) lines.push(label.padEnd(w0) + results.map((r) => f(r).padEnd(w)).join(""));
  return lines.join("\n");
}

function acceptance(o: Options, r: VariantResult): string {
  const mark = (ok: boolean): string => (ok ? "✓" : "✗");
  const limit = o.intervalS * 1000 + 1500;
  return [
    `wall ${s(r.wallMs)} ≤ ${s(limit)} ${mark(r.wallMs <= limit)}`,
    r.ratio === null ? "ratio n/a (no floor)" : `ratio ${r.ratio.toFixed(2)} ≤ 1.3 ${mark(r.ratio <= 1.3)}`,
    `repeated ${r.requests.repeated} = 0 ${mark(r.requests.repeated === 0)}`,
    `peak RSS ${r.peakRssMb === null ? "n/a" : `${r.peakRssMb.toFixed(0)} MB`} < 200 MB ${
      mark(r.peakRssMb !== null && r.peakRssMb < 200)
    }`,
  ].join(" · ");
}

if (import.meta.main) {
  let o: Options;
  try {
    o = options(Deno.args);
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : e}\n${USAGE}`);
    Deno.exit(2);
  }
  const timed = await hasTime();
  const p = o.params;
  console.log(
    `scale cluster: ${p.peers} peers, ${p.nodes} nodes, ${p.pods} workload pods in ${p.namespaces} namespaces` +
      (o.foreignClusters.some((n) => n > 0)
        ? ` + ${o.foreignClusters.join(", then ")} more ForeignClusters`
        : "") +
      ` · API latency ${o.latencyMs} ms over HTTPS · --sample-interval ${o.intervalS}s · ${o.runs} run(s) per variant`,
  );
  console.log(`CLI: ${o.cli} (config ${o.config})`);
  console.log(`load average before: ${loadAverage()} on ${navigator.hardwareConcurrency} CPUs`);
  const results: VariantResult[] = [];
  for (const v of o.variants) {
    for (const n of o.foreignClusters) {
      const r = await runVariant(o, v, n, timed);
      results.push(r);
      if (o.verbose) {
        const kinds = Object.entries(r.objects).map(([k, n]) => `${k} ${n}`).join(", ");
        console.log(
          `\n[${v}] served ${Object.values(r.objects).reduce((a, n) => a + n, 0)} objects: ${kinds}`,
        );
        console.log(`[${v}] repeated: ${r.requests.repeatedList.join("; ") || "none"}`);
        console.log(`[${v}] lists of several pages: ${r.requests.pagedLists.join("; ") || "none"}`);
        console.log(`[${v}] floor replay: ${JSON.stringify(r.replay)}`);
        console.log(`[${v}] CLI stderr:\n${r.stderr.trim()}`);
      }
    }
  }
  console.log();
  console.log(table(o, results));
  const full = o.foreignClusters.every((n) => n === 0) &&
    (Object.keys(FULL_SCALE) as (keyof ScaleParams)[]).every((k) =>
      k === "broken" || o.params[k] === FULL_SCALE[k]
    );
  for (const r of results.filter((x) => x.variant === "healthy")) {
    const what = full ? "acceptance (issue 12, healthy)" : "issue 12's limits (set for the full scale)";
    console.log(`\n${what}: ${acceptance(o, r)}`);
  }
  let st: Startup | null = null;
  if (o.startup) {
    st = await startup(o);
    console.log(
      `start-up (median of 5, fastest): --help ${st.help.toFixed(0)} ms, ${
        st.helpMin.toFixed(0)
      } ms (< 150 ms ${st.help < 150 ? "✓" : "✗"}) · version ${st.version.toFixed(0)} ms, ${
        st.versionMin.toFixed(0)
      } ms (< 100 ms ${st.version < 100 ? "✓" : "✗"})`,
    );
  }
  if (o.json) {
    console.log(JSON.stringify({
      params: o.params,
      cli: o.cli,
      latencyMs: o.latencyMs,
      intervalS: o.intervalS,
      startup: st,
      results: results.map(({ stderr: _stderr, ...r }) => r),
    }));
  }
}
