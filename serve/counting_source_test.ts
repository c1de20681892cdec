/**
 * The counting decorator: failed lists, execs, logs and watch streams are counted by operation,
 * resource and reason; successes are not; the watcher survives the wrapping.
 */
import assert from "node:assert/strict";
import { KINDS } from "../kube/kinds.ts";
import type { ClusterSource } from "../kube/source.ts";
import { canWatch, type WatchableSource, type WatchEvent, WatchExpiredError } from "../kube/watch_cache.ts";
import { countingSource } from "./counting_source.ts";
import type { ApiErrorKey } from "./state.ts";

function fakeSource(): WatchableSource {
  const base: ClusterSource = {
    endpoint: { context: "kind-rome", server: "https://127.0.0.1:1" },
    now: () => new Date(),
    isSnapshot: false,
    list: (spec) =>
      Promise.resolve(
        spec.plural === "secrets"
          ? { ok: false, reason: "forbidden", message: "no" }
          : { ok: true, items: [] },
      ),
    discovery: () => Promise.resolve({ ok: true, groups: [] }),
    exec: () => Promise.resolve({ ok: false, reason: "error", message: "websocket closed" }),
    logs: () => Promise.resolve({ ok: false, reason: "missing", message: "no such container" }),
    close: () => Promise.resolve(),
  };
  return {
    ...base,
    watcher: {
      list: (spec) =>
        Promise.resolve({
          outcome: { ok: false, reason: "error", message: spec.plural },
          resourceVersion: null,
        }),
      // deno-lint-ignore require-yield
      watch: async function* (): AsyncIterable<WatchEvent> {
        throw new WatchExpiredError("too old resource version");
      },
    },
  };
}

Deno.test("counting source: failures are counted by operation, resource and reason; the watcher is kept", async () => {
  const seen: ApiErrorKey[] = [];
  const src = countingSource(fakeSource(), (k) => seen.push(k));
  assert.equal((await src.list(KINDS.pods)).ok, true);
  assert.equal((await src.list(KINDS.secrets)).ok, false);
  assert.equal((await src.exec("ns", "gw", "wireguard", ["wg", "show"])).ok, false);
  assert.equal((await src.logs!("ns", "gw", "gateway")).ok, false);
  assert.ok(canWatch(src));
  await src.watcher.list(KINDS.foreignclusters, {});
  const ctl = new AbortController();
  await assert.rejects(async () => {
    for await (const _ of src.watcher.watch(KINDS.pods, {}, "1", ctl.signal)) { /* none */ }
  }, WatchExpiredError);
  assert.deepEqual(seen.map((k) => `${k.cluster} ${k.operation} ${k.resource} ${k.reason}`), [
    "kind-rome list secrets forbidden",
    "kind-rome exec pods/exec error",
    "kind-rome logs pods/log missing",
    "kind-rome list foreignclusters.core.liqo.io error",
    "kind-rome watch pods expired",
  ]);
});
