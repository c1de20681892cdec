/**
 * `collect` + `check --snapshot` for every scenario: a live run and a collect against the fake API
 * server, then an offline check of the bundle gives the same statuses, diagnosis and exit code, and
 * the scenario's expected statuses. Shared by the shard files tests/e2e/matrix/shard_<k>_test.ts (see shards.ts)
 * and the helpers of snapshot_test.ts (which runs the same round trip through the CLI binary).
 */
import assert from "node:assert/strict";
import { loadScenario, type Scenario, serveScenario } from "../../fakekube/mod.ts";
import { assertExpected, FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";

const HOST_SIDE = new Set(["GW-05", "API-01"]);

// deno-lint-ignore no-explicit-any
export type Report = any;

function hasFlag(args: readonly string[], flag: string): boolean {
  return args.some((a) => a === flag || a.startsWith(`${flag}=`));
}

/** The check args a scenario runs with (as in the e2e harness). */
export function checkArgs(s: Scenario): string[] {
  const args = [...s.run.args];
  if (!s.run.networkProbes && !hasFlag(args, "--no-network-probes")) args.push("--no-network-probes");
  if (!hasFlag(args, "--sample-interval")) args.push("--sample-interval", SAMPLE_INTERVAL);
  return args;
}

function key(r: Report): string {
  return `${r.id} peer=${r.peer ?? "-"} cluster=${r.cluster ?? "-"}`;
}

/** Same checks, same statuses (host-side probes may only turn into skip/unknown), same diagnosis. */
export function assertSameDiagnosis(name: string, live: Report, offline: Report): void {
  const ctx = (k: string) => `${name}: ${k}`;
  const liveBy = new Map<string, Report>(live.results.map((r: Report) => [key(r), r]));
  const offBy = new Map<string, Report>(offline.results.map((r: Report) => [key(r), r]));
  assert.deepEqual([...offBy.keys()].sort(), [...liveBy.keys()].sort(), ctx("same check instances"));
  for (const [k, l] of liveBy) {
    const o = offBy.get(k)!;
    if (HOST_SIDE.has(l.id) && l.status !== o.status) {
      assert.ok(["skip", "unknown"].includes(o.status), ctx(`${k}: host-side probe offline is ${o.status}`));
      continue;
    }
    assert.equal(
      o.status,
      l.status,
      ctx(`${k}: offline ${o.status} (${o.summary}) vs live ${l.status} (${l.summary})`),
    );
  }
  assert.equal(offline.diagnosis?.id ?? null, live.diagnosis?.id ?? null, ctx("diagnosis"));
  assert.equal(offline.exitCode, live.exitCode, ctx("exit code"));
  assert.equal(offline.mode, "snapshot");
  assert.equal(typeof offline.snapshotTakenAt, "string");
}

export async function withTmp<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

export const opts = { sanitizeResources: false, sanitizeOps: false };

/**
 * The per-scenario loop runs in-process (the same code paths as the CLI: `openSources`, `diagnose`,
 * `runCollectCommand`) to keep ~50 scenarios fast; the tests below go through the CLI binary.
 */
async function inProcess(s: Scenario, dir: string): Promise<{ live: Report; offline: Report }> {
  const { openSources, diagnoseSources, runOptionsFrom } = await import("../../cli/check.ts");
  const { runCollectCommand } = await import("../../cli/collect.ts");
  const args = checkArgs(s);
  const options = runOptionsFrom({
    networkProbes: !args.includes("--no-network-probes"),
    udpPrecise: args.includes("--udp-precise"),
    sampleInterval: SAMPLE_INTERVAL,
    timeout: "30s",
  });
  const peerAt = args.indexOf("--peer");
  const peers = peerAt >= 0 ? [args[peerAt + 1]] : undefined;
  // Plain HTTP here (the scenario tests cover TLS); the CLI tests below use HTTPS.
  const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
  const bundle = `${dir}/bundle.tar.gz`;
  let live: Report;
  try {
    const flags: { kubeconfig: string; remoteKubeconfig?: string } = {
      kubeconfig: `${dir}/local.kubeconfig`,
    };
    await Deno.writeTextFile(flags.kubeconfig, served.kubeconfigYaml(s.run.local));
    if (s.run.remote) {
      flags.remoteKubeconfig = `${dir}/remote.kubeconfig`;
      await Deno.writeTextFile(flags.remoteKubeconfig, served.kubeconfigYaml(s.run.remote));
    }
    const liveRun = async (): Promise<Report> => {
      const src = await openSources(flags, options.checkTimeoutMs);
      try {
        return await diagnoseSources(src.local, src.remote, options, peers);
      } finally {
        await src.local.close();
        await src.remote?.source?.close();
      }
    };
    const [l, code] = await Promise.all([
      liveRun(),
      runCollectCommand({
        ...flags,
        outputFile: bundle,
        sampleInterval: SAMPLE_INTERVAL,
        timeout: "30s",
        quiet: true,
      }),
    ]);
    assert.equal(code, 0, `${s.name}: collect exit code`);
    live = l;
  } finally {
    await served.close();
  }
  const snap = await openSources({ snapshot: bundle }, options.checkTimeoutMs);
  const offline = await diagnoseSources(snap.local, snap.remote, options, peers);
  return { live: JSON.parse(JSON.stringify(live)), offline: JSON.parse(JSON.stringify(offline)) };
}

/** Registers the snapshot round trip of every scenario in `names` (one shard's share, see shards.ts). */
export function registerSnapshotTests(names: readonly string[]): void {
  for (const name of names) registerSnapshotTest(name);
}

function registerSnapshotTest(name: string): void {
  Deno.test({
    name: `snapshot ${name}: collect, then check --snapshot offline = live run`,
    ...opts,
    fn: () =>
      withTmp(`ff-snap-${name}-`, async (dir) => {
        const s = await loadScenario(name);
        const { live, offline } = await inProcess(s, dir);
        assertSameDiagnosis(name, live, offline);
        // The scenario's expected statuses hold offline too (evidence wording is the scenario test's job).
        assertExpected({ ...s, expect: { ...s.expect, evidence: {} } }, {
          code: offline.exitCode,
          report: offline,
        });
      }),
  });
}
