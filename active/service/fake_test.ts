/**
 * PROBE-SVC in process against the fake API server (plain HTTP, the real client, the real exec
 * websocket): offload mode on the consumer only — the fleet offloads two pods through the virtual
 * node (spread with offloadSpread), the service probe creates the Service, waits for the fake's
 * EndpointSlice controller, resolves and sweeps through the fake network model.
 */
import assert from "node:assert/strict";
import { createNetworkHost, loadBase, startFakeCluster } from "../../fakekube/mod.ts";
import { openKubeClient } from "../../kube/live/client.ts";
import { createExecutor } from "../../kube/live/exec.ts";
import { openFleet } from "../fleet/fleet.ts";
import { PROBE_IMAGES } from "../fleet/images.ts";
import { selectNodes } from "../fleet/nodes.ts";
import { probeTarget } from "../fleet/target.ts";
import { inventoryOf, viewOf } from "../../tests/support/fixtures.ts";
import { createAddressing } from "../addressing.ts";
import { createProbeRunContext } from "../context.ts";
import { ANTI_AFFINITY_PRESET_ANNOTATION, offloadSpread, planOffload } from "../offload.ts";
import { runService } from "./measure.ts";

const RUN = "svc0test";
const PEER = "milan-8d1f03";

async function offloadRun(network: unknown) {
  const { objects, wireguard } = await loadBase("rome");
  const fake = await startFakeCluster({
    name: "rome",
    objects,
    wireguard,
    tls: false,
    network: createNetworkHost(network),
    lifecycle: { scheduleDelayMs: 10, startDelayMs: 10, offloadingReadyDelayMs: 20 },
  });
  const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml() });
  const executor = await createExecutor(client, { execVia: "api" });
  const target = probeTarget({
    side: "local",
    name: "rome",
    client,
    exec: (ns, pod, container, command) => executor.exec(ns, pod, container, command),
    flags: "--kubeconfig rome.yaml",
  });
  const view = viewOf(inventoryOf(objects));
  const planned = planOffload(view, PEER, null);
  assert.ok(planned.ok);
  const l = selectNodes(objects.filter((o) => o.kind === "Node"), "local", []);
  const signal = new AbortController().signal;
  const handle = await openFleet({
    runId: RUN,
    mode: "offload",
    peer: PEER,
    probes: ["service"],
    images: { probe: PROBE_IMAGES.probe },
    tolerate: [],
    probeTimeoutMs: 30_000,
    local: { target, nodes: l.nodes, hostnames: l.hostnames },
    remote: null,
    offload: { pods: planned.plan.pods.map((p) => ({ ...p, spread: offloadSpread(p.preset) })) },
    service: true,
    excluded: l.excluded,
  }, { signal });
  assert.equal(handle.failure, null, handle.failure ?? "");
  const local = { side: "local" as const, view, target };
  const ctx = createProbeRunContext({
    local,
    remote: null,
    peer: PEER,
    fleet: handle.fleet,
    handle,
    addressing: createAddressing({ local: view, remote: null, peer: PEER }),
    options: {
      probes: ["service"],
      mode: "offload",
      peer: PEER,
      keep: false,
      images: { probe: PROBE_IMAGES.probe },
      tolerate: [],
      probeTimeoutMs: 30_000,
      cleanupTimeoutMs: 5_000,
    },
    signal,
  });
  return {
    fake,
    ctx,
    close: async () => {
      await client.close();
      await fake.close();
    },
  };
}

Deno.test("PROBE-SVC against the fake server: offloaded backends listed, resolved and all answering → pass", async () => {
  const run = await offloadRun({ offload: { remoteNodes: ["milan-worker-1", "milan-worker-2"] } });
  try {
    const offloaded = run.fake.objects().filter((o) =>
      o.kind === "Pod" && o.metadata.annotations?.[ANTI_AFFINITY_PRESET_ANNOTATION] === "soft"
    );
    assert.equal(offloaded.length, 2, "both offloaded pods carry Liqo's anti-affinity preset");
    const out = await runService(run.ctx);
    assert.equal(out.status, "pass", `${out.summary}\n${out.evidence?.join("\n")}`);
    assert.match(
      out.summary,
      /4 backend\(s\) listed on the consumer side, DNS resolves from consumer and provider, every backend answered/,
    );
    assert.ok(out.evidence!.some((e) => /provider side not inspected/.test(e)));
    assert.ok(run.fake.objects().some((o) => o.kind === "Service" && o.metadata.name === "ff-probe"));
  } finally {
    await run.close();
  }
});

Deno.test("PROBE-SVC against the fake server: a backend that never answers is named", async () => {
  const run = await offloadRun({
    offload: { remoteNodes: ["milan-worker-1", "milan-worker-2"] },
    deadBackends: [`${PEER}/milan-worker-2`],
  });
  try {
    const out = await runService(run.ctx);
    assert.equal(out.status, "fail", out.summary);
    // The fake places the offloaded pods on the provider's nodes itself: whichever sits on the dead
    // node is the one named, by both sweeps (consumer's and provider's Service), and only it.
    const silent = new Set(
      out.evidence!.flatMap((e) =>
        /^backend (\S+) \(provider, node milan-8d1f03, [\d.]+\) never answered: 40 request/.exec(e)?.[1] ?? []
      ),
    );
    assert.equal(silent.size, 1, out.evidence!.join("\n"));
    assert.match([...silent][0], /^ff-probe-milan-8d1f03-[01]$/);
    assert.match(
      out.summary,
      /never answered: 40 request\(s\) from ff-probe-rome-worker-1 \(consumer\) to [\d.]+ \(bound 40\), 10 failed \(\+1 more\)$/,
    );
  } finally {
    await run.close();
  }
});
