import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "./scenario.ts";

// @kubernetes/client-node keeps agents/sockets around; the real-client check is what matters here.
Deno.test({
  name: "fakekube: @kubernetes/client-node lists and execs over HTTPS",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const served = await serveScenario(await loadScenario("healthy-provider"));
    try {
      const k8s = await import("@kubernetes/client-node");
      const { Writable } = await import("node:stream");
      const kc = new k8s.KubeConfig();
      kc.loadFromString(served.kubeconfigYaml("milan"));
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const pods = await core.listPodForAllNamespaces();
      assert.ok(pods.items.some((p) => p.metadata?.name === "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm"));
      const secrets = await core.listSecretForAllNamespaces({ labelSelector: "liqo.io/remote-cluster-id" });
      assert.deepEqual(secrets.items.map((x) => x.metadata?.name), ["gw-rome-4b2a9e"]);

      let out = "";
      const stdout = new Writable({
        write(c, _e, cb): void {
          out += c.toString();
          cb();
        },
      });
      const stderr = new Writable({
        write(_c, _e, cb): void {
          cb();
        },
      });
      const status = await new Promise<unknown>((resolve, reject) => {
        new k8s.Exec(kc).exec(
          "liqo-tenant-rome-4b2a9e",
          "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm",
          "wireguard",
          ["wg", "show", "all", "dump"],
          stdout,
          stderr,
          null,
          false,
          (s) => resolve(s),
        ).catch(reject);
      });
      assert.deepEqual(status, { metadata: {}, status: "Success" });
      const lines = out.trimEnd().split("\n");
      assert.equal(lines.length, 2);
      assert.match(lines[0], /^liqo-tunnel\tKNaKPPsf1NbJGhEN3wUqwHx6h\+AJBpNJPIIvgpTvqFI=\t.*\t51840\toff$/);
      const exec = served.clusters.milan!.requests.find((r) => r.upgrade);
      assert.equal(exec?.status, 101);
    } finally {
      await served.close();
    }
  },
});
