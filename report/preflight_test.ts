/**
 * The preflight verdict and its liqoctl peer line (report/preflight.ts): each verdict from the PF
 * results, the line's flags from the intent and from PF-DIR/PF-MTU's `preflightPath` facts, each
 * cluster's kubeconfig/context in its place, and no line when already peered.
 */
import assert from "node:assert/strict";
import type { CheckResult } from "../checks/types.ts";
import type { CheckFacts } from "../checks/facts.ts";
import { buildPreflight, type PreflightInput } from "./preflight.ts";

function result(id: string, status: CheckResult["status"], summary = `${id} ${status}`): CheckResult {
  return {
    id,
    title: id,
    layer: "preflight",
    status,
    peer: null,
    cluster: "rome ↔ milan",
    summary,
    evidence: [],
    remediation: [],
    blockedBy: null,
    skipKind: status === "skip" ? "not-applicable" : null,
    durationMs: 1,
  };
}

function input(
  results: CheckResult[],
  facts: Map<CheckResult, CheckFacts> = new Map(),
  over: Partial<PreflightInput> = {},
): PreflightInput {
  return {
    results,
    factsOf: (r) => facts.get(r) ?? {},
    intent: { serverSide: null, serviceType: null, port: null, mtu: null },
    consumer: { name: "rome", kubeconfig: "rome.yaml", context: "rome", liqoNamespace: "liqo" },
    provider: { name: "milan", kubeconfig: "milan.yaml", context: "milan", liqoNamespace: "liqo" },
    probed: false,
    ...over,
  };
}

Deno.test("preflight verdict: can peer, with changes, cannot, could not judge, already peered", () => {
  assert.equal(buildPreflight(input([result("PF-ID", "pass")])).verdict, "can-peer");
  assert.equal(
    buildPreflight(input([result("PF-ID", "pass"), result("PF-CLK", "warn")])).verdict,
    "can-peer-with-changes",
  );
  const failed = buildPreflight(input([result("PF-RBAC", "fail", "refused"), result("PF-CLK", "unknown")]));
  assert.equal(failed.verdict, "cannot-peer");
  assert.deepEqual(failed.blockers, ["PF-RBAC: refused"]);
  assert.equal(buildPreflight(input([result("PF-RBAC", "unknown")])).verdict, "could-not-judge");
  const id = result("PF-ID", "skip");
  const peered = buildPreflight(input([id], new Map([[id, { preflightPeered: true }]])));
  assert.equal(peered.verdict, "already-peered");
  assert.equal(peered.liqoctl, null);
  assert.match(peered.message, /flyingfish check/);
});

Deno.test("preflight line: consumer flags first, provider as --remote-*, defaults named, liqo namespaces", () => {
  const p = buildPreflight(input([result("PF-ID", "pass")], new Map(), {
    consumer: { name: "rome", kubeconfig: "a b.yaml", context: "rome", liqoNamespace: "liqo-system" },
    provider: { name: "milan", kubeconfig: null, context: "milan", liqoNamespace: "liqo" },
  }));
  assert.equal(
    p.liqoctl?.line,
    "liqoctl peer --kubeconfig 'a b.yaml' --context rome --remote-context milan --liqo-namespace liqo-system " +
      "--gw-server-service-location Provider --gw-server-service-type LoadBalancer",
  );
});

Deno.test("preflight line: the probes' path facts set the server side, NodePort, NAT and MTU", () => {
  const dir = result("PF-DIR", "warn", "server on the consumer");
  const facts = new Map<CheckResult, CheckFacts>([[dir, {
    preflightPath: {
      serverSide: "consumer",
      serviceType: "NodePort",
      port: 31840,
      clientAddress: "203.0.113.7",
      clientPort: 41840,
      mtu: 1280,
    },
  }]]);
  const p = buildPreflight(input([result("PF-ID", "pass"), dir], facts, { probed: true }));
  assert.equal(p.verdict, "can-peer-with-changes");
  assert.deepEqual(p.liqoctl?.argv.slice(10), [
    "--gw-server-service-location",
    "Consumer",
    "--gw-server-service-type",
    "NodePort",
    "--gw-server-service-nodeport",
    "31840",
    "--gw-client-address",
    "203.0.113.7",
    "--gw-client-port",
    "41840",
    "--mtu",
    "1280",
  ]);
  assert.ok(p.changes.some((c) => c.includes("the gateway server on the consumer (rome)")));
  assert.doesNotMatch(p.message, /untested/);
});

Deno.test("preflight line: the command line's intent when nothing was probed", () => {
  const p = buildPreflight(input([result("PF-ID", "pass")], new Map(), {
    intent: { serverSide: "consumer", serviceType: "NodePort", port: 4000, mtu: 1400 },
  }));
  assert.match(
    p.liqoctl!.line,
    /--gw-server-service-location Consumer --gw-server-service-type NodePort --gw-server-service-port 4000 --mtu 1400$/,
  );
  assert.match(p.message, /add --probe/);
  // What the command line asked for is no change: the clusters can peer as asked.
  assert.equal(p.verdict, "can-peer");
});
