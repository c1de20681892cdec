/**
 * `flyingfish preflight --probe` through the real CLI over HTTPS, one run per scenario of
 * testdata/preflight-probe/ (a table: each check's outcome, the verdict and the words its `liqoctl
 * peer` line must hold), each proven FROM THE SERVERS' STATE to leave nothing of the run in either
 * cluster; and Ctrl-C during the echo: the CLI exits 130 and both namespaces are gone.
 */
import assert from "node:assert/strict";
import { listScenarios, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { assertExpected, CLI_PERMISSIONS, FAKE_CLOCK } from "./harness.ts";
import { assertPreflightSections, type PreflightRun, runPreflight } from "./preflight_support.ts";
import { assertAllFormats } from "./formats.ts";

const ROOT = new URL("../../testdata/preflight-probe/", import.meta.url);
const REPO = new URL("../../", import.meta.url);

/** Per scenario: the verdict, words the line must hold, and words a check's summary must hold. */
const ROWS: Record<
  string,
  { verdict: string; line: readonly string[] | null; says?: Record<string, RegExp> }
> = {
  "already-peered": {
    verdict: "already-peered",
    line: null,
    says: { "PF-UDP": /are peered already: run flyingfish check; nothing was created/ },
  },
  "healthy": {
    verdict: "can-peer",
    line: ["--gw-server-service-location Provider --gw-server-service-type LoadBalancer"],
    says: {
      "PF-DIR": /on the provider \(Liqo's default\), exposed as a LoadBalancer \(UDP 198\.51\.100\.1\d:51840/,
    },
  },
  "server-on-consumer": {
    verdict: "can-peer-with-changes",
    line: ["--gw-server-service-location Consumer --gw-server-service-type LoadBalancer"],
    says: { "PF-EXP": /no LoadBalancer address within 2 s \(pending\)/ },
  },
  "nodeport-port-mapping": {
    verdict: "can-peer-with-changes",
    line: [
      "--gw-server-service-type NodePort --gw-server-service-nodeport 31840",
      "--gw-client-address 203.0.113.77 --gw-client-port 40000",
    ],
  },
  "nothing-works": {
    verdict: "cannot-peer",
    line: ["liqoctl peer"],
    says: {
      "PF-DIR":
        /open UDP 198\.51\.100\.1\d:51840 \(LoadBalancer\) in provider milan-8d1f03 to consumer rome-4b2a9e's egress/,
    },
  },
  "lb-pending": {
    verdict: "cannot-peer",
    line: ["--gw-server-service-location Provider"],
    says: {
      "PF-EXP":
        /Service flyingfish-preflight-[a-z0-9]{8}\/ff-preflight-gw \(LoadBalancer, UDP 51840\): no LoadBalancer address within 2 s \(pending\); NodePort 3\d{4} on milan-worker-1 10\.10\.20\.12 \(InternalIP\)/,
    },
  },
  "admission-refused": {
    verdict: "could-not-judge",
    line: ["liqoctl peer"],
    says: { "PF-UDP": /rejected by admission webhook "validate\.kyverno\.svc"/ },
  },
  "mtu-limit": {
    verdict: "can-peer-with-changes",
    line: ["--mtu 1320"],
    says: { "PF-MTU": /1380 bytes \(1381 lost\) < 1400 \(tunnel MTU 1340 \+ 60\): peer with --mtu 1320/ },
  },
  "api-host-only": {
    verdict: "cannot-peer",
    line: ["liqoctl peer"],
    says: {
      "PF-API":
        /^the host reaches https:\/\/127\.0\.0\.1:\d+, the consumer cluster cannot: no TCP\/TLS answer in time/,
    },
  },
};

/** Objects of a preflight run left in a served cluster. */
function leftovers(r: PreflightRun): string[] {
  return Object.entries(r.served.clusters).flatMap(([name, c]) =>
    (c?.objects() ?? []).filter((o) =>
      o.metadata.name.startsWith("flyingfish-preflight-") ||
      (o.metadata.namespace ?? "").startsWith("flyingfish-preflight-")
    ).map((o) => `${name}: ${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`)
  );
}

Deno.test("preflight --probe: every scenario's checks, verdict, liqoctl line, exit code; nothing left behind", async () => {
  const names = await listScenarios(ROOT);
  assert.deepEqual(names, Object.keys(ROWS).sort(), "a row for every scenario, a scenario for every row");
  const runs: PreflightRun[] = [];
  for (let i = 0; i < names.length; i += 4) {
    runs.push(...await Promise.all(names.slice(i, i + 4).map((n) => runPreflight(n, { root: ROOT }))));
  }
  const failures: string[] = [];
  for (const r of runs) {
    const name = r.scenario.name;
    try {
      assertExpected(r.scenario, r);
      // The document, with its active block (what the run created and removed), is the contract's:
      // zod and the published JSON Schema; it renders in every format, without the peering's sections.
      assertPreflightSections(assertAllFormats(r.report, name), name);
      const row = ROWS[name];
      const p = r.report.preflight;
      assert.equal(p.probed, true, `${name}: probed`);
      assert.equal(p.verdict, row.verdict, `${name}: verdict (${p.message})`);
      if (row.line === null) assert.equal(p.liqoctl, null, `${name}: no line`);
      for (const w of row.line ?? []) {
        assert.ok(p.liqoctl?.line.includes(w), `${name}: the line holds ${w}: ${p.liqoctl?.line}`);
      }
      for (const [id, re] of Object.entries(row.says ?? {})) {
        const res = r.report.results.find((x: { id: string }) => x.id === id);
        assert.match([res?.summary, ...(res?.evidence ?? [])].join("\n"), re, `${name}: ${id}`);
      }
      assert.deepEqual(leftovers(r), [], `${name}: nothing of the run is left\n${r.stderr}`);
      // The report's active block lists what was created and removed, in both clusters.
      const created = r.report.active?.created ?? [];
      assert.equal(
        created.some((c: { kind: string }) => c.kind === "Namespace"),
        row.verdict !== "already-peered",
        `${name}: created recorded (none when peered already)`,
      );
      assert.ok(
        (r.report.active?.cleanup ?? []).every((c: { status: string }) => c.status === "removed"),
        name,
      );
    } catch (err) {
      failures.push(err instanceof Error ? err.message : String(err));
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("preflight --probe: Ctrl-C during the echo removes everything in both clusters, exit 130", async () => {
  const s = await loadScenario("nothing-works", ROOT);
  // The firewall keeps the echo waiting its full timeouts (time scale 1): the signal lands mid-echo.
  s.network = { ...s.network!, timeScale: 1 };
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const tmp = await Deno.makeTempDir({ prefix: "ff-preflight-sigint-" });
  try {
    await Deno.writeTextFile(`${tmp}/rome.kubeconfig`, served.kubeconfigYaml("rome"));
    await Deno.writeTextFile(`${tmp}/milan.kubeconfig`, served.kubeconfigYaml("milan"));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--frozen",
        "--config",
        decodeURIComponent(new URL("deno.json", REPO).pathname),
        ...CLI_PERMISSIONS,
        decodeURIComponent(new URL("cli/main.ts", REPO).pathname),
        "preflight",
        "--kubeconfig",
        "rome.kubeconfig",
        "--remote-kubeconfig",
        "milan.kubeconfig",
        "-o",
        "json",
        "--no-network-probes",
        "--probe",
      ],
      cwd: tmp,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdout = new Response(child.stdout).text();
    let stderr = "";
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let signalled = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += value;
      if (!signalled && /PF-UDP: echo/.test(stderr)) {
        signalled = true;
        child.kill("SIGINT");
      }
    }
    const { code } = await child.status;
    await stdout;
    assert.ok(signalled, `the echo never started:\n${stderr}`);
    assert.equal(code, 130, stderr);
    const left = Object.entries(served.clusters).flatMap(([n, c]) =>
      (c?.objects() ?? []).filter((o) =>
        o.metadata.name.startsWith("flyingfish-preflight-") ||
        (o.metadata.namespace ?? "").startsWith("flyingfish-preflight-")
      ).map((o) => `${n}: ${o.kind}/${o.metadata.name}`)
    );
    assert.deepEqual(left, [], stderr);
    // Both namespaces existed: the run did create something before it was stopped.
    for (const name of ["rome", "milan"]) {
      assert.ok(
        served.clusters[name]!.requests.some((q) => q.method === "POST" && q.path === "/api/v1/namespaces"),
        `${name}: the run namespace was created`,
      );
    }
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
