/**
 * Sides of a diff from served scenarios, in process: each cluster of a scenario served by the fake
 * API server, read through the live source wrapped in diff/'s recorder (the path watch and serve
 * take), diagnosed by the engine. A side can be derived from a scenario by editing its objects.
 */
import {
  buildClusterConfig,
  type FakeClusterConfig,
  loadScenario,
  type Scenario,
  serveScenario,
} from "../../fakekube/mod.ts";
import { createLiveSource } from "../../kube/live/source.ts";
import type { RunOptions } from "../../checks/types.ts";
import type { K8sObject } from "../../kube/source.ts";
import { recordingSource, type SideCapture } from "../../diff/capture.ts";
import { sideFromRecorded } from "../../diff/open.ts";
import { FAKE_CLOCK } from "../e2e/harness.ts";

/** Passive, no packet from this host, a short sampling interval. */
export const OPTIONS: RunOptions = {
  networkProbes: false,
  preciseUdp: false,
  sampleIntervalMs: 50,
  latencyThresholdMs: 200,
  checkTimeoutMs: 30_000,
};

/** Edits the served objects of one cluster (by name) before the side is read. */
export type Edit = (cluster: string, objects: K8sObject[]) => K8sObject[];

/** Serves `name` (edited by `edit`), reads it once, and returns the side. */
export async function sideOf(name: string, edit?: Edit, now = new Date()): Promise<SideCapture> {
  const s: Scenario = await loadScenario(name);
  const served = await serveScenario(s, { ...FAKE_CLOCK, now });
  try {
    if (edit) {
      for (const [cluster, fake] of Object.entries(served.clusters)) {
        if (!fake) continue;
        const config: FakeClusterConfig = await buildClusterConfig(s, cluster, now);
        fake.replaceObjects(
          edit(cluster, structuredClone(config.objects)),
          structuredClone(config.wireguard),
        );
      }
    }
    const local = recordingSource(
      await createLiveSource({ kubeconfigYaml: served.kubeconfigYaml(s.run.local) }),
    );
    const remote = s.run.remote
      ? recordingSource(await createLiveSource({ kubeconfigYaml: served.kubeconfigYaml(s.run.remote) }))
      : null;
    try {
      return await sideFromRecorded(name, local, remote, OPTIONS);
    } finally {
      await local.source.close();
      await remote?.source.close();
    }
  } finally {
    await served.close();
  }
}
