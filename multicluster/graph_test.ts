/**
 * The fleet graph over the base peering (rome consumes milan): pairing decides by cluster ID and
 * both ForeignClusters, an unreadable ForeignCluster list is never "asymmetric", orphans need a
 * readable list, and contexts reaching one cluster merge by identity.
 */
import assert from "node:assert/strict";
import { baseObjects, find, inventoryOf, viewOf } from "../tests/support/fixtures.ts";
import type { ClusterView } from "../checks/types.ts";
import { type GraphNode, orphansOf, planEdges } from "./graph.ts";
import { identify } from "./identity.ts";
import type { ReadCluster } from "./load.ts";

async function views(opts: { milanForgets?: boolean; milanFcForbidden?: boolean } = {}) {
  const rome = await baseObjects("rome");
  let milan = await baseObjects("milan");
  if (opts.milanForgets) milan = milan.filter((o) => o.kind !== "ForeignCluster");
  const errors = opts.milanFcForbidden
    ? { foreignclusters: { reason: "forbidden" as const, message: "RBAC: forbidden" } }
    : {};
  return {
    rome: viewOf(inventoryOf(rome), undefined, "rome"),
    milan: viewOf(inventoryOf(milan, errors), undefined, "milan"),
  };
}

const node = (v: ClusterView): GraphNode => ({ name: v.name, view: v, context: v.context });

Deno.test("graph: both ends in the fleet, each recording the other → one paired edge consumer → provider", async () => {
  const { rome, milan } = await views();
  const [e, ...rest] = planEdges([node(milan), node(rome)]);
  assert.equal(rest.length, 0);
  assert.equal(e.id, "rome-4b2a9e→milan-8d1f03");
  assert.equal(e.class, "paired");
  assert.deepEqual(e.run, { local: "rome-4b2a9e", remote: "milan-8d1f03", peer: "milan-8d1f03" });
  assert.deepEqual(e.network, { server: "milan-8d1f03", client: "rome-4b2a9e" });
});

Deno.test("graph: the peer in no context → half-visible, one-sided with the reason", async () => {
  const { rome } = await views();
  const [e] = planEdges([node(rome)], ["naples"]);
  assert.equal(e.class, "half-visible");
  assert.equal(e.run?.remote, null);
  assert.match(e.run!.noRemoteReason!, /not in the fleet.*could not be read and may reach it \(naples\)/);
});

Deno.test("graph: A records B, B has no record of A → asymmetric; B's list unreadable → paired, unsure", async () => {
  const forgot = await views({ milanForgets: true });
  const all = planEdges([node(forgot.rome), node(forgot.milan)]);
  assert.equal(all.length, 1, "milan's objects for rome are the asymmetry's evidence, not an orphan edge");
  const [a] = all;
  assert.equal(a.class, "asymmetric");
  assert.equal(a.asymmetric?.recorder, "rome-4b2a9e");
  assert.equal(a.asymmetric?.role, "Provider");
  assert.ok(a.asymmetric?.leftovers?.includes("Namespace liqo-tenant-rome-4b2a9e"));
  const unsure = await views({ milanFcForbidden: true });
  const [u] = planEdges([node(unsure.rome), node(unsure.milan)]);
  assert.equal(u.class, "paired");
  assert.match(u.reason, /unknown: .*forbidden/);
});

Deno.test("graph: objects labelled for a cluster ID no ForeignCluster references are orphans — only when the list was read", async () => {
  const rome = await baseObjects("rome");
  const ns = structuredClone(find(rome, "Namespace", "liqo-tenant-milan-8d1f03"));
  ns.metadata.name = "liqo-tenant-paris-1c2d3e";
  ns.metadata.labels!["liqo.io/remote-cluster-id"] = "paris-1c2d3e";
  const view = viewOf(inventoryOf([...rome, ns]), undefined, "rome");
  assert.deepEqual(orphansOf(view), [{
    peerId: "paris-1c2d3e",
    objects: ["Namespace liqo-tenant-paris-1c2d3e"],
  }]);
  const edges = planEdges([node(view)]);
  assert.ok(edges.some((e) => e.id === "rome-4b2a9e⇢paris-1c2d3e" && e.class === "orphan"));
  const blind = viewOf(
    inventoryOf([...rome, ns], { foreignclusters: { reason: "forbidden", message: "no" } }),
    undefined,
    "rome",
  );
  assert.deepEqual(orphansOf(blind), []);
});

Deno.test("identity: two endpoint groups with one cluster ID and a node in common are one cluster, and say why", async () => {
  const { rome, milan } = await views();
  const read = (v: ClusterView, ctx: string, server: string): ReadCluster => ({
    group: { contexts: [{ name: ctx, cluster: ctx, server, ca: "sha256:aa" }] },
    context: { name: ctx, cluster: ctx, server, ca: "sha256:aa" },
    chosenBecause: null,
    source: null,
    view: v,
    serverVersion: null,
    error: null,
  });
  const members = identify([
    read(rome, "rome", "https://10.0.0.1:6443"),
    read(rome, "rome-lb", "https://rome.example:6443"),
    read(milan, "milan", "https://10.0.0.2:6443"),
  ]);
  assert.deepEqual(members.map((m) => m.name), ["rome-4b2a9e", "milan-8d1f03"]);
  assert.deepEqual(members[0].contexts, ["rome", "rome-lb"]);
  assert.match(
    members[0].chosenBecause!,
    /rome: read first; rome-lb reaches the same cluster \(Liqo cluster ID rome-4b2a9e\)/,
  );
});
