/**
 * Discovery and server info: /version, /healthz|livez|readyz, /api, /apis, /apis/<group>, and the
 * APIResourceList of each served group/version (with pods/exec, pods/log and CRD /status
 * subresources), as a kube-apiserver answers them.
 */
import type { Resource } from "../resources.ts";
import { json, notFoundResource } from "../status.ts";
import type { ServerState } from "./state.ts";

/** Kubernetes version reported by /version. */
export const FAKE_GIT_VERSION = "v1.31.4";

/** Served API groups (not core) → their versions, in table order. */
export function groupVersions(resources: ReadonlyMap<string, Resource>): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const r of resources.values()) {
    if (r.group === "") continue;
    const vs = m.get(r.group) ?? [];
    if (!vs.includes(r.version)) vs.push(r.version);
    m.set(r.group, vs);
  }
  return m;
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  return {
    name,
    versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
  };
}

/** The APIResourceList of one group/version (404 when nothing is served there). */
export function resourceList(
  resources: ReadonlyMap<string, Resource>,
  group: string,
  version: string,
): Response {
  const list = [...resources.values()].filter((r) => r.group === group && r.version === version);
  if (list.length === 0) return notFoundResource();
  const gv = group === "" ? version : `${group}/${version}`;
  const items: unknown[] = [];
  for (const r of list.sort((a, b) => a.plural.localeCompare(b.plural))) {
    items.push({
      name: r.plural,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.builtin
        ? ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
        : ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
      storageVersionHash: btoa(`${gv}/${r.plural}`).slice(0, 11),
    });
    if (group === "" && r.plural === "pods") {
      items.push({
        name: "pods/exec",
        singularName: "",
        namespaced: true,
        kind: "PodExecOptions",
        verbs: ["create", "get"],
      });
      items.push({ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] });
    }
    if (!r.builtin) {
      items.push({
        name: `${r.plural}/status`,
        singularName: "",
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ["get", "patch", "update"],
      });
    }
  }
  return json({ kind: "APIResourceList", apiVersion: "v1", groupVersion: gv, resources: items });
}

/** Answers the info and top-level discovery paths (`segs` joined); null for any other path. */
export function routeInfo(s: ServerState, path: string): Response | null {
  if (path === "version") {
    const gitVersion = s.cfg.serverVersion ?? FAKE_GIT_VERSION;
    return json({
      major: "1",
      minor: /^v\d+\.(\d+)/.exec(gitVersion)?.[1] ?? "31",
      gitVersion,
      gitCommit: "a3cfc3a4be0a3e1d4bd2f2fa84b4e0b5cfd4d6f1",
      gitTreeState: "clean",
      buildDate: "2024-12-10T12:00:00Z",
      goVersion: "go1.22.9",
      compiler: "gc",
      platform: "linux/amd64",
    });
  }
  if (path === "healthz" || path === "livez" || path === "readyz") return new Response("ok");
  if (path === "api") {
    return json({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: `127.0.0.1:${s.port}` }],
    });
  }
  if (path === "apis") {
    const groups = [...groupVersions(s.resources)].sort(([a], [b]) => a.localeCompare(b)).map(([g, vs]) =>
      apiGroup(g, vs)
    );
    return json({ kind: "APIGroupList", apiVersion: "v1", groups });
  }
  return null;
}

/** The APIGroup document of /apis/<group>. */
export function groupDocument(group: string, versions: string[]): Response {
  return json({ kind: "APIGroup", apiVersion: "v1", ...apiGroup(group, versions) });
}
