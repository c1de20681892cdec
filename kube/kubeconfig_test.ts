import assert from "node:assert/strict";
import { PermissionError, ToolError } from "../errors.ts";
import { INLINE_PATH, loadKubeConfig } from "./kubeconfig.ts";

interface Ctx {
  name: string;
  cluster: string;
  server?: string;
  user?: string;
}

function kubeconfig(contexts: Ctx[], current?: string): string {
  const clusters = contexts.map((c) =>
    c.server === undefined
      ? `- name: ${c.cluster}\n  cluster:\n    insecure-skip-tls-verify: true`
      : `- name: ${c.cluster}\n  cluster:\n    server: ${c.server}\n    certificate-authority: ca-${c.cluster}.crt`
  );
  const users = contexts.map((c) => `- name: ${c.user ?? c.name}\n  user:\n    token: t-${c.name}`);
  const ctxs = contexts.map((c) =>
    `- name: ${c.name}\n  context:\n    cluster: ${c.cluster}\n    user: ${c.user ?? c.name}`
  );
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    ...clusters,
    "users:",
    ...users,
    "contexts:",
    ...ctxs,
    current ? `current-context: ${current}` : "",
  ].join("\n") + "\n";
}

async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = Deno.env.get(k);
    if (v === undefined) Deno.env.delete(k);
    else Deno.env.set(k, v);
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) Deno.env.delete(k);
      else Deno.env.set(k, v);
    }
  }
}

async function rejectsWith(p: Promise<unknown>, re: RegExp): Promise<ToolError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ToolError, `expected a ToolError, got ${e}`);
    assert.match(e.message, re);
    assert.equal(e.exitCode, 3);
    return e;
  }
  assert.fail("expected a rejection");
}

Deno.test("loadKubeConfig: explicit path, current-context, relative CA path made absolute", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/config`;
  await Deno.writeTextFile(
    path,
    kubeconfig([{ name: "rome", cluster: "rome", server: "https://127.0.0.1:6443" }], "rome"),
  );
  const l = await loadKubeConfig({ kubeconfig: path });
  assert.equal(l.contextName, "rome");
  assert.equal(l.server, "https://127.0.0.1:6443");
  assert.equal(l.path, path);
  assert.equal(l.kc.getCurrentContext(), "rome");
  assert.equal(l.kc.getCurrentCluster()?.caFile, `${dir}/ca-rome.crt`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadKubeConfig: --context selects another context", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/config`;
  await Deno.writeTextFile(
    path,
    kubeconfig([
      { name: "rome", cluster: "rome", server: "https://127.0.0.1:6443" },
      { name: "milan", cluster: "milan", server: "https://127.0.0.2:6443" },
    ], "rome"),
  );
  const l = await loadKubeConfig({ kubeconfig: path, context: "milan" });
  assert.equal(l.contextName, "milan");
  assert.equal(l.server, "https://127.0.0.2:6443");
  assert.equal(l.kc.getCurrentUser()?.token, "t-milan");
  await rejectsWith(
    loadKubeConfig({ kubeconfig: path, context: "paris" }),
    /^context "paris" not found in .*config \(available: rome, milan\)$/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name: "loadKubeConfig: inline kubeconfig text needs no file access",
  permissions: { read: false, env: true },
  async fn() {
    const text = kubeconfig([{ name: "demo", cluster: "demo", server: "https://127.0.0.1:6443" }], "demo");
    const l = await loadKubeConfig({ kubeconfigYaml: text.replace(/\n {4}certificate-authority: .*/, "") });
    assert.equal(l.contextName, "demo");
    assert.equal(l.path, INLINE_PATH);
    assert.deepEqual(l.paths, []);
    await rejectsWith(
      loadKubeConfig({ kubeconfigYaml: "a: [" }),
      /^cannot read kubeconfig \(inline kubeconfig\): invalid YAML/,
    );
  },
});

Deno.test("loadKubeConfig: missing file, bad YAML, not a mapping", async () => {
  const dir = await Deno.makeTempDir();
  await rejectsWith(
    loadKubeConfig({ kubeconfig: `${dir}/nope` }),
    /^cannot read kubeconfig .*\/nope: no such file$/,
  );
  await Deno.writeTextFile(`${dir}/bad`, "clusters: [\n  - name: x\n");
  await rejectsWith(
    loadKubeConfig({ kubeconfig: `${dir}/bad` }),
    /^cannot read kubeconfig .*\/bad: invalid YAML: /,
  );
  await Deno.writeTextFile(`${dir}/list`, "- a\n- b\n");
  await rejectsWith(loadKubeConfig({ kubeconfig: `${dir}/list` }), /not a kubeconfig/);
  await Deno.writeTextFile(`${dir}/clusters`, "clusters: 3\n");
  await rejectsWith(loadKubeConfig({ kubeconfig: `${dir}/clusters` }), /"clusters" must be a list/);
  await rejectsWith(loadKubeConfig({ kubeconfig: dir }), /^cannot read kubeconfig .*: /);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadKubeConfig: no current-context, cluster without server, unknown cluster, plain http", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/nocur`,
    kubeconfig([{ name: "a", cluster: "a", server: "https://127.0.0.1:1" }]),
  );
  await rejectsWith(
    loadKubeConfig({ kubeconfig: `${dir}/nocur` }),
    /^no current-context in .*pass --context \(available: a\)/,
  );
  await Deno.writeTextFile(`${dir}/noserver`, kubeconfig([{ name: "a", cluster: "a" }], "a"));
  await rejectsWith(
    loadKubeConfig({ kubeconfig: `${dir}/noserver` }),
    /^cluster "a" of context "a" has no server URL in .*noserver$/,
  );
  await Deno.writeTextFile(
    `${dir}/dangling`,
    "contexts:\n- name: a\n  context:\n    cluster: ghost\n    user: u\ncurrent-context: a\n",
  );
  await rejectsWith(loadKubeConfig({ kubeconfig: `${dir}/dangling` }), /refers to cluster "ghost"/);
  await Deno.writeTextFile(
    `${dir}/http`,
    kubeconfig([{ name: "a", cluster: "a", server: "http://127.0.0.1:8080" }], "a"),
  );
  await rejectsWith(loadKubeConfig({ kubeconfig: `${dir}/http` }), /plain HTTP.*insecure-skip-tls-verify/);
  await Deno.writeTextFile(`${dir}/empty`, "");
  await rejectsWith(loadKubeConfig({ kubeconfig: `${dir}/empty` }), /no current-context/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadKubeConfig: KUBECONFIG merges files like kubectl (first wins), missing entries skipped", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/a`,
    kubeconfig([{ name: "rome", cluster: "shared", server: "https://127.0.0.1:1001" }], "rome"),
  );
  await Deno.writeTextFile(
    `${dir}/b`,
    kubeconfig([
      { name: "milan", cluster: "milan", server: "https://127.0.0.2:1002" },
      { name: "rome", cluster: "shared", server: "https://127.0.0.3:9999" },
    ], "milan"),
  );
  await withEnv({ KUBECONFIG: `${dir}/a:${dir}/missing:${dir}/b` }, async () => {
    const l = await loadKubeConfig({});
    assert.equal(l.contextName, "rome", "current-context of the first file wins");
    assert.equal(l.server, "https://127.0.0.1:1001", "first definition of a cluster wins");
    assert.deepEqual(l.paths, [`${dir}/a`, `${dir}/b`]);
    assert.equal(l.path, `${dir}/a:${dir}/b`);
    const m = await loadKubeConfig({ context: "milan" });
    assert.equal(m.server, "https://127.0.0.2:1002");
    assert.equal(m.kc.getCurrentCluster()?.caFile, `${dir}/ca-milan.crt`);
    // An explicit --kubeconfig ignores KUBECONFIG.
    const only = await loadKubeConfig({ kubeconfig: `${dir}/b` });
    assert.equal(only.contextName, "milan");
  });
  await withEnv({ KUBECONFIG: `${dir}/x:${dir}/y` }, async () => {
    await rejectsWith(loadKubeConfig({}), /^no kubeconfig: none of the files in KUBECONFIG exists/);
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadKubeConfig: ~/.kube/config from HOME, and a loud error when there is none", async () => {
  const home = await Deno.makeTempDir();
  await withEnv({ KUBECONFIG: undefined, HOME: home }, async () => {
    await rejectsWith(
      loadKubeConfig({}),
      /^no kubeconfig: pass --kubeconfig, set KUBECONFIG, or create ~\/\.kube\/config$/,
    );
    await Deno.mkdir(`${home}/.kube`);
    await Deno.writeTextFile(
      `${home}/.kube/config`,
      kubeconfig([{ name: "h", cluster: "h", server: "https://127.0.0.1:7" }], "h"),
    );
    const l = await loadKubeConfig({});
    assert.equal(l.contextName, "h");
    assert.equal(l.path, `${home}/.kube/config`);
  });
  await withEnv({ KUBECONFIG: "", HOME: undefined }, async () => {
    await rejectsWith(loadKubeConfig({}), /^no kubeconfig/);
  });
  await Deno.remove(home, { recursive: true });
});

Deno.test({
  name: "loadKubeConfig: no read permission is a PermissionError for --allow-read",
  permissions: { read: false, env: true },
  async fn() {
    const e = await rejectsWith(
      loadKubeConfig({ kubeconfig: "/tmp/flyingfish-no-such/config" }),
      /--allow-read/,
    );
    assert.ok(e instanceof PermissionError);
    assert.equal(e.flag, "--allow-read");
    assert.match(e.purpose, /read the kubeconfig \/tmp\/flyingfish-no-such\/config/);
  },
});

Deno.test({
  name: "loadKubeConfig: no env permission is a PermissionError for --allow-env",
  permissions: { read: true, env: false },
  async fn() {
    const e = await rejectsWith(loadKubeConfig({}), /--allow-env/);
    assert.ok(e instanceof PermissionError);
    assert.match(e.purpose, /KUBECONFIG/);
  },
});
