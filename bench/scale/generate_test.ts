import assert from "node:assert/strict";
import { loadBase, startFakeCluster } from "../../fakekube/mod.ts";
import { overlaps } from "../../probes/cidr.ts";
import {
  generateScaleCluster,
  loadScaleCluster,
  type ScaleParams,
  SMALL_SCALE,
  withForeignClusters,
} from "./generate.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const PARAMS: ScaleParams = { ...SMALL_SCALE, peers: 3, nodes: 6, pods: 120, namespaces: 4 };

const ipNum = (ip: string): number => ip.split(".").reduce((a, o) => a * 256 + Number(o), 0);
const inCidr = (ip: string, cidr: string): boolean => {
  const [net, bits] = cidr.split("/");
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return ((ipNum(ip) & mask) >>> 0) === ((ipNum(net) & mask) >>> 0);
};

Deno.test("scale generator: deterministic, unique names, every node and peer wired", async () => {
  const base = await loadBase("rome");
  const c = generateScaleCluster(base, PARAMS);
  assert.equal(
    JSON.stringify(generateScaleCluster(await loadBase("rome"), PARAMS)),
    JSON.stringify(c),
    "pure",
  );

  const keys = c.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`);
  assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), [], "one object per kind/namespace/name");

  const of = (kind: string): Any[] => c.objects.filter((o) => o.kind === kind);
  const realNodes = of("Node").filter((n) => n.metadata.labels?.["liqo.io/type"] !== "virtual-node");
  assert.equal(realNodes.length, PARAMS.nodes);
  assert.equal(of("Node").length - realNodes.length, PARAMS.peers, "one virtual node per peer");
  assert.equal(of("InternalNode").length, PARAMS.nodes);
  assert.equal(of("GeneveTunnel").length, PARAMS.nodes * PARAMS.peers);
  assert.equal(of("ForeignCluster").length, PARAMS.peers);
  assert.equal(c.peers.length, PARAMS.peers);
  assert.equal(new Set(c.peers).size, PARAMS.peers);
  assert.equal(Object.keys(c.wireguard).length, PARAMS.peers, "WireGuard state per gateway pod");
  const pods = of("Pod");
  assert.equal(pods.filter((p) => p.metadata.name.startsWith("liqo-fabric-")).length, PARAMS.nodes);
  const workloadNs = new Set(of("Namespace").map((n) => n.metadata.name).filter((n) => /-\d{3}$/.test(n)));
  assert.equal(workloadNs.size, PARAMS.namespaces);
  assert.equal(pods.filter((p) => workloadNs.has(p.metadata.namespace)).length, PARAMS.pods);
  assert.equal(
    of("RouteConfiguration").filter((r) => r.metadata.name.endsWith("-gw-node")).length,
    PARAMS.nodes,
  );

  // Pod IPs: unique, inside their node's pod CIDR (host-network pods use the node's address).
  const cidrOf = new Map(realNodes.map((n) => [n.metadata.name, n.spec.podCIDR as string]));
  const ips = new Set<string>();
  for (const p of pods) {
    const cidr = cidrOf.get(p.spec.nodeName);
    if (!cidr || p.spec.hostNetwork) continue;
    assert.ok(inCidr(p.status.podIP, cidr), `${p.metadata.name}: ${p.status.podIP} outside ${cidr}`);
    assert.ok(!ips.has(p.status.podIP), `${p.status.podIP} given twice`);
    ips.add(p.status.podIP);
  }

  // Remapped CIDRs: disjoint from each other and from the local networks.
  const remapped = of("Configuration").flatMap((
    cfg,
  ) => [...cfg.status.remote.cidr.pod, ...cfg.status.remote.cidr.external]);
  assert.equal(remapped.length, 2 * PARAMS.peers);
  const local = ["10.244.0.0/16", "10.96.0.0/12", "10.70.0.0/16", "10.80.0.0/16", "192.168.0.0/16"];
  for (const [i, a] of remapped.entries()) {
    for (const b of [...remapped.slice(i + 1), ...local]) assert.ok(!overlaps(a, b), `${a} overlaps ${b}`);
  }

  // Each gateway pod applies every node's gw-node routes; each fabric pod its peer's fabric routes.
  const gwPods = pods.filter((p) => p.metadata.labels?.["networking.liqo.io/component"] === "gateway");
  assert.equal(gwPods.length, PARAMS.peers);
  for (const rc of of("RouteConfiguration").filter((r) => r.metadata.name.endsWith("-gw-node"))) {
    const hosts = rc.status.conditions.filter((x: Any) => x.type === "Applied" && x.status === "True").map((
      x: Any,
    ) => x.host);
    assert.deepEqual(hosts.sort(), gwPods.map((p) => p.metadata.name).sort(), rc.metadata.name);
  }
  assert.equal(c.brokenPeer, null);
});

Deno.test("scale generator: the broken variant blocks UDP to the last peer only", async () => {
  const c = generateScaleCluster(await loadBase("rome"), { ...PARAMS, broken: true });
  assert.equal(c.brokenPeer, c.peers[c.peers.length - 1]);
  const conns = c.objects.filter((o) => o.kind === "Connection") as Any[];
  assert.deepEqual(
    conns.filter((x) => x.status.value !== "Connected").map((x) =>
      x.metadata.labels["liqo.io/remote-cluster-id"]
    ),
    [c.brokenPeer],
  );
  const stalled = Object.entries(c.wireguard).filter(([, s]) =>
    s?.interfaces?.[0]?.peers?.[0]?.handshakeAgoSeconds === null
  );
  assert.deepEqual(stalled.map(([k]) => k.split("/")[0]), [`liqo-tenant-${c.brokenPeer}`]);
});

/** `flyingfish check` (the real CLI) against a served instance: its JSON report. */
async function check(params: ScaleParams): Promise<{ code: number; report: Any; brokenPeer: string | null }> {
  const c = await loadScaleCluster(params);
  const fc = await startFakeCluster({
    name: "rome",
    objects: c.objects,
    wireguard: c.wireguard,
    tls: true,
    execClockStepSeconds: 1,
  });
  const dir = await Deno.makeTempDir({ prefix: "ff-scale-test-" });
  try {
    await Deno.writeTextFile(`${dir}/kc`, fc.kubeconfigYaml());
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--frozen",
        "--allow-env",
        "--allow-read",
        "--allow-net=127.0.0.1",
        new URL("../../cli/main.ts", import.meta.url).pathname,
        "check",
        "--kubeconfig",
        `${dir}/kc`,
        "--no-network-probes",
        "--sample-interval",
        "100ms",
        "-o",
        "json",
      ],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.ok(
      stdout.startsWith("{"),
      `no report (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}`,
    );
    return { code: out.code, report: JSON.parse(stdout), brokenPeer: c.brokenPeer };
  } finally {
    await fc.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "scale generator: the healthy instance is all-pass, the broken one is diagnosed TUN-01 on its peer",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [healthy, broken] = await Promise.all([check(PARAMS), check({ ...PARAMS, broken: true })]);
    const notPass = healthy.report.results.filter((r: Any) =>
      r.status !== "pass" && r.skipKind !== "needs-remote"
    )
      .filter((r: Any) => r.skipKind !== "not-applicable" && r.skipKind !== "disabled");
    assert.deepEqual(notPass.map((r: Any) => `${r.id} ${r.peer ?? ""} ${r.status}: ${r.summary}`), []);
    assert.equal(healthy.code, 0);
    assert.equal(broken.code, 2);
    assert.equal(broken.report.diagnosis?.id, "TUN-01");
    assert.equal(broken.report.diagnosis?.peer, broken.brokenPeer);
    const failing = broken.report.results.filter((r: Any) => r.status === "fail");
    assert.deepEqual(
      [...new Set(failing.map((r: Any) => r.peer))],
      [broken.brokenPeer],
      "only that peer fails",
    );
  },
});

Deno.test("scale generator: the many-peers case adds ForeignClusters with their own names, IDs and uids", async () => {
  const small = await loadScaleCluster({ ...SMALL_SCALE, broken: false });
  const many = withForeignClusters(small, 25);
  const fcs = many.objects.filter((o) => o.kind === "ForeignCluster");
  assert.equal(fcs.length, SMALL_SCALE.peers + 25);
  assert.equal(new Set(fcs.map((o) => o.metadata.name)).size, fcs.length);
  assert.equal(new Set(fcs.map((o) => o.metadata.uid)).size, fcs.length);
  for (const o of fcs) assert.equal((o.spec as { clusterID?: string }).clusterID, o.metadata.name);
  assert.equal(many.counts.ForeignCluster, fcs.length);
  assert.equal(
    small.objects.filter((o) => o.kind === "ForeignCluster").length,
    SMALL_SCALE.peers,
    "unchanged",
  );
  assert.equal(withForeignClusters(small, 0), small);
});
