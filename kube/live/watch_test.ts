/**
 * The watch cache over a live client against the fake API server: first answer from a list, then
 * watch events (ADDED/MODIFIED/DELETED), bookmarks, 410 Gone → re-list, a broken stream → re-list,
 * a refused watch → plain lists, secrets sanitised on events too, and what is sent per round.
 */
import assert from "node:assert/strict";
import { KINDS } from "../kinds.ts";
import type { K8sObject } from "../source.ts";
import { withWatchCache } from "../watch_cache.ts";
import { openWatchableSource } from "./watch.ts";
import { REDACTED_KEYS_ANNOTATION } from "./list.ts";
import { type FakeCluster, startFakeCluster } from "../../fakekube/mod.ts";

const WG_PUBLIC = "KNaKPPsf1NbJGhEN3wUqwHx6h+AJBpNJPIIvgpTvqFI=";

function pod(name: string, labels: Record<string, string> = {}, phase = "Running"): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "liqo", labels },
    spec: { containers: [{ name: "c" }] },
    status: { phase },
  };
}

function secret(data: Record<string, string>): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "gw-keys", namespace: "liqo", labels: { "liqo.io/remote-cluster-id": "milan" } },
    data,
  };
}

const BASE: K8sObject[] = [
  pod("a", { app: "gw" }),
  pod("b"),
  secret({ publicKey: btoa(WG_PUBLIC), privateKey: btoa("PRIVATE-KEY-MATERIAL") }),
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "liqo" }, data: { k: "v" } },
];

async function until(what: string, cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** GETs of `path` that are lists (not watches). */
function lists(c: FakeCluster, path: string): number {
  return c.requests.filter((r) => r.path === path && !/(^|&)watch=/.test(r.query)).length;
}

function names(out: Awaited<ReturnType<ReturnType<typeof withWatchCache>["list"]>>): string[] {
  assert.ok(out.ok, JSON.stringify(out));
  return out.items.map((o) => o.metadata.name);
}

async function setup(objects = BASE) {
  const cluster = await startFakeCluster({ name: "rome", objects: structuredClone(objects), wireguard: {} });
  const live = await openWatchableSource({ kubeconfigYaml: cluster.kubeconfigYaml() });
  const cache = withWatchCache(live, { minStreamMs: 0 });
  return {
    cluster,
    cache,
    [Symbol.asyncDispose]: async () => {
      await cache.close();
      await cluster.close();
    },
  };
}

Deno.test("watch cache: one list, then ADDED/MODIFIED/DELETED from the watch (no more lists)", async () => {
  await using t = await setup();
  const { cluster, cache } = t;
  assert.deepEqual(names(await cache.list(KINDS.pods)), ["a", "b"]);
  await until("the watch", () => cluster.watches.open === 1);
  const watch = cluster.requests.find((r) => r.path === "/api/v1/pods" && r.query.includes("watch=1"));
  assert.match(watch!.query, /resourceVersion=\d+/);
  assert.match(watch!.query, /allowWatchBookmarks=true/);

  const changed = cluster.replaceObjects([
    pod("a", { app: "gw" }, "Failed"),
    pod("c"),
    ...BASE.slice(2),
  ]);
  assert.equal(changed, 3, "a modified, c added, b deleted");
  await until("three events", () => cache.stats().events === 3);
  const out = await cache.list(KINDS.pods);
  assert.deepEqual(names(out), ["a", "c"]);
  assert.ok(out.ok);
  assert.equal((out.items[0].status as { phase: string }).phase, "Failed");
  assert.equal(out.items[0].kind, "Pod", "kind filled in on events");
  assert.equal(lists(cluster, "/api/v1/pods"), 1, "listed once");
  const s = cache.stats();
  assert.equal(s.lists, 1);
  assert.equal(s.served, 1);
  assert.equal(s.expired + s.broken + s.refused, 0);
});

Deno.test("watch cache: a selector-scoped watch sees objects enter and leave its selection", async () => {
  await using t = await setup();
  const { cluster, cache } = t;
  const scope = { namespace: "liqo", labelSelector: "app=gw" };
  assert.deepEqual(names(await cache.list(KINDS.pods, scope)), ["a"]);
  await until("the watch", () => cluster.watches.open === 1);
  cluster.replaceObjects([pod("a"), pod("b", { app: "gw" }), ...BASE.slice(2)]);
  await until("two events", () => cache.stats().events === 2);
  assert.deepEqual(names(await cache.list(KINDS.pods, scope)), ["b"]);
  assert.equal(lists(cluster, "/api/v1/namespaces/liqo/pods"), 1);
});

Deno.test("watch cache: secrets from watch events are sanitised like listed ones", async () => {
  await using t = await setup();
  const { cluster, cache } = t;
  const first = await cache.list(KINDS.secrets);
  assert.ok(first.ok);
  assert.equal(first.items[0].metadata.annotations?.[REDACTED_KEYS_ANNOTATION], "privateKey");
  await until("the watch", () => cluster.watches.open === 1);
  cluster.replaceObjects([
    ...BASE.filter((o) => o.kind !== "Secret"),
    secret({ publicKey: btoa(WG_PUBLIC), privateKey: btoa("NEW-PRIVATE-KEY"), token: "c2VjcmV0" }),
  ]);
  await until("the event", () => cache.stats().events === 1);
  const out = await cache.list(KINDS.secrets);
  assert.ok(out.ok);
  assert.deepEqual(out.items[0].data, { publicKey: btoa(WG_PUBLIC) });
  assert.equal(out.items[0].metadata.annotations?.[REDACTED_KEYS_ANNOTATION], "privateKey,token");
  assert.doesNotMatch(JSON.stringify(out), /NEW-PRIVATE|c2VjcmV0/);
});

Deno.test("watch cache: 410 Gone → the next list lists again and watches from the new version", async () => {
  await using t = await setup();
  const { cluster, cache } = t;
  await cache.list(KINDS.pods);
  await cache.list(KINDS.configmaps);
  await until("two watches", () => cluster.watches.open === 2);
  // Changes to configmaps move the server's version; the pods watch never hears of them.
  cluster.replaceObjects([...BASE.slice(0, 3), { ...BASE[3], data: { k: "v2" } }]);
  await until("the configmap event", () => cache.stats().events === 1);
  cluster.watches.compact();
  cluster.watches.endAll(); // both resume from their versions: the pods watch's is now too old
  await until("410", () => cache.stats().expired === 1);
  assert.equal(lists(cluster, "/api/v1/pods"), 1);
  assert.deepEqual(names(await cache.list(KINDS.pods)), ["a", "b"]);
  assert.equal(lists(cluster, "/api/v1/pods"), 2, "re-listed after 410");
  assert.equal(lists(cluster, "/api/v1/configmaps"), 1, "the configmaps watch resumed without a list");
  await until("watching again", () => cluster.watches.open === 2);
});

Deno.test("watch cache: a BOOKMARK keeps a quiet watch resumable after the history is compacted", async () => {
  await using t = await setup();
  const { cluster, cache } = t;
  await cache.list(KINDS.pods);
  await cache.list(KINDS.configmaps);
  await until("two watches", () => cluster.watches.open === 2);
  cluster.replaceObjects([...BASE.slice(0, 3), { ...BASE[3], data: { k: "v2" } }]);
  await until("the configmap event", () => cache.stats().events === 1);
  cluster.watches.bookmark();
  await until("bookmarks", () => cache.stats().bookmarks === 2);
  cluster.watches.compact();
  cluster.watches.endAll();
  await until("resumed", () => cache.stats().watches === 4 && cluster.watches.open === 2);
  assert.equal(cache.stats().expired, 0);
  await cache.list(KINDS.pods);
  assert.equal(lists(cluster, "/api/v1/pods"), 1, "no re-list");
});

Deno.test("watch cache: a broken stream → re-list; a refused watch → plain lists every time", async () => {
  await using t = await setup();
  const { cluster, cache } = t;
  await cache.list(KINDS.pods);
  await until("the watch", () => cluster.watches.open === 1);
  cluster.watches.breakAll();
  await until("broken", () => cache.stats().broken === 1);
  cluster.replaceObjects([pod("z"), ...BASE.slice(2)]);
  assert.deepEqual(names(await cache.list(KINDS.pods)), ["z"]);
  assert.equal(lists(cluster, "/api/v1/pods"), 2);

  cluster.setFaults([{ path: "^/api/v1/configmaps$", query: "watch=1", type: "status", status: 403 }]);
  await cache.list(KINDS.configmaps);
  await until("refused", () => cache.stats().refused === 1);
  await cache.list(KINDS.configmaps);
  await cache.list(KINDS.configmaps);
  assert.equal(lists(cluster, "/api/v1/configmaps"), 3, "a refused watch leaves the request to lists");
});

Deno.test("watch cache: execs pass through every time, discovery is reused", async () => {
  await using t = await setup([
    ...BASE,
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "gw", namespace: "liqo" },
      spec: { containers: [{ name: "wireguard" }] },
      status: { phase: "Running" },
    },
  ]);
  const { cluster, cache } = t;
  for (let i = 0; i < 3; i++) {
    await cache.exec("liqo", "gw", "wireguard", ["wg", "show", "all", "dump"]);
    await cache.discovery([{ group: "core.liqo.io", version: "v1beta1" }]);
  }
  assert.equal(cluster.requests.filter((r) => r.upgrade).length, 3, "three execs");
  assert.equal(cache.stats().discoveries, 1);
});

Deno.test("watch cache: a sweep stops the watches no list asked for since the last one", async () => {
  await using t = await setup();
  const { cluster, cache } = t;
  await cache.list(KINDS.pods);
  await cache.list(KINDS.configmaps);
  await until("two watches", () => cluster.watches.open === 2);
  assert.equal(cache.sweep(), 0, "both were asked for");
  await cache.list(KINDS.pods);
  assert.equal(cache.sweep(), 1, "configmaps were not");
  await until("one watch", () => cluster.watches.open === 1);
  await cache.list(KINDS.configmaps);
  assert.equal(lists(cluster, "/api/v1/configmaps"), 2, "listed again when asked again");
});
