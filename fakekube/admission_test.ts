import assert from "node:assert/strict";
import type { K8sObject } from "./object.ts";
import {
  defaultPod,
  enforcedLevel,
  PermissionTable,
  podSecurityMessage,
  podSecurityViolations,
  validate,
  VIRTUAL_NODE_TOLERATION,
} from "./admission.ts";

/** A probe pod as the contract describes it: passes `restricted`. */
function probePod(): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "probe-rome-worker-1", namespace: "flyingfish-probe-ab12cd34" },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 1,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 65534,
        seccompProfile: { type: "RuntimeDefault" },
        sysctls: [{ name: "net.ipv4.ping_group_range", value: "0 2147483647" }],
      },
      containers: [{
        name: "probe",
        image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
        args: ["netexec", "--http-port=8080", "--udp-port=8081"],
        securityContext: {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        },
        volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
      }],
      volumes: [{ name: "tmp", emptyDir: {} }],
    },
  };
}

Deno.test("admission: the contract's probe pod passes restricted (ping_group_range is a safe sysctl)", () => {
  assert.deepEqual(podSecurityViolations(probePod(), "restricted"), []);
  assert.deepEqual(podSecurityViolations(probePod(), "baseline"), []);
});

Deno.test("admission: a plain pod violates restricted, listed like pod-security-admission", () => {
  const pod: K8sObject = {
    metadata: { name: "x", namespace: "n" },
    spec: { containers: [{ name: "probe", image: "agnhost" }] },
  };
  const v = podSecurityViolations(pod, "restricted");
  assert.equal(
    podSecurityMessage("x", "restricted", "latest", v),
    'pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false ' +
      '(container "probe" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities ' +
      '(container "probe" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or ' +
      'container "probe" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "probe" ' +
      'must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  );
  assert.deepEqual(podSecurityViolations(pod, "baseline"), []);
  assert.deepEqual(podSecurityViolations(pod, "privileged"), []);
});

Deno.test("admission: a host-network sniffer violates baseline and restricted", () => {
  const pod = probePod();
  const spec = pod.spec as Record<string, unknown>;
  spec.hostNetwork = true;
  spec.hostPID = true;
  spec.volumes = [{ name: "host", hostPath: { path: "/" } }];
  (spec.securityContext as Record<string, unknown>).sysctls = [
    { name: "net.ipv4.ping_group_range", value: "0 1" },
    { name: "net.core.somaxconn", value: "1024" },
  ];
  const c = (spec.containers as Record<string, unknown>[])[0];
  c.securityContext = { privileged: true, runAsUser: 0, capabilities: { add: ["NET_ADMIN", "NET_RAW"] } };
  c.ports = [{ containerPort: 80, hostPort: 80 }];
  assert.deepEqual(podSecurityViolations(pod, "baseline"), [
    'non-default capabilities (container "probe" must not include "NET_ADMIN", "NET_RAW" in securityContext.capabilities.add)',
    "host namespaces (hostNetwork=true, hostPID=true)",
    'hostPath volumes (volume "host")',
    'hostPort (container "probe" uses hostPort 80)',
    'privileged (container "probe" must not set securityContext.privileged=true)',
    "forbidden sysctls (net.core.somaxconn)",
  ]);
  assert.deepEqual(podSecurityViolations(pod, "restricted"), [
    "host namespaces (hostNetwork=true, hostPID=true)",
    'hostPath volumes (volume "host")',
    'hostPort (container "probe" uses hostPort 80)',
    'privileged (container "probe" must not set securityContext.privileged=true)',
    "forbidden sysctls (net.core.somaxconn)",
    'allowPrivilegeEscalation != false (container "probe" must set securityContext.allowPrivilegeEscalation=false)',
    'unrestricted capabilities (container "probe" must set securityContext.capabilities.drop=["ALL"]; container "probe" must not include "NET_ADMIN", "NET_RAW" in securityContext.capabilities.add)',
    'restricted volume types (volume "host" uses restricted volume type "hostPath")',
    'runAsUser=0 (container "probe" must not set runAsUser=0)',
  ]);
});

Deno.test("admission: NET_BIND_SERVICE is the one capability restricted lets a pod add", () => {
  const pod = probePod();
  const c = ((pod.spec as Record<string, unknown>).containers as Record<string, unknown>[])[0];
  (c.securityContext as Record<string, unknown>).capabilities = { drop: ["ALL"], add: ["NET_BIND_SERVICE"] };
  assert.deepEqual(podSecurityViolations(pod, "restricted"), []);
});

Deno.test("admission: the enforced level comes from the namespace label, else the cluster default", () => {
  const ns = (labels: Record<string, string>): K8sObject => ({ metadata: { name: "n", labels } });
  assert.deepEqual(enforcedLevel(ns({ "pod-security.kubernetes.io/enforce": "restricted" }), "privileged"), {
    level: "restricted",
    version: "latest",
  });
  assert.deepEqual(enforcedLevel(ns({}), "restricted"), { level: "restricted", version: "latest" });
  assert.deepEqual(
    enforcedLevel(
      ns({
        "pod-security.kubernetes.io/enforce": "baseline",
        "pod-security.kubernetes.io/enforce-version": "v1.31",
      }),
      "restricted",
    ),
    { level: "baseline", version: "v1.31" },
  );
});

Deno.test("admission: the permission table answers from deny and forbid", () => {
  const t = new PermissionTable(["secrets", "namespaceoffloadings.offloading.liqo.io"], [
    "create pods/exec",
    "delete namespaces",
    "* services",
  ]);
  assert.equal(t.allows({ verb: "create", resource: "pods", namespace: "x" }), true);
  const exec = t.decide({ verb: "create", resource: "pods", subresource: "exec", namespace: "x" });
  assert.equal(exec.allowed, false);
  assert.match(exec.reason, /"create" on "pods\/exec" in namespace "x"/);
  assert.equal(t.allows({ verb: "delete", resource: "namespaces" }), false);
  assert.equal(t.allows({ verb: "create", resource: "namespaces" }), true);
  assert.equal(t.allows({ verb: "list", resource: "services", namespace: "x" }), false);
  assert.equal(t.allows({ verb: "get", resource: "secrets", namespace: "x" }), false);
  assert.equal(
    t.allows({ verb: "create", resource: "namespaceoffloadings", group: "offloading.liqo.io" }),
    false,
  );
  assert.equal(t.allows({ verb: "create", resource: "namespacemaps", group: "offloading.liqo.io" }), true);
});

Deno.test("admission: pod defaults, and Liqo's webhook toleration + placement in offloaded namespaces", () => {
  const plain = defaultPod(probePod(), { metadata: { name: "n" } });
  const spec = plain.spec as Record<string, unknown>;
  assert.equal(spec.restartPolicy, "Always");
  assert.equal(spec.terminationGracePeriodSeconds, 1);
  assert.deepEqual(plain.status, { phase: "Pending", qosClass: "BestEffort" });
  assert.ok(
    !(spec.tolerations as unknown[]).some((t) => (t as { key: string }).key === VIRTUAL_NODE_TOLERATION.key),
  );

  const offloadedNs: K8sObject = {
    metadata: { name: "n", labels: { "liqo.io/scheduling-enabled": "true" } },
  };
  const off = defaultPod(probePod(), offloadedNs, "Remote").spec as Record<string, unknown>;
  assert.ok(
    (off.tolerations as unknown[]).some((t) => (t as { key: string }).key === VIRTUAL_NODE_TOLERATION.key),
  );
  assert.deepEqual(off.affinity, {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{
          matchExpressions: [{ key: "liqo.io/type", operator: "In", values: ["virtual-node"] }],
        }],
      },
    },
  });
});

Deno.test("admission: validation errors", () => {
  assert.deepEqual(
    validate("Pod", { metadata: { name: "Bad_Name" }, spec: { containers: [{ name: "c" }] } }),
    [
      "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
      "spec.containers[0].image: Required value",
    ],
  );
  assert.deepEqual(validate("Namespace", { metadata: { name: "flyingfish-probe-ab12cd34" } }), []);
});
