/**
 * The requests of a full run are exactly the reads the checks and report sections declare: every
 * list request (first page) stands for a (kind, where) of the read plan resolved on that cluster, and
 * every planned request was made — once. Pods are never listed across all namespaces.
 */
import assert from "node:assert/strict";
import { buildClusterConfig, type FakeCluster, loadScenario } from "../../fakekube/mod.ts";
import { Inventory, requestKey } from "../../kube/inventory.ts";
import { type KindId, KINDS } from "../../kube/kinds.ts";
import type { K8sObject } from "../../kube/source.ts";
import { resolveScope } from "../../liqo/scopes.ts";
import { Objects } from "../../liqo/views/mod.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { planFor } from "../../diagnose/views.ts";
import { runScenario } from "./harness.ts";

/** "path?labelSelector&fieldSelector" of every list request the cluster answered (first pages). */
function listRequests(cluster: FakeCluster): string[] {
  const out: string[] = [];
  for (const r of cluster.requests) {
    if (r.upgrade || r.path.endsWith("/log") || r.path === "/version") continue;
    const q = new URLSearchParams(r.query);
    if (q.get("continue")) continue;
    if (!q.has("limit")) continue; // discovery documents are not lists
    out.push(`${r.path}?${q.get("labelSelector") ?? ""}&${q.get("fieldSelector") ?? ""}`);
  }
  return out;
}

/** The request keys the read plan stands for on a cluster holding `objects`. */
function plannedRequests(objects: readonly K8sObject[]): Set<string> {
  const byKind = new Map<KindId, K8sObject[]>();
  for (const o of objects) {
    const id = (Object.keys(KINDS) as KindId[]).find((k) => KINDS[k].kind === o.kind);
    if (id) byKind.set(id, [...(byKind.get(id) ?? []), o]);
  }
  const inv = new Objects(
    Inventory.fromLists(
      Object.fromEntries((Object.keys(KINDS) as KindId[]).map((k) => [k, byKind.get(k) ?? []])),
    ),
  );
  const keys = new Set<string>();
  for (const [kind, scopes] of planFor(CATALOG)) {
    for (const scope of scopes) {
      const where = resolveScope(scope, inv);
      if (where.everywhere) keys.add(requestKey(kind));
      else for (const s of where.scopes) keys.add(requestKey(kind, s));
    }
  }
  return keys;
}

for (const name of ["healthy-consumer", "dual-both-directions", "field-liqo-namespace-liqo-system"]) {
  Deno.test(`declared reads: ${name} requests exactly what the checks declare, each once`, async () => {
    const run = await runScenario(name, { inProcess: true });
    const s = await loadScenario(name);
    for (const [clusterName, cluster] of Object.entries(run.served.clusters)) {
      if (!cluster) continue;
      const config = await buildClusterConfig(s, clusterName);
      const made = listRequests(cluster);
      const planned = plannedRequests(config.objects);
      const twice = made.filter((k, i) => made.indexOf(k) !== i);
      assert.deepEqual(twice, [], `${name}/${clusterName}: requested more than once`);
      assert.deepEqual(
        made.filter((k) => !planned.has(k)),
        [],
        `${name}/${clusterName}: requested although no check declared it`,
      );
      assert.deepEqual(
        [...planned].filter((k) => !made.includes(k)),
        [],
        `${name}/${clusterName}: declared but never requested`,
      );
      assert.ok(
        !made.includes("/api/v1/pods?&"),
        `${name}/${clusterName}: every pod of the cluster listed`,
      );
    }
  });
}
