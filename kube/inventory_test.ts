import assert from "node:assert/strict";
import { Inventory, servedByDiscovery } from "./inventory.ts";
import type { KindSpec } from "./kinds.ts";
import type { ClusterSource, DiscoveryOutcome, ListOutcome } from "./source.ts";

/** A source whose lists answer 404 for the given plurals and whose discovery says what it serves. */
function source(notFound: string[], discovery: DiscoveryOutcome): ClusterSource {
  return {
    endpoint: { context: "t", server: "https://127.0.0.1:1" },
    now: () => new Date(),
    isSnapshot: false,
    list(spec: KindSpec): Promise<ListOutcome> {
      return Promise.resolve(
        notFound.includes(spec.plural)
          ? { ok: false, reason: "missing", message: "404 page not found" }
          : { ok: true, items: [] },
      );
    },
    discovery: () => Promise.resolve(discovery),
    exec: () => Promise.resolve({ ok: false, reason: "error", message: "no exec" }),
    close: () => Promise.resolve(),
  };
}

const NETWORKING = { group: "networking.liqo.io", version: "v1beta1" };

Deno.test("a 404 reads as 'not installed' only when discovery agrees", async () => {
  const served = { ok: true as const, groups: [{ ...NETWORKING, resources: ["connections"] }] };
  const inv = await Inventory.load(source(["connections", "publickeies", "pods"], served), [
    "connections",
    "publickeies",
    "pods",
  ], true);
  // Discovery serves connections: a 404 on its list is an unreadable list, not an empty one.
  assert.equal(inv.state("connections").state, "error");
  assert.equal(inv.tryItems("connections"), null);
  assert.match(JSON.stringify(inv.state("connections")), /404 although discovery serves/);
  // Discovery says publickeies is not served: the CRD is not installed, nothing there.
  assert.equal(inv.state("publickeies").state, "missing");
  assert.deepEqual(inv.items("publickeies"), []);
  // Built-in kinds are always served: a 404 there is an error.
  assert.equal(inv.state("pods").state, "error");
});

Deno.test("without discovery a 404 cannot be read as absence", async () => {
  const failed: DiscoveryOutcome = { ok: false, reason: "forbidden", message: "no discovery" };
  const inv = await Inventory.load(source(["connections"], failed), ["connections"], true);
  assert.equal(inv.state("connections").state, "error");
  assert.equal(servedByDiscovery("connections", failed), null);
  assert.equal(servedByDiscovery("pods", failed), true);
});

Deno.test("scoped reads: one request per (path, selectors), the kind is their union, and one failed scope makes it unreadable", async () => {
  const calls: string[] = [];
  const pods = (ns: string, names: string[]) => names.map((name) => ({ metadata: { name, namespace: ns } }));
  const src: ClusterSource = {
    ...source([], { ok: true, groups: [] }),
    list(spec, scope): Promise<ListOutcome> {
      calls.push(`${spec.plural} ${scope?.namespace ?? "*"} ${scope?.fieldSelector ?? ""}`);
      if (scope?.namespace === "forbidden-ns") {
        return Promise.resolve({
          ok: false,
          reason: "forbidden",
          message: "pods is forbidden in forbidden-ns",
        });
      }
      if (scope?.namespace === "b") {
        return Promise.resolve({ ok: true, items: pods("b", ["b1", "shared"]), retries: 2 });
      }
      return Promise.resolve({ ok: true, items: pods(scope?.namespace ?? "a", ["a1", "shared"]) });
    },
  };
  const inv = Inventory.reading(src, false);
  await Promise.all([
    inv.read("pods", { namespace: "a" }),
    inv.read("pods", { namespace: "b" }),
    inv.read("pods", { namespace: "a" }),
  ]);
  await inv.settle();
  assert.deepEqual(calls, ["pods a ", "pods b "]);
  assert.deepEqual(inv.items("pods").map((p) => `${p.metadata.namespace}/${p.metadata.name}`), [
    "a/a1",
    "a/shared",
    "b/b1",
    "b/shared",
  ]);
  assert.deepEqual(inv.state("pods"), { state: "ok", count: 4, retries: 2 });
  assert.equal(inv.requested().length, 2);

  await inv.read("pods", { namespace: "forbidden-ns" });
  assert.equal(inv.tryItems("pods"), null);
  assert.equal(inv.state("pods").state, "forbidden");
  assert.throws(() => inv.items("pods"), /forbidden: pods/);

  // A scope that resolved to no namespace: read, and empty.
  const none = Inventory.reading(src, false);
  none.readNone("configmaps");
  assert.deepEqual(none.items("configmaps"), []);
  assert.deepEqual(none.state("configmaps"), { state: "ok", count: 0 });
});
