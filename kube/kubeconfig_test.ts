import assert from "node:assert/strict";
import { PermissionError, ToolError } from "../errors.ts";
import { INLINE_PATH, loadKubeConfig } from "./kubeconfig.ts";
import { KINDS } from "./kinds.ts";
import { openKubeClient } from "./live/client.ts";
import { listKind } from "./live/list.ts";

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
  // Plain HTTP (`kubectl proxy`) is accepted as kubectl accepts it, insecure-skip-tls-verify or not.
  assert.equal((await loadKubeConfig({ kubeconfig: `${dir}/http` })).server, "http://127.0.0.1:8080");
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

// --- credentials: plugin timeout, tokenFile, CA data, 401 on lists -------------------------------

/** A one-context kubeconfig whose user is `userYaml` (indented under `user:`). */
function credKubeconfig(
  server: string,
  userYaml: string,
  clusterExtra = "    insecure-skip-tls-verify: true",
): string {
  return `apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster:
    server: ${server}
${clusterExtra}
users:
- name: u
  user:
${userYaml}
contexts:
- name: c
  context: {cluster: k, user: u}
`;
}

/** A plain-HTTP API server on 127.0.0.1: /version answers 200; `onList` decides the rest. */
function apiServer(
  onList: (req: Request) => Response,
): { url: string; seen: string[]; close: () => Promise<void> } {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(`${new URL(req.url).pathname} ${req.headers.get("authorization") ?? "-"}`);
    if (new URL(req.url).pathname === "/version") return Response.json({ major: "1", minor: "31" });
    return onList(req);
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, seen, close: () => server.shutdown() };
}

Deno.test("credentials: a hanging exec credential plugin is bounded by the timeout (ToolError naming it)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const plugin = `${dir}/hang-plugin`;
    await Deno.writeTextFile(plugin, "#!/bin/sh\nexec sleep 30\n");
    await Deno.chmod(plugin, 0o755);
    const yaml = credKubeconfig(
      "http://127.0.0.1:9",
      `    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ${plugin}\n      interactiveMode: Never`,
    );
    const client = await openKubeClient({ kubeconfigYaml: yaml, requestTimeoutMs: 400 });
    const started = Date.now();
    try {
      const e = await rejectsWith(
        client.probeReachable(),
        new RegExp(
          `^the exec credential plugin ${plugin} of context c did not answer within 400 ms \\(--request-timeout\\)$`,
        ),
      );
      assert.equal(e.message.includes("\n"), false);
      assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("credentials: tokenFile is read (relative to the kubeconfig); a missing one is a file error, not a 401", async () => {
  const dir = await Deno.makeTempDir();
  const srv = apiServer((req) =>
    req.headers.get("authorization") === "Bearer from-file"
      ? Response.json({ kind: "PodList", items: [], metadata: {} })
      : new Response("{}", { status: 401 })
  );
  try {
    await Deno.writeTextFile(`${dir}/token`, "from-file\n");
    await Deno.writeTextFile(`${dir}/config`, credKubeconfig(srv.url, "    tokenFile: token"));
    const client = await openKubeClient({ kubeconfig: `${dir}/config` });
    await client.probeReachable();
    const pods = await listKind(client, KINDS.pods);
    assert.equal(pods.ok, true, JSON.stringify(pods));
    await client.close();
    assert.ok(srv.seen.includes("/version Bearer from-file"), srv.seen.join("\n"));

    await Deno.writeTextFile(`${dir}/missing`, credKubeconfig(srv.url, `    tokenFile: ${dir}/nope`));
    await rejectsWith(
      loadKubeConfig({ kubeconfig: `${dir}/missing` }),
      new RegExp(`^cannot read tokenFile ${dir}/nope: no such file$`),
    );
    await rejectsWith(
      loadKubeConfig({ kubeconfigYaml: credKubeconfig(srv.url, `    tokenFile: ${dir}`) }),
      /^cannot read tokenFile .*: is a directory$/,
    );
  } finally {
    await srv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("credentials: garbage certificate-authority-data names the cluster", async () => {
  for (const data of ["bm90IGEgY2VydA==", "%%% not base64 %%%"]) {
    await rejectsWith(
      loadKubeConfig({
        kubeconfigYaml: credKubeconfig(
          "https://127.0.0.1:6443",
          "    token: t",
          `    certificate-authority-data: "${data}"`,
        ),
      }),
      /^the CA cannot be parsed: certificate-authority-data of cluster "k" in \(inline kubeconfig\) (?:is not valid base64|holds no -----BEGIN CERTIFICATE----- block)$/,
    );
  }
});

Deno.test("credentials: a 401 on a list after /version succeeded is a tool error (exit 3)", async () => {
  const srv = apiServer(() =>
    new Response(JSON.stringify({ kind: "Status", code: 401, message: "Unauthorized" }), { status: 401 })
  );
  try {
    const client = await openKubeClient({ kubeconfigYaml: credKubeconfig(srv.url, "    token: expired") });
    await client.probeReachable();
    await rejectsWith(
      listKind(client, KINDS.pods),
      /^the API server at http:\/\/127\.0\.0\.1:\d+ rejected the credentials of context c \(401\) while listing pods$/,
    );
    await client.close();
  } finally {
    await srv.close();
  }
});

Deno.test("loadKubeConfig: the selected user's files and exec command resolve against the file that names them", async () => {
  const dir = await Deno.makeTempDir();
  const other = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/a`,
      "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n",
    );
    await Deno.writeTextFile(
      `${other}/b`,
      `clusters:
- name: k
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: ca.crt, tls-server-name: api.internal, proxy-url: "socks5://127.0.0.1:1080"}
users:
- name: u
  user:
    client-certificate: certs/u.crt
    client-key: /abs/u.key
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ./bin/plugin, args: [get-token], env: [{name: A, value: b}], provideClusterInfo: true}
- name: broken
  user:
    exec: {args: [no-command]}
`,
    );
    await withEnv({ KUBECONFIG: `${dir}/a:${other}/b` }, async () => {
      const l = await loadKubeConfig({});
      assert.equal(l.cluster.caFile, `${other}/ca.crt`);
      assert.equal(l.cluster.tlsServerName, "api.internal");
      assert.equal(l.cluster.proxyUrl, "socks5://127.0.0.1:1080");
      assert.equal(l.user?.certFile, `${other}/certs/u.crt`);
      assert.equal(l.user?.keyFile, "/abs/u.key");
      assert.deepEqual(l.user?.exec, {
        command: `${other}/./bin/plugin`,
        args: ["get-token"],
        env: [{ name: "A", value: "b" }],
        apiVersion: "client.authentication.k8s.io/v1beta1",
        installHint: undefined,
        provideClusterInfo: true,
        interactiveMode: "IfAvailable",
      });
      // An unused user with a broken exec block does not stop the run; a bare command stays a name.
      assert.deepEqual(l.kc.getUsers().map((u) => u.name), ["u"]);
    });
    await rejectsWith(
      loadKubeConfig({
        kubeconfigYaml: credKubeconfig(
          "https://127.0.0.1:6443",
          "    exec: {apiVersion: client.authentication.k8s.io/v1}",
        ),
      }),
      /^user "u": exec credential plugin without a command$/,
    );
    const bare = await loadKubeConfig({
      kubeconfigYaml: credKubeconfig(
        "https://127.0.0.1:6443",
        "    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, interactiveMode: Never}",
      ),
    });
    assert.equal(bare.user?.exec?.command, "aws");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(other, { recursive: true });
  }
});
