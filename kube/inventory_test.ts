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
