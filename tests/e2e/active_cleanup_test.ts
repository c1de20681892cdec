/**
 * Probe hygiene through the real CLI (`flyingfish probe matrix`), proven FROM THE SERVERS' STATE
 * (`FakeCluster.objects()`), never from what the CLI prints: whatever stops a run — SIGINT once the
 * run namespace exists, once the probe pods exist, or while an exec is in flight; the run's
 * `--timeout`; pods that never get Ready within `--probe-timeout` — nothing labelled with the run
 * id, and nothing in its namespace, is left in either fake cluster when the CLI exits. `--keep`
 * keeps the objects and `probe --cleanup --run-id` removes them afterwards (over HTTPS); a namespace
 * that never goes away is reported `stuck` and the CLI exits within its cleanup budget.
 *
 * The clusters are the dual-healthy rome ↔ milan peering with the fake server's write lifecycle and
 * a healthy network model; each test changes one knob.
 */
import assert from "node:assert/strict";
import {
  type FaultRule,
  lifecycleDefaults,
  type LifecycleInput,
  loadScenario,
  NetworkModelSchema,
  type Scenario,
  type ServedScenario,
  serveScenario,
} from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { PROBE_LABELS, probeNamespace } from "../../active/model.ts";
import { REPEAT_GRACE_MS } from "../../active/fleet/signals.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };
const REPO = new URL("../../", import.meta.url);
const CLUSTERS = ["rome", "milan"] as const;
type ClusterName = typeof CLUSTERS[number];

/** What one scenario variant changes: lifecycle knobs and faults per cluster, network model. */
interface Variant {
  lifecycle?: Partial<Record<ClusterName, LifecycleInput>>;
  faults?: Partial<Record<ClusterName, FaultRule[]>>;
  network?: Record<string, unknown>;
}

async function scenario(v: Variant): Promise<Scenario> {
  const s = await loadScenario("dual-healthy");
  s.network = NetworkModelSchema.parse(v.network ?? {});
  for (const name of CLUSTERS) {
    // Namespaces go 50 ms after their DELETE (default 300 ms): the runs wait less.
    s.clusters[name].lifecycle = lifecycleDefaults({ namespaceDeleteDelayMs: 50, ...v.lifecycle?.[name] });
    s.clusters[name].faults = v.faults?.[name] ?? [];
  }
  return s;
}

/** A served variant and kubeconfig files for the CLI. */
interface Served {
  served: ServedScenario;
  flags: string[];
  dir: string;
  close(): Promise<void>;
}

async function serve(v: Variant, tls = false): Promise<Served> {
  const served = await serveScenario(await scenario(v), { tls, ...FAKE_CLOCK });
  const dir = await Deno.makeTempDir({ prefix: "ff-active-cleanup-" });
  for (const c of CLUSTERS) await Deno.writeTextFile(`${dir}/${c}.yaml`, served.kubeconfigYaml(c));
  return {
    served,
    dir,
    flags: ["--kubeconfig", `${dir}/rome.yaml`, "--remote-kubeconfig", `${dir}/milan.yaml`],
    close: async () => {
      await served.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Everything of run `runId` a cluster still holds: labelled with it, its namespace, or inside it. */
function leftovers(s: Served, runId: string): string[] {
  const ns = probeNamespace(runId);
  return CLUSTERS.flatMap((c) =>
    s.served.clusters[c]!.objects()
      .filter((o) =>
        o.metadata.labels?.[PROBE_LABELS.runId] === runId || o.metadata.name === ns ||
        o.metadata.namespace === ns
      )
      .map((o) =>
        `${c}: ${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`
      )
  );
}

/** The run id of the first run namespace either cluster holds, if any. */
function runIdNow(s: Served): string | null {
  for (const c of CLUSTERS) {
    const ns = s.served.clusters[c]!.objects().find((o) =>
      o.kind === "Namespace" && o.metadata.name.startsWith("flyingfish-probe-")
    );
    const id = ns?.metadata.labels?.[PROBE_LABELS.runId];
    if (id) return id;
  }
  return null;
}

const podsOf = (s: Served, c: ClusterName, runId: string): K8sObject[] =>
  s.served.clusters[c]!.objects().filter((o) =>
    o.kind === "Pod" && o.metadata.namespace === probeNamespace(runId)
  );

/** A running CLI: its process, and its output once it exits. */
interface CliProcess {
  child: Deno.ChildProcess;
  done: Promise<{ code: number; stdout: string; stderr: string; ms: number }>;
}

function startCli(args: string[]): CliProcess {
  const t0 = Date.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--frozen",
      "--config",
      decodeURIComponent(new URL("deno.json", REPO).pathname),
      ...CLI_PERMISSIONS,
      decodeURIComponent(new URL("cli/main.ts", REPO).pathname),
      ...args,
    ],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const done = (async () => {
    const { code } = await child.status;
    return { code, stdout: await stdout, stderr: await stderr, ms: Date.now() - t0 };
  })();
  return { child, done };
}

/** `probe matrix` against the served clusters, JSON out. */
function probeMatrix(s: Served, extra: string[] = []): CliProcess {
  return startCli([
    "probe",
    "matrix",
    ...s.flags,
    "-o",
    "json",
    "--no-network-probes",
    "--sample-interval",
    SAMPLE_INTERVAL,
    ...extra,
  ]);
}

/** Polls `cond` every 10 ms until it holds (its value), failing after `ms` or if the CLI exits first. */
async function until<T>(
  what: string,
  cond: () => T | null | undefined | false,
  cli: CliProcess,
  ms = 60_000,
): Promise<T> {
  let exited = false;
  cli.done.then(() => exited = true);
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = cond();
    if (v) return v;
    if (exited) {
      const r = await cli.done;
      assert.fail(`the CLI exited (code ${r.code}) before ${what}:\n${r.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  cli.child.kill("SIGKILL");
  assert.fail(`timed out waiting for ${what}`);
}

/** Runs checks at once and fails with EVERY failure (not just the first). */
async function allOf(checks: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(checks)).filter((r) => r.status === "rejected");
  if (failed.length > 0) {
    assert.fail(failed.map((f) => String((f as PromiseRejectedResult).reason?.message ?? f)).join("\n\n"));
  }
}

/**
 * Sends SIGINT once `cond` holds, then asserts the CLI leaves nothing of the run and exits 130.
 * `delivered: 2` sends the one interrupt twice, back to back, as a terminal's Ctrl-C reaches a CLI
 * under a parent that forwards it (`deno task`): it is still one interrupt, and the run cleans up.
 */
async function interruptWhen(
  v: Variant,
  what: string,
  cond: (s: Served, runId: string) => boolean,
  delivered: 1 | 2 = 1,
): Promise<void> {
  const s = await serve(v);
  try {
    const cli = probeMatrix(s);
    const runId = await until(what, () => {
      const id = runIdNow(s);
      return id && cond(s, id) ? id : null;
    }, cli);
    cli.child.kill("SIGINT");
    if (delivered === 2) cli.child.kill("SIGINT");
    const r = await cli.done;
    assert.deepEqual(leftovers(s, runId), [], `SIGINT once ${what}: left behind\n${r.stderr}`);
    assert.equal(r.code, 130, `SIGINT once ${what}: exit code\n${r.stderr}`);
    // The report says the run did not finish, and carries the process's exit code.
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.exitCode, 130, `SIGINT once ${what}: the document's exit code`);
    assert.equal(doc.stopped?.by, "SIGINT", `SIGINT once ${what}: the document says it was stopped`);
    assert.match(doc.stopped.message, /did not finish \(interrupted by SIGINT\)/);
  } finally {
    await s.close();
  }
}

/** Pods that take long to start: a signal lands before the fleet is up. */
const SLOW_START: Variant = { lifecycle: { rome: { startDelayMs: 5_000 }, milan: { startDelayMs: 5_000 } } };

/** Every exec into a probe pod is held back 2 s by the server: a signal lands while one is open. */
const SLOW_EXEC: FaultRule[] = [{
  path: "^/api/v1/namespaces/flyingfish-probe-[a-z0-9]+/pods/[^/]+/exec$",
  type: "delay",
  ms: 2_000,
}];

const execsInto = (s: Served, id: string) =>
  CLUSTERS.flatMap((c) => s.served.clusters[c]!.requests)
    .filter((q) => q.upgrade && q.path.startsWith(`/api/v1/namespaces/${probeNamespace(id)}/pods/`));

Deno.test({
  name:
    "SIGINT once the namespace exists, once the pods exist, during an exec: nothing of the run is left; twice: the printed command removes it",
  ...sanitizers,
  fn: async () => {
    // Three runs at once (each its own pair of clusters): the suite pays for one.
    await allOf([
      interruptWhen(SLOW_START, "the run namespace exists", () => true),
      interruptWhen(
        SLOW_START,
        "the probe pods exist in both clusters",
        (s, id) => podsOf(s, "rome", id).length > 0 && podsOf(s, "milan", id).length > 0,
      ),
      interruptWhen(
        { faults: { rome: SLOW_EXEC, milan: SLOW_EXEC } },
        "an exec into a probe pod is in flight",
        (s, id) => execsInto(s, id).length > 0,
      ),
      interruptWhen(
        SLOW_START,
        "the probe pods exist (one Ctrl-C delivered twice, as through deno task)",
        (s, id) => podsOf(s, "rome", id).length > 0,
        2,
      ),
      interruptTwice(),
    ]);
  },
});

/**
 * Two SIGINTs: the CLI leaves at once (130) printing the cleanup command; running that very command
 * removes what the run left.
 */
async function interruptTwice(): Promise<void> {
  // The cleanup takes a while (namespaces stay Terminating 4 s): the second press lands during it.
  const s = await serve({
    lifecycle: {
      rome: { startDelayMs: 5_000, namespaceDeleteDelayMs: 4_000 },
      milan: { startDelayMs: 5_000, namespaceDeleteDelayMs: 4_000 },
    },
  });
  try {
    const cli = probeMatrix(s);
    const runId = await until("the probe pods exist", () => {
      const id = runIdNow(s);
      return id && podsOf(s, "milan", id).length > 0 ? id : null;
    }, cli);
    cli.child.kill("SIGINT");
    // A second press, not the same one delivered twice (that is ignored within REPEAT_GRACE_MS).
    await new Promise((r) => setTimeout(r, REPEAT_GRACE_MS + 150));
    cli.child.kill("SIGINT");
    const r = await cli.done;
    assert.equal(r.code, 130, r.stderr);
    const line = /interrupted again: leaving now; remove what is left with: (flyingfish probe --cleanup .*)$/m
      .exec(r.stderr);
    assert.ok(line, `the second signal prints the cleanup command:\n${r.stderr}`);
    const words = line[1].split(" ");
    assert.deepEqual(words.slice(0, 5), ["flyingfish", "probe", "--cleanup", "--run-id", runId]);
    const cleanup = await startCli(words.slice(1)).done;
    assert.deepEqual(leftovers(s, runId), [], `after: ${line[1]}\n${cleanup.stdout}${cleanup.stderr}`);
    assert.equal(cleanup.code, 0, cleanup.stderr);
  } finally {
    await s.close();
  }
}

/** Runs `probe matrix` with `extra` on clusters whose milan pods never get Ready; nothing may be left. */
async function neverReady(extra: string[]): Promise<{ code: number; ms: number }> {
  const s = await serve({ lifecycle: { milan: { startDelayMs: 120_000 } } });
  try {
    const cli = probeMatrix(s, extra);
    const runId = await until("the run namespace exists", () => runIdNow(s), cli);
    const r = await cli.done;
    assert.deepEqual(leftovers(s, runId), [], `${extra.join(" ")}: left behind\n${r.stderr}`);
    assert.notEqual(r.code, 0, r.stderr);
    if (extra.includes("--timeout")) {
      const doc = JSON.parse(r.stdout);
      assert.equal(r.code, 3, r.stderr);
      assert.equal(doc.exitCode, 3, "the document's exit code is the process's");
      assert.equal(doc.stopped?.by, "timeout");
      assert.match(doc.stopped.message, /--timeout 8s was reached/);
    }
    return r;
  } finally {
    await s.close();
  }
}

Deno.test({
  name: "the run's --timeout and --probe-timeout (pods never Ready) end the run: nothing of the run is left",
  ...sanitizers,
  fn: async () => {
    const [run, probe] = await Promise.all([
      neverReady(["--timeout", "8s"]),
      neverReady(["--probe-timeout", "2s"]),
    ]);
    assert.ok(run.ms < 8_000 + 30_000, `--timeout: exited after ${run.ms} ms`);
    assert.ok(probe.ms < 60_000, `--probe-timeout: exited after ${probe.ms} ms`);
  },
});

/** `--keep`, then `probe --cleanup --run-id` (over HTTPS). */
async function keepThenCleanup(): Promise<void> {
  const s = await serve({}, true);
  try {
    const r = await probeMatrix(s, ["--keep"]).done;
    assert.equal(r.code, 0, r.stderr);
    const runId = runIdNow(s);
    assert.ok(runId, `a run namespace is kept:\n${r.stderr}`);
    for (const c of CLUSTERS) {
      const names = s.served.clusters[c]!.objects().map((o) => o.metadata.name);
      assert.ok(names.includes(probeNamespace(runId)), `${c} keeps the namespace`);
      assert.ok(podsOf(s, c, runId).length > 0, `${c} keeps the probe pods`);
    }
    assert.match(r.stderr, new RegExp(`flyingfish probe --cleanup --run-id ${runId}`));

    const cleanup = await startCli(["probe", "--cleanup", "--run-id", runId, ...s.flags]).done;
    assert.deepEqual(leftovers(s, runId), [], cleanup.stdout + cleanup.stderr);
    assert.equal(cleanup.code, 0, cleanup.stderr);
  } finally {
    await s.close();
  }
}

/** A namespace that never goes away: reported stuck, exit within the cleanup budget. */
async function stuckNamespace(): Promise<void> {
  const s = await serve({ lifecycle: { milan: { namespaceStuck: true } } });
  try {
    const cli = probeMatrix(s, ["--cleanup-timeout", "2s"]);
    const runId = await until("the run namespace exists", () => runIdNow(s), cli);
    const r = await cli.done;
    // The servers say: rome's namespace is gone; milan's is still there, Terminating.
    const milanNs = s.served.clusters.milan!.objects().find((o) => o.metadata.name === probeNamespace(runId));
    assert.ok(milanNs?.metadata.deletionTimestamp, "milan's namespace is Terminating");
    assert.equal(
      s.served.clusters.rome!.objects().some((o) => o.metadata.name === probeNamespace(runId)),
      false,
    );
    // And the report says so, naming what holds it.
    const report = JSON.parse(r.stdout);
    const byCluster = Object.fromEntries(
      (report.active?.cleanup ?? []).map((c: { cluster: string; status: string; detail: string }) => [
        c.cluster.startsWith("milan") ? "milan" : "rome",
        c,
      ]),
    );
    assert.equal(byCluster.rome?.status, "removed", r.stderr);
    assert.equal(byCluster.milan?.status, "stuck", r.stderr);
    assert.match(byCluster.milan.detail, /finalizers kubernetes/);
    assert.ok(r.ms < 45_000, `exited after ${r.ms} ms`);
    assert.match(r.stderr, new RegExp(`flyingfish probe --cleanup --run-id ${runId}`));
  } finally {
    await s.close();
  }
}

Deno.test({
  name:
    "--keep then `probe --cleanup --run-id` removes the run (HTTPS); a stuck namespace is reported, not waited on",
  ...sanitizers,
  fn: async () => {
    await allOf([keepThenCleanup(), stuckNamespace()]);
  },
});
