import assert from "node:assert/strict";
import { activeScenariosRoot, listScenarios, loadScenario } from "./scenario.ts";

/** Every scenario the issue lists, plus the offload pair. */
const REQUIRED = [
  "healthy",
  "remote-node-blackholed",
  "local-node-geneve-broken",
  "path-mtu-below-tunnel",
  "path-mtu-blackhole",
  "udp-blocked-underlay",
  "nat-mistranslation",
  "service-missing-backend",
  "image-pull-failure",
  "restricted-namespace",
  "missing-rbac",
  "namespace-stuck",
  "flaky-cell",
  "offload-healthy",
  "offload-remote-node-blackholed",
];

Deno.test("testdata/active: every active scenario loads and validates (network, lifecycle, expect)", async () => {
  const names = await listScenarios(activeScenariosRoot());
  for (const n of REQUIRED) assert.ok(names.includes(n), `missing testdata/active/${n}`);
  for (const n of names) {
    const s = await loadScenario(`active/${n}`);
    assert.ok(s.run.args[0] === "probe" || s.run.args.includes("--active"), `${n}: run.args runs probes`);
    // A diagnosis names a failure (exit 2); warnings (exit 1) and tool errors (exit 3) have none.
    assert.equal(s.expect.diagnosis === null, s.expect.exitCode !== 2, n);
  }
  const off = await loadScenario("active/offload-remote-node-blackholed");
  assert.equal(off.run.remote, undefined, "offload scenarios run with the consumer kubeconfig only");
  assert.deepEqual(off.network?.blackholedNodes, ["milan-8d1f03/milan-worker-2"]);
  const bh = await loadScenario("active/remote-node-blackholed");
  assert.deepEqual(bh.expect.matrix, { redCols: ["milan-worker-2"] });
});
