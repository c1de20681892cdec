/**
 * The README's ClusterRole (docs/rbac.md, section "RBAC") is what a full run requests: a healthy dual run of
 * `check` and `collect` (which also reads logs) against the fake API server, its request log mapped
 * to RBAC (apiGroup, resource, verb) triples, compared both ways with the YAML block of the README.
 * A new read without a README rule fails here, and so does a README rule nothing requests.
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { loadScenario, type RequestLogEntry, serveScenario } from "../../fakekube/mod.ts";
import { diagnose } from "../../mod.ts";
import { runCollectCommand } from "../../cli/collect.ts";
import { FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";

const README = new URL("../../docs/rbac.md", import.meta.url);

/** One permission: a resource verb, or a GET of a non-resource URL (discovery, /version). */
type Permission =
  | { kind: "resource"; group: string; resource: string; verb: string }
  | { kind: "url"; path: string; verb: string };

const key = (p: Permission): string =>
  p.kind === "resource" ? `${p.group || "core"} ${p.resource} ${p.verb}` : `url ${p.path} ${p.verb}`;

/** Subresources that open a stream: the API server authorizes `create` (POST/SPDY) and, for websockets, `get`. */
const STREAM_SUBRESOURCES = new Set(["exec", "attach", "portforward"]);

/**
 * The RBAC permissions one request needs, from its URL alone:
 * `/api/v1[/namespaces/<ns>]/<plural>[/<name>[/<sub>]]` and the same under `/apis/<group>/<version>`;
 * no name → list (watch with `watch=true`), a name → get, a stream subresource → create and get,
 * another subresource → get on `<plural>/<sub>`. Anything else is a non-resource URL (discovery).
 */
function permissionsOf(r: Pick<RequestLogEntry, "method" | "path" | "query">): Permission[] {
  const segs = r.path.split("/").filter(Boolean).map(decodeURIComponent);
  const http = r.method.toLowerCase();
  let group: string;
  let rest: string[];
  if (segs[0] === "api" && segs.length >= 3) [group, rest] = ["", segs.slice(2)];
  else if (segs[0] === "apis" && segs.length >= 4) [group, rest] = [segs[1], segs.slice(3)];
  else return [{ kind: "url", path: r.path, verb: http }];
  // /namespaces/<ns>/<plural>…: a namespaced resource; /namespaces[/<name>]: the namespaces themselves.
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [plural, name, sub] = rest;
  const watch = new URLSearchParams(r.query).get("watch") === "true";
  if (name === undefined) {
    return [{ kind: "resource", group, resource: plural, verb: watch ? "watch" : "list" }];
  }
  if (sub === undefined) {
    return [{ kind: "resource", group, resource: plural, verb: watch ? "watch" : "get" }];
  }
  const resource = `${plural}/${sub}`;
  const verbs = STREAM_SUBRESOURCES.has(sub) ? ["create", "get"] : ["get"];
  return verbs.map((verb) => ({ kind: "resource", group, resource, verb }));
}

/** A rule of a ClusterRole. */
interface Rule {
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** The ClusterRole of docs/rbac.md's "RBAC" section (the YAML block holding `kind: ClusterRole`). */
async function readmeClusterRole(): Promise<Rule[]> {
  const text = await Deno.readTextFile(README);
  const section = text.split(/^## /m).find((s) => s.startsWith("RBAC"));
  assert.ok(section, 'docs/rbac.md has no "## RBAC" section');
  for (const [, block] of section.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    for (const doc of parseAllDocuments(block)) {
      const o = doc.toJS();
      if (o?.kind === "ClusterRole") return o.rules as Rule[];
    }
  }
  throw new Error('docs/rbac.md "RBAC" section has no YAML block with a ClusterRole');
}

/** Every permission the rules grant, expanded (wildcards refused: the role must say what it reads). */
function granted(rules: Rule[]): Permission[] {
  const out: Permission[] = [];
  for (const r of rules) {
    assert.ok(
      ![...r.verbs, ...(r.apiGroups ?? []), ...(r.resources ?? [])].includes("*"),
      "wildcard in the role",
    );
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
function covers(g: Permission, n: Permission): boolean {
  if (g.verb !== n.verb || g.kind !== n.kind) return false;
  if (g.kind === "url" && n.kind === "url") {
    return g.path.endsWith("*") ? n.path.startsWith(g.path.slice(0, -1)) : g.path === n.path;
  }
  return g.kind === "resource" && n.kind === "resource" && g.group === n.group && g.resource === n.resource;
}

/**
 * Grants of the README that the fake run cannot show, each with its reason: the `kubectl exec`
 * fallback (used when the Exec API path fails) GETs the pod before it execs.
 */
const NOT_OBSERVABLE: readonly Permission[] = [{
  kind: "resource",
  group: "",
  resource: "pods",
  verb: "get",
}];

/** A ClusterRole for `needed`, to paste into the README when this test fails. */
function suggestedRules(needed: Permission[]): string {
  const byGroup = new Map<string, Map<string, Set<string>>>();
  const urls = new Set<string>();
  for (const p of needed) {
    if (p.kind === "url") {
      urls.add(p.path);
      continue;
    }
    const g = byGroup.get(p.group) ?? new Map<string, Set<string>>();
    byGroup.set(p.group, g);
    const verbs = g.get(p.resource) ?? new Set<string>();
    g.set(p.resource, verbs);
    verbs.add(p.verb);
  }
  const lines: string[] = [];
  for (const [group, resources] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) {
    const byVerbs = new Map<string, string[]>();
    for (const [resource, verbs] of resources) {
      const v = [...verbs].sort().join(", ");
      byVerbs.set(v, [...(byVerbs.get(v) ?? []), resource]);
    }
    for (const [verbs, resources] of byVerbs) {
      lines.push(
        `  - apiGroups: ["${group}"]`,
        `    resources: [${resources.sort().join(", ")}]`,
        `    verbs: [${verbs}]`,
      );
    }
  }
  lines.push(`  - nonResourceURLs: [${[...urls].sort().join(", ")}]`, `    verbs: [get]`);
  return lines.join("\n");
}

Deno.test({
  name: "rbac: the README's ClusterRole grants exactly what a full dual run (check + collect) requests",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await loadScenario("dual-healthy");
    const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
    const tmp = await Deno.makeTempDir({ prefix: "ff-rbac-" });
    try {
      const local = `${tmp}/local.kubeconfig`;
      const remote = `${tmp}/remote.kubeconfig`;
      await Deno.writeTextFile(local, served.kubeconfigYaml(s.run.local));
      await Deno.writeTextFile(remote, served.kubeconfigYaml(s.run.remote!));
      const report = await diagnose({
        kubeconfig: local,
        remoteKubeconfig: remote,
        networkProbes: false,
        sampleIntervalMs: 100,
      });
      assert.equal(report.exitCode, 0, "the healthy dual run is not healthy: the log would be partial");
      const code = await runCollectCommand({
        kubeconfig: local,
        remoteKubeconfig: remote,
        outputFile: `${tmp}/bundle.tar.gz`,
        sampleInterval: SAMPLE_INTERVAL,
        timeout: "30s",
        quiet: true,
      });
      assert.equal(code, 0, "collect failed");
    } finally {
      await served.close();
      await Deno.remove(tmp, { recursive: true });
    }

    const requests = Object.values(served.clusters).flatMap((c) => c?.requests ?? []);
    assert.ok(requests.some((r) => r.path.endsWith("/log")), "collect read no log");
    assert.ok(requests.some((r) => r.path.endsWith("/exec")), "no exec (wg show) in the run");
    const needed = new Map(requests.flatMap(permissionsOf).map((p) => [key(p), p]));
    const grants = granted(await readmeClusterRole());
    const suggestion = suggestedRules([...needed.values()]);

    const missing = [...needed.values()].filter((n) => !grants.some((g) => covers(g, n))).map(key);
    assert.deepEqual(
      missing,
      [],
      `README ClusterRole lacks what the run requests; derived rules:\n${suggestion}`,
    );
    const unused = grants.filter((g) => ![...needed.values(), ...NOT_OBSERVABLE].some((n) => covers(g, n)))
      .map(key);
    assert.deepEqual(
      unused,
      [],
      `README ClusterRole grants what no request needs; derived rules:\n${suggestion}`,
    );
  },
});

Deno.test("rbac: request URLs map to RBAC resources and verbs", () => {
  const p = (path: string, query = "") => permissionsOf({ method: "GET", path, query }).map(key);
  assert.deepEqual(p("/api/v1/pods", "limit=500"), ["core pods list"]);
  assert.deepEqual(p("/api/v1/namespaces/liqo/pods", "labelSelector=a%3Db"), ["core pods list"]);
  assert.deepEqual(p("/api/v1/namespaces"), ["core namespaces list"]);
  assert.deepEqual(p("/api/v1/namespaces/liqo"), ["core namespaces get"]);
  assert.deepEqual(p("/api/v1/namespaces/liqo/configmaps/liqo-clusterid-configmap"), ["core configmaps get"]);
  assert.deepEqual(p("/apis/networking.liqo.io/v1beta1/connections", "watch=true"), [
    "networking.liqo.io connections watch",
  ]);
  assert.deepEqual(p("/api/v1/namespaces/t/pods/gw/exec", "command=wg"), [
    "core pods/exec create",
    "core pods/exec get",
  ]);
  assert.deepEqual(p("/api/v1/namespaces/liqo/pods/ipam/log", "tailLines=200"), ["core pods/log get"]);
  assert.deepEqual(p("/apis/ipam.liqo.io/v1alpha1"), ["url /apis/ipam.liqo.io/v1alpha1 get"]);
  assert.deepEqual(p("/version"), ["url /version get"]);
});
