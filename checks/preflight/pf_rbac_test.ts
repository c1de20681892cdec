import assert from "node:assert/strict";
import { peerNeeds, PF_RBAC } from "./pf_rbac.ts";
import type { AccessQuestions } from "../../probes/hub.ts";
import { accessHub, pairContext, solo } from "../../tests/support/preflight_checks.ts";

Deno.test("PF-RBAC: what liqoctl peer needs follows the server side", () => {
  const kinds = (role: "consumer" | "provider", serverSide: "consumer" | "provider") =>
    peerNeeds(role, { serverSide }).map((n) => n.kind);
  assert.ok(kinds("provider", "provider").includes("gatewayservers"));
  assert.ok(kinds("consumer", "provider").includes("gatewayclients"));
  assert.ok(kinds("consumer", "consumer").includes("gatewayservers"));
  assert.ok(kinds("provider", "provider").includes("tenants"));
  assert.ok(kinds("consumer", "provider").includes("resourceslices"));
});

Deno.test("PF-RBAC: denials and admission refusals fail naming verb, resource, namespace, cluster", async () => {
  const [r, m] = [await solo("rome-solo"), await solo("milan-solo")];
  const seen: { cluster: string; q: AccessQuestions }[] = [];
  const ok = await PF_RBAC.run(pairContext(r, m, { probes: accessHub({ seen }) }));
  assert.equal(ok.status, "pass", ok.summary);
  assert.equal(seen.length, 2);
  assert.ok(seen.every((s) => s.q.dryRuns.length === 1), "the tenant namespace, dry-run on each side");
  const denied = await PF_RBAC.run(pairContext(r, m, {
    probes: accessHub({
      deny: (c, verb, res) =>
        c === "milan-8d1f03" && verb === "create" && res === "tenants.authentication.liqo.io",
      refuse: (c) => c === "rome-4b2a9e" ? 'admission webhook "x.example" denied the request: no' : null,
    }),
  }));
  assert.equal(denied.status, "fail");
  const text = [denied.summary, ...(denied.evidence ?? [])].join("\n");
  assert.match(
    text,
    /cannot create tenants\.authentication\.liqo\.io in namespace liqo-tenant-rome-4b2a9e on milan-8d1f03 \(provider\)/,
  );
  assert.match(
    text,
    /dry run of Namespace liqo-tenant-milan-8d1f03 refused on rome-4b2a9e \(consumer\) by admission webhook "x\.example"/,
  );
});

Deno.test("PF-RBAC: access reviews that cannot be asked are unknown, never a pass", async () => {
  const o = await PF_RBAC.run(pairContext(await solo("rome-solo"), await solo("milan-solo"), {
    probes: accessHub({ unavailable: "snapshot: access reviews and dry runs need the live cluster" }),
  }));
  assert.equal(o.status, "unknown");
});

Deno.test("PF-RBAC: the consumer must read its authentication keys in the Liqo namespace (liqoctl signs the Tenant)", async () => {
  const [r, m] = [await solo("rome-solo"), await solo("milan-solo")];
  const seen: { cluster: string; q: AccessQuestions }[] = [];
  await PF_RBAC.run(pairContext(r, m, { probes: accessHub({ seen }) }));
  const keys = (cluster: string) =>
    seen.find((s) => s.cluster === cluster)!.q.reviews.filter((a) => a.resource === "secrets" && a.name);
  assert.deepEqual(keys("rome-4b2a9e"), [{
    verb: "get",
    resource: "secrets",
    namespace: "liqo",
    name: "authentication-keys",
  }]);
  assert.deepEqual(keys("milan-8d1f03"), [], "the provider's keys are not read by liqoctl peer");
  const denied = await PF_RBAC.run(pairContext(r, m, {
    probes: accessHub({ deny: (c, verb, res) => c === "rome-4b2a9e" && verb === "get" && res === "secrets" }),
  }));
  assert.equal(denied.status, "fail");
  assert.match(
    (denied.evidence ?? []).join("\n"),
    /cannot get secrets authentication-keys in namespace liqo on rome-4b2a9e \(consumer\)/,
  );
});

Deno.test("PF-RBAC: in a tenant namespace that exists, the provider's nonce Secret is dry-run instead", async () => {
  const r = await solo("rome-solo");
  const m = [
    ...await solo("milan-solo"),
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "liqo-tenant-rome-4b2a9e" } },
  ];
  const seen: { cluster: string; q: AccessQuestions }[] = [];
  const ok = await PF_RBAC.run(pairContext(r, m, { probes: accessHub({ seen }) }));
  assert.equal(ok.status, "pass", ok.summary);
  const milan = seen.find((s) => s.cluster === "milan-8d1f03")!.q.dryRuns;
  assert.deepEqual(milan.map((o) => [o.kind, o.metadata.namespace, o.metadata.name]), [
    ["Secret", "liqo-tenant-rome-4b2a9e", "liqo-nonce"],
  ]);
  assert.deepEqual(milan[0].metadata.labels, {
    "liqo.io/nonce": "true",
    "liqo.io/remote-cluster-id": "rome-4b2a9e",
  });
  assert.match(
    ok.evidence!.join("\n"),
    /liqo-tenant-rome-4b2a9e exists; Secret liqo-nonce admitted by a dryRun=All create/,
  );
  const refused = await PF_RBAC.run(pairContext(r, m, {
    probes: accessHub({
      refuse: (_, o) => o.kind === "Secret" ? 'admission webhook "secrets.example" denied it' : null,
    }),
  }));
  assert.equal(refused.status, "fail");
  assert.match(
    refused.summary,
    /dry run of Secret liqo-tenant-rome-4b2a9e\/liqo-nonce refused on milan-8d1f03/,
  );
  // RBAC refusing the create already says so: one refusal, not a second from the dry run.
  const denied = await PF_RBAC.run(pairContext(r, m, {
    probes: accessHub({
      deny: (c, verb, res) => c === "milan-8d1f03" && verb === "create" && res === "secrets",
      refuse: (_, o) => o.kind === "Secret" ? "forbidden" : null,
    }),
  }));
  assert.match(denied.summary, /^liqoctl peer would be refused: 1 refusal\(s\)/);
});
