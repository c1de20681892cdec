import assert from "node:assert/strict";
import { PermissionError, ToolError } from "../../errors.ts";
import { type FakeCluster, startFakeCluster, type WireguardState } from "../../fakekube/mod.ts";
import { KINDS } from "../kinds.ts";
import {
  createLiveSource,
  type LiveClusterSource,
  REDACTED_KEYS_ANNOTATION,
  sanitizeObject,
} from "./source.ts";
import type { K8sObject } from "../source.ts";

const PRIVATE_KEY = "cHJpdmF0ZS1rZXktbXVzdC1uZXZlci1sZWFr"; // base64 of a marker string
const PRIVATE_KEY_TEXT = "private-key-must-never-leak";
const TUNNEL_PUBLIC = "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9d=";
const PEER_PUBLIC = "Zx8yW6vU4tS2rQ0pO8nM6lK4jI2hG0fE8dC6bA4zY2x=";

function ts(): string {
  return new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
}

function baseObjects(configmaps = 0): K8sObject[] {
  const objs: K8sObject[] = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "liqo", creationTimestamp: ts() } },
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "gw-milan-7d9f",
        namespace: "liqo-tenant-milan",
        labels: { "networking.liqo.io/component": "gateway" },
        creationTimestamp: ts(),
      },
      spec: { containers: [{ name: "gateway" }, { name: "wireguard" }, { name: "geneve" }] },
      status: { phase: "Running" },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "gw-keys-milan",
        namespace: "liqo-tenant-milan",
        labels: { "liqo.io/remote-cluster-id": "milan", "networking.liqo.io/gateway-resource": "true" },
        annotations: {
          "kubectl.kubernetes.io/last-applied-configuration": `{"data":{"privateKey":"${PRIVATE_KEY}"}}`,
          "liqo.io/keep": "yes",
        },
        managedFields: [{ manager: "liqo-gateway", operation: "Update", fieldsV1: { "f:data": {} } }],
        creationTimestamp: ts(),
      },
      type: "Opaque",
      data: { privateKey: PRIVATE_KEY, publicKey: btoa(TUNNEL_PUBLIC) },
      stringData: { token: "plain-text-token-must-never-leak" },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "unrelated", namespace: "default", creationTimestamp: ts() },
      data: { password: btoa("hunter2") },
    },
    {
      apiVersion: "networking.liqo.io/v1beta1",
      kind: "Connection",
      metadata: {
        name: "milan",
        namespace: "liqo-tenant-milan",
        labels: { "liqo.io/remote-cluster-id": "milan" },
        creationTimestamp: ts(),
      },
      spec: { type: "Client", gatewayRef: { name: "milan", namespace: "liqo-tenant-milan" } },
      status: { value: "Connected" },
    },
  ];
  for (let i = 0; i < configmaps; i++) {
    objs.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: `cm-${String(i).padStart(4, "0")}`,
        namespace: `ns-${i % 7}`,
        creationTimestamp: ts(),
      },
      data: { i: String(i) },
    });
  }
  return objs;
}

const WIREGUARD: WireguardState = {
  "liqo-tenant-milan/gw-milan-7d9f": {
    interfaces: [{
      name: "liqo-tunnel",
      privateKey: "SERVERSIDEPRIVATEKEYSERVERSIDEPRIVATEKEY00=",
      publicKey: TUNNEL_PUBLIC,
      listenPort: 51840,
      peers: [{
        publicKey: PEER_PUBLIC,
        endpoint: "127.0.0.1:51840",
        allowedIps: ["0.0.0.0/0"],
        handshakeAgoSeconds: 20,
        rxBytes: 1000,
        txBytes: 2000,
        persistentKeepalive: "off",
      }],
    }],
  },
};

interface Env {
  fake: FakeCluster;
  source: LiveClusterSource;
  dir: string;
  kubeconfig: string;
}

async function setup(
  opts: {
    configmaps?: number;
    forbid?: string[];
    latencyMs?: number;
    timeoutMs?: number;
    allowKubectl?: boolean;
    extra?: K8sObject[];
  } = {},
): Promise<Env> {
  const fake = await startFakeCluster({
    name: "rome",
    objects: [...baseObjects(opts.configmaps), ...(opts.extra ?? [])],
    wireguard: WIREGUARD,
    forbid: opts.forbid,
    latencyMs: opts.latencyMs,
  });
  const dir = await Deno.makeTempDir({ prefix: "flyingfish-live-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await Deno.writeTextFile(kubeconfig, fake.kubeconfigYaml());
  const source = await createLiveSource({
    kubeconfig,
    requestTimeoutMs: opts.timeoutMs ?? 10_000,
    allowKubectl: opts.allowKubectl,
  });
  return { fake, source, dir, kubeconfig };
}

async function teardown(env: Env): Promise<void> {
  await env.source.close();
  await env.fake.close();
  await Deno.remove(env.dir, { recursive: true });
}

function kubectlOnPath(): boolean {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (dir && Deno.statSync(`${dir}/kubectl`).isFile) return true;
    } catch {
      // not here
    }
  }
  return false;
}

Deno.test("live: HTTPS with the kubeconfig CA, endpoint, probeReachable", async () => {
  const env = await setup();
  try {
    const { caFingerprint, ...endpoint } = env.source.endpoint;
    assert.deepEqual(endpoint, { context: "rome", server: env.fake.url });
    // The kubeconfig's CA, as a fingerprint (PF-ID tells two clusters apart by it), never the CA itself.
    assert.match(caFingerprint ?? "", /^[0-9a-f]{16}$/);
    assert.equal(env.source.isSnapshot, false);
    assert.ok(env.source.now() instanceof Date);
    await env.source.probeReachable();
    assert.equal(env.fake.requests[0].path, "/version");
  } finally {
    await teardown(env);
  }
});

Deno.test("live: list paginates (limit=500 + continue) and fills in apiVersion/kind", async () => {
  const env = await setup({ configmaps: 1203 });
  try {
    const out = await env.source.list(KINDS.configmaps);
    assert.ok(out.ok, JSON.stringify(out));
    assert.equal(out.items.length, 1203);
    assert.equal(new Set(out.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).size, 1203);
    for (const o of out.items) {
      assert.equal(o.apiVersion, "v1");
      assert.equal(o.kind, "ConfigMap");
    }
    const lists = env.fake.requests.filter((r) => r.path === "/api/v1/configmaps");
    assert.equal(lists.length, 3);
    for (const r of lists) assert.match(r.query, /(^|&)limit=500(&|$)/);
    assert.ok(!lists[0].query.includes("continue="));
    assert.ok(lists[1].query.includes("continue=") && lists[2].query.includes("continue="));

    const conns = await env.source.list(KINDS.connections);
    assert.ok(conns.ok);
    assert.equal(conns.items.length, 1);
    assert.equal(conns.items[0].apiVersion, "networking.liqo.io/v1beta1");
    assert.equal(conns.items[0].kind, "Connection");
  } finally {
    await teardown(env);
  }
});

Deno.test("live: events are listed with the server-side field selector type=Warning", async () => {
  const event = (name: string, type: string): K8sObject => ({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: "liqo-tenant-milan", creationTimestamp: ts() },
    involvedObject: { apiVersion: "v1", kind: "Pod", name: "gw-milan-7d9f", namespace: "liqo-tenant-milan" },
    reason: type === "Warning" ? "BackOff" : "Pulled",
    type,
  });
  const env = await setup({ extra: [event("w", "Warning"), event("n", "Normal")] });
  try {
    const out = await env.source.list(KINDS.events);
    assert.ok(out.ok, JSON.stringify(out));
    const lists = env.fake.requests.filter((r) => r.path === "/api/v1/events");
    assert.equal(lists.length, 1);
    assert.equal(new URLSearchParams(lists[0].query).get("fieldSelector"), "type=Warning");
    assert.deepEqual(out.items.map((e) => e.metadata.name), ["w"]);
  } finally {
    await teardown(env);
  }
});

Deno.test("live: secrets are reduced to the public key before anything else sees them", async () => {
  const env = await setup();
  try {
    const out = await env.source.list(KINDS.secrets);
    assert.ok(out.ok, JSON.stringify(out));
    // The label selector keeps unrelated secrets out.
    assert.deepEqual(out.items.map((o) => o.metadata.name), ["gw-keys-milan"]);
    const s = out.items[0];
    const text = JSON.stringify(out);
    assert.ok(!text.includes(PRIVATE_KEY), "private key leaked");
    assert.ok(!text.includes(PRIVATE_KEY_TEXT), "private key leaked");
    assert.ok(!text.includes("plain-text-token-must-never-leak"), "stringData leaked");
    assert.deepEqual(s.data, { publicKey: btoa(TUNNEL_PUBLIC) });
    assert.equal(s.stringData, undefined);
    assert.equal(s.metadata.managedFields, undefined);
    assert.deepEqual(s.metadata.annotations, {
      "liqo.io/keep": "yes",
      [REDACTED_KEYS_ANNOTATION]: "privateKey,token",
    });
    assert.equal(s.kind, "Secret");
  } finally {
    await teardown(env);
  }
});

Deno.test("sanitizeObject: every kind loses managedFields and last-applied; secrets without data", () => {
  const cm = sanitizeObject({
    kind: "ConfigMap",
    metadata: {
      name: "x",
      managedFields: [{}],
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" },
    },
    data: { a: "b" },
  });
  assert.deepEqual(cm, { kind: "ConfigMap", metadata: { name: "x" }, data: { a: "b" } });
  const s = sanitizeObject({ kind: "Secret", metadata: { name: "s" }, type: "kubernetes.io/tls" });
  assert.equal(s.data, undefined);
  assert.equal(s.metadata.annotations?.[REDACTED_KEYS_ANNOTATION], "");
});

Deno.test("live: forbidden kinds, missing CRDs, discovery", async () => {
  const env = await setup({ forbid: ["secrets", "networkpolicies"] });
  try {
    const sec = await env.source.list(KINDS.secrets);
    assert.ok(!sec.ok);
    assert.equal(sec.reason, "forbidden");
    assert.match(sec.message, /cannot list resource "secrets"/);
    const np = await env.source.list(KINDS.networkpolicies);
    assert.ok(!np.ok && np.reason === "forbidden");
    const missing = await env.source.list(KINDS.foreignclusters);
    assert.ok(!missing.ok);
    assert.equal(missing.reason, "missing");

    const disco = await env.source.discovery([
      { group: "networking.liqo.io", version: "v1beta1" },
      { group: "core.liqo.io", version: "v1beta1" },
    ]);
    assert.ok(disco.ok, JSON.stringify(disco));
    const net = disco.groups.find((g) => g.group === "networking.liqo.io")!;
    assert.ok(net.resources.includes("connections"), JSON.stringify(net));
    assert.ok(net.resources.every((r) => !r.includes("/")), "subresources are dropped");
    assert.deepEqual(disco.groups.find((g) => g.group === "core.liqo.io")?.resources, []);
  } finally {
    await teardown(env);
  }
});

Deno.test("live: a passive list and discovery issue only GET requests, no exec", async () => {
  const env = await setup({ configmaps: 10 });
  try {
    await env.source.probeReachable();
    for (const id of ["nodes", "pods", "secrets", "configmaps", "connections", "gatewayclients"] as const) {
      await env.source.list(KINDS[id]);
    }
    await env.source.discovery([{ group: "networking.liqo.io", version: "v1beta1" }]);
    assert.ok(env.fake.requests.length >= 8);
    for (const r of env.fake.requests) {
      assert.equal(r.method, "GET", `${r.method} ${r.path}`);
      assert.equal(r.upgrade, false, r.path);
      assert.ok(!r.path.includes("/exec"), r.path);
    }
  } finally {
    await teardown(env);
  }
});

Deno.test("live: exec `wg show all dump` through the Exec API (HTTPS websocket, v5)", async () => {
  const env = await setup();
  try {
    const out = await env.source.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", [
      "wg",
      "show",
      "all",
      "dump",
    ]);
    assert.ok(out.ok, JSON.stringify(out));
    assert.equal(out.via, "api");
    assert.equal(out.exitCode, 0);
    const lines = out.stdout.trim().split("\n");
    assert.equal(lines.length, 2);
    assert.equal(lines[0].split("\t")[0], "liqo-tunnel");
    assert.equal(lines[0].split("\t")[2], TUNNEL_PUBLIC);
    assert.equal(lines[1].split("\t")[1], PEER_PUBLIC);
    const execReq = env.fake.requests.find((r) => r.path.endsWith("/exec"));
    assert.ok(execReq?.upgrade);
    assert.equal(execReq.status, 101);

    // A failing command carries its exit code (NonZeroExitCode status).
    const bad = await env.source.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", ["no-such-command"]);
    assert.ok(bad.ok, JSON.stringify(bad));
    assert.equal(bad.via, "api");
    assert.notEqual(bad.exitCode, 0);

    const gone = await env.source.exec("liqo-tenant-milan", "no-such-pod", "wireguard", ["wg"]);
    assert.ok(!gone.ok);
    assert.equal(gone.reason, "missing");
  } finally {
    await teardown(env);
  }
});

Deno.test({
  name: "live: kubectl exec fallback when pods/exec is forbidden",
  ignore: !kubectlOnPath(),
  async fn() {
    const env = await setup({ forbid: ["pods/exec"] });
    try {
      const out = await env.source.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", [
        "wg",
        "show",
        "all",
        "dump",
      ]);
      // The fake answers 403 to kubectl too: the fallback must report that, not invent output.
      assert.ok(!out.ok, JSON.stringify(out));
      assert.equal(out.reason, "forbidden");
      assert.match(out.message, /forbidden \(403, pods\/exec\); fallback: kubectl exec/);
    } finally {
      await teardown(env);
    }
  },
});
if (!kubectlOnPath()) console.warn("live_test: kubectl not on PATH — the kubectl fallback test is skipped");

Deno.test({
  name: "live: exec through kubectl (execVia: kubectl) gives the same output",
  ignore: !kubectlOnPath(),
  async fn() {
    const env = await setup();
    try {
      const viaKubectl = await createLiveSource({ kubeconfig: env.kubeconfig, execVia: "kubectl" });
      const out = await viaKubectl.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", [
        "wg",
        "show",
        "all",
        "dump",
      ]);
      assert.ok(out.ok, JSON.stringify(out));
      assert.equal(out.via, "kubectl");
      assert.equal(out.exitCode, 0);
      assert.match(
        out.stdout,
        new RegExp(`^liqo-tunnel\t[^\t]+\t${TUNNEL_PUBLIC.replace(/[+=]/g, "\\$&")}\t51840`),
      );
      const bad = await viaKubectl.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", [
        "no-such-command",
      ]);
      assert.ok(bad.ok, JSON.stringify(bad));
      assert.notEqual(bad.exitCode, 0);
      assert.ok(!bad.stderr.includes("command terminated with exit code"), bad.stderr);
      const gone = await viaKubectl.exec("liqo-tenant-milan", "no-such-pod", "wireguard", ["wg"]);
      assert.ok(!gone.ok);
      assert.equal(gone.reason, "missing");
      await viaKubectl.close();
    } finally {
      await teardown(env);
    }
  },
});

Deno.test({
  name: "live: without --allow-run=kubectl the exec failure says what the fallback needs",
  permissions: { net: ["127.0.0.1"], read: true, write: true, env: true, sys: true, run: false },
  async fn() {
    const env = await setup({ forbid: ["pods/exec"] });
    try {
      const out = await env.source.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", ["wg", "show"]);
      assert.ok(!out.ok);
      assert.equal(out.reason, "forbidden");
      assert.match(out.message, /needs --allow-run=kubectl/);
    } finally {
      await teardown(env);
    }
  },
});

Deno.test("live: allowKubectl=false disables the fallback", async () => {
  const env = await setup({ forbid: ["pods/exec"], allowKubectl: false });
  try {
    const out = await env.source.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", ["wg", "show"]);
    assert.ok(!out.ok);
    assert.match(out.message, /fallback is disabled/);
    assert.equal(env.fake.requests.filter((r) => r.path.endsWith("/exec")).length, 1);
  } finally {
    await teardown(env);
  }
});

Deno.test("live: timeouts on list and exec", async () => {
  const env = await setup({ latencyMs: 800, timeoutMs: 200, allowKubectl: false });
  try {
    const out = await env.source.list(KINDS.pods);
    assert.ok(!out.ok);
    assert.equal(out.reason, "error");
    assert.match(out.message, /timed out after 200 ms/);
    const ex = await env.source.exec("liqo-tenant-milan", "gw-milan-7d9f", "wireguard", ["wg", "show"]);
    assert.ok(!ex.ok);
    assert.match(ex.message, /timed out after 200 ms/);
    await assert.rejects(
      env.source.probeReachable(),
      (e) => e instanceof ToolError && /timed out/.test(e.message),
    );
  } finally {
    await teardown(env);
    // Let the server finish its delayed responses.
    await new Promise((r) => setTimeout(r, 900));
  }
});

Deno.test("live: probeReachable reports rejected credentials, an unreachable server, an untrusted CA", async () => {
  const env = await setup();
  try {
    // Wrong token → 401 on the first request.
    const badToken = env.fake.kubeconfigYaml().replace(env.fake.token, "wrong-token");
    await Deno.writeTextFile(`${env.dir}/bad-token`, badToken);
    const s1 = await createLiveSource({ kubeconfig: `${env.dir}/bad-token` });
    await assert.rejects(s1.probeReachable(), (e) => {
      assert.ok(e instanceof ToolError);
      assert.equal(
        e.message,
        `the API server at ${env.fake.url} rejected the credentials of context rome (401)`,
      );
      return true;
    });
    // A list rejected the same way stops the run too (issue 10 §3): a ToolError, exit 3.
    await assert.rejects(s1.list(KINDS.pods), (e) => {
      assert.ok(e instanceof ToolError);
      assert.match(e.message, /rejected the credentials of context rome \(401\) while listing pods$/);
      return true;
    });
    await s1.close();

    // A CA that did not sign the server certificate.
    const other = await startFakeCluster({ name: "other", objects: [], wireguard: {} });
    const wrongCa = env.fake.kubeconfigYaml().replace(btoa(env.fake.caPem!), btoa(other.caPem!));
    await other.close();
    await Deno.writeTextFile(`${env.dir}/wrong-ca`, wrongCa);
    const s2 = await createLiveSource({ kubeconfig: `${env.dir}/wrong-ca` });
    await assert.rejects(s2.probeReachable(), (e) => {
      assert.ok(e instanceof ToolError);
      assert.match(e.message, new RegExp(`^cannot reach the API server at ${env.fake.url}: .*certificate`));
      return true;
    });
    await s2.close();
  } finally {
    await teardown(env);
  }
  // Nothing listens any more on that port.
  const closedUrl = env.fake.url;
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/kc`, env.fake.kubeconfigYaml());
  const s3 = await createLiveSource({ kubeconfig: `${dir}/kc` });
  await assert.rejects(s3.probeReachable(), (e) => {
    assert.ok(e instanceof ToolError);
    assert.match(e.message, new RegExp(`^cannot reach the API server at ${closedUrl}: .*ECONNREFUSED`));
    return true;
  });
  await s3.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("live: an exec credential plugin supplies the token (client-node ExecAuth under Deno)", async () => {
  const env = await setup();
  try {
    const cred = JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1beta1",
      kind: "ExecCredential",
      status: { token: env.fake.token },
    });
    await Deno.writeTextFile(`${env.dir}/cred.json`, cred);
    const yaml = env.fake.kubeconfigYaml().replace(
      /token: .*/,
      `exec:\n        apiVersion: client.authentication.k8s.io/v1beta1\n        command: cat\n` +
        `        args: ["${env.dir}/cred.json"]\n        interactiveMode: Never`,
    );
    assert.ok(!yaml.includes(env.fake.token) && yaml.includes("command: cat"), yaml);
    await Deno.writeTextFile(`${env.dir}/exec-plugin`, yaml);
    const s = await createLiveSource({ kubeconfig: `${env.dir}/exec-plugin` });
    await s.probeReachable();
    const pods = await s.list(KINDS.pods);
    assert.ok(pods.ok, JSON.stringify(pods));
    assert.equal(pods.items.length, 1);
    await s.close();
  } finally {
    await teardown(env);
  }
});

Deno.test({
  name: "live: no --allow-net for the API server is a PermissionError naming the server",
  permissions: { net: false, read: true, write: true, env: true, sys: true, run: false },
  async fn() {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(
      `${dir}/kc`,
      "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.2:6443\n    insecure-skip-tls-verify: true\n" +
        "users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n" +
        "current-context: c\n",
    );
    const s = await createLiveSource({ kubeconfig: `${dir}/kc` });
    await assert.rejects(s.probeReachable(), (e) => {
      assert.ok(e instanceof PermissionError, String(e));
      assert.equal(e.flag, "--allow-net");
      assert.equal(e.purpose, "reach the API server 127.0.0.2:6443");
      return true;
    });
    await s.close();
    await Deno.remove(dir, { recursive: true });
  },
});
