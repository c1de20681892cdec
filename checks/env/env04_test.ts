import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { BASE_TIME, baseObjects, find } from "../../tests/support/fixtures.ts";
import { ENV_04 } from "./env04.ts";
import { runner, text } from "../../tests/support/env_checks.ts";

const run = runner([ENV_04]);

const ago = (ms: number): string => new Date(BASE_TIME.getTime() - ms).toISOString();

Deno.test("ENV-04 passes on healthy bases", async () => {
  for (const c of ["rome", "milan"] as const) {
    const o = await run("ENV-04", await baseObjects(c));
    assert.equal(o.status, "pass", text(o));
  }
});

Deno.test("ENV-04 warns on a tenant namespace stuck terminating without ForeignCluster", async () => {
  const objs = await baseObjects("milan");
  objs.push({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: "liqo-tenant-paris-1c2d3e",
      deletionTimestamp: ago(2 * 3600_000),
      labels: { "liqo.io/tenant-namespace": "true", "liqo.io/remote-cluster-id": "paris-1c2d3e" },
    },
    spec: { finalizers: ["kubernetes"] },
    status: {
      phase: "Terminating",
      conditions: [{
        type: "NamespaceFinalizersRemaining",
        status: "True",
        message:
          "Some content in the namespace has finalizers remaining: tenant.liqo.io/finalizer in 1 resource instances",
      }],
    },
  }, {
    apiVersion: "authentication.liqo.io/v1beta1",
    kind: "Tenant",
    metadata: {
      name: "paris-1c2d3e",
      namespace: "liqo-tenant-paris-1c2d3e",
      finalizers: ["tenant.liqo.io/finalizer"],
      labels: { "liqo.io/remote-cluster-id": "paris-1c2d3e" },
    },
    spec: { clusterID: "paris-1c2d3e" },
  });
  const o = await run("ENV-04", objs);
  assert.equal(o.status, "warn");
  const t = text(o);
  assert.match(
    t,
    /liqo-tenant-paris-1c2d3e: deleting for 2h0m, finalizers \[kubernetes\] \(no ForeignCluster paris-1c2d3e\)/,
  );
  assert.match(t, /tenant\.liqo\.io\/finalizer in 1 resource/);
  assert.match(fixText(o.remediation), /patch tenants\.authentication\.liqo\.io paris-1c2d3e/);
});

Deno.test("ENV-04 ignores deletions younger than 5 minutes", async () => {
  const objs = await baseObjects("rome");
  const fc = find(objs, "ForeignCluster", "milan-8d1f03");
  fc.metadata.deletionTimestamp = ago(60_000);
  assert.equal((await run("ENV-04", objs)).status, "pass");
  fc.metadata.deletionTimestamp = ago(20 * 60_000);
  const o = await run("ENV-04", objs);
  assert.equal(o.status, "warn");
  assert.match(text(o), /ForeignCluster milan-8d1f03: deleting for 20m0s, finalizers \[api-server-checker/);
});

Deno.test("ENV-04 warns on the permanently-unreachable annotation and orphaned gateways", async () => {
  const objs = await baseObjects("rome");
  find(objs, "ForeignCluster", "milan-8d1f03").metadata.annotations = {
    "liqo.io/foreign-cluster-permanently-unreachable": "true",
  };
  const withoutClient = objs.filter((o) =>
    !(o.kind === "GatewayClient" && o.metadata.name === "milan-8d1f03")
  );
  const o = await run("ENV-04", withoutClient);
  assert.equal(o.status, "warn");
  assert.match(text(o), /permanently-unreachable/);
  assert.match(
    text(o),
    /gateway Deployment liqo-tenant-milan-8d1f03\/gw-milan-8d1f03: no GatewayServer\/GatewayClient/,
  );
});

Deno.test("ENV-04 warns on a tenant namespace whose peer has no ForeignCluster", async () => {
  const objs = (await baseObjects("milan")).filter((o) => o.kind !== "ForeignCluster");
  const o = await run("ENV-04", objs);
  assert.equal(o.status, "warn");
  assert.match(text(o), /no ForeignCluster for peer rome-4b2a9e/);
});
