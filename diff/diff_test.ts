import assert from "node:assert/strict";
import { fingerprint, normalise, printValue } from "./normalise.ts";
import { fieldChanges } from "./objects.ts";
import { identityOf } from "./liqo_keys.ts";
import { diffJsonSchema, type DiffReport, DiffReportSchema } from "../report/diff_schema.ts";
import { renderDiff } from "../render/diff_formats.ts";
import { FORMATS } from "../render/render.ts";
import type { K8sObject } from "../kube/source.ts";
import { renderHtml } from "../render/html.ts";
import { renderJson } from "../render/json.ts";
import { displayWidth } from "../render/wrap.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";

const KEY = "kT3m0hQd9pXb4zGv2sLw8yRn6cJf1eHa5uVo7iKq3Ms=";

Deno.test("normalise: volatile metadata, heartbeat/transition times and counters go; condition status and reason stay", () => {
  const o: K8sObject = {
    metadata: {
      name: "n",
      uid: "u1",
      resourceVersion: "12",
      generation: 3,
      creationTimestamp: "2026-01-01T00:00:00Z",
      managedFields: [{}],
    },
    status: {
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "KubeletReady",
          lastHeartbeatTime: "x",
          lastTransitionTime: "y",
        },
      ],
      containerStatuses: [{ name: "c", restartCount: 4, containerID: "containerd://1", ready: true }],
      observedGeneration: 3,
    },
  };
  assert.deepEqual([...normalise(o, "Pod")], [
    ["status.conditions[Ready]", "Ready"],
    ["status.conditions[Ready].reason", "KubeletReady"],
    ["status.conditions[Ready].status", "True"],
    ["status.containerStatuses[c]", "c"],
    ["status.containerStatuses[c].ready", "true"],
  ]);
});

Deno.test("normalise: arrays compare by natural key or as sets, in any order", () => {
  const a = normalise({
    metadata: { name: "a" },
    spec: { ports: [{ name: "x", port: 1 }, { name: "y", port: 2 }], cidrs: ["b", "a"] },
  }, "Service");
  const b = normalise({
    metadata: { name: "a" },
    spec: { ports: [{ name: "y", port: 2 }, { name: "x", port: 1 }], cidrs: ["a", "b"] },
  }, "Service");
  assert.deepEqual(fieldChanges("Service", a, b), []);
});

Deno.test("normalise: WireGuard keys are printed as fingerprints, long blobs by size and digest", () => {
  assert.equal(printValue(KEY), `key ${fingerprint(KEY)}`);
  assert.doesNotMatch(printValue(KEY), /kT3m0/);
  assert.match(printValue("x".repeat(300)), /^\(300 characters, sha256:[0-9a-f]{16}\)$/);
});

Deno.test("fieldChanges: an array element added or removed is one change, labelled in Liqo's words", () => {
  const svc = (ip: string): K8sObject => ({
    metadata: { name: "gw" },
    status: { loadBalancer: { ingress: [{ ip, ipMode: "VIP" }] } },
  });
  const f = fieldChanges(
    "Service",
    normalise(svc("1.1.1.1"), "Service"),
    normalise(svc("2.2.2.2"), "Service"),
  );
  assert.deepEqual(f.map((x) => [x.path, x.label, x.before, x.after]), [
    ["status.loadBalancer.ingress[1.1.1.1]", "LoadBalancer address", "1.1.1.1", null],
    ["status.loadBalancer.ingress[2.2.2.2]", "LoadBalancer address", null, "2.2.2.2"],
  ]);
});

Deno.test("identityOf: a recreated controller pod is the same pod", () => {
  const pod = (name: string, hash: string): K8sObject => ({
    metadata: {
      name,
      namespace: "liqo",
      generateName: `liqo-crd-replicator-${hash}-`,
      labels: { "pod-template-hash": hash },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: `liqo-crd-replicator-${hash}`,
        controller: true,
      }],
    },
  });
  assert.equal(
    identityOf("pods", pod("liqo-crd-replicator-abc12-x1y2z", "abc12")),
    "liqo/liqo-crd-replicator",
  );
  assert.equal(
    identityOf("pods", pod("liqo-crd-replicator-def34-q9w8e", "def34")),
    "liqo/liqo-crd-replicator",
  );
});

const SAMPLE: DiffReport = {
  schemaVersion: "1",
  kind: "flyingfish-diff",
  tool: { name: "flyingfish", version: "0" },
  generatedAt: "2026-12-01T00:00:00.000Z",
  before: { label: "a.tar.gz", mode: "snapshot", takenAt: "t0", clusters: [], exitCode: 0, diagnosis: null },
  after: { label: "live:prod", mode: "live", takenAt: "t1", clusters: [], exitCode: 2, diagnosis: "GW-02" },
  answer: {
    id: "GW-02",
    title: "Gateway server Service exposed",
    layer: "gateway",
    cluster: "local",
    peer: "rome",
    from: "pass",
    summary: "LoadBalancer <pending> & co",
    remediation: [{ command: "kubectl describe svc gw", comment: "events" }],
    reads: ["services"],
    alsoNewlyFailing: [],
  },
  transitions: [{
    id: "GW-02",
    title: "t",
    layer: "gateway",
    cluster: "local",
    peer: "rome",
    from: "pass",
    to: "fail",
    summary: "s",
    kind: "newly-failing",
    downstreamOf: null,
  }],
  objects: [{
    cluster: "local",
    kind: "Service",
    namespace: "liqo-tenant-rome",
    name: "gw",
    change: "modified",
    layer: "gateway",
    answerReads: true,
    summary: "Service gw: LoadBalancer address 1.1.1.1 → (none)",
    fields: [{
      path: "status.loadBalancer.ingress[1.1.1.1]",
      label: "LoadBalancer address",
      before: "1.1.1.1",
      after: null,
    }],
  }],
  readings: [{ cluster: "local", subject: "pod x", what: "restarts", before: "0", after: "3" }],
  notes: [],
  summary: { transitions: 1, newlyFailing: 1, fixed: 0, newUnknown: 0, objectsChanged: 1, readings: 1 },
  exitCode: 2,
};

Deno.test("renderDiff: every format of check; JSON is the schema's document; HTML and Markdown escape", () => {
  for (const f of FORMATS) {
    const out = renderDiff(SAMPLE, f, { color: false });
    assert.match(out, /GW-02/, f);
  }
  assert.deepEqual(DiffReportSchema.parse(JSON.parse(renderDiff(SAMPLE, "json", { color: false }))), SAMPLE);
  assert.match(renderDiff(SAMPLE, "html", { color: false }), /&lt;pending&gt; &amp; co/);
  assert.match(renderDiff(SAMPLE, "markdown", { color: false }), /\\<pending\\>/);
  assert.match(renderDiff(SAMPLE, "junit", { color: false }), /<failure /);
  assert.match(renderDiff(SAMPLE, "text", { color: false }), /what broke ✗ GW-02/);
});

Deno.test("the shipped schema/diff.v1.schema.json is the diff document's schema", async () => {
  const shipped = JSON.parse(
    await Deno.readTextFile(new URL("../schema/diff.v1.schema.json", import.meta.url)),
  );
  assert.deepEqual(shipped, diffJsonSchema());
});

Deno.test("a report carrying changedSinceHealthy: the HTML report opens with it, the JSON keeps it", () => {
  const report = sampleReport({ changedSinceHealthy: SAMPLE });
  const html = renderHtml(report);
  assert.match(html, /What changed since it last worked/);
  assert.ok(html.indexOf("since-healthy") < html.indexOf("Data path"));
  assert.deepEqual(JSON.parse(renderJson(report)).changedSinceHealthy, SAMPLE);
  assert.doesNotMatch(renderHtml(sampleReport()), /since-healthy/);
});

Deno.test("diff text wraps to the width: no line wider, words in order, the fix command whole once unwrapped", () => {
  const command =
    "kubectl --context rome-admin -n liqo-tenant-rome-4b2a9e describe service gw-rome-4b2a9e --show-events=true";
  const d: DiffReport = {
    ...SAMPLE,
    answer: {
      ...SAMPLE.answer!,
      remediation: [{ command, comment: "events say why no address was assigned" }],
    },
  };
  for (const width of [60, 100]) {
    const text = renderDiff(d, "text", { color: false, width });
    for (const l of text.split("\n")) assert.ok(displayWidth(l) <= width, `wider than ${width}: ${l}`);
    assert.ok(text.replace(/ \\\n\s+/g, " ").includes(command), text);
    const wide = renderDiff(d, "text", { color: false, width: 1000 });
    const words = (s: string) => s.replace(/ \\\n/g, "\n").split(/\s+/).filter((w) => w && w !== "#");
    assert.deepEqual(words(text), words(wide));
  }
});
