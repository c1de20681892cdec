/**
 * `flyingfish diff` of fleets through the real CLI: five clusters of testdata/fleet/mixed.yaml
 * (rome on two edges: rome→milan paired and healthy, rome→turin asymmetric; ostia→genoa broken
 * already) captured by the CLI's own `collect --contexts`; a second capture after a resync that
 * bumped every resourceVersion and restarted a gateway pod (exit 0, nothing listed); then milan's
 * gateway recreated with a new key and the first bundle compared with the live fleet: that edge
 * names TUN-04, the Secret and its public key field, and the other edges are unchanged. A fleet
 * bundle against one cluster is a one-line exit 3.
 */
import assert from "node:assert/strict";
import { buildClusterConfig, loadFleet, loadScenario, serveFleet } from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { FleetDiffReportSchema } from "../../report/fleet_diff.ts";
import { renderFleetDiff } from "../../render/fleet_diff.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";

const WRITE = [...CLI_PERMISSIONS, "--allow-write"];
const CONTEXTS = "rome,milan,turin,ostia,genoa";
const show = (r: { code: number; stdout: string; stderr: string }) =>
  `exit ${r.code}\n${r.stderr}\n${r.stdout.slice(0, 4000)}`;

Deno.test("diff of fleets: a volatile-only pair → exit 0; one gateway key recreated → that edge names TUN-04 and the Secret's key, the other edges unchanged", async () => {
  const fleet = await loadFleet("mixed");
  const now = new Date();
  const served = await serveFleet(fleet, { ...FAKE_CLOCK, now });
  const tmp = await Deno.makeTempDir({ prefix: "ff-diff-fleet-" });
  try {
    const kc = `${tmp}/fleet.yaml`;
    await Deno.writeTextFile(kc, served.kubeconfigYaml);
    const fleetFlags = ["--kubeconfig", kc, "--contexts", CONTEXTS, "--sample-interval", SAMPLE_INTERVAL];
    const collect = (out: string) =>
      runCli(["collect", ...fleetFlags, "-f", out, "-q"], { permissions: WRITE });
    const c0 = await collect(`${tmp}/before.tar.gz`);
    assert.equal(c0.code, 0, show(c0));

    // A resync: every object of rome served again with a new resourceVersion, a gateway pod restarted.
    const rome = served.clusters.rome!;
    const resynced = rome.objects().map((o: K8sObject) => {
      const copy = structuredClone(o);
      if (copy.metadata.resourceVersion) copy.metadata.resourceVersion = `${copy.metadata.resourceVersion}9`;
      const statuses = (copy.status as { containerStatuses?: { restartCount?: number }[] } | undefined)
        ?.containerStatuses;
      if (copy.kind === "Pod" && copy.metadata.name.startsWith("gw-") && statuses?.[0]) {
        statuses[0].restartCount = (statuses[0].restartCount ?? 0) + 1;
      }
      return copy;
    });
    rome.replaceObjects(resynced);
    const c1 = await collect(`${tmp}/resynced.tar.gz`);
    assert.equal(c1.code, 0, show(c1));
    const quiet = await runCli(["diff", `${tmp}/before.tar.gz`, `${tmp}/resynced.tar.gz`, "-o", "json"], {
      permissions: ["--allow-read"],
    });
    assert.equal(quiet.code, 0, show(quiet));
    const calm = FleetDiffReportSchema.parse(JSON.parse(quiet.stdout));
    assert.equal(calm.edges.length, 3);
    for (const e of calm.edges) {
      assert.equal(e.change, "kept", e.id);
      assert.deepEqual(e.changes, [], e.id);
      assert.deepEqual(e.diff?.objects, [], `${e.id}: ${e.diff?.objects.map((o) => o.summary)}`);
      assert.deepEqual(e.diff?.transitions, [], e.id);
    }

    // milan's gateway recreated with a new key pair (rome still holds the old PublicKey).
    const broken = await buildClusterConfig(await loadScenario("dual-tun-stale-publickey"), "milan", now);
    served.clusters.milan!.replaceObjects(broken.objects, broken.wireguard);
    const live = await runCli(["diff", `${tmp}/before.tar.gz`, ...fleetFlags, "-o", "json"]);
    assert.equal(live.code, 2, show(live));
    const doc = FleetDiffReportSchema.parse(JSON.parse(live.stdout));
    assert.equal(doc.after.mode, "live");
    const edge = doc.edges[0];
    assert.equal(edge.id, "rome-4b2a9e→milan-8d1f03", show(live));
    assert.equal(edge.exitCode, 2);
    assert.equal(edge.diff?.answer?.id, "TUN-04", JSON.stringify(edge.diff?.transitions));
    const secret = edge.diff.objects.find((o) => o.kind === "Secret" && o.name === "gw-rome-4b2a9e");
    assert.ok(secret, edge.diff.objects.map((o) => o.summary).join("\n"));
    assert.equal(secret.cluster, "remote");
    assert.ok(secret.answerReads);
    const key = secret.fields.find((f) => f.path === "data.publicKey");
    assert.equal(key?.label, "gateway public key (fingerprint)");
    assert.match(key?.after ?? "", /^key sha256:[0-9a-f]{16}$/);
    assert.doesNotMatch(live.stdout, /[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=/, "no key material");
    // The other edges: rome's other peering and the broken pair elsewhere did not change.
    const others = doc.edges.slice(1);
    assert.deepEqual(
      others.map((e) => `${e.id} ${e.exitCode} ${e.diff?.objects.length}`).sort(),
      ["ostia-2b7c9d→genoa-5e8a1f 0 0", "rome-4b2a9e→turin-7a1b2c 0 0"],
    );
    assert.deepEqual(doc.summary, {
      edges: 3,
      changed: 1,
      newlyFailing: 1,
      edgesAdded: 0,
      edgesRemoved: 0,
      clustersAdded: 0,
      clustersRemoved: 0,
    });
    // The text face, from the same document: the edge first, named with its answer, wrapped.
    const text = renderFleetDiff(doc, "text", { color: false });
    assert.match(text, /✗ rome-4b2a9e→milan-8d1f03 \[kept\] ✓ pass → ✗ fail \(TUN-04\): newly fails: TUN-04/);
    assert.match(
      text,
      /= rome-4b2a9e→turin-7a1b2c \[kept\] [^\n]*FLEET-ASYM\): nothing that matters\s+changed/,
    );
    assert.match(text, /EDGE rome-4b2a9e→milan-8d1f03\n[^]*what broke ✗ TUN-04/);
    assert.ok(text.split("\n").every((l) => l.length <= 100), text);

    // Like with like: a fleet bundle against one cluster is a usage error, said in one line.
    const mixed = await runCli(["diff", `${tmp}/before.tar.gz`, "--kubeconfig", kc, "--context", "rome"]);
    assert.equal(mixed.code, 3, show(mixed));
    assert.match(mixed.stderr, /^flyingfish: diff compares like with like: .*a fleet bundle.*\n$/);
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
