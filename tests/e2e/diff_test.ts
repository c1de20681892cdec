/**
 * `flyingfish diff` through the real CLI: bundles made by the CLI's own `collect` against the fake
 * API server, before and after milan's gateway LoadBalancer loses its address (the fake's objects
 * swapped mid-run), compared bundle to bundle and bundle to the live cluster; and a dual bundle
 * against the same healthy live peering (nothing that matters changed: exit 0).
 */
import assert from "node:assert/strict";
import { buildClusterConfig, loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { DiffReportSchema } from "../../report/diff_schema.ts";
import { displayWidth } from "../../render/wrap.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";

const WRITE = [...CLI_PERMISSIONS, "--allow-write"];
const show = (r: { code: number; stdout: string; stderr: string }) =>
  `exit ${r.code}\n${r.stderr}\n${r.stdout.slice(0, 3000)}`;

Deno.test("diff CLI: collect before and after a break; bundle ↔ bundle and bundle ↔ live name GW-02 and the Service", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "ff-diff-" });
  const now = new Date();
  const [healthy, broken] = await Promise.all([
    loadScenario("healthy-provider"),
    loadScenario("gw-lb-pending"),
  ]);
  const served = await serveScenario(healthy, { ...FAKE_CLOCK, now });
  try {
    const kc = `${tmp}/milan.kubeconfig`;
    await Deno.writeTextFile(kc, served.kubeconfigYaml("milan"));
    const collect = (out: string) =>
      runCli(["collect", "--kubeconfig", kc, "-f", out, "-q", "--sample-interval", SAMPLE_INTERVAL], {
        permissions: WRITE,
      });
    const c1 = await collect(`${tmp}/before.tar.gz`);
    assert.equal(c1.code, 0, show(c1));
    const config = await buildClusterConfig(broken, "milan", now);
    served.clusters.milan!.replaceObjects(config.objects, config.wireguard);
    const c2 = await collect(`${tmp}/after.tar.gz`);
    assert.equal(c2.code, 0, show(c2));

    const same = await runCli(["diff", `${tmp}/before.tar.gz`, `${tmp}/before.tar.gz`]);
    assert.equal(same.code, 0, show(same));
    assert.match(same.stdout, /nothing that matters changed/);

    const bundles = await runCli(["diff", `${tmp}/before.tar.gz`, `${tmp}/after.tar.gz`, "-o", "json"], {
      permissions: ["--allow-read"],
    });
    assert.equal(bundles.code, 2, show(bundles));
    const doc = DiffReportSchema.parse(JSON.parse(bundles.stdout));
    assert.equal(doc.answer?.id, "GW-02");
    const svc = doc.objects.find((o) => o.kind === "Service" && o.name === "gw-rome-4b2a9e");
    assert.ok(svc?.answerReads, show(bundles));
    assert.ok(svc.fields.some((f) => f.label === "LoadBalancer address" && f.after === null));

    const live = await runCli([
      "diff",
      `${tmp}/before.tar.gz`,
      "--kubeconfig",
      kc,
      "--sample-interval",
      SAMPLE_INTERVAL,
    ]);
    assert.equal(live.code, 2, show(live));
    assert.match(live.stdout, /what broke ✗ GW-02/);
    assert.match(
      live.stdout,
      /LoadBalancer address \(status\.loadBalancer\.ingress\[203\.0\.113\.50\]\): 203\.0\.113\.50 → \(none\)/,
    );
    assert.match(live.stdout, /after +live:/);

    const usage = await runCli(["diff", `${tmp}/before.tar.gz`]);
    assert.equal(usage.code, 3, show(usage));
    assert.match(usage.stderr, /second side/);

    // Tool errors are exit 3, one line: a bundle that is not there, a file that is no bundle, a live
    // side whose credentials the API server rejects.
    const missing = await runCli(["diff", `${tmp}/nope.tar.gz`, `${tmp}/after.tar.gz`]);
    assert.equal(missing.code, 3, show(missing));
    assert.match(missing.stderr, /^flyingfish: cannot read bundle .*nope\.tar\.gz: no such file\n$/);
    await Deno.writeTextFile(`${tmp}/not-a-bundle.tar.gz`, "hello");
    const junk = await runCli(["diff", `${tmp}/not-a-bundle.tar.gz`, `${tmp}/after.tar.gz`]);
    assert.equal(junk.code, 3, show(junk));
    assert.equal(junk.stderr.trim().split("\n").length, 1, show(junk));
    const badToken = `${tmp}/bad.kubeconfig`;
    await Deno.writeTextFile(
      badToken,
      served.kubeconfigYaml("milan").replace(/token: .*/, "token: not-the-token"),
    );
    const rejected = await runCli(["diff", `${tmp}/before.tar.gz`, "--kubeconfig", badToken, "-q"]);
    assert.equal(rejected.code, 3, show(rejected));
    assert.match(rejected.stderr, /^flyingfish: .*rejected the credentials/m, show(rejected));
    assert.equal(rejected.stdout, "");
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("diff CLI: a dual bundle against the same healthy live peering → exit 0, no object listed", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "ff-diff-" });
  const s = await loadScenario("dual-healthy");
  const served = await serveScenario(s, { ...FAKE_CLOCK });
  try {
    const [l, r] = [`${tmp}/rome.kubeconfig`, `${tmp}/milan.kubeconfig`];
    await Deno.writeTextFile(l, served.kubeconfigYaml(s.run.local));
    await Deno.writeTextFile(r, served.kubeconfigYaml(s.run.remote!));
    const kube = ["--kubeconfig", l, "--remote-kubeconfig", r, "--sample-interval", SAMPLE_INTERVAL];
    const c = await runCli(["collect", ...kube, "-f", `${tmp}/dual.tar.gz`, "-q"], { permissions: WRITE });
    assert.equal(c.code, 0, show(c));
    const d = await runCli(["diff", `${tmp}/dual.tar.gz`, ...kube, "-o", "json"]);
    assert.equal(d.code, 0, show(d));
    const doc = DiffReportSchema.parse(JSON.parse(d.stdout));
    assert.deepEqual(doc.objects, []);
    assert.deepEqual(doc.transitions, []);
    assert.deepEqual(doc.after.clusters.map((x) => x.role), ["local", "remote"]);
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("demo --diff: two demo scenarios as before and after (what the README shows)", async () => {
  const r = await runCli(["demo", "healthy-provider", "--diff", "gw-lb-pending", "-o", "json"]);
  assert.equal(r.code, 2, show(r));
  const doc = DiffReportSchema.parse(JSON.parse(r.stdout));
  assert.equal(doc.answer?.id, "GW-02");
  assert.deepEqual([doc.before.label, doc.after.label], ["demo:healthy-provider", "demo:gw-lb-pending"]);
  assert.ok(doc.objects.some((o) => o.kind === "Service" && o.answerReads));
  const text = await runCli(["demo", "healthy-provider", "--diff", "gw-lb-pending"]);
  assert.match(text.stdout, /what broke ✗ GW-02 \[GATEWAY EXPOSURE\] local peer rome-4b2a9e/);
  // Piped: wrapped to 100 columns as check is, every fix command whole once its ` \` lines are joined.
  for (const l of text.stdout.split("\n")) assert.ok(displayWidth(l) <= 100, `wider than 100: ${l}`);
  const joined = text.stdout.replace(/ \\\n\s+/g, " ");
  for (const step of doc.answer!.remediation) {
    if (step.command) assert.ok(joined.includes(step.command), `${step.command} cut:\n${text.stdout}`);
  }
  assert.match(
    text.stdout,
    /LoadBalancer address \(status\.loadBalancer\.ingress\[203\.0\.113\.50\]\): 203\.0\.113\.50 → \(none\)/,
  );
});
