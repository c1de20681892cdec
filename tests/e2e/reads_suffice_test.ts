/**
 * Each check's declared reads (kinds and where: `readsIn`) are enough on their own: run alone with
 * only what it and its dependencies declare — so only their lists are made — every check comes out
 * exactly as in the full run. A check that silently used pods another check listed would differ.
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { createLiveSource } from "../../kube/live/source.ts";
import { createProbeHub } from "../../probes/live_hub.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import type { CheckDef } from "../../checks/types.ts";
import { runDiagnosis } from "../../diagnose/run.ts";
import type { Report } from "../../report/model.ts";

type Result = Report["results"][number];
import { FAKE_CLOCK } from "./harness.ts";

/** `id` and what it needs, transitively, in catalog order. */
function withNeeds(id: string): CheckDef[] {
  const want = new Set<string>();
  const add = (x: string) => {
    if (want.has(x)) return;
    want.add(x);
    for (const n of CATALOG.find((c) => c.id === x)?.needs ?? []) add(n);
  };
  add(id);
  return CATALOG.filter((c) => want.has(c.id));
}

/** What decides a result: its status, summary and evidence (ages and WireGuard counters blurred: the runs share one server and are seconds apart). */
const outcome = (r: Result) =>
  `${r.id}@${r.cluster}#${r.peer ?? ""} ${r.status}: ${r.summary}\n${(r.evidence ?? []).join("\n")}`
    .replace(/\b(\d+(ms|[dhms]))+\b/g, "<age>")
    .replace(/\+?\d+ B\b/g, "<n> B"); // the fake server's WireGuard counters move on every exec;

for (const name of ["field2-dual-cordoned-and-stale-gatewayip"]) {
  Deno.test(`reads suffice: every check of ${name} alone, with only its declared reads, decides as in the full run`, async () => {
    const s = await loadScenario(name);
    const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK }); // plain HTTP: the TLS path has its own tests
    const run = async (catalog?: readonly CheckDef[]): Promise<Report> => {
      const local = await createLiveSource({ kubeconfigYaml: served.kubeconfigYaml(s.run.local) });
      const remote = await createLiveSource({ kubeconfigYaml: served.kubeconfigYaml(s.run.remote!) });
      try {
        return await runDiagnosis({
          local,
          remote: { source: remote },
          catalog,
          options: {
            networkProbes: false,
            preciseUdp: false,
            sampleIntervalMs: 100,
            latencyThresholdMs: 200,
            checkTimeoutMs: 30_000,
          },
          probes: (sources) =>
            createProbeHub({ sources, networkProbes: false, preciseUdp: false, sampleIntervalMs: 100 }),
        });
      } finally {
        await local.close();
        await remote.close();
      }
    };
    try {
      const full = await run();
      // The checks that place a read (readsIn): only they can miss what another check listed.
      const placed = CATALOG.filter((c) => c.readsIn && Object.keys(c.readsIn).length > 0);
      // A few at a time: each run is a whole diagnosis against the one fake server.
      const alone: Report[] = [];
      for (let i = 0; i < placed.length; i += 6) {
        alone.push(...await Promise.all(placed.slice(i, i + 6).map((c) => run(withNeeds(c.id)))));
      }
      assert.ok(placed.length > 15, `checks that place their reads: ${placed.length}`);
      placed.forEach((c, i) => {
        const mine = (r: Result) => r.id === c.id;
        assert.deepEqual(
          alone[i].results.filter(mine).map(outcome),
          full.results.filter(mine).map(outcome),
          `${c.id} alone differs from the full run`,
        );
      });
    } finally {
      await served.close();
    }
  });
}
