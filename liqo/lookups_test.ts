import assert from "node:assert/strict";
import { Inventory } from "../kube/inventory.ts";
import { Objects } from "./views/mod.ts";
import { warningEventsFor } from "./lookups.ts";
import type { K8sObject } from "../kube/source.ts";

const NOW = new Date("2026-11-30T02:30:00Z");

function ev(name: string, fields: Record<string, unknown>): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: "t1", creationTimestamp: "2026-11-30T02:00:00Z" },
    involvedObject: { apiVersion: "v1", kind: "Service", name: "gw-x", namespace: "t1" },
    type: "Warning",
    ...fields,
  };
}

Deno.test("warningEventsFor: newest first, count and age, core and events.k8s.io shapes", () => {
  const inv = objects({
    events: [
      ev("old", {
        reason: "SyncLoadBalancerFailed",
        message: "Error syncing load balancer:\n  UDP protocol is not supported",
        count: 12,
        lastTimestamp: "2026-11-30T02:10:00Z",
      }),
      ev("new", {
        reason: "FailedScheduling",
        message: "0/3 nodes are available",
        eventTime: "2026-11-30T02:20:00.123456Z",
        series: { count: 4, lastObservedTime: "2026-11-30T02:28:00.5Z" },
      }),
      ev("bare", {}),
      ev("normal", { type: "Normal", reason: "EnsuringLoadBalancer" }),
      ev("other", { reason: "X", involvedObject: { kind: "Service", name: "other", namespace: "t1" } }),
      ev("otherns", { reason: "X", involvedObject: { kind: "Service", name: "gw-x", namespace: "t2" } }),
      ev("pod", { reason: "X", involvedObject: { kind: "Pod", name: "gw-x", namespace: "t1" } }),
      ev("noinvolved", { involvedObject: undefined }),
    ],
  });
  assert.deepEqual(warningEventsFor(inv, "Service", "t1", "gw-x", NOW), [
    "Warning FailedScheduling (x4, last 1m59s ago): 0/3 nodes are available",
    "Warning SyncLoadBalancerFailed (x12, last 20m0s ago): Error syncing load balancer: UDP protocol is not supported",
    "Warning (no reason) (last 30m0s ago)",
  ]);
  assert.equal(warningEventsFor(inv, "Service", "t1", "gw-x", NOW, 1).length, 1);
  assert.deepEqual(warningEventsFor(inv, "Service", "t1", "nothing", NOW), []);
});

Deno.test("warningEventsFor: unreadable events give one line saying so; long messages are cut", () => {
  const forbidden = objects({}, { events: { reason: "forbidden", message: "no" } });
  assert.deepEqual(warningEventsFor(forbidden, "Pod", "t1", "p", NOW), [
    "events not read (forbidden: events — no)",
  ]);
  const long = objects({
    events: [
      ev("l", { reason: "R", message: "x".repeat(1000), involvedObject: { kind: "Node", name: "n1" } }),
    ],
  });
  const [line] = warningEventsFor(long, "Node", null, "n1", NOW);
  assert.ok(line.endsWith("…") && line.length < 460, line);
});

function objects(...args: Parameters<typeof Inventory.fromLists>): Objects {
  return new Objects(Inventory.fromLists(...args));
}
