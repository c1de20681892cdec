/**
 * `flyingfish serve` in in-cluster mode against the fake API server: a fake service-account
 * directory (token, CA, namespace) and KUBERNETES_SERVICE_HOST/PORT on 127.0.0.1, no kubeconfig.
 * In-process: /metrics parsed strictly and asserted, /report and / served, the scenario healed
 * mid-run (the watches carry the change) and the metrics follow; the request log and
 * deploy/clusterrole.yaml match both ways (but the `kubectl exec` fallback's pod GET). Through the
 * CLI: the Containerfile's permission flags suffice, and SIGTERM stops it cleanly. Dual mode with
 * kubeconfigs; and the CronJob's kubeconfig (token by file) works for `check`.
 */
import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { diagnose } from "../../mod.ts";
import { buildClusterConfig, type FakeCluster, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { runServeCommand } from "../../cli/serve_cmd.ts";
import { parsePromText, type PromFamily } from "../support/prom_text.ts";
import { covers, granted, permissionKey, permissionsOf, type Rule } from "../support/rbac.ts";
import { FAKE_CLOCK } from "./harness.ts";
import type { DiffReport } from "../../report/diff_schema.ts";

const REPO = new URL("../../", import.meta.url);

async function fakeServiceAccount(cluster: FakeCluster): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "ff-serve-sa-" });
  await Deno.writeTextFile(`${dir}/token`, cluster.token);
  await Deno.writeTextFile(`${dir}/ca.crt`, cluster.caPem!);
  await Deno.writeTextFile(`${dir}/namespace`, "flyingfish");
  return dir;
}

async function scrape(base: string): Promise<Map<string, PromFamily>> {
  const res = await fetch(`${base}/metrics`);
  assert.equal(res.status, 200);
  return parsePromText(await res.text());
}

function value(
  families: Map<string, PromFamily>,
  name: string,
  labels: Record<string, string>,
): number | undefined {
  return families.get(name)?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;
}

/** The status of a GET (the body is discarded). */
async function statusOf(url: string): Promise<number> {
  const r = await fetch(url);
  await r.body?.cancel();
  return r.status;
}

/** Polls `probe` every 50 ms until it returns true (or fails after `ms`). */
async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function deployClusterRole(): Promise<Rule[]> {
  const doc = parse(await Deno.readTextFile(new URL("deploy/clusterrole.yaml", REPO)));
  return doc.rules as Rule[];
}

Deno.test({
  name:
    "serve: in-cluster credentials, /metrics follows a scenario that heals mid-run, the role covers every request",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const broken = await loadScenario("wg-tunnel-down-logs");
    const now = new Date();
    const served = await serveScenario(broken, { tls: true, now, ...FAKE_CLOCK });
    const cluster = served.clusters[broken.run.local]!;
    const dir = await fakeServiceAccount(cluster);
    const stop = new AbortController();
    const log: string[] = [];
    let listening!: (port: number) => void;
    const port = new Promise<number>((r) => listening = r);
    const env: Record<string, string> = {
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: new URL(cluster.url).port,
    };
    const run = runServeCommand(
      {
        listen: "127.0.0.1:0",
        interval: "200ms",
        sampleInterval: "100ms",
        networkProbes: false,
        serviceAccountDir: dir,
      },
      {
        signal: stop.signal,
        onListening: (a) => listening(a.port),
        log: (l) => log.push(l),
        env: (n) => env[n],
      },
    );
    try {
      const base = `http://127.0.0.1:${await Promise.race([port, run.then(() => 0)])}`;
      assert.match(log[0], /in-cluster credentials \(namespace flyingfish\)/);
      await until("/readyz", 20_000, async () => await statusOf(`${base}/readyz`) === 200);

      // The broken scenario: the tunnel is down (TUN-01 fails, citing the gateway's logs), and that is
      // the first broken link of the peer.
      let m = await scrape(base);
      const tun01 = m.get("flyingfish_check_status")!.samples.filter((s) => s.labels.check === "TUN-01");
      assert.deepEqual(tun01.filter((s) => s.value === 1).map((s) => s.labels.status), ["fail"]);
      const peer = tun01[0].labels.peer;
      assert.ok(peer, "TUN-01 is per peer");
      assert.equal(value(m, "flyingfish_peer_broken", { peer }), 1);
      assert.equal(
        m.get("flyingfish_peer_first_broken")!.samples.find((s) => s.labels.peer === peer)?.labels.check,
        broken.expect.diagnosis,
      );
      const report = await (await fetch(`${base}/report`)).json();
      assert.equal(report.diagnosis.id, broken.expect.diagnosis);
      assert.equal(report.exitCode, broken.expect.exitCode);
      const html = await fetch(`${base}/`);
      assert.match(html.headers.get("content-type") ?? "", /text\/html/);
      assert.match(await html.text(), /TUN-01/);

      // Heal it while serve runs: the watches carry the change, the next rounds see it.
      const healthy = await buildClusterConfig(await loadScenario("healthy-consumer"), broken.run.local, now);
      cluster.replaceObjects(healthy.objects, healthy.wireguard);
      await until("the healed peering in /metrics", 20_000, async () => {
        m = await scrape(base);
        return value(m, "flyingfish_peer_broken", { peer }) === 0;
      });
      assert.equal(value(m, "flyingfish_check_status", { check: "TUN-01", peer, status: "pass" }), 1);
      assert.ok(
        (value(m, "flyingfish_check_transitions_total", { check: "TUN-01", peer, layer: "tunnel" }) ?? 0) >=
          1,
      );
      assert.equal(m.get("flyingfish_peer_first_broken")!.samples.length, 0);
      assert.ok((value(m, "flyingfish_rounds_total", { result: "success" }) ?? 0) >= 2);
      assert.equal(value(m, "flyingfish_rounds_total", { result: "error" }), 0);
      assert.ok(
        (value(m, "flyingfish_last_successful_round_timestamp_seconds", {}) ?? 0) * 1000 > now.getTime(),
      );
      // Healthy: nothing to say at /diff. Broken again: what changed since the healthy round, at /diff,
      // in /report's JSON and in the HTML report.
      const none = await fetch(`${base}/diff`);
      assert.equal(none.status, 204);
      assert.equal(none.headers.get("x-flyingfish-reason"), "the latest round has no failure");
      const again = await buildClusterConfig(broken, broken.run.local, now);
      cluster.replaceObjects(again.objects, again.wireguard);
      // The gateway's `wg show` changes at once, the lists through the watches a moment later: a round
      // in between may answer with the tunnel's symptom; the rounds after it, with the diagnosis.
      const seen: { diff: DiffReport | null } = { diff: null };
      await until("/diff after the break", 20_000, async () => {
        const r = await fetch(`${base}/diff`);
        seen.diff = r.status === 200 ? await r.json() : (await r.body?.cancel(), null);
        return seen.diff?.answer?.id === broken.expect.diagnosis;
      });
      const diff = seen.diff!;
      assert.equal(diff.kind, "flyingfish-diff");
      assert.equal(diff.answer?.id, broken.expect.diagnosis);
      assert.equal(diff.exitCode, 2);
      const since = (await (await fetch(`${base}/report`)).json()).changedSinceHealthy;
      assert.equal(since?.answer?.id, broken.expect.diagnosis);
      assert.match(await (await fetch(`${base}/`)).text(), /What changed since it last worked/);
      // No secret in anything served.
      for (const path of ["/metrics", "/report", "/", "/diff"]) {
        assert.ok(!(await (await fetch(`${base}${path}`)).text()).includes(cluster.token), path);
      }
    } finally {
      stop.abort();
      assert.equal(await run, 0);
      await served.close();
      await Deno.remove(dir, { recursive: true });
    }

    // Only reads, all of them granted by deploy/'s role; the lists after the first round were watches.
    assert.deepEqual(
      cluster.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`),
      [],
    );
    const grants = granted(await deployClusterRole());
    const needed = new Map(cluster.requests.flatMap(permissionsOf).map((p) => [permissionKey(p), p]));
    const missing = [...needed.values()].filter((n) => !grants.some((g) => covers(g, n))).map(permissionKey);
    assert.deepEqual(missing, []);
    assert.ok([...needed.keys()].some((k) => k.endsWith(" watch")), "serve opened no watch");
    // Both ways: the role grants nothing the run did not use but the `kubectl exec` fallback's pod GET.
    const unused = grants.filter((g) => ![...needed.values()].some((n) => covers(g, n))).map(permissionKey);
    assert.deepEqual(unused, ["core pods get"]);
  },
});

/** The permission flags of the Containerfile's ENTRYPOINT. */
async function containerPermissions(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("deploy/Containerfile", REPO));
  const m = /^ENTRYPOINT (\[[\s\S]*?\])\s*$/m.exec(text.replace(/\\\n/g, ""));
  assert.ok(m, "no ENTRYPOINT in deploy/Containerfile");
  return (JSON.parse(m[1]) as string[]).filter((a) => a.startsWith("--allow-"));
}

Deno.test({
  name: "serve (CLI): the Containerfile's permissions suffice in-cluster; SIGTERM stops it with exit 0",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await loadScenario("healthy-provider");
    const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
    const cluster = served.clusters[s.run.local]!;
    const dir = await fakeServiceAccount(cluster);
    // The image's flags, with the test's service-account directory for the real one and the network
    // narrowed to 127.0.0.1 (nothing else may be reached from a test).
    const perms = (await containerPermissions()).map((p) =>
      p.startsWith("--allow-read=")
        ? p.replace("/var/run/secrets/kubernetes.io/serviceaccount", dir)
        : p === "--allow-net"
        ? "--allow-net=127.0.0.1"
        : p
    );
    assert.ok(
      perms.includes("--allow-env") && perms.some((p) => p.startsWith("--allow-read=")),
      perms.join(" "),
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--frozen",
        "--config",
        decodeURIComponent(new URL("deno.json", REPO).pathname),
        ...perms,
        decodeURIComponent(new URL("cli/main.ts", REPO).pathname),
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--interval",
        "500ms",
        "--sample-interval",
        "100ms",
        "--no-network-probes",
        "--service-account-dir",
        dir,
      ],
      clearEnv: true,
      env: {
        KUBERNETES_SERVICE_HOST: "127.0.0.1",
        KUBERNETES_SERVICE_PORT: new URL(cluster.url).port,
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let err = "";
    try {
      while (!/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(err)) {
        const { value, done } = await stderr.read();
        if (done) throw new Error(`serve exited early: ${err}`);
        err += value;
      }
      const base = `http://127.0.0.1:${/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err)![1]}`;
      await until("/readyz", 30_000, async () => await statusOf(`${base}/readyz`) === 200);
      const m = await scrape(base);
      assert.equal(value(m, "flyingfish_check_results", { status: "fail" }), 0);
      assert.ok(m.get("flyingfish_peer_broken")!.samples.every((x) => x.value === 0));
      const post = await fetch(`${base}/metrics`, { method: "POST", body: "" });
      await post.body?.cancel();
      assert.equal(post.status, 405);
    } finally {
      child.kill("SIGTERM");
      const status = await child.status;
      // Drain the rest of stderr for the message below.
      for (;;) {
        const { value, done } = await stderr.read();
        if (done) break;
        err += value;
      }
      await child.stdout.cancel();
      await served.close();
      await Deno.remove(dir, { recursive: true });
      assert.equal(status.code, 0, err);
    }
    assert.match(err, /stopped/);
    assert.doesNotMatch(err, /Requires|NotCapable|missing Deno permission/);
  },
});

Deno.test({
  name:
    "serve: dual mode (--kubeconfig and --remote-kubeconfig, no in-cluster): both ends' checks in /metrics",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await loadScenario("dual-healthy");
    const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
    const dir = await Deno.makeTempDir({ prefix: "ff-serve-dual-" });
    const stop = new AbortController();
    let listening!: (port: number) => void;
    const port = new Promise<number>((r) => listening = r);
    try {
      await Deno.writeTextFile(`${dir}/local`, served.kubeconfigYaml(s.run.local));
      await Deno.writeTextFile(`${dir}/remote`, served.kubeconfigYaml(s.run.remote!));
      const run = runServeCommand(
        {
          kubeconfig: `${dir}/local`,
          remoteKubeconfig: `${dir}/remote`,
          listen: "127.0.0.1:0",
          interval: "200ms",
          sampleInterval: "100ms",
          networkProbes: false,
        },
        { signal: stop.signal, onListening: (a) => listening(a.port), log: () => {}, env: () => undefined },
      );
      try {
        const base = `http://127.0.0.1:${await Promise.race([port, run.then(() => 0)])}`;
        await until("/readyz", 20_000, async () => await statusOf(`${base}/readyz`) === 200);
        const m = await scrape(base);
        const clusters = new Set(m.get("flyingfish_check_status")!.samples.map((x) => x.labels.cluster));
        assert.ok([...clusters].some((c) => c.includes(" ↔ ")), [...clusters].join(", "));
        assert.equal(value(m, "flyingfish_check_results", { status: "fail" }), 0);
        assert.ok(m.get("flyingfish_peer_broken")!.samples.length >= 2, "both ends' peers");
      } finally {
        stop.abort();
        assert.equal(await run, 0);
      }
    } finally {
      await served.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "cronjob: the ConfigMap's kubeconfig (service-account token by file) runs `check` against the fake API server",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await loadScenario("gw-lb-pending");
    const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
    const cluster = served.clusters[s.run.local]!;
    const sa = await fakeServiceAccount(cluster);
    try {
      const cm = parse(await Deno.readTextFile(new URL("deploy/cronjob/kubeconfig.yaml", REPO)));
      const kubeconfig = parse(cm.data.kubeconfig);
      // The pod's paths and the in-cluster Service, swapped for the test's directory and server.
      kubeconfig.clusters[0].cluster.server = cluster.url;
      kubeconfig.clusters[0].cluster["certificate-authority"] = `${sa}/ca.crt`;
      kubeconfig.users[0].user.tokenFile = `${sa}/token`;
      await Deno.writeTextFile(`${sa}/kubeconfig`, stringify(kubeconfig));
      const report = await diagnose({
        kubeconfig: `${sa}/kubeconfig`,
        networkProbes: false,
        sampleIntervalMs: 100,
      });
      assert.equal(report.diagnosis?.id, s.expect.diagnosis);
      assert.equal(report.exitCode, s.expect.exitCode);
    } finally {
      await served.close();
      await Deno.remove(sa, { recursive: true });
    }
  },
});
