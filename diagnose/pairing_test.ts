/**
 * Dual-mode pairing: it pairs the two ends only on what it could read (an unreadable locator is no
 * "not peered"), and tells one cluster reached twice from two clusters that share a cluster ID.
 */
import assert from "node:assert/strict";
import { runDiagnosis } from "./run.ts";
import { distinctClusters, pairPeers } from "./pairing.ts";
import {
  BASE_TIME,
  baseObjects,
  inventoryOf,
  peersOf,
  TEST_OPTIONS,
  viewOf,
} from "../tests/support/fixtures.ts";
import { listsOf, memorySource } from "../tests/support/fuzz.ts";
import { probes } from "../tests/support/tunnel_checks.ts";
import type { ClusterSource } from "../kube/source.ts";

/** `source` with the list of `plural` refused. */
function refusing(source: ClusterSource, plural: string): ClusterSource {
  return {
    ...source,
    list: (spec, scope) =>
      spec.plural === plural
        ? Promise.resolve({ ok: false as const, reason: "forbidden" as const, message: "RBAC: forbidden" })
        : source.list(spec, scope),
  };
}

async function dual(local: ClusterSource, remote: ClusterSource) {
  return await runDiagnosis({
    local,
    remote: { source: remote },
    options: TEST_OPTIONS,
    probes: () => probes(),
  });
}

Deno.test("dual: the two ends are paired (healthy base)", async () => {
  const report = await dual(
    memorySource(listsOf(await baseObjects("rome")), "rome"),
    memorySource(listsOf(await baseObjects("milan")), "milan"),
  );
  const dualResults = report.results.filter((r) => r.cluster.includes("↔"));
  assert.ok(dualResults.length > 0);
  assert.ok(
    dualResults.every((r) => r.status === "pass" || r.status === "skip"),
    JSON.stringify(dualResults),
  );
});

for (
  const [what, side, plural] of [
    ["the remote's cluster-ID ConfigMap", "remote", "configmaps"],
    ["the local cluster-ID ConfigMap", "local", "configmaps"],
    ["the remote's ForeignClusters", "remote", "foreignclusters"],
  ] as const
) {
  Deno.test(`dual: with ${what} unreadable the pairing is unknown naming the read, never "not peered"`, async () => {
    const rome = memorySource(listsOf(await baseObjects("rome")), "rome");
    const milan = memorySource(listsOf(await baseObjects("milan")), "milan");
    const report = await dual(
      side === "local" ? refusing(rome, plural) : rome,
      side === "remote" ? refusing(milan, plural) : milan,
    );
    const text = report.results.map((r) => r.summary).join("\n");
    assert.doesNotMatch(text, /not peered with each other/);
    const dualResults = report.results.filter((r) => r.cluster.includes("↔") || r.summary.includes("peered"));
    assert.ok(dualResults.length > 0);
    for (const r of dualResults) {
      assert.ok(
        r.status === "unknown" || (r.status === "skip" && r.skipKind === "blocked"),
        `${r.id}: ${r.status} ${r.summary}`,
      );
      if (r.status === "unknown") assert.match(r.summary, new RegExp(`forbidden: ${plural} on `));
    }
  });
}

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
