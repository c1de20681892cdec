import assert from "node:assert/strict";
import {
  activeScenariosRoot,
  buildClusterConfig,
  configurationFor,
  createNetworkHost,
  type FakeCluster,
  LiqoReflection,
  loadScenario,
  startFakeCluster,
  toPeerView,
} from "../../fakekube/mod.ts";
import { openKubeClient } from "../../kube/live/client.ts";
import { kubeWriter } from "../../kube/live/write.ts";
import type { K8sObject } from "../../kube/source.ts";
import { namespaceOffloadingManifest } from "../../active/fleet/templates.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };
const RUN = "r3fl0001";
const NS = `flyingfish-probe-${RUN}`;
const REMOTE_NS = `${NS}-rome-4b2a9e`;
const RUN_LABELS = { "app.kubernetes.io/managed-by": "flyingfish", "flyingfish.io/run-id": RUN };

async function start() {
  const s = await loadScenario("service-direct-healthy", activeScenariosRoot());
  const host = createNetworkHost(s.network ?? {});
  const reflection = new LiqoReflection();
  const fakes = {} as Record<"rome" | "milan", FakeCluster>;
  for (const name of ["rome", "milan"] as const) {
    const cfg = await buildClusterConfig(s, name);
    fakes[name] = await startFakeCluster({ ...cfg, tls: false, network: host, reflection });
  }
  const client = await openKubeClient({ kubeconfigYaml: fakes.rome.kubeconfigYaml() });
  return {
    host,
    fakes,
    rome: kubeWriter(client),
    close: async () => {
      await fakes.rome.close();
      await fakes.milan.close();
    },
  };
}

async function until<T>(what: string, fn: () => T | null | undefined | false, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const find = (f: FakeCluster, kind: string, ns: string | undefined, name: string) =>
  f.objects().find((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === name);

function probePod(name: string, node: string, offloaded: boolean): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      labels: { ...RUN_LABELS, "app.kubernetes.io/component": "probe" },
      ...(offloaded
        ? {
          annotations: {
            "liqo.io/anti-affinity-preset": "hard",
            "liqo.io/anti-affinity-labels": "flyingfish.io/run-id,app.kubernetes.io/component",
          },
        }
        : {}),
    },
    spec: {
      nodeSelector: { "kubernetes.io/hostname": node },
      ...(offloaded
        ? {
          tolerations: [{ key: "virtual-node.liqo.io/not-allowed", operator: "Exists", effect: "NoExecute" }],
        }
        : {}),
      containers: [{
        name: "probe",
        image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
        args: ["netexec"],
      }],
    },
  };
}

/** Namespace, NamespaceOffloading (Ready), one local and two offloaded pods, a Service. */
async function offloadRun(t: Awaited<ReturnType<typeof start>>): Promise<void> {
  const ok = (o: { ok: boolean }) => assert.ok(o.ok, JSON.stringify(o));
  ok(
    await t.rome.create("/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NS, labels: RUN_LABELS },
    }),
  );
  ok(
    await t.rome.create(
      `/apis/offloading.liqo.io/v1beta1/namespaces/${NS}/namespaceoffloadings`,
      namespaceOffloadingManifest("milan-8d1f03", RUN),
    ),
  );
  for (
    const [name, node, off] of [["p-local", "rome-worker-1", false], ["p-off-0", "milan-8d1f03", true], [
      "p-off-1",
      "milan-8d1f03",
      true,
    ]] as const
  ) {
    ok(await t.rome.create(`/api/v1/namespaces/${NS}/pods`, probePod(name, node, off)));
  }
  ok(
    await t.rome.create(`/api/v1/namespaces/${NS}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "ff-probe", labels: RUN_LABELS },
      spec: {
        selector: { "flyingfish.io/run-id": RUN, "app.kubernetes.io/component": "probe" },
        ports: [{ name: "http", port: 8080, targetPort: 8080, protocol: "TCP" }],
      },
    }),
  );
}

Deno.test({
  name:
    "reflection: an offloaded namespace, its pods, Service and EndpointSlices appear in the served provider",
  ...sanitizers,
  fn: async () => {
    const t = await start();
    try {
      await offloadRun(t);
      const { rome, milan } = t.fakes;
      const ns = await until("remote namespace", () => find(milan, "Namespace", undefined, REMOTE_NS));
      assert.equal(ns.metadata.labels?.["liqo.io/remote-cluster-id"], "rome-4b2a9e");
      assert.equal(ns.metadata.annotations?.["liqo.io/original-name"], NS);
      assert.match(ns.metadata.annotations?.["liqo.io/managed-by-namespace-map"] ?? "", /\/milan-8d1f03$/);

      // Twins scheduled by milan's scheduler on distinct nodes (hard anti-affinity), consumer IPs remapped.
      const twins = await until("running twins", () => {
        const ts = ["p-off-0", "p-off-1"].map((n) => find(milan, "Pod", REMOTE_NS, n));
        return ts.every((p) => (p?.status as { phase?: string })?.phase === "Running")
          ? ts as K8sObject[]
          : null;
      });
      const nodes = twins.map((p) => (p.spec as { nodeName: string }).nodeName);
      assert.equal(new Set(nodes).size, 2, `distinct provider nodes: ${nodes}`);
      assert.ok(nodes.every((n) => n.startsWith("milan-")));
      for (const twin of twins) {
        assert.equal(twin.metadata.labels?.["liqo.io/managed-by"], "shadowpod");
        assert.equal(twin.metadata.labels?.["offloading.liqo.io/origin"], "rome-4b2a9e");
        assert.equal(twin.metadata.labels?.["flyingfish.io/run-id"], RUN, "local labels are copied");
        assert.ok((twin.spec as { affinity?: { podAntiAffinity?: unknown } }).affinity?.podAntiAffinity);
        const twinIP = (twin.status as { podIP: string }).podIP;
        const local = await until("consumer pod status", () => {
          const p = find(rome, "Pod", NS, twin.metadata.name);
          return (p?.status as { podIP?: string })?.podIP ? p : null;
        });
        const cfg = configurationFor(rome.objects(), "milan-8d1f03");
        assert.equal((local.status as { podIP: string }).podIP, toPeerView(cfg, twinIP));
        // The network model places the offloaded pod where the provider runs it: one truth.
        const ep = t.host.network.endpointOf("rome", local)!;
        assert.deepEqual([ep.net, ep.node, ep.ip], [
          "milan",
          (twin.spec as { nodeName: string }).nodeName,
          twinIP,
        ]);
      }

      // Service: same name, provider ClusterIP; slices: the provider's own and Liqo's reflected one.
      const svc = await until("reflected Service", () => find(milan, "Service", REMOTE_NS, "ff-probe"));
      assert.ok((svc.spec as { clusterIP?: string }).clusterIP);
      const slices = await until("both slices", () => {
        const s = milan.objects().filter((o) =>
          o.kind === "EndpointSlice" && o.metadata.namespace === REMOTE_NS
        );
        const ready = s.filter((x) => ((x as { endpoints?: unknown[] }).endpoints ?? []).length > 0);
        return ready.length === 2 ? s : null;
      });
      const reflected = slices.find((s) =>
        s.metadata.labels?.["endpointslice.kubernetes.io/managed-by"] === "endpointslice.reflection.liqo.io"
      )!;
      const native = slices.find((s) => s !== reflected)!;
      assert.ok(reflected, "a reflected slice");
      type Ep = { addresses: string[]; nodeName?: string; targetRef?: { kind: string; name: string } };
      const rEps = (reflected as unknown as { endpoints: Ep[] }).endpoints;
      assert.deepEqual(rEps.map((e) => [e.targetRef?.kind, e.targetRef?.name, e.nodeName]), [[
        "RemotePod",
        "p-local",
        "rome-4b2a9e",
      ]]);
      const localIP = (find(rome, "Pod", NS, "p-local")!.status as { podIP: string }).podIP;
      const milanCfg = configurationFor(milan.objects(), "rome-4b2a9e");
      assert.deepEqual(rEps[0].addresses, [toPeerView(milanCfg, localIP)]);
      assert.deepEqual(
        (native as unknown as { endpoints: Ep[] }).endpoints.map((e) => e.targetRef?.name).sort(),
        ["p-off-0", "p-off-1"],
      );
    } finally {
      await t.close();
    }
  },
});

for (const how of ["NamespaceOffloading, then namespace", "namespace alone"] as const) {
  Deno.test({
    name: `reflection: deleting the ${how} removes the remote namespace before the consumer's is gone`,
    ...sanitizers,
    fn: async () => {
      const t = await start();
      try {
        await offloadRun(t);
        const { rome, milan } = t.fakes;
        await until("reflected Service", () => find(milan, "Service", REMOTE_NS, "ff-probe"));
        if (how !== "namespace alone") {
          const r = await t.rome.remove(
            `/apis/offloading.liqo.io/v1beta1/namespaces/${NS}/namespaceoffloadings/offloading`,
          );
          assert.ok(r.ok);
        }
        assert.ok((await t.rome.remove(`/api/v1/namespaces/${NS}`, { propagation: "Background" })).ok);
        let remoteGoneFirst = false;
        await until("consumer namespace gone", () => {
          if (!find(milan, "Namespace", undefined, REMOTE_NS)) remoteGoneFirst = true;
          return !find(rome, "Namespace", undefined, NS);
        });
        assert.ok(
          remoteGoneFirst,
          "the offloading's finalizer held the namespace until the remote one was gone",
        );
        for (const f of [rome, milan]) {
          const left = f.objects().filter((o) =>
            o.metadata.labels?.["flyingfish.io/run-id"] === RUN ||
            (o.metadata.namespace ?? o.metadata.name).startsWith(NS)
          );
          assert.deepEqual(left.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`), []);
        }
      } finally {
        await t.close();
      }
    },
  });
}
