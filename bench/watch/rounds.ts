/**
 * `deno task bench:watch`: 1000 rounds of `flyingfish watch` (the round runner, the session and the
 * loop the command uses, --interval 0, --sample-interval 1ms) against the fake API server running
 * in a process of its own, with the product's V8 flags. Prints the RSS and V8 heap at round 10 and every tenth
 * of the run up to round 1000, and the requests the server received per round (round 1, then the
 * average of the rest).
 *
 *   deno task bench:watch [rounds] [scenario]
 */
import v8 from "node:v8";
import { openWatchableSource } from "../../kube/live/watch.ts";
import { startRounds } from "../../watch/rounds.ts";
import { WatchSession } from "../../watch/session.ts";
import { runWatchLoop } from "../../watch/loop.ts";

const ROUNDS = Number(Deno.args[0] ?? 1000);
const SCENARIO = Deno.args[1] ?? "gw-lb-pending";
/** Rounds after which the memory is printed: 10, then every tenth of the run. */
const MARKS = new Set([10, ...Array.from({ length: 10 }, (_, i) => Math.round((ROUNDS * (i + 1)) / 10))]);

/**
 * RSS, and the V8 heap used and reserved, in MB, as the process stands (no collection forced here:
 * the watch loop itself compacts the heap every 20 rounds, see watch/heap.ts, and this shows what
 * that leaves); and where the heap is (old space used/reserved, compiled code).
 */
function memory(): { rssMB: number; heapMB: number; heapTotalMB: number; spaces: string } {
  const m = Deno.memoryUsage();
  const mb = (n: number) => +(n / 1e6).toFixed(1);
  const space = (name: string) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name);
  const old = space("old_space");
  const code = space("code_space");
  const spaces = `old ${mb(old?.space_used_size ?? 0)}/${mb(old?.space_size ?? 0)} MB, ` +
    `code ${mb(code?.space_used_size ?? 0)} MB`;
  return { rssMB: mb(m.rss), heapMB: mb(m.heapUsed), heapTotalMB: mb(m.heapTotal), spaces };
}

const dir = await Deno.makeTempDir({ prefix: "ff-bench-watch-" });
const kubeconfig = `${dir}/kubeconfig`;
const server = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--frozen",
    "--allow-env",
    "--allow-read",
    "--allow-write",
    "--allow-net=127.0.0.1",
    new URL("./serve.ts", import.meta.url).pathname,
    SCENARIO,
    kubeconfig,
  ],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const serverOut = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
const serverIn = server.stdin.getWriter();
let pending = "";
async function serverLine(): Promise<Record<string, number>> {
  while (!pending.includes("\n")) {
    const { value, done } = await serverOut.read();
    if (done) throw new Error("the fake server ended");
    pending += value;
  }
  const line = pending.slice(0, pending.indexOf("\n"));
  pending = pending.slice(pending.indexOf("\n") + 1);
  return JSON.parse(line);
}
async function requestsSinceLastAsk(): Promise<Record<string, number>> {
  await serverIn.write(new TextEncoder().encode("\n"));
  return await serverLine();
}

await serverLine(); // ready
const runner = startRounds({
  local: await openWatchableSource({ kubeconfigYaml: await Deno.readTextFile(kubeconfig) }),
  options: {
    networkProbes: false,
    preciseUdp: false,
    sampleIntervalMs: 1,
    latencyThresholdMs: 200,
    checkTimeoutMs: 30_000,
  },
});
const session = new WatchSession({ intervalMs: 0 });
const perRound: Record<string, number>[] = [];
let rssAtTen: number | null = null;
/** Growth allowed between round 10 and the last round: what run-to-run noise reaches here. */
const NOISE_MB = 10;
const started = performance.now();
console.log(
  `flyingfish watch benchmark: ${ROUNDS} rounds of ${SCENARIO}, --interval 0, --sample-interval 1ms`,
);
try {
  await runWatchLoop({
    runner,
    session,
    intervalMs: 0,
    maxRounds: ROUNDS,
    emit: () => {},
    beforeRound: async (round) => {
      if (round > 1) perRound.push(await requestsSinceLastAsk());
      const done = round - 1;
      if (MARKS.has(done)) {
        const m = memory();
        if (done === 10) rssAtTen = m.rssMB;
        console.log(
          `round ${String(done).padStart(4)}: rss ${m.rssMB} MB, heap ${m.heapMB} MB of ${m.heapTotalMB} MB` +
            ` (${m.spaces}; ${((performance.now() - started) / done).toFixed(0)} ms/round)`,
        );
      }
    },
  });
  perRound.push(await requestsSinceLastAsk());
  const m = memory();
  console.log(
    `round ${
      String(ROUNDS).padStart(4)
    }: rss ${m.rssMB} MB, heap ${m.heapMB} MB of ${m.heapTotalMB} MB (${m.spaces})`,
  );
  if (rssAtTen !== null) {
    const growth = +(m.rssMB - rssAtTen).toFixed(1);
    console.log(
      `acceptance (issue 15): rss round 10 ${rssAtTen} MB → round ${ROUNDS} ${m.rssMB} MB, ` +
        `growth ${growth} MB ≤ ${NOISE_MB} MB ${growth <= NOISE_MB ? "✓" : "✗"}`,
    );
  }
} finally {
  await runner.close();
  await serverIn.close();
  await server.status;
  await Deno.remove(dir, { recursive: true });
}

const later = perRound.slice(1);
const avg: Record<string, number> = {};
for (const r of later) for (const [k, v] of Object.entries(r)) avg[k] = (avg[k] ?? 0) + v / later.length;
const fmt = (r: Record<string, number>) =>
  Object.entries(r).sort().map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(2)}`).join(", ");
console.log(`requests in round 1: ${fmt(perRound[0])}`);
console.log(`requests per round after it (mean of ${later.length}): ${fmt(avg)}`);
console.log(`watch cache: ${JSON.stringify(runner.cacheStats()[0])}`);
