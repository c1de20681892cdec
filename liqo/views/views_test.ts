import assert from "node:assert/strict";
import process from "node:process";
import { parseAllDocuments } from "yaml";
import { type KindId, KINDS } from "../../kube/kinds.ts";
import { Inventory, KindUnavailableError } from "../../kube/inventory.ts";
import type { K8sObject } from "../../kube/source.ts";
import { Objects, VIEWS } from "./mod.ts";

const KIND_BY_NAME = new Map<string, KindId>(
  (Object.keys(KINDS) as KindId[]).map((id) => [KINDS[id].kind, id]),
);

/** The base clusters: Liqo's healthy example peering, verbatim, and their WireGuard state. */
const FILES = [
  new URL("../../testdata/base/milan.yaml", import.meta.url),
  new URL("../../testdata/base/rome.yaml", import.meta.url),
  new URL("../../testdata/base/milan.wireguard.yaml", import.meta.url),
  new URL("../../testdata/base/rome.wireguard.yaml", import.meta.url),
];

/**
 * Parses YAML documents. The yaml package reads `process.env.LOG_TOKENS` while parsing; without
 * --allow-env that read throws, so the environment is hidden from it for the duration of the parse.
 */
function parseYaml(text: string): unknown[] {
  const parse = () => parseAllDocuments(text).flatMap((d) => "toJS" in d ? [d.toJS() as unknown] : []);
  if (Deno.permissions.querySync({ name: "env", variable: "LOG_TOKENS" }).state === "granted") return parse();
  const saved = Object.getOwnPropertyDescriptor(process, "env");
  Object.defineProperty(process, "env", { value: {}, configurable: true, writable: true });
  try {
    return parse();
  } finally {
    if (saved) Object.defineProperty(process, "env", saved);
  }
}

/** Objects of a YAML file grouped by kind id (kinds FlyingFish does not read are skipped). */
function load(url: URL): Partial<Record<KindId, K8sObject[]>> {
  const out: Partial<Record<KindId, K8sObject[]>> = {};
  const text = Deno.readTextFileSync(url);
  for (const doc of parseYaml(text)) {
    const obj = doc as K8sObject | null;
    if (!obj || typeof obj !== "object" || typeof obj.kind !== "string") continue;
    const id = KIND_BY_NAME.get(obj.kind);
    if (id) (out[id] ??= []).push(obj);
  }
  return out;
}

Deno.test("every example object parses with its kind's view", () => {
  let total = 0;
  const seen = new Set<KindId>();
  for (const url of FILES) {
    const lists = load(url);
    const objs = new Objects(Inventory.fromLists(lists));
    for (const [kind, list] of Object.entries(lists) as [KindId, K8sObject[]][]) {
      const bad = objs.malformed(kind);
      assert.deepEqual(bad, [], `${url.pathname} ${kind}: ${JSON.stringify(bad)}`);
      // Loose views keep every field: a well-formed object reads back unchanged.
      assert.deepEqual(objs.items(kind), list);
      total += list.length;
      seen.add(kind);
    }
  }
  assert.ok(total > 100, `only ${total} objects read`);
  assert.ok(seen.has("gatewayservers") && seen.has("pods") && seen.has("foreignclusters"));
});

Deno.test("VIEWS covers every kind", () => {
  assert.deepEqual(Object.keys(VIEWS).sort(), Object.keys(KINDS).sort());
});

Deno.test("a wrong-typed field is recorded as malformed and left out", () => {
  const good: K8sObject = {
    kind: "GatewayServer",
    metadata: { name: "ok", namespace: "t" },
    status: { endpoint: { addresses: ["1.2.3.4"], port: 51840 } },
  };
  const badGw: K8sObject = {
    kind: "GatewayServer",
    metadata: { name: "bad", namespace: "t" },
    status: { endpoint: { addresses: ["1.2.3.4"], port: "x" } },
  };
  const badPod: K8sObject = {
    kind: "Pod",
    metadata: { name: "p", namespace: "n" },
    spec: { containers: "c" },
  };
  const goodPod: K8sObject = {
    kind: "Pod",
    metadata: { name: "q", namespace: "n" },
    spec: { containers: [{ name: "c", image: "i:1" }], extra: { kept: true } },
  };
  const objs = new Objects(
    Inventory.fromLists({ gatewayservers: [good, badGw], pods: [badPod, goodPod] }),
  );
  assert.deepEqual(objs.items("gatewayservers").map((g) => g.metadata.name), ["ok"]);
  assert.deepEqual(objs.malformed("gatewayservers"), [
    { namespace: "t", name: "bad", issue: objs.malformed("gatewayservers")[0]?.issue },
  ]);
  assert.match(objs.malformed("gatewayservers")[0]!.issue, /^status\.endpoint\.port: /);
  assert.deepEqual(objs.items("pods").map((p) => p.metadata.name), ["q"]);
  assert.match(objs.malformed("pods")[0]!.issue, /^spec\.containers: /);
  assert.deepEqual(objs.raw.items("pods").length, 2);
  // Unknown fields are kept.
  assert.deepEqual(objs.get("pods", "n", "q")?.spec?.extra, { kept: true });
  // Parsed once: the same array comes back.
  assert.equal(objs.items("pods"), objs.items("pods"));
});

Deno.test("an object frozen all the way down is parsed once across inventories; any other is parsed each time", () => {
  const pod = (name: string): K8sObject => ({
    kind: "Pod",
    metadata: { name, namespace: "n", labels: { app: "x" } },
    spec: { containers: [{ name: "c", image: "i:1" }] },
  });
  const deepFreeze = <T>(v: T): T => {
    if (v && typeof v === "object") {
      Object.freeze(v);
      for (const x of Object.values(v)) deepFreeze(x);
    }
    return v;
  };
  const frozen = deepFreeze(pod("frozen"));
  const shallow = Object.freeze(pod("shallow"));
  const live = pod("live");
  const bad = deepFreeze({ ...pod("bad"), spec: { containers: "c" } });
  const view = () =>
    new Objects(Inventory.fromLists({ pods: [frozen, shallow, live, bad] as K8sObject[] })).items("pods");
  const [a, b] = [view(), view()];
  assert.deepEqual(a.map((p) => p.metadata.name), ["frozen", "shallow", "live"]);
  // The frozen one: the same parsed object, frozen (a run writing to it crashes instead of leaking).
  assert.equal(a[0], b[0]);
  assert.ok(Object.isFrozen(a[0]) && Object.isFrozen(a[0]!.metadata.labels));
  // One that can still change (itself or deeper) is parsed anew, as are live answers.
  assert.notEqual(a[1], b[1]);
  assert.notEqual(a[2], b[2]);
  assert.ok(!Object.isFrozen(a[2]));
  // A remembered failure is still malformed in the next inventory.
  const objs = new Objects(Inventory.fromLists({ pods: [bad] }));
  assert.match(objs.malformed("pods")[0]!.issue, /^spec\.containers: /);
  assert.match(
    new Objects(Inventory.fromLists({ pods: [bad] })).malformed("pods")[0]!.issue,
    /^spec\.containers: /,
  );
});

Deno.test("unreadable kinds throw like the inventory; tryItems gives null", () => {
  const inv = Inventory.fromLists(
    { pods: [], networks: [] },
    {
      secrets: { reason: "forbidden", message: "no" },
      networks: { reason: "missing", message: "not served" },
    },
  );
  const objs = new Objects(inv);
  assert.throws(() => objs.items("secrets"), KindUnavailableError);
  assert.throws(() => objs.items("nodes"), KindUnavailableError);
  assert.equal(objs.tryItems("secrets"), null);
  assert.deepEqual(objs.items("networks"), []);
  assert.deepEqual(objs.malformed("secrets"), []);
  assert.deepEqual(objs.state("secrets"), inv.state("secrets"));
  assert.deepEqual(objs.states(), inv.states());
  assert.equal(objs.discovery, null);
});

Deno.test("typed access compiles and works", () => {
  const objs = new Objects(Inventory.fromLists({
    gatewayservers: [{
      metadata: { name: "gw", namespace: "t", labels: { "liqo.io/remote-cluster-id": "rome" } },
      status: { endpoint: { addresses: ["5.6.7.8"], ports: [51840] } },
    }],
    configmaps: [{ metadata: { name: "cm", namespace: "liqo" }, data: { CLUSTER_ID: "milan" } }],
  }));
  const addrs: readonly string[] | null | undefined = objs.items("gatewayservers")[0]?.status?.endpoint
    ?.addresses;
  assert.deepEqual(addrs, ["5.6.7.8"]);
  const ports: readonly number[] | null | undefined = objs.withLabel(
    "gatewayservers",
    "liqo.io/remote-cluster-id",
    "rome",
  )[0]?.status?.endpoint?.ports;
  assert.deepEqual(ports, [51840]);
  const id: string | undefined = objs.inNamespace("configmaps", "liqo")[0]?.data?.CLUSTER_ID;
  assert.equal(id, "milan");
});
