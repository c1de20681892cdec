/** Dual-mode pairing: one cluster reached twice versus two clusters that share a cluster ID. */
import assert from "node:assert/strict";
import { BASE_TIME, baseObjects, inventoryOf, peersOf, viewOf } from "../tests/support/fixtures.ts";
import { distinctClusters, pairPeers } from "./pairing.ts";

Deno.test("pairing: the same cluster twice is 'the same cluster'; two clusters with one ID are a collision", async () => {
  const rome = viewOf(inventoryOf(await baseObjects("rome")), BASE_TIME);
  const rome2 = viewOf(inventoryOf(await baseObjects("rome")), BASE_TIME);
  assert.equal(distinctClusters(rome, rome2), null);
  assert.match(
    pairPeers(rome, peersOf(rome), rome2).problem ?? "",
    /point at the same cluster \(rome-4b2a9e\)/,
  );
  const milan = { ...viewOf(inventoryOf(await baseObjects("milan")), BASE_TIME), clusterId: "rome-4b2a9e" };
  assert.match(distinctClusters(rome, milan) ?? "", /no node in common: rome-/);
  assert.match(
    pairPeers(rome, peersOf(rome), milan).problem ?? "",
    /two different clusters .* share the cluster ID rome-4b2a9e: a cluster ID collision \(see FC-01\)/,
  );
});
