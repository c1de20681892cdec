/**
 * `flyingfish collect` and `check --snapshot` on objects nested deeper than FlyingFish walks (a real
 * API server accepts JSON nested up to 10 000 levels, in a CR's free-form field): such an object is
 * left out and named in one line — on stderr and in the bundle manifest — and everything else is
 * collected and judged as usual; never a stack trace.
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { checkArgs, opts, withTmp } from "./snapshot_matrix.ts";
import { layout, packBundle, readManifest, unpackBundle } from "../../kube/bundle.ts";

const dec = new TextDecoder();
const enc = new TextEncoder();

/** A value nested `depth` levels deep (built iteratively: nothing here recurses). */
function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: "bottom" };
  for (let i = 0; i < depth; i++) v = { nested: v };
  return v;
}

/** A ConfigMap in Liqo's namespace (so collected) carrying a field nested `depth` levels deep. */
function deepConfigMap(name: string, depth: number): K8sObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "liqo", uid: crypto.randomUUID() },
    data: { mtu: "1340" },
    extra: nested(depth),
  } as unknown as K8sObject;
}

const NO_TRACE = /RangeError|call stack|internal error|\n\s+at /;

Deno.test({
  name: "collect: an object nested 3000 levels deep is named once, left out, and the bundle is written",
  ...opts,
  fn: () =>
    withTmp("ff-deep-", async (dir) => {
      const s = await loadScenario("healthy-consumer");
      const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
      const bundle = `${dir}/bundle.tar.gz`;
      let collect;
      try {
        const cluster = served.clusters[s.run.local]!;
        cluster.replaceObjects([...cluster.objects(), deepConfigMap("deep-config", 3_000)]);
        const kc = `${dir}/local.kubeconfig`;
        await Deno.writeTextFile(kc, served.kubeconfigYaml(s.run.local));
        collect = await runCli(
          ["collect", "--kubeconfig", kc, "--output-file", bundle, "--sample-interval", SAMPLE_INTERVAL],
          { permissions: [...CLI_PERMISSIONS, `--allow-write=${dir}`] },
        );
      } finally {
        await served.close();
      }
      assert.equal(collect.code, 0, collect.stderr);
      assert.doesNotMatch(collect.stderr, NO_TRACE, collect.stderr);
      const lines = collect.stderr.split("\n").filter((l) => l.includes("deep-config"));
      assert.deepEqual(lines, [
        "flyingfish: left out of the bundle (local): ConfigMap liqo/deep-config: " +
        "nested more than 1000 levels deep: not processed",
      ]);

      const files = await unpackBundle(await Deno.readFile(bundle));
      const local = readManifest(files).clusters.find((c) => c.role === "local")!;
      assert.deepEqual(local.skipped, [{
        kind: "ConfigMap",
        namespace: "liqo",
        name: "deep-config",
        reason: "nested more than 1000 levels deep: not processed",
      }]);
      assert.equal(local.kinds.configmaps.state, "ok");
      const cms = JSON.parse(dec.decode(files.get(layout.list("local", "configmaps"))!));
      assert.ok(cms.items.length > 0, "the other ConfigMaps are collected");
      assert.ok(!cms.items.some((o: K8sObject) => o.metadata.name === "deep-config"));

      // The bundle is judged offline as usual, and says what it lacks.
      const offline = await runCli(["check", "--snapshot", bundle, "-o", "json", ...checkArgs(s)]);
      assert.equal(offline.code, s.expect.exitCode, offline.stderr);
      assert.doesNotMatch(offline.stderr, NO_TRACE, offline.stderr);
      assert.match(offline.stderr, /not judged \(local\): ConfigMap liqo\/deep-config: nested more than/);

      // A bundle holding a 10 000-level object (written by hand or another tool) replays without it.
      // (Its JSON is written as text: even JSON.stringify overflows that deep inside a test.)
      const deeper = JSON.stringify(deepConfigMap("deeper", 0)).replace(
        `"extra":{"leaf":"bottom"}`,
        `"extra":${'{"nested":'.repeat(10_000)}{"leaf":"bottom"}${"}".repeat(10_000)}`,
      );
      const listText = JSON.stringify(cms).replace(/\]\}$/, `,${deeper}]}`);
      files.set(layout.list("local", "configmaps"), enc.encode(listText));
      const edited = `${dir}/edited.tar.gz`;
      await Deno.writeFile(edited, await packBundle([...files].map(([path, data]) => ({ path, data }))));
      const replay = await runCli(["check", "--snapshot", edited, "-o", "json", ...checkArgs(s)]);
      assert.equal(replay.code, s.expect.exitCode, replay.stderr);
      assert.doesNotMatch(replay.stderr, NO_TRACE, replay.stderr);
      const said = replay.stderr.split("\n").filter((l) => l.includes("liqo/deeper"));
      assert.equal(said.length, 1, replay.stderr);
      assert.deepEqual(JSON.parse(replay.stdout).summary, JSON.parse(offline.stdout).summary);
    }),
});
