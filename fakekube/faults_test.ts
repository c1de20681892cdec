import assert from "node:assert/strict";
import { parse } from "yaml";
import type { K8sObject } from "./object.ts";
import { FaultRuleSchema, FaultTable, LOOP_CONTINUE_TOKEN } from "./faults.ts";
import { ScenarioSchema } from "./scenario.ts";
import { type FakeCluster, type FaultRule, startFakeCluster } from "./server.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

const CMS: K8sObject[] = Array.from({ length: 4 }, (_, i) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: `cm-${i}`, namespace: "default" },
  data: { i: String(i) },
}));

async function withFake(
  faults: FaultRule[],
  fn: (f: FakeCluster, get: Getter) => Promise<void>,
): Promise<void> {
  const fake = await startFakeCluster({ name: "rome", objects: CMS, wireguard: {}, tls: false, faults });
  const get: Getter = (path) =>
    fetch(`${fake.url}${path}`, { headers: { authorization: `Bearer ${fake.token}` } });
  try {
    await fn(fake, get);
  } finally {
    await fake.close();
  }
}
type Getter = (path: string) => Promise<Response>;

Deno.test("faults: a rule matches path, method and query, and `count` limits it to the first N", () => {
  const t = new FaultTable([
    { path: "^/api/v1/pods$", query: "continue=", type: "status", status: 500, count: 1 },
    { path: "^/api/v1/pods$", method: "get", type: "status", status: 503, count: 2 },
    { path: "/exec$", type: "exec", exec: "hang" },
  ]);
  assert.equal(t.take("GET", "/api/v1/pods", "limit=500&continue=x", false)?.type, "status");
  assert.deepEqual(t.take("GET", "/api/v1/pods", "limit=500&continue=x", false), {
    path: "^/api/v1/pods$",
    method: "get",
    type: "status",
    status: 503,
    count: 2,
  });
  assert.equal(t.take("HEAD", "/api/v1/pods", "", false), null, "method");
  assert.ok(t.take("GET", "/api/v1/pods", "", false));
  assert.equal(t.take("GET", "/api/v1/pods", "", false), null, "count spent");
  assert.equal(
    t.take("GET", "/api/v1/namespaces/a/pods/b/exec", "", false),
    null,
    "exec rules: upgrades only",
  );
  assert.equal(t.take("GET", "/api/v1/namespaces/a/pods/b/exec", "", true)?.type, "exec");
  assert.equal(t.hits.length, 4);
  t.set([]);
  assert.ok(t.empty);
  assert.equal(t.hits.length, 0);
});

Deno.test("faults: scenario.yaml `faults:` is validated", () => {
  const base = {
    description: "x",
    clusters: { rome: { base: "rome" } },
    run: { local: "rome" },
    expect: { exitCode: 1, diagnosis: null },
  };
  const ok = ScenarioSchema.parse({
    ...base,
    clusters: {
      rome: {
        base: "rome",
        faults: parse(`
- { path: "^/api/v1/pods$", type: status, status: 503, retryAfterSeconds: 1, count: 1 }
- { path: "/exec$", type: exec, exec: malformed-status }
- { path: "^/apis/networking.liqo.io/v1beta1/connections$", type: items, items: bare-array }
`),
      },
    },
  });
  assert.equal(ok.clusters.rome.faults.length, 3);
  assert.deepEqual(ScenarioSchema.parse(base).clusters.rome.faults, []);
  for (
    const bad of [
      { path: "([", type: "reset" },
      { path: "x", type: "explode" },
      { path: "x", type: "status", status: 200 },
      { path: "x", type: "exec", exec: "segfault" },
      { path: "x", type: "reset", count: 0 },
    ]
  ) assert.ok(!FaultRuleSchema.safeParse(bad).success, JSON.stringify(bad));
});

Deno.test({
  name: "faults: the server answers status (with Retry-After), truncated, items and looping continue faults",
  ...sanitizers,
  fn: async () => {
    await withFake([
      { path: "^/api/v1/pods$", type: "status", status: 429, retryAfterSeconds: 2, count: 1 },
      { path: "^/api/v1/configmaps$", query: "^limit=1(&|$)", type: "loop-continue" },
      { path: "^/api/v1/configmaps$", query: "^x=string$", type: "items", items: "string" },
      { path: "^/api/v1/configmaps$", query: "^x=null$", type: "items", items: "null" },
      { path: "^/api/v1/configmaps$", query: "^x=bare$", type: "items", items: "bare-array" },
      { path: "^/api/v1/configmaps$", query: "^x=truncated$", type: "truncated" },
    ], async (fake, get) => {
      const r429 = await get("/api/v1/pods");
      assert.equal(r429.status, 429);
      assert.equal(r429.headers.get("retry-after"), "2");
      assert.equal((await r429.json()).reason, "TooManyRequests");
      const after = await get("/api/v1/pods");
      assert.equal(after.status, 200, "count: 1");
      await after.body?.cancel();

      const p1 = await (await get("/api/v1/configmaps?limit=1")).json();
      assert.equal(p1.metadata.continue, LOOP_CONTINUE_TOKEN);
      assert.equal(p1.items.length, 1);
      const p2 = await (await get(`/api/v1/configmaps?limit=1&continue=${LOOP_CONTINUE_TOKEN}`)).json();
      assert.equal(p2.metadata.continue, LOOP_CONTINUE_TOKEN);

      assert.equal(typeof (await (await get("/api/v1/configmaps?x=string")).json()).items, "string");
      assert.equal((await (await get("/api/v1/configmaps?x=null")).json()).items, null);
      const bare = await (await get("/api/v1/configmaps?x=bare")).json();
      assert.ok(Array.isArray(bare) && bare.length === 4);
      const truncated = await get("/api/v1/configmaps?x=truncated");
      assert.equal(truncated.status, 200);
      await assert.rejects(truncated.json());

      assert.equal(fake.faultHits.length, 7);
      fake.setFaults([]);
      const clean = await (await get("/api/v1/configmaps?x=null")).json();
      assert.equal(clean.items.length, 4);
    });
  },
});

Deno.test({
  name: "faults: a reset cuts the body; a delay ends when the server closes; no faults by default",
  ...sanitizers,
  fn: async () => {
    await withFake([{ path: "^/api/v1/configmaps$", type: "reset" }], async (_fake, get) => {
      const res = await get("/api/v1/configmaps");
      assert.equal(res.status, 200);
      await assert.rejects(res.text());
    });
    const fake = await startFakeCluster({
      name: "rome",
      objects: CMS,
      wireguard: {},
      tls: false,
      faults: [{ path: "^/api/v1/configmaps$", type: "delay", ms: 60_000 }],
    });
    const pending = fetch(`${fake.url}/api/v1/configmaps`, {
      headers: { authorization: `Bearer ${fake.token}` },
    }).then((r) => r.body?.cancel(), () => {});
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await fake.close();
    await pending;
    assert.ok(Date.now() - t0 < 5_000, "close does not wait out the delay");

    await withFake([], async (fake, get) => {
      const res = await get("/api/v1/configmaps");
      assert.equal((await res.json()).items.length, 4);
      assert.deepEqual(fake.faultHits, []);
    });
  },
});
