/**
 * `flyingfish watch` against the fake API server, whose objects are swapped while it runs
 * (FakeCluster.replaceObjects): milan's gateway LoadBalancer loses its address (gw-lb-pending) and
 * gets it back (healthy-provider).
 *
 * - In process (the round runner, the session and the loop the command uses): the transitions of
 *   a swap are exactly the status differences between fresh one-shot diagnoses of the two states;
 *   after the first round no list is sent (only /version and the `wg show` execs); a scripted
 *   broken/healthy sequence is reported as flapping.
 * - Through the CLI: `--until healthy` exits 0 once the scenario heals, and 1 at `--wait` (`--timeout` is the run bound, exit 3, as on every command);
 *   the jsonl stream's shapes; the terminal dashboard in a pseudo-terminal (golden screen), and `q`
 *   leaving cleanly (cursor shown again).
 */
import assert from "node:assert/strict";
import {
  buildClusterConfig,
  type FakeCluster,
  loadScenario,
  type RequestLogEntry,
  type ServedScenario,
  serveScenario,
} from "../../fakekube/mod.ts";
import { createLiveSource } from "../../kube/live/source.ts";
import { openWatchableSource } from "../../kube/live/watch.ts";
import type { RunOptions } from "../../checks/types.ts";
import type { Report } from "../../report/model.ts";
import type { FlappingEvent, TransitionEvent, WatchEvent } from "../../report/watch_model.ts";
import { startRounds } from "../../watch/rounds.ts";
import { WatchSession } from "../../watch/session.ts";
import { runWatchLoop } from "../../watch/loop.ts";
import { runDiagnosis } from "../../diagnose/run.ts";
import { createProbeHub } from "../../probes/live_hub.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK } from "./harness.ts";
import { normalise, scriptPath } from "./scenario_cli.ts";
import { screenOf } from "./screen.ts";

const BROKEN = "gw-lb-pending";
const HEALTHY = "healthy-provider";
const CLUSTER = "milan";
const OPTIONS: RunOptions = {
  networkProbes: false,
  preciseUdp: false,
  sampleIntervalMs: 50,
  latencyThresholdMs: 200,
  checkTimeoutMs: 30_000,
};
const REPO = new URL("../../", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";
const GOLDEN_SCREEN = new URL(`../golden/watch.${BROKEN}.screen.txt`, import.meta.url);

/** The broken scenario served, and both states' objects to swap in. */
async function serveBroken(): Promise<{
  served: ServedScenario;
  cluster: FakeCluster;
  swap: (to: "broken" | "healthy") => number;
}> {
  const now = new Date();
  const [broken, healthy] = await Promise.all([loadScenario(BROKEN), loadScenario(HEALTHY)]);
  const served = await serveScenario(broken, { ...FAKE_CLOCK, now });
  const configs = {
    broken: await buildClusterConfig(broken, CLUSTER, now),
    healthy: await buildClusterConfig(healthy, CLUSTER, now),
  };
  const cluster = served.clusters[CLUSTER]!;
  return {
    served,
    cluster,
    swap: (to) =>
      cluster.replaceObjects(structuredClone(configs[to].objects), structuredClone(configs[to].wireguard)),
  };
}

/** A one-shot diagnosis over a plain live source (no watch cache), for the expected statuses. */
async function freshDiagnosis(kubeconfigYaml: string): Promise<Report> {
  const local = await createLiveSource({ kubeconfigYaml });
  try {
    return await runDiagnosis({
      local,
      options: OPTIONS,
      probes: (sources) =>
        createProbeHub({ sources, networkProbes: false, preciseUdp: false, sampleIntervalMs: 50 }),
    });
  } finally {
    await local.close();
  }
}

const keyOf = (r: { cluster: string; peer: string | null; id: string }) => `${r.cluster}|${r.peer}|${r.id}`;

/** The status differences between two reports, as `key from→to`. */
function statusDiff(a: Report, b: Report): string[] {
  const before = new Map(a.results.map((r) => [keyOf(r), r.status]));
  return b.results.filter((r) => before.get(keyOf(r)) !== r.status)
    .map((r) => `${keyOf(r)} ${before.get(keyOf(r))}→${r.status}`).sort();
}

type Kind = "list" | "watch" | "exec" | "version" | "discovery";
function kindOf(r: RequestLogEntry): Kind {
  if (r.upgrade) return "exec";
  if (/(^|&)watch=(1|true)/.test(r.query)) return "watch";
  if (r.path === "/version") return "version";
  if (/^\/(api|apis)(\/[^/]+){0,2}$/.test(r.path) && !/^\/api\/v1\/[a-z]+$/.test(r.path)) return "discovery";
  return "list";
}

function countKinds(rs: readonly RequestLogEntry[]): Partial<Record<Kind, number>> {
  const out: Partial<Record<Kind, number>> = {};
  for (const r of rs) out[kindOf(r)] = (out[kindOf(r)] ?? 0) + 1;
  return out;
}

Deno.test({
  name: "watch (in process): exact transitions on a swap, no lists after round 1, flapping from a sequence",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { served, cluster, swap } = await serveBroken();
    const kubeconfigYaml = served.kubeconfigYaml(CLUSTER);
    try {
      const expectedBroken = await freshDiagnosis(kubeconfigYaml);
      swap("healthy");
      const expectedHealthy = await freshDiagnosis(kubeconfigYaml);
      swap("broken");
      const healing = statusDiff(expectedBroken, expectedHealthy);
      assert.ok(healing.some((d) => d.includes("|GW-02 fail→pass")), healing.join("\n"));
      assert.equal(expectedHealthy.exitCode, 0, "the healed state is healthy");

      // Rounds: 1 broken (snapshot), 2 broken (nothing changes), 3 healthy, 4 broken, 5 healthy.
      const script: ("broken" | "healthy")[] = ["broken", "broken", "healthy", "broken", "healthy"];
      const runner = startRounds({ local: await openWatchableSource({ kubeconfigYaml }), options: OPTIONS });
      const session = new WatchSession({ intervalMs: 0, flapThreshold: 2, flapWindowMs: 60_000 });
      const events: WatchEvent[][] = [];
      const requests: RequestLogEntry[][] = [];
      let mark = 0;
      let settled = 0;
      try {
        const outcome = await runWatchLoop({
          runner,
          session,
          intervalMs: 0,
          maxRounds: script.length,
          beforeRound: async (round) => {
            if (round > 1) requests.push(cluster.requests.slice(mark));
            mark = cluster.requests.length;
            events.push([]);
            if (round > 1 && script[round - 1] !== script[round - 2]) {
              swap(script[round - 1]);
              // The watch events of the swap reach the cache before the round reads it: wait for
              // the first, then until none has come for 150 ms.
              const events = () => runner.cacheStats()[0].events;
              const want = events() + 1;
              const until = Date.now() + 10_000;
              let seen = -1;
              let quietSince = Date.now();
              while (Date.now() < until) {
                if (events() !== seen) [seen, quietSince] = [events(), Date.now()];
                if (seen >= want && Date.now() - quietSince >= 150) break;
                await new Promise((r) => setTimeout(r, 10));
              }
              settled++;
            }
          },
          emit: (ev) => events[events.length - 1]?.push(ev),
        });
        requests.push(cluster.requests.slice(mark));
        assert.equal(outcome.rounds, 5);
        assert.equal(settled, 3);
      } finally {
        await runner.close();
      }

      const types = events.map((round) => round.map((e) => e.type));
      assert.deepEqual(types[0], ["snapshot"]);
      assert.deepEqual(types[1], ["heartbeat"], "nothing changed in round 2");
      const transitions = (i: number) =>
        (events[i].filter((e) => e.type === "transition") as TransitionEvent[])
          .map((t) => `${keyOf(t)} ${t.from}→${t.to}`).sort();
      assert.deepEqual(transitions(2), healing, "round 3: exactly the transitions of healing");
      assert.deepEqual(
        transitions(3),
        statusDiff(expectedHealthy, expectedBroken),
        "round 4: breaking again",
      );
      assert.deepEqual(transitions(4), healing, "round 5: healing again");

      // GW-02 changed in rounds 3, 4 and 5: more than 2 changes, so flapping, reported in round 5.
      const flaps = events.flat().filter((e) => e.type === "flapping") as FlappingEvent[];
      assert.ok(
        flaps.some((f) => f.id === "GW-02" && f.changes === 3 && f.times.length === 3),
        JSON.stringify(flaps),
      );
      assert.ok(events[4].some((e) => e.type === "flapping" && e.id === "GW-02"));
      assert.equal(session.model(new Date(), 0).flapping.some((f) => f.id === "GW-02"), true);

      // Requests: round 1 lists; every later round sends no list, only /version and the execs.
      const perRound = requests.map(countKinds);
      assert.ok((perRound[0].list ?? 0) > 10, JSON.stringify(perRound[0]));
      for (const [i, c] of perRound.entries()) {
        if (i === 0) continue;
        assert.equal(c.list ?? 0, 0, `round ${i + 1}: ${JSON.stringify(c)}`);
        assert.equal(c.discovery ?? 0, 0, `round ${i + 1}: ${JSON.stringify(c)}`);
        assert.equal(c.version, 1, `round ${i + 1}: ${JSON.stringify(c)}`);
        assert.ok((c.exec ?? 0) >= 1, `round ${i + 1}: the execs still run: ${JSON.stringify(c)}`);
      }
    } finally {
      await served.close();
    }
  },
});

/** Runs `flyingfish watch` against the served cluster; `onLine` sees each stdout line as it comes. */
async function runWatchCli(
  kubeconfig: string,
  args: string[],
  /** Sees each stdout line; returning true ends the watch there (SIGINT, as Ctrl-C). */
  onLine: (line: string) => boolean | void = () => {},
): Promise<{ code: number; lines: string[]; stderr: string }> {
  const dir = await Deno.makeTempDir({ prefix: "ff-watch-" });
  try {
    await Deno.writeTextFile(`${dir}/kc.yaml`, kubeconfig);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--frozen",
        "--config",
        new URL("deno.json", REPO).pathname,
        ...CLI_PERMISSIONS,
        new URL("cli/main.ts", REPO).pathname,
        "watch",
        "--kubeconfig",
        `${dir}/kc.yaml`,
        "--no-network-probes",
        "--sample-interval",
        "50ms",
        ...args,
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const lines: string[] = [];
    const stderr = new Response(child.stderr).text();
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        if (onLine(line) === true) {
          try {
            child.kill("SIGINT");
          } catch {
            // already gone
          }
        }
      }
    }
    const { code } = await child.status;
    return { code, lines, stderr: await stderr };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "watch --until healthy: exit 0 when the scenario heals (jsonl stream); exit 1 at --wait",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const healing = await serveBroken();
    const stuck = await serveBroken();
    try {
      const [healed, timedOut] = await Promise.all([
        runWatchCli(
          healing.served.kubeconfigYaml(CLUSTER),
          ["--until", "healthy", "--interval", "200ms", "--wait", "60s"],
          (line) => {
            if (JSON.parse(line).type === "snapshot") healing.swap("healthy");
          },
        ),
        runWatchCli(stuck.served.kubeconfigYaml(CLUSTER), [
          "--until",
          "healthy",
          "--interval",
          "200ms",
          "--wait",
          "1s",
        ]),
      ]);

      assert.equal(healed.code, 0, healed.stderr);
      const events = healed.lines.map((l) => JSON.parse(l) as WatchEvent);
      assert.equal(events[0].type, "snapshot");
      const snapshot = events[0];
      assert.ok(snapshot.type === "snapshot");
      assert.equal(snapshot.exitCode, 2);
      assert.equal(snapshot.diagnosis?.id, "GW-02");
      assert.ok(snapshot.results.every((r) => typeof r.status === "string" && "peer" in r && "layer" in r));
      const gw02 = events.find((e) => e.type === "transition" && e.id === "GW-02");
      assert.ok(gw02 && gw02.type === "transition");
      assert.deepEqual(Object.keys(gw02).slice(0, 2), ["type", "time"]);
      assert.equal(gw02.from, "fail");
      assert.equal(gw02.to, "pass");
      assert.equal(gw02.peer, "rome-4b2a9e");
      const last = events[events.length - 1];
      assert.deepEqual({ ...last, time: "" }, {
        type: "end",
        time: "",
        reason: "healthy",
        exitCode: 0,
        rounds: last.type === "end" ? last.rounds : -1,
      });
      const beats = events.filter((e) => e.type === "heartbeat");
      assert.ok(beats.length >= 1);
      assert.equal(beats[beats.length - 1].type === "heartbeat" && beats[beats.length - 1].exitCode, 0);

      assert.equal(timedOut.code, 1, timedOut.stderr);
      assert.match(timedOut.stderr, /the peering did not become healthy within --wait 1s/);
      const end = JSON.parse(timedOut.lines[timedOut.lines.length - 1]);
      assert.equal(end.type, "end");
      assert.equal(end.reason, "timeout");
      assert.equal(end.exitCode, 1);
    } finally {
      await Promise.all([healing.served.close(), stuck.served.close()]);
    }
  },
});

Deno.test({
  name:
    "watch -o jsonl: a peering that breaks mid-run carries what changed since it last worked in the transition",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const breaking = await serveBroken();
    breaking.swap("healthy");
    try {
      let snapshots = 0;
      // Not --until failure: the gateway's samples change at once, the lists through the watches a
      // moment later; the watch runs on until the transition to fail names the cause (then it is
      // interrupted), bounded by --wait on a slow machine.
      const run = await runWatchCli(
        breaking.served.kubeconfigYaml(CLUSTER),
        ["-o", "jsonl", "--interval", "200ms", "--wait", "60s"],
        (line) => {
          const e = JSON.parse(line);
          if (e.type === "snapshot" && ++snapshots === 1) breaking.swap("broken");
          return e.type === "transition" && e.id === "GW-02" && e.to === "fail" &&
            e.changedSinceHealthy?.answer === "GW-02";
        },
      );
      // Interrupted, watch ends with its last round's exit code.
      assert.equal(run.code, 2, run.stderr);
      const events = run.lines.map((l) => JSON.parse(l) as WatchEvent);
      const gw02 = events.find((e): e is TransitionEvent => e.type === "transition" && e.id === "GW-02");
      assert.ok(gw02, run.lines.join("\n"));
      assert.equal(gw02.to, "fail");
      const since = gw02.changedSinceHealthy;
      assert.ok(since, "the transition to fail says what changed");
      assert.equal(since.answer, "GW-02");
      assert.equal(since.downstreamOf, null);
      const lb =
        /^\[local\] Service liqo-tenant-rome-4b2a9e\/gw-rome-4b2a9e: LoadBalancer address 203\.0\.113\.50 → \(none\)/;
      assert.ok(since.changes.some((c) => lb.test(c)), since.changes.join("\n"));
    } finally {
      await breaking.served.close();
    }
  },
});

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `flyingfish watch` in an 80×40 pseudo-terminal; `keys.text` is typed once the output matches `keys.when`. */
async function watchInPty(
  kubeconfig: string,
  args: string[],
  keys?: { text: string; when: RegExp },
): Promise<{ code: number; raw: string }> {
  const script = scriptPath();
  if (!script) throw new Error("util-linux `script` not found");
  const dir = await Deno.makeTempDir({ prefix: "ff-watch-pty-" });
  try {
    await Deno.writeTextFile(`${dir}/milan.kubeconfig`, kubeconfig);
    const argv = [
      Deno.execPath(),
      "run",
      "--frozen",
      "--config",
      new URL("deno.json", REPO).pathname,
      ...CLI_PERMISSIONS,
      new URL("cli/main.ts", REPO).pathname,
      "watch",
      "--kubeconfig",
      "milan.kubeconfig",
      "--no-network-probes",
      "--sample-interval",
      "50ms",
      ...args,
    ];
    const child = new Deno.Command(script, {
      args: [
        "-q",
        "-e",
        "-f",
        "-c",
        `stty cols 80 rows 40 && exec ${argv.map(shQuote).join(" ")}`,
        "/dev/null",
      ],
      cwd: dir,
      env: { TERM: "xterm-256color", NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const err = new Response(child.stderr).text();
    const writer = child.stdin.getWriter();
    let raw = "";
    let typed = false;
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      raw += chunk;
      if (keys && !typed && keys.when.test(raw)) {
        typed = true;
        await writer.write(new TextEncoder().encode(keys.text)).catch(() => {});
      }
    }
    const { code } = await child.status;
    await writer.close().catch(() => {});
    await err;
    return { code, raw };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The screen with its clock times, ages and durations replaced. */
function normaliseScreen(screen: string): string {
  return normalise(screen, "txt").replace(/\b\d\d:\d\d:\d\d\b/g, "<clock>");
}

Deno.test({
  name:
    "watch on a terminal: the dashboard (golden screen, 80 columns); q leaves cleanly, cursor shown again",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const a = await serveBroken();
    const b = await serveBroken();
    try {
      const [once, quit] = await Promise.all([
        watchInPty(a.served.kubeconfigYaml(CLUSTER), ["--until", "failure", "--interval", "5s"]),
        watchInPty(b.served.kubeconfigYaml(CLUSTER), ["--interval", "200ms"], {
          text: "q",
          when: /round 2 at/,
        }),
      ]);

      assert.equal(once.code, 0, once.raw);
      const screen = screenOf(once.raw, 80);
      assert.ok(!screen.wrapped, "no line wrapped at 80 columns");
      const shown = normaliseScreen(screen.text());
      if (UPDATE) await Deno.writeTextFile(GOLDEN_SCREEN, shown);
      assert.equal(
        shown,
        await Deno.readTextFile(GOLDEN_SCREEN),
        `the screen differs from ${GOLDEN_SCREEN.pathname}`,
      );
      assert.ok(
        once.raw.lastIndexOf("\x1b[?25h") > once.raw.lastIndexOf("\x1b[?25l"),
        "cursor shown at the end",
      );

      assert.equal(quit.code, 2, `q: the last round's exit code\n${quit.raw}`);
      const quitScreen = screenOf(quit.raw, 80).text();
      assert.match(quitScreen, /round \d+ at \d\d:\d\d:\d\d · stopped/, quitScreen);
      assert.match(quitScreen, /rome-4b2a9e .* GW-02 since/);
      assert.ok(
        quit.raw.lastIndexOf("\x1b[?25h") > quit.raw.lastIndexOf("\x1b[?25l"),
        "cursor shown at the end",
      );
      assert.ok(quit.raw.trimEnd().endsWith("\x1b[?25h"), "nothing drawn after the cursor came back");
    } finally {
      await Promise.all([a.served.close(), b.served.close()]);
    }
  },
});
