import assert from "node:assert/strict";
import type { K8sObject } from "./object.ts";
import { type FakeCluster, type FakeClusterConfig, startFakeCluster } from "./server.ts";
import { parse } from "yaml";

const POD = (
  ns: string,
  name: string,
  labels: Record<string, string>,
  node: string,
  phase = "Running",
): K8sObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    namespace: ns,
    labels,
    resourceVersion: "100",
    creationTimestamp: "2026-11-30T02:00:00Z",
  },
  spec: { nodeName: node, containers: [{ name: "gateway" }, { name: "wireguard" }, { name: "geneve" }] },
  status: { phase },
});

const OBJECTS: K8sObject[] = [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "liqo" } },
  { apiVersion: "v1", kind: "Node", metadata: { name: "n1", labels: { role: "cp" } } },
  POD("liqo", "a", { app: "x", tier: "front" }, "n1"),
  POD("liqo", "b", { app: "y" }, "n2"),
  POD("t1", "gw", { app: "x", "networking.liqo.io/component": "gateway" }, "n2"),
  POD("t1", "c", {}, "n1", "Pending"),
  {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", namespace: "t1", labels: { "liqo.io/remote-cluster-id": "milan" } },
    data: {},
  },
  {
    apiVersion: "core.liqo.io/v1beta1",
    kind: "ForeignCluster",
    metadata: { name: "milan-8d1f03" },
    spec: { clusterID: "milan-8d1f03" },
  },
  {
    apiVersion: "networking.liqo.io/v1beta1",
    kind: "PublicKey",
    metadata: { name: "milan", namespace: "t1" },
    spec: { publicKey: "k" },
  },
];

const WG: FakeClusterConfig["wireguard"] = {
  "t1/gw": {
    interfaces: [{
      name: "liqo-tunnel",
      privateKey: "PRIV",
      publicKey: "PUB",
      listenPort: 51840,
      mtu: 1340,
      peers: [{
        publicKey: "PEER",
        endpoint: "203.0.113.50:51840",
        allowedIps: ["0.0.0.0/0"],
        handshakeAgoSeconds: 25,
        rxBytes: 1000,
        txBytes: 2000,
        rxBytesPerSecond: 1000,
        txBytesPerSecond: 1000,
      }],
    }],
  },
  "t1/c": null,
};

function start(extra: Partial<FakeClusterConfig> = {}): Promise<FakeCluster> {
  return startFakeCluster({ name: "test", objects: OBJECTS, wireguard: WG, tls: false, ...extra });
}

// deno-lint-ignore no-explicit-any
type Json = any;

async function get(
  c: FakeCluster,
  path: string,
  init: RequestInit & { client?: Deno.HttpClient } = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(c.url + path, {
    ...init,
    headers: { authorization: `Bearer ${c.token}`, ...(init.headers ?? {}) },
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain text
  }
  return { status: res.status, body };
}

Deno.test("fakekube: auth, version and discovery", async () => {
  const c = await start();
  try {
    const noAuth = await fetch(c.url + "/api/v1/pods");
    assert.equal(noAuth.status, 401);
    assert.equal((await noAuth.json()).reason, "Unauthorized");
    const bad = await get(c, "/api/v1/pods", { headers: { authorization: "Bearer nope" } });
    assert.equal(bad.status, 401);

    assert.equal((await get(c, "/version")).body.gitVersion, "v1.31.4");
    assert.deepEqual((await get(c, "/api")).body.versions, ["v1"]);
    const core = (await get(c, "/api/v1")).body;
    assert.equal(core.kind, "APIResourceList");
    // deno-lint-ignore no-explicit-any
    const names = core.resources.map((r: any) => r.name);
    for (const n of ["pods", "pods/exec", "pods/log", "secrets", "nodes", "services"]) {
      assert.ok(names.includes(n), n);
    }

    const groups = (await get(c, "/apis")).body;
    assert.equal(groups.kind, "APIGroupList");
    // deno-lint-ignore no-explicit-any
    const gnames = groups.groups.map((g: any) => g.name);
    for (const g of ["apps", "discovery.k8s.io", "networking.k8s.io", "core.liqo.io", "networking.liqo.io"]) {
      assert.ok(gnames.includes(g), g);
    }
    assert.ok(!gnames.includes("ipam.liqo.io"));
    assert.equal((await get(c, "/apis/ipam.liqo.io/v1alpha1")).status, 404);
    assert.equal((await get(c, "/apis/ipam.liqo.io/v1alpha1/networks")).status, 404);

    const net = (await get(c, "/apis/networking.liqo.io/v1beta1")).body;
    // deno-lint-ignore no-explicit-any
    const netNames = net.resources.map((r: any) => r.name);
    assert.ok(netNames.includes("publickeies"));
    assert.ok(netNames.includes("gatewayservers"), "known kinds of a served group are served");
    const fc = (await get(c, "/apis/core.liqo.io/v1beta1")).body;
    // deno-lint-ignore no-explicit-any
    assert.equal(fc.resources.find((r: any) => r.name === "foreignclusters").namespaced, false);
    assert.equal((await get(c, "/apis/networking.liqo.io/v1beta1/gatewayservers")).body.items.length, 0);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: list and get like a real server", async () => {
  const c = await start();
  try {
    const pods = await get(c, "/api/v1/pods");
    assert.equal(pods.status, 200);
    assert.equal(pods.body.kind, "PodList");
    assert.equal(pods.body.apiVersion, "v1");
    assert.equal(typeof pods.body.metadata.resourceVersion, "string");
    assert.equal(pods.body.items.length, 4);
    for (const p of pods.body.items) {
      assert.equal(p.kind, undefined);
      assert.equal(p.apiVersion, undefined);
    }
    const ns = await get(c, "/api/v1/namespaces/t1/pods");
    // deno-lint-ignore no-explicit-any
    assert.deepEqual(ns.body.items.map((p: any) => p.metadata.name).sort(), ["c", "gw"]);
    const one = await get(c, "/api/v1/namespaces/t1/pods/gw");
    assert.equal(one.body.kind, "Pod");
    assert.equal(one.body.apiVersion, "v1");
    const missing = await get(c, "/api/v1/namespaces/t1/pods/zzz");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.kind, "Status");
    assert.equal(missing.body.reason, "NotFound");
    assert.equal(missing.body.message, 'pods "zzz" not found');

    const fcs = await get(c, "/apis/core.liqo.io/v1beta1/foreignclusters");
    assert.equal(fcs.body.kind, "ForeignClusterList");
    assert.equal(fcs.body.apiVersion, "core.liqo.io/v1beta1");
    assert.equal(fcs.body.items[0].metadata.name, "milan-8d1f03");
    const pk = await get(c, "/apis/networking.liqo.io/v1beta1/namespaces/t1/publickeies/milan");
    assert.equal(pk.body.kind, "PublicKey");

    assert.equal((await get(c, "/api/v1/widgets")).status, 404);
    assert.equal((await get(c, "/apis/apps/v1/deployments")).body.kind, "DeploymentList");
    assert.equal((await get(c, "/apis/apps/v1/deployments")).body.items.length, 0);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: label and field selectors", async () => {
  const c = await start();
  const names = async (q: string): Promise<string[]> => {
    const r = await get(c, `/api/v1/pods?${q}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // deno-lint-ignore no-explicit-any
    return r.body.items.map((p: any) => p.metadata.name).sort();
  };
  const ls = (s: string): string => `labelSelector=${encodeURIComponent(s)}`;
  const fs = (s: string): string => `fieldSelector=${encodeURIComponent(s)}`;
  try {
    assert.deepEqual(await names(ls("app=x")), ["a", "gw"]);
    assert.deepEqual(await names(ls("app==x")), ["a", "gw"]);
    assert.deepEqual(await names(ls("app!=x")), ["b", "c"]);
    assert.deepEqual(await names(ls("app")), ["a", "b", "gw"]);
    assert.deepEqual(await names(ls("!app")), ["c"]);
    assert.deepEqual(await names(ls("app in (x, y)")), ["a", "b", "gw"]);
    assert.deepEqual(await names(ls("app notin (x)")), ["b", "c"]);
    assert.deepEqual(await names(ls("app=x,tier=front")), ["a"]);
    assert.deepEqual(await names(ls("networking.liqo.io/component=gateway")), ["gw"]);
    assert.deepEqual(await names(fs("spec.nodeName=n2")), ["b", "gw"]);
    assert.deepEqual(await names(fs("status.phase!=Running")), ["c"]);
    assert.deepEqual(await names(fs("metadata.namespace=t1,metadata.name=gw")), ["gw"]);
    assert.deepEqual(await names(`${ls("app=x")}&${fs("metadata.namespace==liqo")}`), ["a"]);
    const bad = await get(c, "/api/v1/pods?" + fs("spec.bogus=1"));
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /field label not supported/);
    const secrets = await get(c, "/api/v1/secrets?" + ls("liqo.io/remote-cluster-id"));
    assert.equal(secrets.body.items.length, 1);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: pagination with limit and continue", async () => {
  const c = await start();
  try {
    const seen: string[] = [];
    let cont = "";
    let pages = 0;
    do {
      const r = await get(c, `/api/v1/pods?limit=3${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`);
      assert.equal(r.status, 200);
      assert.ok(r.body.items.length <= 3);
      // deno-lint-ignore no-explicit-any
      seen.push(...r.body.items.map((p: any) => `${p.metadata.namespace}/${p.metadata.name}`));
      cont = r.body.metadata.continue ?? "";
      pages++;
    } while (cont);
    assert.equal(pages, 2);
    assert.deepEqual(seen, ["liqo/a", "liqo/b", "t1/c", "t1/gw"]);
    assert.equal((await get(c, "/api/v1/pods?limit=2&continue=%%%")).status, 400);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: forbidden resources, 405 on updates, request log", async () => {
  const c = await start({ forbid: ["secrets", "foreignclusters", "pods/log"] });
  try {
    const r = await get(c, "/api/v1/secrets?labelSelector=liqo.io%2Fremote-cluster-id");
    assert.equal(r.status, 403);
    assert.equal(r.body.kind, "Status");
    assert.equal(r.body.reason, "Forbidden");
    assert.equal(r.body.code, 403);
    assert.equal(
      r.body.message,
      'secrets is forbidden: User "flyingfish" cannot list resource "secrets" in API group "" at the cluster scope',
    );
    const r2 = await get(c, "/apis/core.liqo.io/v1beta1/foreignclusters");
    assert.equal(r2.status, 403);
    assert.match(r2.body.message, /in API group "core.liqo.io" at the cluster scope/);
    const r3 = await get(c, "/api/v1/namespaces/t1/secrets");
    assert.match(r3.body.message, /in the namespace "t1"$/);
    assert.equal((await get(c, "/api/v1/namespaces/t1/pods/gw/log?container=wireguard")).status, 403);
    assert.equal((await get(c, "/api/v1/pods")).status, 200);

    // Creates and deletes are served (writes_test.ts); updates are not.
    const put = await get(c, "/api/v1/namespaces/t1/pods/gw", { method: "PUT", body: "{}" });
    assert.equal(put.status, 405);
    const patch = await get(c, "/api/v1/namespaces/t1/pods/gw", { method: "PATCH", body: "{}" });
    assert.equal(patch.status, 405);
    const writes = c.requests.filter((x) => x.method !== "GET");
    assert.deepEqual(writes.map((w) => [w.method, w.status]), [["PUT", 405], ["PATCH", 405]]);
    assert.equal(c.requests[0].path, "/api/v1/secrets");
    assert.equal(c.requests[0].query, "labelSelector=liqo.io%2Fremote-cluster-id");
    assert.equal(c.requests[0].status, 403);
    assert.equal(c.requests[0].upgrade, false);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: pod logs", async () => {
  const c = await start({ logs: { "t1/gw/wireguard": "one\ntwo\nthree\n" } });
  try {
    const r = await get(c, "/api/v1/namespaces/t1/pods/gw/log?container=wireguard&tailLines=2");
    assert.equal(r.status, 200);
    assert.equal(r.body, "two\nthree\n");
    const def = await get(c, "/api/v1/namespaces/t1/pods/gw/log?container=gateway");
    assert.match(def.body, /starting gateway/);
    assert.equal((await get(c, "/api/v1/namespaces/t1/pods/gw/log")).status, 400);
    assert.equal((await get(c, "/api/v1/namespaces/t1/pods/nope/log")).status, 404);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: latency is added to responses", async () => {
  const c = await start({ latencyMs: 150 });
  try {
    const t0 = performance.now();
    assert.equal((await get(c, "/version")).status, 200);
    assert.ok(performance.now() - t0 >= 140);
  } finally {
    await c.close();
  }
});

interface Frame {
  channel: number;
  text: string;
}

async function execWs(
  c: FakeCluster,
  pod: string,
  command: string[],
  protocols: string[],
  container = "wireguard",
): Promise<{ frames: Frame[]; protocol: string; closeCode: number; error: boolean }> {
  const q = new URLSearchParams({ container, stdout: "true", stderr: "true" });
  for (const a of command) q.append("command", a);
  const url = `${c.url.replace(/^http/, "ws")}/api/v1/namespaces/t1/pods/${pod}/exec?${q}`;
  const ws = new WebSocket(url, { protocols, headers: { authorization: `Bearer ${c.token}` } });
  ws.binaryType = "arraybuffer";
  const frames: Frame[] = [];
  let error = false;
  ws.onmessage = (e) => {
    if (typeof e.data === "string") {
      frames.push({ channel: e.data.charCodeAt(0) - 48, text: atob(e.data.slice(1)) });
    } else {
      const b = new Uint8Array(e.data);
      frames.push({ channel: b[0], text: new TextDecoder().decode(b.slice(1)) });
    }
  };
  ws.onopen = () => {
    if (ws.protocol === "v5.channel.k8s.io") ws.send(Uint8Array.of(255, 0)); // v5: close stdin
  };
  ws.onerror = () => error = true;
  const closeCode = await new Promise<number>((resolve) => ws.onclose = (e) => resolve(e.code));
  return { frames, protocol: ws.protocol, closeCode, error };
}

Deno.test("fakekube: exec over WebSocket, v5 and v4", async () => {
  const c = await start();
  try {
    for (const proto of ["v5.channel.k8s.io", "v4.channel.k8s.io"]) {
      const r = await execWs(c, "gw", ["wg", "show", "all", "dump"], [proto, "channel.k8s.io"]);
      assert.equal(r.protocol, proto);
      assert.equal(r.closeCode, 1000);
      const stdout = r.frames.filter((f) => f.channel === 1).map((f) => f.text).join("");
      const lines = stdout.trimEnd().split("\n").map((l) => l.split("\t"));
      assert.deepEqual(lines[0], ["liqo-tunnel", "PRIV", "PUB", "51840", "off"]);
      assert.equal(lines[1].length, 9);
      assert.deepEqual(lines[1].slice(0, 5), [
        "liqo-tunnel",
        "PEER",
        "(none)",
        "203.0.113.50:51840",
        "0.0.0.0/0",
      ]);
      const hs = Number(lines[1][5]);
      assert.ok(Math.abs(Date.now() / 1000 - 25 - hs) <= 2);
      const last = r.frames[r.frames.length - 1];
      assert.equal(last.channel, 3);
      assert.deepEqual(JSON.parse(last.text), { metadata: {}, status: "Success" });
    }
    // client preference order wins among supported protocols
    const pick = await execWs(c, "gw", ["wg", "show", "interfaces"], [
      "v4.channel.k8s.io",
      "v5.channel.k8s.io",
    ]);
    assert.equal(pick.protocol, "v4.channel.k8s.io");
    assert.equal(pick.frames[0].text, "liqo-tunnel\n");
    const b64 = await execWs(c, "gw", ["wg", "show", "liqo-tunnel", "public-key"], [
      "v4.base64.channel.k8s.io",
    ]);
    assert.equal(b64.frames[0].channel, 1);
    assert.equal(b64.frames[0].text, "PUB\n");

    // failure: status frame with exit code, stderr frame first
    const f = await execWs(c, "gw", ["wg", "show", "wg0", "dump"], ["v5.channel.k8s.io"]);
    assert.deepEqual(f.frames.map((x) => x.channel), [2, 3]);
    assert.equal(f.frames[0].text, "Unable to access interface: No such device\n");
    const st = JSON.parse(f.frames[1].text);
    assert.equal(st.status, "Failure");
    assert.equal(st.reason, "NonZeroExitCode");
    assert.deepEqual(st.details.causes, [{ reason: "ExitCode", message: "1" }]);
    assert.match(st.message, /^command terminated with non-zero exit code: /);

    const nf = await execWs(c, "gw", ["sh", "-c", "wg show"], ["v5.channel.k8s.io"]);
    assert.equal(JSON.parse(nf.frames[nf.frames.length - 1].text).details.causes[0].message, "127");

    const missing = await execWs(c, "nope", ["wg"], ["v5.channel.k8s.io"]);
    assert.ok(missing.error);
    assert.equal(c.requests[c.requests.length - 1].status, 404);
    const pending = await execWs(c, "c", ["wg"], ["v5.channel.k8s.io"], "gateway");
    assert.ok(pending.error);
    assert.equal(c.requests[c.requests.length - 1].status, 500);
    const badContainer = await execWs(c, "gw", ["wg"], ["v5.channel.k8s.io"], "nginx");
    assert.ok(badContainer.error);
    assert.equal(c.requests[c.requests.length - 1].status, 400);
    assert.ok(c.requests.filter((x) => x.upgrade && x.status === 101).length >= 6);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: exec forbidden is answered 403 before the upgrade", async () => {
  const c = await start({ forbid: ["pods/exec"] });
  try {
    const r = await execWs(c, "gw", ["wg", "show"], ["v5.channel.k8s.io"]);
    assert.ok(r.error);
    const last = c.requests[c.requests.length - 1];
    assert.equal(last.status, 403);
    assert.equal(last.upgrade, true);
    const plain = await get(c, "/api/v1/namespaces/t1/pods/gw/exec?command=wg&container=wireguard");
    assert.equal(plain.status, 403);
    assert.match(
      plain.body.message,
      /cannot create resource "pods\/exec" in API group "" in the namespace "t1"/,
    );
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: transfer counters move between samples", async () => {
  const c = await start();
  try {
    const sample = async (): Promise<number[]> => {
      const r = await execWs(c, "gw", ["wg", "show", "liqo-tunnel", "transfer"], ["v5.channel.k8s.io"]);
      return r.frames[0].text.trim().split("\t").slice(1).map(Number);
    };
    const [rx1, tx1] = await sample();
    await new Promise((r) => setTimeout(r, 1100));
    const [rx2, tx2] = await sample();
    assert.ok(rx2 - rx1 >= 1000, `${rx1} -> ${rx2}`);
    assert.ok(tx2 - tx1 >= 1000, `${tx1} -> ${tx2}`);
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: HTTPS with the generated CA and kubeconfig", async () => {
  const c = await start({ tls: true });
  const client = Deno.createHttpClient({ caCerts: [c.caPem!] });
  try {
    assert.ok(c.url.startsWith("https://127.0.0.1:"));
    const r = await get(c, "/api/v1/namespaces/t1/pods", { client });
    assert.equal(r.status, 200);
    assert.equal(r.body.items.length, 2);
    await assert.rejects(fetch(c.url + "/version"));
    const kc = parse(c.kubeconfigYaml());
    assert.equal(kc["current-context"], "test");
    assert.equal(kc.clusters[0].cluster.server, c.url);
    assert.equal(atob(kc.clusters[0].cluster["certificate-authority-data"]), c.caPem);
    assert.equal(kc.users[0].user.token, c.token);
    assert.deepEqual(kc.contexts[0], { name: "test", context: { cluster: "test", user: "test" } });
  } finally {
    client.close();
    await c.close();
  }
});

Deno.test("fakekube: plain HTTP kubeconfig skips TLS verification", async () => {
  const c = await start();
  try {
    assert.equal(c.caPem, null);
    const kc = parse(c.kubeconfigYaml());
    assert.equal(kc.clusters[0].cluster["insecure-skip-tls-verify"], true);
    assert.ok(kc.clusters[0].cluster.server.startsWith("http://127.0.0.1:"));
  } finally {
    await c.close();
  }
});

Deno.test("fakekube: missingGroups hides a group from discovery and its objects", async () => {
  const c = await start({ missingGroups: ["networking.liqo.io"] });
  try {
    // deno-lint-ignore no-explicit-any
    const gnames = (await get(c, "/apis")).body.groups.map((g: any) => g.name);
    assert.ok(gnames.includes("core.liqo.io"));
    assert.ok(!gnames.includes("networking.liqo.io"));
    for (
      const p of [
        "/apis/networking.liqo.io",
        "/apis/networking.liqo.io/v1beta1",
        "/apis/networking.liqo.io/v1beta1/publickeies",
        "/apis/networking.liqo.io/v1beta1/namespaces/t1/publickeies",
        "/apis/networking.liqo.io/v1beta1/namespaces/t1/publickeies/milan",
      ]
    ) {
      const r = await get(c, p);
      assert.equal(r.status, 404, p);
      assert.equal(r.body.reason, "NotFound", p);
    }
    assert.equal((await get(c, "/apis/core.liqo.io/v1beta1/foreignclusters")).body.items.length, 1);
  } finally {
    await c.close();
  }
});
