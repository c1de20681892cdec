/**
 * Normalisation before two objects are compared, so that only what matters differs: the volatile
 * metadata (resourceVersion, managedFields, uid, generation, creationTimestamp), heartbeat and
 * transition times (a condition's `status` and `reason` kept), restart counters and container IDs
 * (readings, reported apart) go; `status` stays; arrays are keyed by their natural key (`name`,
 * `type`, `ip`, `host`, …) or, for values, compared as sets. The result is a flat map from a path to
 * a printed value, in which WireGuard keys appear only as fingerprints. Pure.
 */
import { createHash } from "node:crypto";
import { isWireguardKey } from "../collect/redact.ts";
import type { K8sObject } from "../kube/source.ts";

/** Metadata that changes without anything having changed. */
const VOLATILE_METADATA = new Set([
  "resourceVersion",
  "managedFields",
  "uid",
  "generation",
  "creationTimestamp",
  "selfLink",
  "deletionGracePeriodSeconds",
]);

/** Keys dropped wherever they appear: times that move by themselves, and per-instance IDs. */
const VOLATILE_KEYS = new Set([
  "lastTransitionTime",
  "lastHeartbeatTime",
  "lastProbeTime",
  "lastUpdateTime",
  "renewTime",
  "startTime",
  "startedAt",
  "finishedAt",
  "observedGeneration",
  "containerID",
  "imageID",
  "lastState",
  "restartCount",
  "timestamp",
]);

/** Per-kind paths dropped: readings (reported apart) and node bookkeeping. */
const VOLATILE_PATHS: Readonly<Record<string, readonly string[]>> = {
  Node: [
    "status.images",
    "status.volumesInUse",
    "status.volumesAttached",
    "status.nodeInfo.bootID",
    "status.nodeInfo.machineID",
    "status.nodeInfo.systemUUID",
    "status.daemonEndpoints",
  ],
  Connection: ["status.latency"],
  GeneveTunnel: ["status.latency"],
  Event: ["count", "firstTimestamp", "lastTimestamp", "eventTime", "series"],
};

/** Fields that name an array element, in order of preference. */
const NATURAL_KEYS = [
  "name",
  "type",
  "ip",
  "host",
  "hostname",
  "address",
  "nodeName",
  "key",
  "cidr",
  "clusterID",
  "port",
  "containerPort",
  "podIP",
  "interface",
] as const;

/** A short, stable fingerprint of key material (never the key itself). */
export function fingerprint(value: string): string {
  return `sha256:${createHash("sha256").update(value).digest("hex").slice(0, 16)}`;
}

/** How a leaf value is printed: key material as a fingerprint, long blobs by size and digest. */
export function printValue(v: unknown): string {
  if (typeof v === "string") {
    if (isWireguardKey(v)) return `key ${fingerprint(v)}`;
    if (v.length > 200) return `(${v.length} characters, ${fingerprint(v)})`;
    return v;
  }
  if (v === null) return "null";
  return String(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The natural key of an array of objects, when every element has it, as a distinct primitive. */
function naturalKey(items: readonly unknown[]): string | null {
  if (!items.every(isRecord)) return null;
  for (const k of NATURAL_KEYS) {
    const values = items.map((i) => (i as Record<string, unknown>)[k]);
    if (!values.every((v) => typeof v === "string" || typeof v === "number")) continue;
    if (new Set(values.map(String)).size === values.length) return k;
  }
  return null;
}

function flattenInto(out: Map<string, string>, path: string, v: unknown): void {
  if (Array.isArray(v)) {
    if (v.length === 0) return;
    if (v.every((x) => !isRecord(x) && !Array.isArray(x))) {
      out.set(path, [...v].map(printValue).sort().join(", "));
      return;
    }
    const key = naturalKey(v);
    if (key !== null) {
      for (const item of v as Record<string, unknown>[]) {
        const at = `${path}[${printValue(item[key])}]`;
        // The element itself, by its key: an element added or removed is one change, not one per field.
        out.set(at, printValue(item[key]));
        flattenInto(out, at, omit(item, key));
      }
      return;
    }
    // No natural key: compared in a canonical order, by content.
    const sorted = [...v].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    sorted.forEach((item, i) => flattenInto(out, `${path}[${i}]`, item));
    return;
  }
  if (isRecord(v)) {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return;
    for (const k of keys) flattenInto(out, path ? `${path}.${k}` : k, v[k]);
    return;
  }
  if (v === undefined) return;
  out.set(path, printValue(v));
}

function omit(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = o;
  return rest;
}

function dropPath(o: Record<string, unknown>, path: string): void {
  const parts = path.split(".");
  let cur: unknown = o;
  for (const p of parts.slice(0, -1)) {
    if (!isRecord(cur)) return;
    cur = cur[p];
  }
  if (isRecord(cur)) delete cur[parts[parts.length - 1]];
}

function dropVolatile(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropVolatile);
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (VOLATILE_KEYS.has(k)) continue;
    out[k] = dropVolatile(x);
  }
  return out;
}

/**
 * The normalised object as a flat map from path to printed value. `metadata.name` and namespace are
 * left out (they identify the object); labels, annotations, owners (without uid), spec, status and
 * data are kept.
 */
export function normalise(
  obj: K8sObject,
  kind: string,
  opts: { dropPodIps?: boolean } = {},
): Map<string, string> {
  const copy = structuredClone(obj) as Record<string, unknown>;
  delete copy.apiVersion;
  delete copy.kind;
  const meta = isRecord(copy.metadata) ? copy.metadata : {};
  for (const k of VOLATILE_METADATA) delete meta[k];
  delete meta.name;
  delete meta.namespace;
  delete meta.generateName;
  if (meta.deletionTimestamp !== undefined) meta.deletionTimestamp = "set";
  if (Array.isArray(meta.ownerReferences)) {
    meta.ownerReferences = meta.ownerReferences.map((r) => isRecord(r) ? omit(r, "uid") : r);
  }
  for (const p of VOLATILE_PATHS[kind] ?? []) dropPath(copy, p);
  // A recreated pod gets a new IP by nature (per instance, like its name's suffix): not a change.
  if (kind === "Pod" && opts.dropPodIps) {
    for (const p of ["status.podIP", "status.podIPs"]) dropPath(copy, p);
  }
  const out = new Map<string, string>();
  flattenInto(out, "", dropVolatile(copy));
  return out;
}
