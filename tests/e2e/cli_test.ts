/** CLI behaviour that is not about a scenario: catalog, explain, help, permissions, demo, exit 3. */
import assert from "node:assert/strict";
import { runCli, runScenario } from "./harness.ts";
import { explanation } from "../../cli/catalog_cmd.ts";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";

/** The lines of stderr that are not progress ("connecting to …"): a tool error is exactly one. */
function errorLines(stderr: string): string[] {
  return stderr.trim().split("\n").filter((l) => !/^(connecting to|reading snapshot of) /.test(l));
}

Deno.test("checks -o json lists the catalog and marks checks that need both kubeconfigs", async () => {
  const r = await runCli(["checks", "-o", "json"]);
  assert.equal(r.code, 0, r.stderr);
  const { checks } = JSON.parse(r.stdout);
  const ids = checks.map((c: { id: string }) => c.id);
  for (
    const id of [
      "ENV-01",
      "ENV-03",
      "ENV-04",
      "ENV-05",
      "ENV-06",
      "FC-01",
      "API-01",
      "API-02",
      "API-03",
      "GW-01",
      "GW-02",
      "GW-03",
      "GW-05",
      "GW-06",
      "TUN-01",
      "TUN-02",
      "TUN-03",
      "TUN-04",
      "TUN-05",
      "TUN-06",
      "FAB-01",
      "FAB-02",
      "FAB-03",
      "FAB-04",
      "IPAM-02",
      "IPAM-03",
      "IPAM-04",
      "CNI-01",
      "CNI-02",
      "REF-01",
      "REF-02",
      "REF-03",
    ]
  ) assert.ok(ids.includes(id), `catalog lacks ${id}`);
  for (const c of checks) {
    if (["ENV-02", "GW-04", "IPAM-01"].includes(c.id)) assert.equal(c.needsRemoteKubeconfig, true, c.id);
  }
});

Deno.test("explain works for every check in the catalog", async () => {
  const { checks } = JSON.parse((await runCli(["checks", "-o", "json"])).stdout);
  // The text of every check in-process; the command's wiring through the real CLI for two of them.
  for (const c of checks) {
    const text = explanation(c.id);
    assert.ok(text, c.id);
    assert.match(text, new RegExp(`^${c.id} — `));
    assert.match(text, /Reads\n[\s\S]*Decides\n[\s\S]*Fixes\n[\s\S]*blocked by:/);
  }
  for (const id of [checks[0].id, "TUN-01"]) {
    const r = await runCli(["explain", id]);
    assert.equal(r.code, 0, `${id}: ${r.stderr}`);
    assert.equal(r.stdout.trimEnd(), explanation(id));
  }
  const bad = await runCli(["explain", "NOPE-1"]);
  assert.equal(bad.code, 3);
});

Deno.test("explain lists the known Liqo bugs a check carries, with range, fix and source", async () => {
  const [gw02, gw04, env01] = await Promise.all([
    runCli(["explain", "GW-02"]),
    runCli(["explain", "GW-04"]),
    runCli(["explain", "ENV-01"]),
  ]);
  assert.equal(gw02.code, 0);
  assert.match(gw02.stdout, /Known Liqo bugs/);
  assert.match(gw02.stdout, /liqo-0581b38e2: .* Liqo v1\.0\.0 to before v1\.1\.2, fixed in v1\.1\.2/);
  assert.match(gw02.stdout, /source: https:\/\/github\.com\/liqotech\/liqo\/commit\/0581b38e2/);
  assert.match(gw02.stdout, /workaround: .*aws-load-balancer-type/);
  assert.match(
    gw04.stdout,
    /liqo-a6076eca2: GatewayServer endpoint lists a LoadBalancer hostname before its IP/,
  );
  assert.doesNotMatch(env01.stdout, /Known Liqo bugs/);
});

Deno.test("explain matches IDs like kubectl: any case works, a near miss is exit 3 with did-you-mean", async () => {
  const [lower, dashless] = await Promise.all([runCli(["explain", "tun-02"]), runCli(["explain", "TUN02"])]);
  assert.equal(lower.code, 0, lower.stderr);
  assert.equal(lower.stdout.trimEnd(), explanation("TUN-02"));
  assert.equal(dashless.code, 3);
  assert.equal(dashless.stdout, "");
  assert.equal(
    dashless.stderr.trim(),
    'flyingfish: no check "TUN02" — did you mean TUN-02? (see `flyingfish checks`)',
  );
});

Deno.test("--help and version do not need any permission or cluster", async () => {
  // NO_COLOR unset: no colour detection may read the environment (that needs --allow-env).
  const help = await runCli(["--help"], { permissions: [], env: { NO_COLOR: "" } });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /check/);
  const v = await runCli(["version"], { permissions: [] });
  assert.match(
    v.stdout,
    /^flyingfish \d+\.\d+\.\d+\ndeno {7}\d+\.\d+\.\d+ \(v8 .*, typescript .*\)\ncommit {5}unknown\n$/,
  );
});

Deno.test("a bad kubeconfig is one clear line and exit 3", async () => {
  const r = await runCli(["check", "--kubeconfig", "/nonexistent/kubeconfig"]);
  assert.equal(r.code, 3);
  assert.equal(errorLines(r.stderr).length, 1, r.stderr);
  assert.match(r.stderr, /kubeconfig/);
});

Deno.test("an unreachable cluster is one clear line and exit 3", async () => {
  const s = await loadScenario("healthy-consumer");
  const served = await serveScenario(s, { tls: true });
  const yaml = served.kubeconfigYaml(s.run.local);
  await served.close(); // now nothing listens at that address
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/kc`, yaml);
  const r = await runCli(["check", "--kubeconfig", `${dir}/kc`, "--request-timeout", "3s"]);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.equal(errorLines(r.stderr).length, 1, r.stderr);
  assert.match(r.stderr, /cannot reach the API server/);
});

for (
  const [flag, perms] of [
    ["--allow-env", ["--allow-read", "--allow-net=127.0.0.1"]],
    ["--allow-read", ["--allow-env", "--allow-net=127.0.0.1"]],
    ["--allow-net", ["--allow-env", "--allow-read"]],
  ] as const
) {
  Deno.test(`without ${flag}: names the flag and exits 3`, async () => {
    const s = await loadScenario("healthy-consumer");
    const served = await serveScenario(s, { tls: true });
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/kc`, served.kubeconfigYaml(s.run.local));
      const r = await runCli(["check", "--kubeconfig", `${dir}/kc`, "--no-network-probes"], {
        permissions: [...perms],
      });
      assert.equal(r.code, 3, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(flag));
      assert.equal(errorLines(r.stderr).length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, "no stack trace");
    } finally {
      await served.close();
    }
  });
}

Deno.test("demo prints a report with a diagnosis line and exits 2", async () => {
  const r = await runCli(["demo"], {
    permissions: ["--allow-env", "--allow-read", "--allow-net=127.0.0.1"],
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stdout, /diagnosis ✗ GW-02/);
  assert.ok(!r.stdout.includes("\u001b["), "no escape codes through a pipe");
});

Deno.test("through `deno task`, relative paths resolve against the caller's directory (INIT_CWD)", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--config", config, "-q", "flyingfish", "check", "--kubeconfig", "./missing.yaml"],
    cwd: dir,
    // A clean environment: an INIT_CWD inherited from an outer `deno task test` would win (npm semantics).
    clearEnv: true,
    env: Object.fromEntries(
      Object.entries({
        NO_COLOR: "1",
        PATH: Deno.env.get("PATH"),
        HOME: Deno.env.get("HOME"),
        DENO_DIR: Deno.env.get("DENO_DIR"),
      })
        .filter((e): e is [string, string] => e[1] !== undefined),
    ),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 3, stderr);
  assert.ok(stderr.includes(`${dir}/./missing.yaml`) || stderr.includes(`${dir}/missing.yaml`), stderr);
});

Deno.test("--peer narrows the run to one peering; an unknown peer is exit 3 naming the known ones", async () => {
  const only = await runScenario("two-peers-one-broken", { extraArgs: ["--peer", "milan-8d1f03"] });
  assert.equal(only.code, 0, only.stderr);
  const peers = new Set(only.report.results.map((r: { peer: string | null }) => r.peer).filter(Boolean));
  assert.deepEqual([...peers], ["milan-8d1f03"]);
  const broken = await runScenario("two-peers-one-broken", { extraArgs: ["--peer", "paris-5c3e71"] });
  assert.equal(broken.code, 2);
  assert.equal(broken.report.diagnosis.peer, "paris-5c3e71");
  const unknown = await runScenario("two-peers-one-broken", { extraArgs: ["--peer", "oslo-000000"] });
  assert.equal(unknown.code, 3);
  assert.match(unknown.stderr, /no peer oslo-000000 .*known peers: .*milan-8d1f03.*paris-5c3e71/);
});
