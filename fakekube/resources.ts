/**
 * The fake cluster's resource table: which group/version/plural serves which objects, built from a
 * scenario's objects plus the built-in kinds and the installed Liqo CRDs (crds.ts).
 */
import { LIQO_CRDS } from "./crds.ts";
import type { K8sObject } from "./object.ts";

/** One served resource (group/version/plural) and its objects, sorted by namespace/name. */
export interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  builtin: boolean;
  objects: K8sObject[];
}

type Builtin = [group: string, plural: string, kind: string, namespaced: boolean];

const BUILTINS: Builtin[] = [
  ["", "nodes", "Node", false],
  ["", "namespaces", "Namespace", false],
  ["", "pods", "Pod", true],
  ["", "services", "Service", true],
  ["", "configmaps", "ConfigMap", true],
  ["", "secrets", "Secret", true],
  ["", "endpoints", "Endpoints", true],
  ["", "events", "Event", true],
  ["", "serviceaccounts", "ServiceAccount", true],
  ["", "persistentvolumeclaims", "PersistentVolumeClaim", true],
  ["", "persistentvolumes", "PersistentVolume", false],
  ["apps", "deployments", "Deployment", true],
  ["apps", "daemonsets", "DaemonSet", true],
  ["apps", "replicasets", "ReplicaSet", true],
  ["apps", "statefulsets", "StatefulSet", true],
  ["discovery.k8s.io", "endpointslices", "EndpointSlice", true],
  ["networking.k8s.io", "networkpolicies", "NetworkPolicy", true],
  ["networking.k8s.io", "ingresses", "Ingress", true],
  ["networking.k8s.io", "ingressclasses", "IngressClass", false],
];

/** Splits an apiVersion into group ("" for core) and version. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  return i < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Maps an object's apiVersion/kind to its resource plural (Liqo CRDs, built-ins, else lowercase kind + "s"). */
export function pluralFor(apiVersion: string, kind: string): { plural: string; namespaced: boolean | null } {
  const { group } = splitApiVersion(apiVersion);
  for (const k of LIQO_CRDS) {
    if (k.group === group && k.kind === kind) return { plural: k.plural, namespaced: k.namespaced };
  }
  for (const [g, plural, kk, namespaced] of BUILTINS) {
    if (g === group && kk === kind) return { plural, namespaced };
  }
  return { plural: kind.toLowerCase() + "s", namespaced: null };
}

/**
 * The resource table of a cluster serving `objects`: every built-in kind, each object's kind, and
 * every Liqo kind of a served group/version; keyed "group/version/plural".
 */
export function buildResources(objects: K8sObject[]): Map<string, Resource> {
  const res = new Map<string, Resource>();
  const key = (g: string, v: string, p: string): string => `${g}/${v}/${p}`;
  const add = (r: Omit<Resource, "objects">): Resource => {
    const k = key(r.group, r.version, r.plural);
    let e = res.get(k);
    if (!e) res.set(k, e = { ...r, objects: [] });
    return e;
  };
  for (const [group, plural, kind, namespaced] of BUILTINS) {
    add({ group, version: "v1", plural, kind, namespaced, builtin: true });
  }
  const groupVersions = new Set<string>();
  for (const o of objects) {
    if (!o.apiVersion || !o.kind) throw new Error(`object ${o.metadata?.name} has no apiVersion/kind`);
    const { group, version } = splitApiVersion(o.apiVersion);
    const { plural, namespaced } = pluralFor(o.apiVersion, o.kind);
    groupVersions.add(`${group}/${version}`);
    add({
      group,
      version,
      plural,
      kind: o.kind,
      namespaced: namespaced ?? o.metadata.namespace !== undefined,
      builtin: false,
    }).objects.push(o);
  }
  // A served group/version also serves every kind FlyingFish knows in it (CRD installed, no objects).
  for (const k of LIQO_CRDS) {
    if (groupVersions.has(`${k.group}/${k.version}`)) {
      add({
        group: k.group,
        version: k.version,
        plural: k.plural,
        kind: k.kind,
        namespaced: k.namespaced,
        builtin: false,
      });
    }
  }
  for (const r of res.values()) r.objects.sort(compareObjects);
  return res;
}

function compareObjects(a: K8sObject, b: K8sObject): number {
  const ka = `${a.metadata.namespace ?? ""}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace ?? ""}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** An object as list items carry it: without apiVersion/kind. */
export function stripTypeMeta(o: K8sObject): K8sObject {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest as K8sObject;
}
