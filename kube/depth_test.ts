import assert from "node:assert/strict";
import { MAX_OBJECT_DEPTH, nestedDeeperThan, objectLabel, setAsideTooDeep } from "./depth.ts";
import type { K8sObject } from "./source.ts";

function nested(depth: number): unknown {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

Deno.test("depth: measured iteratively, exactly at the bound, even 100 000 levels down", () => {
  assert.equal(nestedDeeperThan("x", 0), false);
  assert.equal(nestedDeeperThan({}, 0), true);
  assert.equal(nestedDeeperThan(nested(MAX_OBJECT_DEPTH)), false);
  assert.equal(nestedDeeperThan(nested(MAX_OBJECT_DEPTH + 1)), true);
  assert.equal(nestedDeeperThan({ shallow: 1, deep: nested(100_000) }), true);
});

Deno.test("depth: setAsideTooDeep keeps the others and names the deep one", () => {
  const ok = { kind: "ConfigMap", metadata: { name: "a", namespace: "liqo" } } as K8sObject;
  const deep = { kind: "Node", metadata: { name: "n1" }, spec: nested(3_000) } as unknown as K8sObject;
  const { kept, skipped } = setAsideTooDeep([ok, deep], "Node");
  assert.deepEqual(kept, [ok]);
  assert.equal(skipped.length, 1);
  assert.equal(objectLabel(skipped[0]), "Node n1");
  assert.equal(objectLabel({ kind: "ConfigMap", namespace: "liqo", name: "a" }), "ConfigMap liqo/a");
});
