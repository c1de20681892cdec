import assert from "node:assert/strict";
import { assembleReport, type ReportDraft } from "./assemble.ts";
import type { CheckResult } from "./model.ts";
import { ReportSchema } from "./model.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { Invocation } from "./invocation.ts";
import { commandsOf } from "./remediation.ts";

const ROME = "rome-4b2a9e";
const MILAN = "milan-8d1f03";

function result(p: Partial<CheckResult> & Pick<CheckResult, "id" | "cluster">): CheckResult {
  return {
    title: "t",
    layer: "gateway",
    status: "fail",
    peer: MILAN,
    summary: "s",
    evidence: [],
    remediation: null,
    blockedBy: null,
    skipKind: null,
    durationMs: 1,
    ...p,
  };
}

/** A dual-mode draft: rome (local, consumer) and milan (remote, provider). */
function draft(results: CheckResult[]): ReportDraft {
  const { invocation: _, results: __, diagnosis: ___, ...base } = sampleReport();
  return {
    ...base,
    clusters: [
      { ...base.clusters[0], name: ROME, clusterId: ROME, context: "rome", role: "local" },
      { ...base.clusters[0], name: MILAN, clusterId: MILAN, context: "milan", role: "remote" },
    ],
    peers: [
      { cluster: ROME, clusterId: MILAN, role: "Provider", tenantNamespace: "liqo-tenant-milan-8d1f03" },
      { cluster: MILAN, clusterId: ROME, role: "Consumer", tenantNamespace: "liqo-tenant-rome-4b2a9e" },
    ],
    results,
    diagnosis: {
      id: results[0].id,
      layer: results[0].layer,
      peer: results[0].peer,
      cluster: results[0].cluster,
      summary: "s",
      remediation: results[0].remediation,
      alsoFailing: [],
    },
  };
}

const DUAL: Invocation = {
  commandLine: "flyingfish check --kubeconfig rome.yaml --remote-kubeconfig milan.yaml",
  host: "bastion",
  kubeconfig: { local: "rome.yaml", remote: "milan.yaml" },
};

Deno.test("assembleReport: each result's commands name the cluster that observed it (dual mode)", () => {
  const report = assembleReport(
    draft([
      result({
        id: "GW-02",
        cluster: MILAN,
        peer: ROME,
        remediation: "kubectl -n t describe svc gw   # why",
      }),
      result({
        id: "GW-01",
        cluster: ROME,
        remediation: "# restart it:\nkubectl -n t rollout restart deploy/gw",
      }),
    ]),
    DUAL,
  );
  assert.deepEqual(report.results[0].remediation, [
    { command: "kubectl --kubeconfig milan.yaml --context milan -n t describe svc gw", comment: "why" },
  ]);
  assert.deepEqual(report.results[1].remediation, [
    {
      command: "kubectl --kubeconfig rome.yaml --context rome -n t rollout restart deploy/gw",
      comment: "restart it:",
    },
  ]);
  assert.deepEqual(report.diagnosis?.remediation, report.results[0].remediation);
  assert.equal(report.invocation, DUAL);
  assert.ok(ReportSchema.safeParse(JSON.parse(JSON.stringify(report))).success);
});

Deno.test("assembleReport: 'on the provider', 'on <cluster>', and a tenant namespace pick the cluster", () => {
  const report = assembleReport(
    draft([
      // Observed on rome (consumer) about milan, a Provider peer: "the provider" is milan.
      result({
        id: "API-02",
        cluster: ROME,
        remediation: "On the provider: kubectl -n liqo get ip api-server-proxy",
      }),
      result({
        id: "TUN-04",
        cluster: ROME,
        remediation: "# on milan-8d1f03, read its gateway public key:\nkubectl -n t get secret gw",
      }),
      // A result comparing both ends: the tenant namespace says which cluster holds the object.
      result({
        id: "TUN-06",
        cluster: `${ROME} ↔ ${MILAN}`,
        remediation: "kubectl -n liqo-tenant-rome-4b2a9e get gatewayserver x\nkubectl get nodes",
      }),
    ]),
    DUAL,
  );
  const [api02, tun04, tun06] = report.results.map((r) => commandsOf(r.remediation));
  assert.deepEqual(api02, [
    "kubectl --kubeconfig milan.yaml --context milan -n liqo get ip api-server-proxy",
  ]);
  assert.deepEqual(tun04, ["kubectl --kubeconfig milan.yaml --context milan -n t get secret gw"]);
  // Which cluster `kubectl get nodes` is about cannot be told: left as written.
  assert.deepEqual(tun06, [
    "kubectl --kubeconfig milan.yaml --context milan -n liqo-tenant-rome-4b2a9e get gatewayserver x",
    "kubectl get nodes",
  ]);
});

Deno.test("assembleReport: default kubeconfig → --context alone; no invocation → commands as written", () => {
  const text = "kubectl -n t describe svc gw";
  const local = assembleReport(draft([result({ id: "GW-02", cluster: ROME, remediation: text })]), {
    ...DUAL,
    kubeconfig: { local: null, remote: null },
  });
  assert.deepEqual(commandsOf(local.results[0].remediation), ["kubectl --context rome -n t describe svc gw"]);
  const none = assembleReport(draft([result({ id: "GW-02", cluster: ROME, remediation: text })]), null);
  assert.deepEqual(commandsOf(none.results[0].remediation), [text]);
  assert.equal(none.invocation, null);
  // No remediation: an empty list.
  const empty = assembleReport(draft([result({ id: "GW-02", cluster: ROME })]), DUAL);
  assert.deepEqual(empty.results[0].remediation, []);
});

Deno.test("assembleReport: single mode, a command for the peer gets a placeholder context", () => {
  const d = draft([
    result({
      id: "TUN-04",
      cluster: ROME,
      remediation: "# on milan-8d1f03, read its key:\nkubectl -n t get secret gw",
    }),
  ]);
  d.clusters = d.clusters.slice(0, 1);
  d.peers = d.peers.slice(0, 1);
  const report = assembleReport(d, { ...DUAL, kubeconfig: { local: "rome.yaml", remote: "rome.yaml" } });
  assert.deepEqual(commandsOf(report.results[0].remediation), [
    "kubectl --context <milan-8d1f03> -n t get secret gw",
  ]);
});

Deno.test("assembleReport: cheat sheet commands that name a context get its kubeconfig", () => {
  const d = draft([result({ id: "GW-02", cluster: ROME })]);
  d.cheatSheet = [
    {
      title: "wg",
      value: "v",
      command: "kubectl --context milan -n t exec deploy/gw -- wg show",
      cluster: MILAN,
      peer: ROME,
    },
    { title: "udp", value: "v", command: "nc -u -v 203.0.113.50 51840", cluster: ROME, peer: MILAN },
  ];
  const report = assembleReport(d, DUAL);
  assert.deepEqual(report.cheatSheet.map((e) => e.command), [
    "kubectl --kubeconfig milan.yaml --context milan -n t exec deploy/gw -- wg show",
    "nc -u -v 203.0.113.50 51840",
  ]);
  assert.deepEqual(assembleReport(d, null).cheatSheet, d.cheatSheet);
});
