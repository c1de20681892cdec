/**
 * deploy/: every manifest parses and has the basics a reviewer would check by hand — the kinds,
 * names and namespace; the pod security context (non-root, read-only root filesystem, no
 * capabilities, RuntimeDefault seccomp), resources, probes on paths `serve` really serves; the
 * Service, ServiceMonitor and binding pointing at each other; the ClusterRole equal to the README's
 * role plus `watch`. The OpenAPI schemas and the alert expressions: tests/deploy_schema_test.ts; the
 * request log of a real serve run against the role: tests/e2e/serve_test.ts.
 */
import assert from "node:assert/strict";
import { parse, parseAllDocuments } from "yaml";
import { SERVED_PATHS } from "../serve/http.ts";
import { granted, permissionKey, type Rule } from "./support/rbac.ts";

const DEPLOY = new URL("../deploy/", import.meta.url);
const README = new URL("../docs/rbac.md", import.meta.url);
const NAMESPACE = "flyingfish";

// deno-lint-ignore no-explicit-any
type Doc = any;

async function yamlFiles(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) out.push(...await yamlFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`));
    else if (e.name.endsWith(".yaml")) out.push(`${prefix}${e.name}`);
  }
  return out.sort();
}

const files = await yamlFiles(DEPLOY);
const docs: { file: string; doc: Doc }[] = [];
for (const file of files) {
  for (const d of parseAllDocuments(await Deno.readTextFile(new URL(file, DEPLOY)))) {
    assert.deepEqual(d.errors, [], `${file}: ${d.errors.join("; ")}`);
    docs.push({ file, doc: d.toJS() });
  }
}
const objects = docs.filter((d) => d.doc.kind !== "Kustomization");
const one = (kind: string, name?: string): Doc => {
  const found = objects.filter((d) =>
    d.doc.kind === kind && (name === undefined || d.doc.metadata.name === name)
  );
  assert.equal(found.length, 1, `one ${kind}${name ? ` ${name}` : ""} in deploy/`);
  return found[0].doc;
};

const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding"]);

Deno.test("deploy: the manifests: kinds, names, namespace, and kustomizations that list every file", () => {
  assert.deepEqual(
    [...new Set(objects.map((d) => d.doc.kind))].sort(),
    [
      "ClusterRole",
      "ClusterRoleBinding",
      "ConfigMap",
      "CronJob",
      "Deployment",
      "Namespace",
      "PrometheusRule",
      "Service",
      "ServiceAccount",
      "ServiceMonitor",
    ],
  );
  for (const { file, doc } of objects) {
    assert.match(doc.apiVersion, /^[a-z0-9.]*\/?v\d+(beta\d+|alpha\d+)?$/, file);
    assert.ok(doc.metadata?.name, `${file}: no name`);
    if (CLUSTER_SCOPED.has(doc.kind)) assert.equal(doc.metadata.namespace, undefined, file);
    else assert.equal(doc.metadata.namespace, NAMESPACE, `${file}: ${doc.kind} outside ${NAMESPACE}`);
    assert.equal(doc.metadata.labels?.["app.kubernetes.io/name"], "flyingfish", `${file}: label`);
  }
  // Each folder's kustomization lists exactly the manifests beside it.
  for (const { file, doc } of docs.filter((d) => d.doc.kind === "Kustomization")) {
    const dir = file.replace(/[^/]*$/, "");
    const beside = files.filter((f) => f.startsWith(dir) && !f.slice(dir.length).includes("/"))
      .map((f) => f.slice(dir.length)).filter((f) => f !== "kustomization.yaml")
      // The active probes' roles are applied on their own, by whoever runs probes or a probe preflight
      // (docs/active-probes.md, docs/preflight.md).
      .filter((f) => !(dir === "" && (f.startsWith("probe-") || f.startsWith("preflight-probe-"))));
    assert.deepEqual([...doc.resources].sort(), beside, file);
  }
});

function podSpecs(): { what: string; spec: Doc }[] {
  return [
    { what: "Deployment", spec: one("Deployment").spec.template.spec },
    { what: "CronJob", spec: one("CronJob").spec.jobTemplate.spec.template.spec },
  ];
}

Deno.test("deploy: the pods run non-root, read-only, without capabilities, with RuntimeDefault seccomp and bounded resources", () => {
  const sa = one("ServiceAccount").metadata.name;
  for (const { what, spec } of podSpecs()) {
    assert.equal(spec.serviceAccountName, sa, what);
    assert.equal(spec.securityContext.runAsNonRoot, true, what);
    assert.ok(spec.securityContext.runAsUser > 0, what);
    assert.equal(spec.securityContext.seccompProfile.type, "RuntimeDefault", what);
    assert.equal(spec.containers.length, 1, what);
    for (const c of spec.containers) {
      const sc = c.securityContext;
      assert.equal(sc.readOnlyRootFilesystem, true, what);
      assert.equal(sc.allowPrivilegeEscalation, false, what);
      assert.equal(sc.runAsNonRoot, true, what);
      assert.deepEqual(sc.capabilities.drop, ["ALL"], what);
      assert.equal(sc.capabilities.add, undefined, what);
      assert.equal(sc.seccompProfile.type, "RuntimeDefault", what);
      for (const k of ["cpu", "memory"]) {
        assert.ok(c.resources.requests[k], `${what}: no ${k} request`);
        assert.ok(c.resources.limits[k], `${what}: no ${k} limit`);
      }
      assert.match(c.image, /\/flyingfish:\d+\.\d+\.\d+$/, what);
    }
  }
  const [deploy, cron] = podSpecs().map((p) => p.spec.containers[0]);
  assert.equal(deploy.image, cron.image);
  assert.equal(deploy.args[0], "serve");
  assert.deepEqual(cron.args.slice(0, 3), ["check", "-o", "json"]);
  // The CronJob's kubeconfig is the ConfigMap mounted where --kubeconfig points.
  const kubeconfigArg = cron.args[cron.args.indexOf("--kubeconfig") + 1];
  const mount = cron.volumeMounts.find((m: Doc) => kubeconfigArg.startsWith(`${m.mountPath}/`));
  assert.ok(mount, "the CronJob's --kubeconfig is on no mounted volume");
  const cronSpec = podSpecs()[1].spec;
  const cm = one("ConfigMap", cronSpec.volumes.find((v: Doc) => v.name === mount.name).configMap.name);
  const kubeconfig = parse(cm.data[kubeconfigArg.slice(mount.mountPath.length + 1)]);
  assert.equal(kubeconfig.users[0].user.tokenFile, "/var/run/secrets/kubernetes.io/serviceaccount/token");
  assert.equal(kubeconfig.users[0].user.token, undefined, "no token copied into a ConfigMap");
});

Deno.test("deploy: probes, Service and ServiceMonitor point at what `serve` listens on and serves", () => {
  const c = one("Deployment").spec.template.spec.containers[0];
  const port = c.ports.find((p: Doc) => p.name === "metrics");
  assert.ok(port, "no port named metrics");
  assert.equal(c.args[c.args.indexOf("--listen") + 1], `:${port.containerPort}`);
  assert.equal(c.livenessProbe.httpGet.path, "/healthz");
  assert.equal(c.readinessProbe.httpGet.path, "/readyz");
  for (const p of [c.livenessProbe, c.readinessProbe]) {
    assert.ok((SERVED_PATHS as readonly string[]).includes(p.httpGet.path));
    assert.equal(p.httpGet.port, "metrics");
  }
  const svc = one("Service");
  const podLabels = one("Deployment").spec.template.metadata.labels;
  for (const [k, v] of Object.entries(svc.spec.selector)) {
    assert.equal(podLabels[k], v, `Service selector ${k}`);
  }
  assert.deepEqual(one("Deployment").spec.selector.matchLabels, svc.spec.selector);
  assert.equal(svc.spec.ports[0].targetPort, "metrics");
  const sm = one("ServiceMonitor");
  for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) {
    assert.equal(svc.metadata.labels[k], v, `ServiceMonitor selector ${k}`);
  }
  assert.deepEqual(sm.spec.namespaceSelector.matchNames, [NAMESPACE]);
  assert.equal(sm.spec.endpoints[0].port, svc.spec.ports[0].name);
  assert.equal(sm.spec.endpoints[0].path, "/metrics");
  const binding = one("ClusterRoleBinding");
  assert.deepEqual(binding.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "ClusterRole",
    name: one("ClusterRole", "flyingfish").metadata.name,
  });
  assert.deepEqual(binding.subjects, [{
    kind: "ServiceAccount",
    name: one("ServiceAccount").metadata.name,
    namespace: NAMESPACE,
  }]);
});

async function readmeClusterRole(): Promise<Rule[]> {
  const section = (await Deno.readTextFile(README)).split(/^## /m).find((s) => s.startsWith("RBAC"));
  assert.ok(section, 'docs/rbac.md has no "## RBAC" section');
  for (const [, block] of section.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    for (const d of parseAllDocuments(block)) {
      const o = d.toJS();
      if (o?.kind === "ClusterRole") return o.rules as Rule[];
    }
  }
  throw new Error('docs/rbac.md "RBAC" section has no ClusterRole');
}

Deno.test("deploy: the ClusterRole is the README's (what the passive checks request) plus watch on every kind listed", async () => {
  const readme = granted(await readmeClusterRole());
  const expected = new Set([
    ...readme.map(permissionKey),
    ...readme.filter((p) => p.verb === "list").map((p) => permissionKey({ ...p, verb: "watch" })),
  ]);
  const actual = granted(one("ClusterRole", "flyingfish").rules).map(permissionKey);
  assert.equal(actual.length, new Set(actual).size, "a permission granted twice");
  assert.deepEqual(new Set(actual), expected);
  // Read-only: no verb that writes (pods/exec `create` is the exec itself: `wg show`, `cat`).
  const writes = granted(one("ClusterRole", "flyingfish").rules).filter((p) =>
    !["get", "list", "watch"].includes(p.verb) && !(p.kind === "resource" && p.resource === "pods/exec")
  );
  assert.deepEqual(writes.map(permissionKey), []);
});
