/**
 * deploy/ against the Kubernetes OpenAPI schemas: every manifest validated by kubernetes-models (the
 * OpenAPI definitions of the Kubernetes API, compiled to validators) and, for the ServiceMonitor and
 * the PrometheusRule, by @kubernetes-models/prometheus-operator (the operator's CRD schemas). A
 * wrong type or a missing required field fails here; an unknown (misspelt) field does not, since the
 * Kubernetes schemas allow them: tests/deploy_test.ts reads the fields that matter by name.
 *
 * The PrometheusRule's expressions are parsed with the Prometheus project's PromQL grammar
 * (@prometheus-io/lezer-promql): no syntax error, and every vector selector names a metric the code
 * exports, matching and grouping only on labels it has (serve/metrics.ts), with check IDs and
 * layers that exist.
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { Namespace } from "npm:kubernetes-models@5.1.0/v1/Namespace";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { ServiceAccount } from "npm:kubernetes-models@5.1.0/v1/ServiceAccount";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { Service } from "npm:kubernetes-models@5.1.0/v1/Service";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { ConfigMap } from "npm:kubernetes-models@5.1.0/v1/ConfigMap";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { Deployment } from "npm:kubernetes-models@5.1.0/apps/v1/Deployment";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { CronJob } from "npm:kubernetes-models@5.1.0/batch/v1/CronJob";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { ClusterRole } from "npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1/ClusterRole";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { ClusterRoleBinding } from "npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1/ClusterRoleBinding";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { ServiceMonitor } from "npm:@kubernetes-models/prometheus-operator@6.0.0/monitoring.coreos.com/v1/ServiceMonitor";
// deno-lint-ignore no-import-prefix -- test-only validators, pinned here rather than in the product's imports
import { PrometheusRule } from "npm:@kubernetes-models/prometheus-operator@6.0.0/monitoring.coreos.com/v1/PrometheusRule";

// deno-lint-ignore no-import-prefix -- the Prometheus project's PromQL grammar, test-only
import { parser as promql } from "npm:@prometheus-io/lezer-promql@0.315.0";
import { METRIC_LABELS, METRIC_NAMES, type MetricName } from "../serve/metrics.ts";
import { PASSIVE_CHECKS as CATALOG } from "../checks/catalog.ts";
import { LAYERS } from "../checks/types.ts";

/** A model class: constructed from an object, `validate()` throws on what the schema refuses. */
type Model = new (data: Record<string, unknown>) => { validate(): void };

const MODELS: Record<string, Model> = {
  "v1/Namespace": Namespace as unknown as Model,
  "v1/ServiceAccount": ServiceAccount as unknown as Model,
  "v1/Service": Service as unknown as Model,
  "v1/ConfigMap": ConfigMap as unknown as Model,
  "apps/v1/Deployment": Deployment as unknown as Model,
  "batch/v1/CronJob": CronJob as unknown as Model,
  "rbac.authorization.k8s.io/v1/ClusterRole": ClusterRole as unknown as Model,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": ClusterRoleBinding as unknown as Model,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor as unknown as Model,
  "monitoring.coreos.com/v1/PrometheusRule": PrometheusRule as unknown as Model,
};

const DEPLOY = new URL("../deploy/", import.meta.url);

async function manifests(dir: URL, prefix = ""): Promise<{ file: string; doc: Record<string, unknown> }[]> {
  const out: { file: string; doc: Record<string, unknown> }[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) out.push(...await manifests(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`));
    else if (e.name.endsWith(".yaml") && e.name !== "kustomization.yaml") {
      for (const d of parseAllDocuments(await Deno.readTextFile(new URL(e.name, dir)))) {
        out.push({ file: `${prefix}${e.name}`, doc: d.toJS() });
      }
    }
  }
  return out;
}

Deno.test("deploy schemas: every manifest validates against the Kubernetes (and Prometheus Operator) OpenAPI schemas", async () => {
  const docs = await manifests(DEPLOY);
  assert.ok(docs.length >= 10, `only ${docs.length} manifests`);
  for (const { file, doc } of docs) {
    const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
    assert.ok(Model, `${file}: no schema for ${doc.apiVersion} ${doc.kind}`);
    assert.doesNotThrow(() => new Model(doc).validate(), `${file}: ${doc.kind}`);
  }
});

Deno.test("deploy schemas: the validators refuse a wrong type and a missing required field", async () => {
  const deployment = (await manifests(DEPLOY)).find((d) => d.doc.kind === "Deployment")!.doc as {
    spec: Record<string, unknown>;
  };
  const bad = [
    { ...deployment, spec: { ...deployment.spec, replicas: "one" } },
    { ...deployment, spec: { ...deployment.spec, selector: undefined } },
  ];
  for (const doc of bad) assert.throws(() => new Deployment(doc as never).validate());
});

/** What an expression selects: each vector selector's metric and matchers, and every grouping label. */
interface Selections {
  errors: string[];
  selectors: { metric: string; matchers: { label: string; value: string }[] }[];
  grouping: string[];
}

function selections(expr: string): Selections {
  const out: Selections = { errors: [], selectors: [], grouping: [] };
  const text = (n: { from: number; to: number }) => expr.slice(n.from, n.to);
  promql.parse(expr).iterate({
    enter: (ref) => {
      const n = ref.node;
      if (n.type.isError) {
        out.errors.push(`syntax error at ${n.from}: ${JSON.stringify(expr.slice(n.from, n.from + 30))}`);
      }
      if (n.name === "VectorSelector") {
        const id = n.getChild("Identifier");
        const matchers = n.getChild("LabelMatchers")?.getChildren("UnquotedLabelMatcher") ?? [];
        out.selectors.push({
          metric: id ? text(id) : "",
          matchers: matchers.map((m) => ({
            label: text(m.getChild("LabelName")!),
            value: JSON.parse(text(m.getChild("StringLiteral")!)),
          })),
        });
      }
      if (n.name === "GroupingLabels") out.grouping.push(...n.getChildren("LabelName").map(text));
    },
  });
  return out;
}

Deno.test("deploy schemas: the PrometheusRule's expressions parse as PromQL and use only what serve exports", async () => {
  const rule = (await manifests(DEPLOY)).find((d) => d.doc.kind === "PrometheusRule")!.doc as {
    spec: { groups: { rules: { alert: string; expr: string }[] }[] };
  };
  const checkIds = new Set(CATALOG.map((c) => c.id));
  const rules = rule.spec.groups.flatMap((g) => g.rules);
  assert.ok(rules.length >= 3);
  for (const r of rules) {
    const s = selections(r.expr);
    assert.deepEqual(s.errors, [], `${r.alert}: ${r.expr}`);
    assert.ok(s.selectors.length > 0, `${r.alert}: selects nothing`);
    const labels = new Set<string>();
    for (const sel of s.selectors) {
      assert.ok(
        (METRIC_NAMES as readonly string[]).includes(sel.metric),
        `${r.alert}: ${sel.metric} is not exported`,
      );
      const known = METRIC_LABELS[sel.metric as MetricName];
      known.forEach((l) => labels.add(l));
      for (const m of sel.matchers) {
        assert.ok(known.includes(m.label), `${r.alert}: ${sel.metric} has no label ${m.label}`);
        if (m.label === "check") assert.ok(checkIds.has(m.value), `${r.alert}: no check ${m.value}`);
        if (m.label === "layer") {
          assert.ok((LAYERS as readonly string[]).includes(m.value), `${r.alert}: layer ${m.value}`);
        }
      }
    }
    for (const l of s.grouping) {
      assert.ok(labels.has(l), `${r.alert}: groups by ${l}, which its metrics lack`);
    }
  }
  // The parser does find what is wrong.
  assert.notDeepEqual(selections("max by (cluster (flyingfish_peer_broken) == 1").errors, []);
  assert.deepEqual(selections('flyingfish_peer_broken{peer="x"}').selectors, [
    { metric: "flyingfish_peer_broken", matchers: [{ label: "peer", value: "x" }] },
  ]);
});

Deno.test("deploy schemas: the alerts the issue asks for are there", async () => {
  const rule = (await manifests(DEPLOY)).find((d) => d.doc.kind === "PrometheusRule")!.doc as {
    spec: { groups: { rules: { alert: string; for?: string; labels?: { severity?: string } }[] }[] };
  };
  const alerts = new Map(rule.spec.groups.flatMap((g) => g.rules).map((r) => [r.alert, r]));
  for (
    const name of ["FlyingFishPeeringBroken", "FlyingFishTunnelFlapping", "FlyingFishCertificateExpiring"]
  ) {
    assert.ok(alerts.has(name), `no alert ${name}`);
  }
  assert.equal(alerts.get("FlyingFishPeeringBroken")!.for, "5m");
  for (const [name, r] of alerts) {
    assert.ok(["critical", "warning", "info"].includes(r.labels?.severity ?? ""), `${name}: severity`);
  }
});
