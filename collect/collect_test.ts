import assert from "node:assert/strict";
import { collectBundle, type CollectTarget } from "./collect.ts";
import type { ClusterSource } from "../kube/source.ts";
import { ToolError } from "../errors.ts";

/** A cluster with nothing in it; `hang` never answers a list. Counts the clusters in flight. */
function stubCluster(name: string, flight: { now: number; max: number }, hang = false): CollectTarget {
  return {
    role: "remote",
    name,
    source: null,
    reader: null,
    server: `https://${name}.example:6443`,
    open: () => {
      flight.now++;
      flight.max = Math.max(flight.max, flight.now);
      let closed = false;
      const source: ClusterSource = {
        endpoint: { context: name, server: `https://${name}.example:6443` },
        now: () => new Date(0),
        isSnapshot: false,
        list: async () => {
          await new Promise((r) => setTimeout(r, 0));
          if (hang) await new Promise(() => {});
          return { ok: true, items: [] };
        },
        discovery: () => Promise.resolve({ ok: true, groups: [] }),
        exec: () => Promise.resolve({ ok: false, reason: "error", message: "no pods" }),
        close: () => {
          if (!closed) flight.now--;
          closed = true;
          return Promise.resolve();
        },
      };
      // The capture ends with the list answered: the cluster leaves the flight then.
      const list = source.list;
      return Promise.resolve({
        source: {
          ...source,
          list: (...a) =>
            list(...a).finally(() => {
              if (!closed) flight.now--;
              closed = true;
            }),
        },
        reader: null,
      });
    },
  };
}

Deno.test("collectBundle (fleet): at most `parallel` clusters in flight; one out of time, one unreachable, each with its reason; the first captured is local", async () => {
  const flight = { now: 0, max: 0 };
  const unreachable: CollectTarget = {
    role: "local",
    name: "a",
    source: null,
    reader: null,
    server: "https://a.example:6443",
    open: () => Promise.reject(new ToolError("https://a.example:6443: connection refused")),
  };
  const targets = [
    unreachable,
    stubCluster("b", flight),
    stubCluster("c", flight, true),
    stubCluster("d", flight),
    stubCluster("e", flight),
  ];
  const bundle = await collectBundle(targets, {
    kinds: ["pods"],
    sampleIntervalMs: 0,
    parallel: 2,
    clusterTimeoutMs: 500,
    clusterTimeoutLabel: "500ms",
  });
  assert.equal(flight.max, 2);
  const byName = new Map(bundle.manifest.clusters.map((c) => [c.name, c]));
  assert.equal(byName.get("a")!.error, "https://a.example:6443: connection refused");
  assert.equal(
    byName.get("c")!.error,
    "https://c.example:6443: no complete answer within --cluster-timeout 500ms",
  );
  assert.deepEqual(byName.get("c")!.kinds, {});
  assert.ok(!bundle.entries.some((e) => e.path.includes("/clusters/c/")), "nothing of the timed-out cluster");
  for (const n of ["b", "d", "e"]) assert.equal(byName.get(n)!.kinds.pods?.state, "ok", n);
  // The local of a fleet bundle is a cluster that was captured: a reader opens it first.
  assert.equal(bundle.manifest.clusters[0].name, "b");
  assert.equal(bundle.manifest.clusters[0].role, "local");
  assert.equal(bundle.manifest.clusters.filter((c) => c.role === "local").length, 1);
});
