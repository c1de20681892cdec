/**
 * The pre-flight asks for the NamespaceOffloading permissions whenever the run offloads its
 * namespace — offload mode, and direct mode with the service probe — and a denial stops the run
 * before anything is created.
 */
import assert from "node:assert/strict";
import { loadBase, startFakeCluster } from "../../fakekube/mod.ts";
import { openKubeClient } from "../../kube/live/client.ts";
import { accessNeeds, PreflightError } from "./preflight.ts";
import { openFleet } from "./fleet.ts";
import { PROBE_IMAGES } from "./images.ts";
import { selectNodes } from "./nodes.ts";
import { probeTarget } from "./target.ts";
import type { Side } from "../model.ts";

const RUN = "pf0ff001";
const NS = `flyingfish-probe-${RUN}`;
const offloadingNeeds = (side: Side, mode: "direct" | "offload", offloading?: boolean) =>
  accessNeeds({ side, mode, probes: ["service"], runNamespace: NS, offloading })
    .filter((a) => a.resource === "namespaceoffloadings").map((a) => `${a.verb} ${a.group} ${a.namespace}`);

Deno.test("accessNeeds: NamespaceOffloading create/delete/get whenever the run offloads, on the consumer only", () => {
  const want = ["create", "delete", "get"].map((v) => `${v} offloading.liqo.io ${NS}`);
  assert.deepEqual(offloadingNeeds("local", "offload"), want);
  assert.deepEqual(offloadingNeeds("local", "direct", true), want);
  assert.deepEqual(offloadingNeeds("local", "direct", false), []);
  assert.deepEqual(offloadingNeeds("remote", "direct", true), []);
});

Deno.test({
  name:
    "openFleet: direct mode offloading for the service probe is refused by the pre-flight without the offloading RBAC",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const open = async (base: "rome" | "milan", side: Side, deny: string[]) => {
      const { objects, wireguard } = await loadBase(base);
      const fake = await startFakeCluster({
        name: base,
        objects,
        wireguard,
        tls: false,
        lifecycle: { deny },
      });
      const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml() });
      const target = probeTarget({
        side,
        name: base,
        client,
        exec: () => Promise.resolve({ ok: false, reason: "error", message: "no exec" }),
        flags: `--kubeconfig ${base}.yaml`,
      });
      return { fake, target, nodes: objects.filter((o) => o.kind === "Node"), client };
    };
    const rome = await open("rome", "local", ["create namespaceoffloadings.offloading.liqo.io"]);
    const milan = await open("milan", "remote", []);
    try {
      const l = selectNodes(rome.nodes, "local", []);
      const r = selectNodes(milan.nodes, "remote", []);
      await assert.rejects(
        openFleet({
          runId: RUN,
          mode: "direct",
          peer: "milan-8d1f03",
          probes: ["service"],
          images: { probe: PROBE_IMAGES.probe },
          tolerate: [],
          probeTimeoutMs: 10_000,
          local: { target: rome.target, nodes: l.nodes, hostnames: l.hostnames },
          remote: { target: milan.target, nodes: r.nodes, hostnames: r.hostnames },
          offload: { pods: [{ virtualNode: "milan-8d1f03", index: 0 }] },
          excluded: [],
        }, { signal: new AbortController().signal }),
        (e: unknown) => {
          assert.ok(e instanceof PreflightError);
          assert.match(
            e.message,
            new RegExp(
              `cannot create namespaceoffloadings\\.offloading\\.liqo\\.io in namespace ${NS} \\(cluster rome\\)`,
            ),
          );
          return true;
        },
      );
      for (const f of [rome.fake, milan.fake]) {
        assert.ok(
          !f.requests.some((q) => q.method === "POST" && !q.path.endsWith("selfsubjectaccessreviews")),
        );
      }
    } finally {
      for (const c of [rome, milan]) {
        await c.client.close();
        await c.fake.close();
      }
    }
  },
});
