/**
 * The cases of an unreadable optional input read as "nothing there", end to end through
 * runDiagnosis: each finding of the clean run must stay a finding or become `unknown` naming the read
 * (the full matrix over every scenario is tests/e2e/truth_matrix.ts).
 */
import assert from "node:assert/strict";
import { runDiagnosis } from "./run.ts";
import { baseObjects, TEST_OPTIONS } from "../tests/support/fixtures.ts";
import { listsOf, memorySource } from "../tests/support/fuzz.ts";
import { probes } from "../tests/support/tunnel_checks.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { K8sObject } from "../kube/source.ts";

function refusing(source: ClusterSource, plural: string): ClusterSource {
  return {
    ...source,
    list: (spec, scope) =>
      spec.plural === plural
        ? Promise.resolve({ ok: false as const, reason: "forbidden" as const, message: "RBAC: forbidden" })
        : source.list(spec, scope),
  };
}

const run = (local: ClusterSource) => runDiagnosis({ local, options: TEST_OPTIONS, probes: () => probes() });

Deno.test("TUN-06: MSS clamping missing warns; with FirewallConfigurations forbidden it is unknown, not a pass", async () => {
  const rome = (await baseObjects("rome")).filter((o) =>
    !(o.kind === "FirewallConfiguration" && o.metadata.name === "gw-mss-clamping")
  ) as K8sObject[];
  const source = memorySource(listsOf(rome), "rome");
  const clean = (await run(source)).results.find((r) => r.id === "TUN-06")!;
  assert.equal(clean.status, "warn", clean.summary);
  assert.match(clean.summary, /MSS/);
  const refused = (await run(refusing(source, "firewallconfigurations"))).results.find((r) =>
    r.id === "TUN-06"
  )!;
  assert.equal(refused.status, "unknown", refused.summary);
  assert.match(refused.summary, /^forbidden: firewallconfigurations on rome/);
});

Deno.test("healthy base: everything readable, the rule changes nothing (exit 0)", async () => {
  const report = await run(memorySource(listsOf(await baseObjects("rome")), "rome"));
  assert.equal(report.exitCode, 0, report.results.filter((r) => r.status !== "pass").map((r) => r.id).join());
});
