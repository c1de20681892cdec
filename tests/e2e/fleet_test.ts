/**
 * Fleet mode end to end: the fleets of testdata/fleet/ served by the fake API server (many
 * clusters in one process, one merged kubeconfig split over two files to exercise a repeated
 * `--kubeconfig`), ONE real CLI run per fleet (`check --all-contexts -o json`) asserting, per
 * edge, its class, verdict, first broken link and check results, per cluster its errors and the
 * contexts reaching it, the exit code, the document against the published schema — and, from the
 * servers' request logs, that every cluster was read once whatever the number of its edges. The
 * other formats are rendered from the same document in-process (the renderers are pure).
 */
import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { loadFleet, serveFleet, startFakeCluster } from "../../fakekube/mod.ts";
import { healthyFleet, SECOND_CONSUMER } from "../../bench/fleet/healthy.ts";
import { FleetReportSchema } from "../../report/fleet.ts";
import { renderFleet } from "../../render/fleet.ts";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";

/** What a failure message shows of an edge. */
interface FleetEdgeLite {
  id: string;
  verdict: string;
  firstBroken: { id: string; summary: string } | null;
}

/** Splits a kubeconfig in two files (contexts, users and clusters of the first half, then the rest). */
async function splitKubeconfig(yaml: string, dir: string): Promise<string[]> {
  const kc = parse(yaml) as Record<string, { name: string }[]>;
  const half = Math.ceil(kc.clusters.length / 2);
  const names = [kc.clusters.slice(0, half).map((c) => c.name), kc.clusters.slice(half).map((c) => c.name)];
  const files: string[] = [];
  for (const [i, part] of names.entries()) {
    // deno-lint-ignore no-explicit-any
    const ctxs = (kc.contexts as any[]).filter((c) => part.includes(c.context.cluster));
    const doc = {
      apiVersion: "v1",
      kind: "Config",
      clusters: kc.clusters.filter((c) => part.includes(c.name)),
      users: kc.users.filter((u) => ctxs.some((c) => c.context.user === u.name)),
      contexts: ctxs,
      ...(i === 0 ? { "current-context": ctxs[0].name } : {}),
    };
    const f = `${dir}/fleet-${i}.yaml`;
    await Deno.writeTextFile(f, stringify(doc));
    files.push(f);
  }
  return files;
}

Deno.test("fleet mixed: every class of edge, per-edge diagnosis, unreadable clusters, one read per cluster", async () => {
  const fleet = await loadFleet("mixed");
  const served = await serveFleet(fleet, FAKE_CLOCK);
  const tmp = await Deno.makeTempDir({ prefix: "ff-fleet-" });
  try {
    const files = await splitKubeconfig(served.kubeconfigYaml, tmp);
    const r = await runCli([
      "check",
      ...files.flatMap((f) => ["--kubeconfig", f]),
      "--all-contexts",
      "--no-network-probes",
      "--sample-interval",
      SAMPLE_INTERVAL,
      // Generous for a loaded CI machine: only palermo, which never answers, may run into it.
      "--cluster-timeout",
      "6s",
      "-o",
      "json",
    ]);
    assert.equal(r.code, fleet.expect.exitCode, r.stderr);
    const doc = FleetReportSchema.parse(JSON.parse(r.stdout));
    assert.equal(doc.exitCode, fleet.expect.exitCode);
    assert.equal(doc.summary.clusters, fleet.expect.clusters);
    assert.deepEqual(
      Object.keys(doc.edges).sort(),
      Object.keys(fleet.expect.edges).sort(),
      JSON.stringify(doc.clusters.map((c) => [c.name, c.error, c.contexts])),
    );
    for (const [id, want] of Object.entries(fleet.expect.edges)) {
      const e = doc.edges[id];
      assert.equal(e.class, want.class, id);
      assert.equal(e.verdict, want.verdict, `${id}: ${e.firstBroken?.id} ${e.firstBroken?.summary}`);
      assert.equal(
        e.firstBroken?.id ?? null,
        want.firstBroken ?? (want.verdict === "pass" ? null : e.firstBroken?.id ?? null),
        id,
      );
      for (const [check, status] of Object.entries(want.results)) {
        const rs = e.report!.results.filter((x) => x.id === check);
        assert.ok(rs.length > 0, `${id}: no ${check}`);
        assert.ok(rs.some((x) => x.status === status), `${id}: ${check} ${rs.map((x) => x.status)}`);
      }
      const text = [e.reason, e.finding?.summary ?? "", ...(e.finding?.evidence ?? [])].join("\n");
      for (const s of want.says) assert.ok(text.includes(s), `${id}: "${s}" not in ${text}`);
    }
    // Paired edges are judged as --remote-kubeconfig judges them: both ends, the pair's peers only.
    const paired = doc.edges["rome-4b2a9e→milan-8d1f03"].report!;
    assert.deepEqual(paired.clusters.map((c) => c.name), ["rome-4b2a9e", "milan-8d1f03"]);
    assert.deepEqual([...new Set(paired.results.map((x) => x.peer).filter(Boolean))].sort(), [
      "milan-8d1f03",
      "rome-4b2a9e",
    ]);
    // Half-visible: the cross-checks are skipped not-applicable, naming why — never failed.
    const half = doc.edges["lecce-9f8e7d→bari-3c4d5e"].report!;
    const cross = half.results.filter((x) => x.id === "GW-04");
    assert.ok(
      cross.every((x) =>
        x.status === "skip" && x.skipKind === "not-applicable" && /not in the fleet/.test(x.summary)
      ),
    );
    for (const [name, want] of Object.entries(fleet.expect.errors)) {
      const c = doc.clusters.find((x) => x.name === name)!;
      assert.ok(c.error?.includes(want), `${name}: ${c.error}`);
    }
    for (const [name, want] of Object.entries(fleet.expect.contexts)) {
      const c = doc.clusters.find((x) => x.name === name)!;
      assert.deepEqual(c.contexts, want);
      assert.match(
        c.chosenBecause ?? "",
        /rome-old was refused \(.*\(401\)\): used rome, the next context reaching/,
      );
    }
    // Nothing read twice: rome is on two edges, and each of its reads was answered once (rome-old's
    // refused attempt, answered 401, read nothing).
    for (const name of ["rome", "milan", "bari"]) {
      const gets = served.clusters[name]!.requests.filter((q) =>
        q.method === "GET" && !q.upgrade && !q.path.includes("/exec") && q.status < 400
      )
        .map((q) => `${q.path}?${q.query}`);
      const twice = gets.filter((g, i) => gets.indexOf(g) !== i);
      assert.deepEqual(twice, [], `${name} read twice`);
    }
    // The other formats, from the same document.
    const opts = { color: false, verbose: false, quiet: false };
    const text = renderFleet(doc, "text", opts);
    assert.match(text.split("\n")[0], /^FLEET {2}8 clusters from 10 contexts \(2 unreadable\) · 5 edges/);
    assert.match(text, /first broken link: TUN-04 on ostia-2b7c9d/);
    const junit = renderFleet(doc, "junit", opts);
    assert.equal(
      (junit.match(/<testsuite name="[^"]*\[(paired|half-visible|asymmetric|orphan)\]"/g) ?? []).length,
      5,
    );
    const html = renderFleet(doc, "html", opts);
    assert.match(html, /<svg class="fleet"/);
    assert.equal((html.match(/<g class="edge /g) ?? []).length, 5);
    assert.match(html, /data-edge="ostia-2b7c9d→genoa-5e8a1f" data-verdict="fail"/);
    assert.doesNotMatch(html, /<script|https?:\/\/(?!flyingfish\.dev|www\.w3\.org|127\.0\.0\.1)/);
    const md = renderFleet(doc, "markdown", opts);
    assert.match(md, /\| ✗ fail \| rome-4b2a9e→turin-7a1b2c \| asymmetric \|/);
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("fleet collect and watch: one bundle holds every selected cluster, check --snapshot --all-contexts replays it; fleet rounds until a failure", async () => {
  const fleet = await loadFleet("mixed");
  const served = await serveFleet(fleet, FAKE_CLOCK);
  const tmp = await Deno.makeTempDir({ prefix: "ff-fleet-collect-" });
  try {
    const kc = `${tmp}/fleet.yaml`;
    await Deno.writeTextFile(kc, served.kubeconfigYaml);
    const bundle = `${tmp}/fleet.tar.gz`;
    const c = await runCli(
      [
        "collect",
        "--kubeconfig",
        kc,
        "--contexts",
        "rome,milan,turin,naples,palermo",
        "--sample-interval",
        SAMPLE_INTERVAL,
        // The bounds of `check --all-contexts`: palermo, which never answers, runs into its own.
        "--parallel",
        "2",
        "--cluster-timeout",
        "6s",
        "-f",
        bundle,
      ],
      { permissions: ["--allow-env", "--allow-read", `--allow-write=${tmp}`, "--allow-net=127.0.0.1"] },
    );
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stderr, /naples: .*401.* — left out of the bundle/);
    assert.match(
      c.stderr,
      /palermo: .*no complete answer within --cluster-timeout 6s — left out of the bundle/,
    );
    assert.match(c.stderr, /check --snapshot .* --all-contexts/);
    const r = await runCli(["check", "--snapshot", bundle, "--all-contexts", "-o", "json"], {
      permissions: ["--allow-env", "--allow-read"],
    });
    assert.equal(r.code, 2, r.stderr);
    const doc = FleetReportSchema.parse(JSON.parse(r.stdout));
    assert.deepEqual(Object.keys(doc.edges).sort(), ["rome-4b2a9e→milan-8d1f03", "rome-4b2a9e→turin-7a1b2c"]);
    assert.equal(doc.edges["rome-4b2a9e→milan-8d1f03"].class, "paired");
    assert.equal(doc.edges["rome-4b2a9e→milan-8d1f03"].report!.mode, "snapshot");
    assert.equal(doc.edges["rome-4b2a9e→turin-7a1b2c"].class, "asymmetric");
    assert.ok(doc.clusters.some((x) => x.context === null && x.error?.includes("401")));
    assert.ok(doc.clusters.some((x) => x.context === null && x.error?.includes("--cluster-timeout 6s")));
    // Fleet rounds on the same clusters: the first round has a failing edge, so --until failure ends it.
    const w = await runCli([
      "watch",
      "--kubeconfig",
      kc,
      "--contexts",
      "rome,milan,turin",
      "--no-network-probes",
      "--sample-interval",
      SAMPLE_INTERVAL,
      "--interval",
      "2s",
      "--until",
      "failure",
      "-o",
      "jsonl",
    ]);
    assert.equal(w.code, 0, w.stderr);
    const events = w.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => e.event), [
      "fleet-round",
      "edge-transition",
      "edge-transition",
      "end",
    ]);
    assert.equal(events[0].edges["rome-4b2a9e→turin-7a1b2c"], "fail");
    assert.equal(events.at(-1).reason, "until failure");
    // Nothing could be judged (the only cluster refuses the token): exit 3, the reason per cluster.
    const none = await runCli([
      "check",
      "--kubeconfig",
      kc,
      "--contexts",
      "naples",
      "--no-network-probes",
      "-q",
    ]);
    assert.equal(none.code, 3, none.stderr);
    assert.match(none.stderr, /no edge or cluster of the fleet could be judged \(naples: .*401/);
    // A typo in --contexts is a usage error, not a smaller fleet.
    const typo = await runCli(["check", "--kubeconfig", kc, "--contexts", "rom"]);
    assert.equal(typo.code, 3);
    assert.match(typo.stderr, /no context "rom" in the kubeconfig/);
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("fleet healthy five: a hub with three providers, one provider shared by two consumers — every edge paired and passing, exit 0, each cluster read once", async () => {
  const configs = await healthyFleet();
  const servers = await Promise.all(configs.map((c) => startFakeCluster({ ...c, ...FAKE_CLOCK })));
  const tmp = await Deno.makeTempDir({ prefix: "ff-fleet-five-" });
  try {
    const kc = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [] as unknown[],
      users: [] as unknown[],
      contexts: [] as unknown[],
    };
    for (const s of servers) {
      const one = parse(s.kubeconfigYaml()) as Record<string, unknown[]>;
      kc.clusters.push(...one.clusters);
      kc.users.push(...one.users);
      kc.contexts.push(...one.contexts);
    }
    const file = `${tmp}/five.yaml`;
    await Deno.writeTextFile(file, stringify({ ...kc, "current-context": configs[0].name }));
    const r = await runCli([
      "check",
      "--kubeconfig",
      file,
      "--all-contexts",
      "--no-network-probes",
      "--sample-interval",
      SAMPLE_INTERVAL,
      "-o",
      "json",
    ]);
    assert.equal(
      r.code,
      0,
      r.code < 3
        ? Object.values(JSON.parse(r.stdout).edges as Record<string, FleetEdgeLite>).map((e) =>
          `${e.id} ${e.verdict} ${e.firstBroken?.id}: ${e.firstBroken?.summary}`
        ).join("\n")
        : r.stderr,
    );
    const doc = FleetReportSchema.parse(JSON.parse(r.stdout));
    assert.equal(doc.summary.clusters, 5);
    const [hub, shared] = [configs[0].name, configs[1].name];
    assert.deepEqual(
      Object.values(doc.edges).map((e) => `${e.consumer}→${e.provider} ${e.class} ${e.verdict}`).sort(),
      [
        ...configs.slice(1, 4).map((c) => `${hub}→${c.name} paired pass`),
        `${SECOND_CONSUMER}→${shared} paired pass`,
      ].sort(),
    );
    assert.equal(doc.clusters.find((c) => c.name === hub)!.edges.length, 3);
    assert.equal(doc.clusters.find((c) => c.name === shared)!.edges.length, 2);
    for (const e of Object.values(doc.edges)) {
      assert.deepEqual(e.network, { server: e.provider, client: e.consumer });
      assert.equal(e.report!.summary.fail + e.report!.summary.unknown + e.report!.summary.warn, 0, e.id);
    }
    // Nothing read twice: the hub (three edges) and the shared provider (two) answered each read once.
    for (const s of [servers[0], servers[1]]) {
      const gets = s.requests.filter((q) => q.method === "GET" && !q.upgrade && q.status < 400)
        .map((q) => `${q.path}?${q.query}`);
      assert.deepEqual(gets.filter((g, i) => gets.indexOf(g) !== i), [], "read twice");
    }
    // Fleet rounds keep each cluster's source: after the first round its lists come from watches.
    const before = servers.map((s) => s.requests.length);
    const w = await runCli([
      "watch",
      "--kubeconfig",
      file,
      "--all-contexts",
      "--no-network-probes",
      "--sample-interval",
      SAMPLE_INTERVAL,
      // Rounds every second for 6 s: at least two even when the first round of five clusters takes
      // seconds on a loaded machine.
      "--interval",
      "1s",
      "--wait",
      "6s",
      "-o",
      "jsonl",
    ]);
    assert.equal(w.code, 0, w.stderr);
    const rounds = w.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((e) =>
      e.event === "fleet-round"
    );
    assert.ok(rounds.length >= 2, `${rounds.length} round(s)`);
    for (const [i, s] of servers.entries()) {
      const lists = s.requests.slice(before[i]).filter((q) =>
        q.method === "GET" && !q.upgrade && q.status < 400 && !/(^|&)watch=/.test(q.query) &&
        q.path !== "/version"
      ).map((q) => `${q.path}?${q.query}`);
      assert.deepEqual(
        lists.filter((g, j) => lists.indexOf(g) !== j),
        [],
        `${configs[i].name}: listed again`,
      );
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await Deno.remove(tmp, { recursive: true });
  }
});
