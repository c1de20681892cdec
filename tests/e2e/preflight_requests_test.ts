/**
 * What a passive `flyingfish preflight` sends, from the fake servers' request logs of a healthy
 * run: reads, SelfSubjectAccessReviews and `dryRun=All` creates — no request that could change
 * either cluster; and the ClusterRole of docs/preflight.md ("RBAC") is exactly what those
 * requests need, both ways (a new read or question without a rule fails here, and so does a rule
 * nothing asks for).
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import type { RequestLogEntry } from "../../fakekube/mod.ts";
import {
  covers,
  granted,
  type Permission,
  permissionKey,
  permissionsOf,
  type Rule,
} from "../support/rbac.ts";
import { runPreflight } from "./preflight_support.ts";

const DOC = new URL("../../docs/preflight.md", import.meta.url);

/** The permission a request needs; a POST creates in its collection (dry run or not, RBAC asks `create`). */
function needed(r: RequestLogEntry): Permission[] {
  if (r.method !== "POST") return permissionsOf(r);
  return permissionsOf({ ...r, method: "GET" }).map((p) => ({ ...p, verb: "create" }));
}

/** The ClusterRole of docs/preflight.md's "RBAC" section whose name is `name`. */
async function documentedRole(name: string): Promise<Rule[]> {
  const text = await Deno.readTextFile(DOC);
  const section = text.split(/^## /m).find((s) => s.startsWith("RBAC"));
  assert.ok(section, 'docs/preflight.md has no "## RBAC" section');
  for (const [, block] of section.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    for (const doc of parseAllDocuments(block)) {
      const o = doc.toJS();
      if (o?.kind === "ClusterRole" && o.metadata?.name === name) return o.rules as Rule[];
    }
  }
  throw new Error(`docs/preflight.md "RBAC" has no ClusterRole ${name}`);
}

Deno.test("preflight (passive): only reads, access reviews and dryRun=All creates; docs/preflight.md's role is what they need", async () => {
  // The healthy pair, and one whose provider keeps a tenant namespace (the nonce Secret is dry-run there).
  const [r, left] = await Promise.all([runPreflight("healthy"), runPreflight("rbac-tenant-namespace-left")]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(left.code, 2, left.stderr);
  const requests = [r, left].flatMap((x) =>
    Object.values(x.served.clusters).flatMap((c) => c?.requests ?? [])
  );
  const writes = requests.filter((q) => q.method !== "GET");
  assert.ok(writes.length > 0, "the run asked access reviews");
  for (const w of writes) {
    const ssar = w.method === "POST" && w.path === "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    const dry = w.method === "POST" && new URLSearchParams(w.query).getAll("dryRun").join() === "All";
    assert.ok(ssar || dry, `a passive preflight sent ${w.method} ${w.path}?${w.query}`);
  }
  assert.ok(writes.some((w) => w.path === "/api/v1/namespaces"), "the tenant namespace was dry-run");
  assert.ok(
    writes.some((w) => w.path === "/api/v1/namespaces/liqo-tenant-rome-4b2a9e/secrets"),
    "the nonce Secret was dry-run in the existing tenant namespace",
  );
  const need = new Map<string, Permission>();
  for (const q of requests) for (const p of needed(q)) need.set(permissionKey(p), p);
  const grants = granted(await documentedRole("flyingfish-preflight"));
  const missing = [...need.values()].filter((n) => !grants.some((g) => covers(g, n))).map(permissionKey);
  assert.deepEqual(missing, [], "requests the documented role does not grant");
  const unused = grants.filter((g) => ![...need.values()].some((n) => covers(g, n))).map(permissionKey);
  assert.deepEqual(unused, [], "documented grants no request needs");
});
