import assert from "node:assert/strict";
import { KINDS } from "../../kube/kinds.ts";
import { openLiveCluster } from "../../kube/live/source.ts";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";

Deno.test("fakekube: the live client lists (label selector included) and execs over HTTPS", async () => {
  const served = await serveScenario(await loadScenario("healthy-provider"));
  try {
    const { source, client } = await openLiveCluster({ kubeconfigYaml: served.kubeconfigYaml("milan") });
    try {
      await source.probeReachable();
      const pods = await source.list(KINDS.pods);
      assert.ok(pods.ok, JSON.stringify(pods));
      assert.ok(pods.items.some((p) => p.metadata?.name === "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm"));
      const secrets = await source.list(KINDS.secrets);
      assert.ok(secrets.ok, JSON.stringify(secrets));
      assert.ok(secrets.items.some((x) => x.metadata?.name === "gw-rome-4b2a9e"));

      const out = await source.exec(
        "liqo-tenant-rome-4b2a9e",
        "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm",
        "wireguard",
        ["wg", "show", "all", "dump"],
      );
      assert.ok(out.ok, JSON.stringify(out));
      assert.equal(out.via, "api");
      assert.equal(out.exitCode, 0);
      const lines = out.stdout.trimEnd().split("\n");
      assert.equal(lines.length, 2);
      assert.match(lines[0], /^liqo-tunnel\tKNaKPPsf1NbJGhEN3wUqwHx6h\+AJBpNJPIIvgpTvqFI=\t.*\t51840\toff$/);
      const exec = served.clusters.milan!.requests.find((r) => r.upgrade);
      assert.equal(exec?.status, 101);
      // Everything went over the one keep-alive connection but the exec websocket's own.
      assert.equal(client.stats().connectionsOpened, 1);
    } finally {
      await source.close();
    }
  } finally {
    await served.close();
  }
});
