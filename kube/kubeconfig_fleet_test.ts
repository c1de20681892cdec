/**
 * Fleet mode's view of a kubeconfig: several files merged as kubectl merges KUBECONFIG (the first
 * definition of a name wins; a file that does not exist is an error, not skipped), and every context
 * with what identifies its cluster before any request — the server and the CA's fingerprint.
 */
import assert from "node:assert/strict";
import { stringify } from "yaml";
import { generateTlsMaterial } from "@flyingfish/fakekube";
import { ToolError } from "../errors.ts";
import { listContexts, loadKubeConfig } from "./kubeconfig.ts";

function file(
  entries: { name: string; server: string; ca?: string; insecure?: boolean }[],
  current?: string,
) {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: entries.map((e) => ({
      name: e.name,
      cluster: {
        server: e.server,
        ...(e.ca ? { "certificate-authority-data": btoa(e.ca) } : {}),
        ...(e.insecure ? { "insecure-skip-tls-verify": true } : {}),
      },
    })),
    users: entries.map((e) => ({ name: e.name, user: { token: `t-${e.name}` } })),
    contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: e.name } })),
    ...(current ? { "current-context": current } : {}),
  });
}

Deno.test("kubeconfig (fleet): repeated files merge, first definition wins; every context listed with server and CA", async () => {
  const tls = await generateTlsMaterial();
  const dir = await Deno.makeTempDir({ prefix: "ff-kc-fleet-" });
  try {
    const a = `${dir}/a.yaml`, b = `${dir}/b.yaml`;
    await Deno.writeTextFile(
      a,
      file([{ name: "rome", server: "https://10.0.0.1:6443", ca: tls.caPem }], "rome"),
    );
    await Deno.writeTextFile(
      b,
      file([
        { name: "rome", server: "https://10.9.9.9:6443" },
        { name: "milan", server: "https://10.0.0.2:6443", insecure: true },
        { name: "paris", server: "https://10.0.0.3:6443" },
      ]),
    );
    const { contexts, path } = await listContexts({ kubeconfigs: [a, b] });
    assert.equal(path, `${a}:${b}`);
    assert.deepEqual(contexts.map((c) => [c.name, c.server]), [
      ["rome", "https://10.0.0.1:6443"],
      ["milan", "https://10.0.0.2:6443"],
      ["paris", "https://10.0.0.3:6443"],
    ]);
    assert.match(contexts[0].ca, /^sha256:[0-9a-f]{64}$/);
    assert.equal(contexts[1].ca, "insecure");
    assert.equal(contexts[2].ca, "system");
    // The merged files serve a single context's load too (a fleet run opens each context so).
    const loaded = await loadKubeConfig({ kubeconfigs: [a, b], context: "milan" });
    assert.equal(loaded.server, "https://10.0.0.2:6443");
    await assert.rejects(
      () => listContexts({ kubeconfigs: [a, `${dir}/missing.yaml`] }),
      (e) => e instanceof ToolError && /cannot read kubeconfig .*missing\.yaml/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
