/**
 * The access client (kube/live/access.ts) against the fake API server: a dry-run create carries
 * `dryRun=All` whatever it is given and stores nothing; an access review answers from the server's
 * permission table; a review the server refuses (403 on selfsubjectaccessreviews) is marked
 * `reviewFailed`, not read as the authorizer's no.
 */
import assert from "node:assert/strict";
import { startFakeCluster } from "../../fakekube/mod.ts";
import type { K8sObject } from "../source.ts";
import { openKubeClient } from "./client.ts";
import { accessClient } from "./access.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

async function withAccess(
  extra: Record<string, unknown>,
  fn: (
    a: ReturnType<typeof accessClient>,
    requests: { method: string; query: string; path: string }[],
  ) => Promise<void>,
): Promise<void> {
  const fake = await startFakeCluster({ name: "rome", objects: [], wireguard: {}, tls: false, ...extra });
  const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml(), requestTimeoutMs: 5_000 });
  try {
    await fn(accessClient(client), fake.requests);
  } finally {
    await client.close();
    await fake.close();
  }
}

Deno.test(
  "access: every create it sends is a dry run (dryRun=All), and nothing is stored",
  sanitizers,
  async () => {
    await withAccess({}, async (access, requests) => {
      const ns: K8sObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "liqo-tenant-milan" } };
      // Even an object whose name looks like a query cannot drop the parameter.
      const odd: K8sObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "x?dryRun=None" } };
      const a = await access.dryRunCreate(ns);
      assert.equal(a.ok, true);
      await access.dryRunCreate(odd);
      const posts = requests.filter((r) => r.method === "POST");
      assert.equal(posts.length, 2);
      assert.ok(posts.every((p) => p.path === "/api/v1/namespaces"));
      for (const p of posts) assert.deepEqual(new URLSearchParams(p.query).getAll("dryRun"), ["All"]);
      assert.ok(requests.every((r) => r.method === "POST" || r.method === "GET"));
      // Stored nothing: the same dry run again meets no AlreadyExists.
      assert.equal((await access.dryRunCreate(ns)).ok, true);
    });
  },
);

Deno.test(
  "access: reviews answer from the permission table; a refused review is reviewFailed",
  sanitizers,
  async () => {
    await withAccess({ lifecycle: { deny: ["create tenants.authentication.liqo.io"] } }, async (access) => {
      const [ok, no] = await access.review([
        { verb: "create", resource: "namespaces" },
        {
          verb: "create",
          resource: "tenants",
          group: "authentication.liqo.io",
          namespace: "liqo-tenant-rome",
        },
      ]);
      assert.equal(ok.allowed, true);
      assert.equal(no.allowed, false);
      assert.equal(no.reviewFailed, undefined);
    });
    await withAccess({ forbid: ["selfsubjectaccessreviews.authorization.k8s.io"] }, async (access) => {
      const [v] = await access.review([{ verb: "create", resource: "namespaces" }]);
      assert.equal(v.allowed, false);
      assert.equal(v.reviewFailed, true);
      assert.match(v.reason, /the access review itself failed/);
    });
  },
);
