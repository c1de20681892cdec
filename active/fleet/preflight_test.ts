/**
 * Pre-flight: the permissions each mode and probe needs, ONE tool error (exit 3) listing every
 * denial of every cluster with the README pointer, and the dry runs naming the admission rule —
 * against the fake API server's permission table and Pod Security admission (plain HTTP).
 */
import assert from "node:assert/strict";
import { startFakeCluster } from "../../fakekube/mod.ts";
import { ToolError } from "../../errors.ts";
import { openKubeClient } from "../../kube/live/client.ts";
import type { AccessAttributes } from "../../kube/live/write.ts";
import type { K8sObject } from "../../kube/source.ts";
import {
  accessNeeds,
  admissionName,
  denialLine,
  dryRunAll,
  DryRunError,
  preflight,
  PreflightError,
  RBAC_POINTER,
} from "./preflight.ts";
import { probeTarget } from "./target.ts";
import type { Side } from "../model.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };
const NS = "flyingfish-probe-k3x9q2m1";

const key = (a: AccessAttributes): string =>
  `${a.verb} ${a.resource}${a.subresource ? "/" + a.subresource : ""}${a.group ? "." + a.group : ""}${
    a.namespace ? " @" + a.namespace : ""
  }`;

Deno.test("accessNeeds: direct mode, matrix only: namespace, pods, exec in the run namespace, nodes", () => {
  const needs = accessNeeds({ side: "local", mode: "direct", probes: ["matrix"], runNamespace: NS }).map(key);
  assert.deepEqual(needs, [
    "create namespaces",
    "delete namespaces",
    "get namespaces",
    `create pods @${NS}`,
    `get pods @${NS}`,
    `list pods @${NS}`,
    `watch pods @${NS}`,
    `delete pods @${NS}`,
    `create pods/exec @${NS}`,
    "get nodes",
    "list nodes",
  ]);
});

Deno.test("accessNeeds: offload + service + mtu adds Services, the NamespaceOffloading and exec in the tenant namespace", () => {
  const needs = accessNeeds({
    side: "local",
    mode: "offload",
    probes: ["matrix", "service", "mtu"],
    runNamespace: NS,
    gatewayNamespace: "liqo-tenant-milan",
  }).map(key);
  for (
    const n of [
      `create services @${NS}`,
      `create namespaceoffloadings.offloading.liqo.io @${NS}`,
      `delete namespaceoffloadings.offloading.liqo.io @${NS}`,
      `get namespaceoffloadings.offloading.liqo.io @${NS}`,
      "create pods/exec @liqo-tenant-milan",
    ]
  ) assert.ok(needs.includes(n), `${n} in ${needs.join(", ")}`);
  // The remote cluster of an offload run is never written to.
  assert.deepEqual(
    accessNeeds({ side: "remote", mode: "offload", probes: ["matrix"], runNamespace: NS }),
    [],
  );
  // Direct mode: no NamespaceOffloading; trace execs into the remote gateway too.
  const remote = accessNeeds({
    side: "remote",
    mode: "direct",
    probes: ["trace"],
    runNamespace: NS,
    gatewayNamespace: "liqo-tenant-rome",
  }).map(key);
  assert.ok(remote.includes("create pods/exec @liqo-tenant-rome"));
  assert.ok(!remote.some((n) => n.includes("namespaceoffloadings")));
});

Deno.test("preflight message: every denial of every cluster, one line each, then the README pointer", () => {
  const e = new PreflightError([
    {
      cluster: "rome",
      verdict: {
        verb: "create",
        resource: "pods",
        subresource: "exec",
        namespace: NS,
        allowed: false,
        reason: "",
      },
    },
    { cluster: "milan", verdict: { verb: "list", resource: "nodes", allowed: false, reason: "" } },
    {
      cluster: "rome",
      verdict: {
        verb: "create",
        resource: "namespaceoffloadings",
        group: "offloading.liqo.io",
        namespace: NS,
        allowed: false,
        reason: "",
      },
    },
  ]);
  assert.ok(e instanceof ToolError);
  assert.equal(e.exitCode, 3);
  assert.equal(
    e.message,
    `pre-flight: the probe run lacks permissions (nothing was created): ` +
      `cannot create pods/exec in namespace ${NS} (cluster rome); ` +
      `cannot list nodes (cluster milan); ` +
      `cannot create namespaceoffloadings.offloading.liqo.io in namespace ${NS} (cluster rome); ` +
      RBAC_POINTER,
  );
  assert.equal(
    denialLine("rome", { verb: "delete", resource: "namespaces" }),
    "cannot delete namespaces (cluster rome)",
  );
});

Deno.test("admissionName: Pod Security, webhooks, quotas, else the Status reason", () => {
  assert.equal(
    admissionName(
      "Forbidden",
      'pods "p" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false',
    ),
    'PodSecurity "restricted:latest"',
  );
  assert.equal(
    admissionName("Forbidden", 'admission webhook "validate.kyverno.svc-fail" denied the request: no'),
    'admission webhook "validate.kyverno.svc-fail"',
  );
  assert.equal(admissionName("Forbidden", 'pods "p" is forbidden: exceeded quota: q'), "ResourceQuota");
  assert.equal(admissionName("Invalid", "Pod is invalid"), "Invalid");
});

async function served(lifecycle: Record<string, unknown>, name: string) {
  const fake = await startFakeCluster({ name, objects: [], wireguard: {}, tls: false, lifecycle });
  const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml(), requestTimeoutMs: 5_000 });
  const exec = () => Promise.resolve({ ok: false as const, reason: "error" as const, message: "no exec" });
  const side: Side = name === "rome" ? "local" : "remote";
  const target = probeTarget({ side, name, client, exec, flags: `--context ${name}` });
  return {
    fake,
    target,
    close: async () => {
      await client.close();
      await fake.close();
    },
  };
}

Deno.test({
  name: "preflight against two fake clusters: one error naming each cluster's denials; nothing written",
  ...sanitizers,
  fn: async () => {
    const rome = await served({ deny: ["create pods/exec", "delete namespaces"] }, "rome");
    const milan = await served({ deny: ["list nodes"] }, "milan");
    try {
      const needs = (side: Side) =>
        accessNeeds({ side, mode: "direct", probes: ["matrix"], runNamespace: NS });
      const err = await preflight([rome.target, milan.target], {
        local: needs("local"),
        remote: needs("remote"),
      })
        .then(() => null, (e) => e);
      assert.ok(err instanceof PreflightError, String(err));
      assert.equal(err.exitCode, 3);
      assert.match(err.message, new RegExp(`cannot create pods/exec in namespace ${NS} \\(cluster rome\\)`));
      assert.match(err.message, /cannot delete namespaces \(cluster rome\)/);
      assert.match(err.message, /cannot list nodes \(cluster milan\)/);
      assert.equal(err.denials.length, 3);
      assert.ok(err.message.endsWith(RBAC_POINTER));
      for (const c of [rome, milan]) {
        const writes = c.fake.requests.filter((r) => r.method !== "GET");
        assert.ok(writes.every((r) => r.path === "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"));
        assert.equal(c.fake.objects().some((o) => o.metadata.name === NS), false);
      }
      // All allowed: resolves.
      await preflight([milan.target], { remote: [{ verb: "create", resource: "pods", namespace: NS }] });
    } finally {
      await rome.close();
      await milan.close();
    }
  },
});

Deno.test({
  name:
    "dryRunAll: a pod that breaks Pod Security restricted is named with the admission rule; nothing stored",
  ...sanitizers,
  fn: async () => {
    const rome = await served({}, "rome");
    try {
      const ns: K8sObject = {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: NS, labels: { "pod-security.kubernetes.io/enforce": "restricted" } },
      };
      assert.ok((await rome.target.writer.create("/api/v1/namespaces", ns)).ok);
      const pod = (name: string, privileged: boolean): K8sObject => ({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: NS },
        spec: {
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65534,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [{
            name: "probe",
            image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
            securityContext: privileged
              ? { privileged: true }
              : { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
          }],
        },
      });
      await dryRunAll(rome.target, [pod("good", false)]);
      const err = await dryRunAll(rome.target, [pod("good", false), pod("bad", true)]).then(
        () => null,
        (e) => e,
      );
      assert.ok(err instanceof DryRunError, String(err));
      assert.equal(err.exitCode, 3);
      assert.equal(err.rejections.length, 1);
      assert.match(
        err.message,
        new RegExp(`pod ${NS}/bad rejected by PodSecurity "restricted:latest" \\(cluster rome\\)`),
      );
      assert.equal(rome.fake.objects().some((o) => o.kind === "Pod"), false, "dry runs store nothing");
    } finally {
      await rome.close();
    }
  },
});
