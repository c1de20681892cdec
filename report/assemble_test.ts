import assert from "node:assert/strict";
import { assembleReport, type ReportDraft } from "./assemble.ts";
import type { CheckResult } from "./model.ts";
import { ReportSchema } from "./model.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { Invocation } from "./invocation.ts";
import { commandsOf } from "./remediation.ts";
import { fix, kubectl, kubectlIn, liqoctl, remoteKubeconfig, step } from "../checks/remediation.ts";

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
    remediation: [],
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
        remediation: fix(step(kubectlIn("local", "t", "describe", "svc", "gw"), "why")),
      }),
      result({
        id: "GW-01",
        cluster: ROME,
        remediation: fix("restart it:", kubectlIn("local", "t", "rollout", "restart", "deploy/gw")),
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

Deno.test("assembleReport: provider, remote and a result comparing both ends pick the cluster from `on`", () => {
  const report = assembleReport(
    draft([
      // Observed on rome (consumer) about milan, a Provider peer: the provider is milan.
      result({
        id: "API-02",
        cluster: ROME,
        remediation: fix(
          step(kubectlIn("provider", "liqo", "get", "ip", "api-server-proxy"), "On the provider:"),
        ),
      }),
      result({
        id: "TUN-04",
        cluster: ROME,
        remediation: fix(
          "on milan-8d1f03, read its gateway public key:",
          kubectlIn("remote", "t", "get", "secret", "gw"),
        ),
      }),
      // A result comparing both ends: local is the first, remote the second.
      result({
        id: "TUN-06",
        cluster: `${ROME} ↔ ${MILAN}`,
        peer: null,
        remediation: fix(
          kubectlIn("remote", "liqo-tenant-rome-4b2a9e", "get", "gatewayserver", "x"),
          kubectl("local", "get", "nodes"),
        ),
      }),
    ]),
    DUAL,
  );
  const [api02, tun04, tun06] = report.results.map((r) => commandsOf(r.remediation));
  assert.deepEqual(api02, [
    "kubectl --kubeconfig milan.yaml --context milan -n liqo get ip api-server-proxy",
  ]);
  assert.deepEqual(tun04, ["kubectl --kubeconfig milan.yaml --context milan -n t get secret gw"]);
  assert.deepEqual(tun06, [
    "kubectl --kubeconfig milan.yaml --context milan -n liqo-tenant-rome-4b2a9e get gatewayserver x",
    "kubectl --kubeconfig rome.yaml --context rome get nodes",
  ]);
});

Deno.test("assembleReport: default kubeconfig → --context alone; no invocation → the observed cluster's commands bare", () => {
  const steps = fix(kubectlIn("local", "t", "describe", "svc", "gw"));
  const local = assembleReport(draft([result({ id: "GW-02", cluster: ROME, remediation: steps })]), {
    ...DUAL,
    kubeconfig: { local: null, remote: null },
  });
  assert.deepEqual(commandsOf(local.results[0].remediation), ["kubectl --context rome -n t describe svc gw"]);
  const none = assembleReport(draft([result({ id: "GW-02", cluster: ROME, remediation: steps })]), null);
  assert.deepEqual(commandsOf(none.results[0].remediation), ["kubectl -n t describe svc gw"]);
  assert.equal(none.invocation, null);
  // No remediation: an empty list.
  const empty = assembleReport(draft([result({ id: "GW-02", cluster: ROME })]), DUAL);
  assert.deepEqual(empty.results[0].remediation, []);
});

Deno.test("assembleReport: single mode, a command for the peer names it by a placeholder kubeconfig", () => {
  const d = draft([
    result({
      id: "TUN-04",
      cluster: ROME,
      remediation: fix("on milan-8d1f03, read its key:", kubectlIn("remote", "t", "get", "secret", "gw")),
    }),
  ]);
  d.clusters = d.clusters.slice(0, 1);
  d.peers = d.peers.slice(0, 1);
  const report = assembleReport(d, { ...DUAL, kubeconfig: { local: "rome.yaml", remote: null } });
  assert.deepEqual(commandsOf(report.results[0].remediation), [
    "kubectl --kubeconfig <milan-8d1f03 kubeconfig> -n t get secret gw",
  ]);
});

Deno.test("assembleReport: liqoctl peer seen from the provider runs on the consumer, naming the provider", () => {
  const peer = fix(
    liqoctl("consumer", "peer", remoteKubeconfig("provider"), "--gw-server-service-type", "NodePort"),
  );
  // Dual: observed on milan (provider; its peer rome is a Consumer).
  const dual = assembleReport(
    draft([result({ id: "GW-02", cluster: MILAN, peer: ROME, remediation: peer })]),
    DUAL,
  );
  assert.deepEqual(commandsOf(dual.results[0].remediation), [
    "liqoctl --kubeconfig rome.yaml --context rome peer --remote-kubeconfig milan.yaml --remote-context milan " +
    "--gw-server-service-type NodePort",
  ]);
  // Single, the provider checked: the consumer is not in the run.
  const d = draft([result({ id: "GW-02", cluster: MILAN, peer: ROME, remediation: peer })]);
  d.clusters = [{ ...d.clusters[1], role: "local" }];
  d.peers = d.peers.slice(1);
  const single = assembleReport(d, { ...DUAL, kubeconfig: { local: "milan.yaml", remote: null } });
  assert.deepEqual(commandsOf(single.results[0].remediation), [
    "liqoctl --kubeconfig <consumer kubeconfig> peer --remote-kubeconfig milan.yaml --remote-context milan " +
    "--gw-server-service-type NodePort",
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
