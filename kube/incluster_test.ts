/**
 * In-cluster credentials against the fake API server: a fake service-account directory (token,
 * ca.crt, namespace) and KUBERNETES_SERVICE_HOST/PORT pointing at 127.0.0.1.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { inClusterConfig, inClusterServer } from "./incluster.ts";
import { createLiveSource } from "./live/source.ts";
import { startFakeCluster } from "../fakekube/mod.ts";
import { ToolError } from "../errors.ts";
import { KINDS } from "./kinds.ts";

function envOf(vars: Record<string, string>): (name: string) => string | undefined {
  return (name) => vars[name];
}

async function fakeServiceAccount(token: string, caPem: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "ff-sa-" });
  await Deno.writeTextFile(`${dir}/token`, token);
  await Deno.writeTextFile(`${dir}/ca.crt`, caPem);
  await Deno.writeTextFile(`${dir}/namespace`, "flyingfish\n");
  return dir;
}

Deno.test("in-cluster: outside a pod (no KUBERNETES_SERVICE_HOST/PORT) there is no in-cluster config", async () => {
  assert.equal(await inClusterConfig({ env: envOf({}) }), null);
  assert.equal(inClusterServer(envOf({ KUBERNETES_SERVICE_HOST: "10.0.0.1" })), null);
  assert.equal(
    inClusterServer(envOf({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" })),
    "https://[fd00::1]:443",
  );
});

Deno.test("in-cluster: a missing token is a tool error naming the file, not a 401 later", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ff-sa-" });
  try {
    await assert.rejects(
      inClusterConfig({
        root: dir,
        env: envOf({ KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: "6443" }),
      }),
      (e: unknown) => e instanceof ToolError && e.message.includes(`${dir}/token`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "in-cluster: the service account's token and CA reach the fake API server; named by file, not copied",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const cluster = await startFakeCluster({ name: "rome", objects: [], wireguard: {} });
    const dir = await fakeServiceAccount(cluster.token, cluster.caPem!);
    try {
      const port = new URL(cluster.url).port;
      const cfg = await inClusterConfig({
        root: dir,
        env: envOf({ KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port }),
      });
      assert.ok(cfg);
      assert.equal(cfg.server, cluster.url);
      assert.equal(cfg.namespace, "flyingfish");
      // No secret in the text: the token and the CA are named by file.
      assert.ok(!cfg.kubeconfigYaml.includes(cluster.token));
      const doc = parse(cfg.kubeconfigYaml);
      assert.equal(doc.users[0].user.tokenFile, `${dir}/token`);
      assert.equal(doc.clusters[0].cluster["certificate-authority"], `${dir}/ca.crt`);

      // tokenFile: re-read once a minute like client-go (the rotation itself: kube/credentials_test.ts).
      const source = await createLiveSource({ kubeconfigYaml: cfg.kubeconfigYaml });
      try {
        const ok = await source.list(KINDS.namespaces);
        assert.equal(ok.ok, true, JSON.stringify(ok));
        assert.equal(source.endpoint.server, cluster.url);
        assert.equal(source.endpoint.context, "in-cluster");
      } finally {
        await source.close();
      }
    } finally {
      await cluster.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
