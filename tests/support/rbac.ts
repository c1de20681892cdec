/**
 * RBAC from a request log: the (apiGroup, resource, verb) each request to the fake API server
 * needs, and what a ClusterRole's rules grant. The derivation of tests/e2e/rbac_test.ts (the
 * README's role), shared with tests/deploy_test.ts and tests/e2e/serve_test.ts (deploy/'s role),
 * and extended to the watch requests of `watch`/`serve` (`watch=1` as well as `watch=true`).
 */
import type { RequestLogEntry } from "../../fakekube/mod.ts";

/** One permission: a resource verb, or a GET of a non-resource URL (discovery, /version). */
export type Permission =
  | { kind: "resource"; group: string; resource: string; verb: string }
  | { kind: "url"; path: string; verb: string };

/** A readable, comparable form of a permission: `core pods list`, `url /version get`. */
export const permissionKey = (p: Permission): string =>
  p.kind === "resource" ? `${p.group || "core"} ${p.resource} ${p.verb}` : `url ${p.path} ${p.verb}`;

/** Subresources that open a stream: the API server authorizes `create` (POST/SPDY) and, for websockets, `get`. */
const STREAM_SUBRESOURCES = new Set(["exec", "attach", "portforward"]);

function isWatch(query: string): boolean {
  const w = new URLSearchParams(query).get("watch");
  return w === "true" || w === "1";
}

/**
 * The RBAC permissions one request needs, from its URL alone:
 * `/api/v1[/namespaces/<ns>]/<plural>[/<name>[/<sub>]]` and the same under `/apis/<group>/<version>`;
 * no name → list (watch with `watch=true|1`), a name → get, a stream subresource → create and get,
 * another subresource → get on `<plural>/<sub>`. Anything else is a non-resource URL (discovery).
 */
export function permissionsOf(r: Pick<RequestLogEntry, "method" | "path" | "query">): Permission[] {
  const segs = r.path.split("/").filter(Boolean).map(decodeURIComponent);
  const http = r.method.toLowerCase();
  let group: string;
  let rest: string[];
  if (segs[0] === "api" && segs.length >= 3) [group, rest] = ["", segs.slice(2)];
  else if (segs[0] === "apis" && segs.length >= 4) [group, rest] = [segs[1], segs.slice(3)];
  else return [{ kind: "url", path: r.path, verb: http }];
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [plural, name, sub] = rest;
  const watch = isWatch(r.query);
  if (name === undefined || sub === undefined) {
    const verb = watch ? "watch" : name === undefined ? "list" : "get";
    return [{ kind: "resource", group, resource: plural, verb }];
  }
  const resource = `${plural}/${sub}`;
  const verbs = STREAM_SUBRESOURCES.has(sub) ? ["create", "get"] : ["get"];
  return verbs.map((verb) => ({ kind: "resource", group, resource, verb }));
}

/** A rule of a ClusterRole. */
export interface Rule {
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** Every permission the rules grant, expanded; a wildcard is an Error (the role must say what it reads). */
export function granted(rules: readonly Rule[]): Permission[] {
  const out: Permission[] = [];
  for (const r of rules) {
    if ([...r.verbs, ...(r.apiGroups ?? []), ...(r.resources ?? [])].includes("*")) {
      throw new Error("wildcard in the role");
    }
    for (const verb of r.verbs) {
      for (const path of r.nonResourceURLs ?? []) out.push({ kind: "url", path, verb });
      for (const group of r.apiGroups ?? []) {
        for (const resource of r.resources ?? []) out.push({ kind: "resource", group, resource, verb });
      }
    }
  }
  return out;
}

/** True when a granted permission covers a needed one (`/apis/*`-style URL prefixes included). */
export function covers(g: Permission, n: Permission): boolean {
  if (g.verb !== n.verb || g.kind !== n.kind) return false;
  if (g.kind === "url" && n.kind === "url") {
    return g.path.endsWith("*") ? n.path.startsWith(g.path.slice(0, -1)) : g.path === n.path;
  }
  return g.kind === "resource" && n.kind === "resource" && g.group === n.group && g.resource === n.resource;
}
