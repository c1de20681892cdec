import assert from "node:assert/strict";
import type { K8sObject } from "./source.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";

function event(name: string, type: string, kind: string, objName: string, objNs: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: objNs },
    type,
    reason: "X",
    involvedObject: { apiVersion: "v1", kind, name: objName, namespace: objNs },
  };
}

const EVENTS: K8sObject[] = [
  event("e1", "Warning", "Pod", "gw-0", "t1"),
  event("e2", "Normal", "Pod", "gw-0", "t1"),
  event("e3", "Warning", "Service", "gw-svc", "t1"),
  event("e4", "Warning", "Pod", "fabric-x", "liqo"),
  { apiVersion: "v1", kind: "Event", metadata: { name: "e5", namespace: "t1" } },
];

function names(sel: string): string[] {
  const m = parseFieldSelector(sel);
  return EVENTS.filter(m).map((e) => e.metadata.name);
}

Deno.test("field selector: event type and involvedObject fields", () => {
  assert.deepEqual(names("type=Warning"), ["e1", "e3", "e4"]);
  assert.deepEqual(names("type==Warning"), ["e1", "e3", "e4"]);
  assert.deepEqual(names("type!=Warning"), ["e2", "e5"]);
  assert.deepEqual(names("type=Warning,involvedObject.kind=Pod"), ["e1", "e4"]);
  assert.deepEqual(names("involvedObject.kind!=Pod"), ["e3", "e5"]);
  assert.deepEqual(names("involvedObject.name=gw-0"), ["e1", "e2"]);
  assert.deepEqual(names("involvedObject.namespace=liqo"), ["e4"]);
  assert.deepEqual(names("involvedObject.namespace!=liqo,type=Warning"), ["e1", "e3"]);
  assert.deepEqual(names("involvedObject.name="), ["e5"]);
});

Deno.test("field selector: unsupported fields and malformed input are rejected", () => {
  assert.throws(() => parseFieldSelector("involvedObject.uid=1"), SelectorError);
  assert.throws(() => parseFieldSelector("type"), SelectorError);
  assert.throws(() => parseLabelSelector("a b c"), SelectorError);
});
