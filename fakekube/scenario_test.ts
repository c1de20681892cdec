import assert from "node:assert/strict";
import { parse } from "yaml";
import type { K8sObject } from "./object.ts";

// deno-lint-ignore no-explicit-any
type Loose = K8sObject & { spec?: any; status?: any; data?: any };
import {
  buildClusterConfig,
  DEFAULT_REFERENCE_TIME,
  listScenarios,
  loadScenario,
  mergePatch,
  type Scenario,
  ScenarioSchema,
  serveScenario,
  shiftTimestamps,
} from "./scenario.ts";

const find = (objs: K8sObject[], kind: string, ns: string | undefined, name: string): Loose | undefined =>
  objs.find((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === name);

async function tempScenario(yaml: string, files: Record<string, string> = {}): Promise<Scenario> {
  const dir = await Deno.makeTempDir({ prefix: "ff-scn-" });
  for (const [n, t] of Object.entries(files)) await Deno.writeTextFile(`${dir}/${n}`, t);
  const data = ScenarioSchema.parse(parse(yaml));
  return { ...data, name: "tmp", dir: new URL(`file://${dir}/`).href };
}

Deno.test("scenario: list and load the healthy scenarios", async () => {
  const names = await listScenarios();
  assert.ok(names.includes("healthy-consumer"));
  assert.ok(names.includes("healthy-provider"));
  assert.deepEqual(names, [...names].sort());
  for (const n of names) await loadScenario(n); // every scenario folder validates
  const s = await loadScenario("healthy-consumer");
  assert.equal(s.name, "healthy-consumer");
  assert.equal(s.referenceTime, DEFAULT_REFERENCE_TIME);
  assert.equal(s.run.local, "rome");
  assert.equal(s.run.networkProbes, false);
  assert.deepEqual(s.expect, {
    exitCode: 0,
    diagnosis: null,
    results: {},
    evidence: {},
    noOtherFailures: true,
  });
  await assert.rejects(loadScenario("no-such-scenario"));
});

Deno.test("scenario: unknown keys and bad run references are rejected", async () => {
  assert.throws(() =>
    ScenarioSchema.parse({
      description: "x",
      clusters: { a: { base: "rome", frobnicate: true } },
      run: { local: "a" },
      expect: { exitCode: 0, diagnosis: null },
    })
  );
  assert.throws(() =>
    ScenarioSchema.parse({
      description: "x",
      clusters: { a: {} },
      run: { local: "a" },
      expect: { exitCode: 0, diagnosis: null, results: { "GW-01": "broken" } },
    })
  );
  await Promise.resolve();
});

Deno.test("scenario: timestamps are shifted by now - referenceTime", async () => {
  const s = await loadScenario("healthy-provider");
  const now = new Date(Date.parse(DEFAULT_REFERENCE_TIME) + 3600_000);
  const cfg = await buildClusterConfig(s, "milan", now);
  const gs = find(cfg.objects, "GatewayServer", "liqo-tenant-rome-4b2a9e", "rome-4b2a9e");
  assert.equal(gs?.metadata.creationTimestamp, "2026-11-30T03:06:20Z");
  assert.deepEqual(shiftTimestamps({ a: ["2026-11-30T02:30:00.123Z", "x"], b: 3 }, 1000), {
    a: ["2026-11-30T02:30:01Z", "x"],
    b: 3,
  });
  assert.equal(shiftTimestamps("2026-11-30 02:30:00", 1000), "2026-11-30 02:30:00");
});

Deno.test("scenario: base WireGuard state is consistent with the Secrets and PublicKeys", async () => {
  const rome = await buildClusterConfig(await loadScenario("healthy-consumer"), "rome");
  const milan = await buildClusterConfig(await loadScenario("healthy-provider"), "milan");
  const romeWg = rome.wireguard["liqo-tenant-milan-8d1f03/gw-milan-8d1f03-7c9d5b6f8d-q4xzt"]!.interfaces![0];
  const milanWg = milan.wireguard["liqo-tenant-rome-4b2a9e/gw-rome-4b2a9e-5b8f9c7d6b-w2kxm"]!.interfaces![0];
  const romeSecret = find(rome.objects, "Secret", "liqo-tenant-milan-8d1f03", "gw-milan-8d1f03")!;
  const milanSecret = find(milan.objects, "Secret", "liqo-tenant-rome-4b2a9e", "gw-rome-4b2a9e")!;
  const romePk = find(rome.objects, "PublicKey", "liqo-tenant-milan-8d1f03", "milan-8d1f03")!;
  const milanPk = find(milan.objects, "PublicKey", "liqo-tenant-rome-4b2a9e", "rome-4b2a9e")!;
  assert.equal(romeWg.publicKey, romeSecret.data.publicKey);
  assert.equal(romeWg.privateKey, romeSecret.data.privateKey);
  assert.equal(milanWg.publicKey, milanSecret.data.publicKey);
  assert.equal(romeWg.peers![0].publicKey, milanWg.publicKey);
  assert.equal(romeWg.peers![0].publicKey, romePk.spec.publicKey);
  assert.equal(milanWg.peers![0].publicKey, romeWg.publicKey);
  assert.equal(milanWg.peers![0].publicKey, milanPk.spec.publicKey);
  assert.equal(milanWg.listenPort, 51840);
  assert.equal(romeWg.peers![0].endpoint, "203.0.113.50:51840");
  assert.equal(romeWg.mtu, 1340);
  assert.equal(romeWg.name, "liqo-tunnel");
});

const OVERLAY = `apiVersion: v1
kind: Service
metadata:
  name: liqo-proxy
  namespace: liqo
spec:
  type: ClusterIP
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: liqo
data: { a: "b" }
`;

Deno.test("scenario: overlays replace or add, delete removes, patches merge, wireguard overrides", async () => {
  const s = await tempScenario(
    `description: t
clusters:
  milan:
    base: milan
    objects: [milan.objects.yaml]
    delete:
      - { kind: Pod, namespace: liqo, name: liqo-ipam-5c7b9d8f6-w8mzq }
    patch:
      - kind: Service
        namespace: liqo-tenant-rome-4b2a9e
        name: gw-rome-4b2a9e
        merge: { status: { loadBalancer: { ingress: null } }, metadata: { labels: { extra: "1" } } }
    wireguard:
      liqo-tenant-rome-4b2a9e/gw-rome-4b2a9e-5b8f9c7d6b-w2kxm: null
      other/pod: { interfaces: [] }
    forbid: [secrets]
    latencyMs: 5
run: { local: milan }
expect: { exitCode: 2, diagnosis: GW-02 }
`,
    { "milan.objects.yaml": OVERLAY },
  );
  const base = await buildClusterConfig(await loadScenario("healthy-provider"), "milan");
  const cfg = await buildClusterConfig(s, "milan");
  assert.equal(cfg.objects.length, base.objects.length); // +1 ConfigMap, -1 Pod, Service replaced
  assert.deepEqual(find(cfg.objects, "Service", "liqo", "liqo-proxy")?.spec, { type: "ClusterIP" });
  assert.ok(find(cfg.objects, "ConfigMap", "liqo", "extra"));
  assert.equal(find(cfg.objects, "Pod", "liqo", "liqo-ipam-5c7b9d8f6-w8mzq"), undefined);
  const svc = find(cfg.objects, "Service", "liqo-tenant-rome-4b2a9e", "gw-rome-4b2a9e")!;
  assert.deepEqual(svc.status, { loadBalancer: {} });
  assert.equal(svc.metadata.labels?.extra, "1");
  assert.ok(Object.keys(svc.metadata.labels ?? {}).length > 1, "merge keeps other labels");
  assert.equal(cfg.wireguard["liqo-tenant-rome-4b2a9e/gw-rome-4b2a9e-5b8f9c7d6b-w2kxm"], null);
  assert.deepEqual(cfg.wireguard["other/pod"], { interfaces: [] });
  assert.deepEqual(cfg.forbid, ["secrets"]);
  assert.equal(cfg.latencyMs, 5);
  assert.equal(cfg.name, "milan");
});

Deno.test("scenario: merge patches on Liqo kinds and unknown targets are refused", async () => {
  const liqo = await tempScenario(`description: t
clusters:
  milan:
    base: milan
    patch:
      - { kind: GatewayServer, namespace: liqo-tenant-rome-4b2a9e, name: rome-4b2a9e, merge: { status: null } }
run: { local: milan }
expect: { exitCode: 2, diagnosis: GW-02 }
`);
  await assert.rejects(buildClusterConfig(liqo, "milan"), /Liqo object .*not allowed on \*\.liqo\.io/);
  const missing = await tempScenario(`description: t
clusters:
  milan:
    base: milan
    delete: [{ kind: Pod, namespace: liqo, name: nope }]
run: { local: milan }
expect: { exitCode: 2, diagnosis: GW-02 }
`);
  await assert.rejects(buildClusterConfig(missing, "milan"), /delete: no object Pod\/liqo\/nope/);
});

Deno.test("scenario: RFC 7386 merge patch", () => {
  assert.deepEqual(
    mergePatch({ a: 1, b: { c: 2, d: 3 }, e: [1] }, { b: { c: null, x: 1 }, e: [2], f: "g" }),
    {
      a: 1,
      b: { d: 3, x: 1 },
      e: [2],
      f: "g",
    },
  );
  assert.equal(mergePatch({ a: 1 }, "s"), "s");
});

Deno.test("scenario: serve with a down cluster", async () => {
  const s = await tempScenario(`description: t
clusters:
  rome: { base: rome }
  milan: { base: milan, down: true }
run: { local: rome, remote: milan }
expect: { exitCode: 3, diagnosis: null }
`);
  const served = await serveScenario(s, { tls: false });
  try {
    assert.equal(served.clusters.milan, null);
    const rome = served.clusters.rome!;
    const kcMilan = parse(served.kubeconfigYaml("milan"));
    const server = kcMilan.clusters[0].cluster.server as string;
    assert.match(server, /^http:\/\/127\.0\.0\.1:\d+$/);
    await assert.rejects(fetch(server + "/version"));
    const res = await fetch(rome.url + "/api/v1/namespaces/liqo/pods", {
      headers: { authorization: `Bearer ${rome.token}` },
    });
    const body = await res.json();
    assert.ok(body.items.length > 3);
    assert.ok(body.items.every((p: K8sObject) => p.kind === undefined));
    assert.throws(() => served.kubeconfigYaml("paris"));
  } finally {
    await served.close();
  }
});
