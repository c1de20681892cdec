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
  "uid",
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

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** How a leaf value is printed: key material as a fingerprint, long blobs by size and digest. */
export function printValue(v: unknown): string {
  if (typeof v === "string") {
    // A WireGuard key is 44 base64 characters (60 when base64 again, as Secret data): only those are tried.
    if ((v.length === 44 || v.length === 60) && BASE64.test(v) && isWireguardKey(v)) {
      return `key ${fingerprint(v)}`;
    }
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

/** What a walk leaves out: dotted paths (outside arrays; none when `null`) and, everywhere, {@link VOLATILE_KEYS}. */
type Skip = ReadonlySet<string> | null;

const join = (path: string, rel: string): string =>
  rel === "" ? path : path === "" ? rel : rel.startsWith("[") ? `${path}${rel}` : `${path}.${rel}`;

/** Flattens `v` under `path` into `out`, without copying it (objects are read, never changed). */
function flattenInto(out: Map<string, string>, path: string, v: unknown, skip: Skip): void {
  if (Array.isArray(v)) {
    if (v.length === 0) return;
    if (v.every((x) => !isRecord(x) && !Array.isArray(x))) {
      out.set(path, v.map(printValue).sort().join(", "));
      return;
    }
    const key = naturalKey(v);
    if (key !== null) {
      for (const item of v as Record<string, unknown>[]) {
        const at = `${path}[${printValue(item[key])}]`;
        // The element itself, by its key: an element added or removed is one change, not one per field.
        out.set(at, printValue(item[key]));
        for (const k of Object.keys(item).sort()) {
          if (k !== key && !VOLATILE_KEYS.has(k)) flattenInto(out, `${at}.${k}`, item[k], null);
        }
      }
      return;
    }
    // No natural key: the elements, each normalised, compared in a canonical order of their content.
    const items = v.map((item) => {
      const m = new Map<string, string>();
      flattenInto(m, "", item, null);
      return { m, text: JSON.stringify([...m].sort()) };
    }).sort((a, b) => a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
    items.forEach(({ m }, i) => {
      for (const [rel, x] of m) out.set(join(`${path}[${i}]`, rel), x);
    });
    return;
  }
  if (isRecord(v)) {
    for (const k of Object.keys(v).sort()) {
      if (VOLATILE_KEYS.has(k)) continue;
      const at = path ? `${path}.${k}` : k;
      if (skip?.has(at)) continue;
      flattenInto(out, at, v[k], skip);
    }
    return;
  }
  if (v === undefined) return;
  out.set(path, path === "metadata.deletionTimestamp" ? "set" : printValue(v));
}

/** Paths every object leaves out: what identifies it, and the volatile metadata. */
const ALWAYS_SKIPPED = [
  "apiVersion",
  "kind",
  "metadata.name",
  "metadata.namespace",
  "metadata.generateName",
  ...[...VOLATILE_METADATA].map((k) => `metadata.${k}`),
];

const skipsOf = new Map<string, ReadonlySet<string>>();

/**
 * The normalised object as a flat map from path to printed value. `metadata.name` and namespace are
 * left out (they identify the object); labels, annotations, owners (without uid), spec, status and
 * data are kept. `obj` is not changed.
 */
export function normalise(
  obj: K8sObject,
  kind: string,
  opts: { dropPodIps?: boolean } = {},
): Map<string, string> {
  // A recreated pod gets a new IP by nature (per instance, like its name's suffix): not a change.
  const key = `${kind}\u0000${opts.dropPodIps === true && kind === "Pod"}`;
  let skip = skipsOf.get(key);
  if (!skip) {
    skip = new Set([
      ...ALWAYS_SKIPPED,
      ...(VOLATILE_PATHS[kind] ?? []),
      ...(kind === "Pod" && opts.dropPodIps ? ["status.podIP", "status.podIPs"] : []),
    ]);
    skipsOf.set(key, skip);
  }
  const out = new Map<string, string>();
  flattenInto(out, "", obj, skip);
  return out;
}
