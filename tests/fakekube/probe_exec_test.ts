import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import {
  captureOn,
  dontFragmentPing,
  interfaceMtu,
  serviceSweep,
  udpDial,
  udpSeries,
} from "../../active/commands.ts";
import { probePod, twoClusters } from "../support/netfixture.ts";
import { createNetworkHost, goJson, loadBase, startFakeCluster } from "../../fakekube/mod.ts";

const ROME_GW = "gw-milan-8d1f03-7c9d5b6f8d-q4xzt";
const MILAN_GW = "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm";
const sig = () => new AbortController().signal;

Deno.test("probe_exec: netexec JSON is Go's (sorted keys, HTML-safe, empty parts left out)", () => {
  assert.equal(goJson({ responses: ["a"], errors: [] }), '{"responses":["a"]}');
  assert.equal(goJson({ responses: [], errors: ["x->y"] }), '{"errors":["x-\\u003ey"]}');
  assert.equal(goJson({ responses: ["r"], errors: ["e"] }), '{"errors":["e"],"responses":["r"]}');
});

Deno.test("probe_exec: UDP series lines, with loss, late and duplicate answers", async () => {
  const { run } = await twoClusters({
    udp: { lossEvery: 3, lateEvery: 4, duplicateEvery: 2, lateMs: 1500 },
    timeScale: 0,
  });
  const r = await run("rome", "p-rome-w1", udpSeries("10.71.2.60", "n0nce", 4));
  assert.equal(r.exitCode, 0);
  const lines = r.stdout.split("\n");
  assert.match(lines[0], /^1 \{"responses":\["ff-n0nce-1"\]\} 0\.00\d{4}$/);
  assert.match(lines[1], /^2 \{"responses":\["ff-n0nce-2"\]\} 0\.00\d{4}$/);
  assert.equal(lines[2], "3  2.001000");
  assert.equal(lines[3], " -1");
  assert.match(lines[4], /^4 \{"responses":\["ff-n0nce-4"\]\} 1\.50\d{4}$/);
  assert.equal(r.stderr, "curl: (28) Operation timed out after 2001 milliseconds with 0 bytes received\n");
});

Deno.test("probe_exec: tcpdump waits for packets sent during its window, per interface", async () => {
  const { host, rome, milan, run } = await twoClusters();
  const gw = (objs: K8sObject[], name: string) => objs.find((o) => o.metadata.name === name)!;
  // rome-worker-1's Geneve interface on rome's gateway (InternalNode spec.interface.gateway.name).
  const geneve = host.exec("rome", gw(rome, ROME_GW), "gateway", captureOn("liqo.n8tfw6hcz5", 1), sig())!;
  const tunnel = host.exec("milan", gw(milan, MILAN_GW), "gateway", captureOn("liqo-tunnel", 1), sig())!;
  const far = host.exec("milan", gw(milan, MILAN_GW), "gateway", captureOn("liqo.f2mx8vqb7h", 1), sig())!;
  await new Promise((r) => setTimeout(r, 150));
  const t0 = Date.now();
  assert.equal((await run("rome", "p-rome-w1", udpDial("10.71.2.60", "echo ff-abc-1"))).exitCode, 0);
  const g = await geneve;
  assert.ok(Date.now() - t0 >= 500, "tcpdump returned only at the end of its window");
  assert.equal(g.exitCode, 124);
  assert.equal(
    g.stderr.split("\n").slice(0, 2).join("\n"),
    "tcpdump: verbose output suppressed, use -v[v]... for full protocol decode\n" +
      "listening on liqo.n8tfw6hcz5, link-type EN10MB (Ethernet), snapshot length 256 bytes",
  );
  const out = g.stdout.split("\n");
  assert.match(
    out[0],
    /^\d\d:\d\d:\d\d\.\d{6} IP 10\.244\.1\.50\.\d+ > 10\.71\.2\.60\.8081: UDP, length 13$/,
  );
  assert.match(out[1], /echo ff-abc-1$/);
  assert.match(out[2], /^\d\d:\d\d:\d\d\.\d{6} IP 10\.71\.2\.60\.8081 > 10\.244\.1\.50\.\d+: UDP, length 8$/);
  assert.match(out[3], /ff-abc-1$/);
  assert.match(g.stderr, /\n2 packets captured\n/);
  const tun = await tunnel;
  assert.match(tun.stderr, /link-type RAW \(Raw IP\)/);
  assert.match(
    tun.stdout,
    /IP 10\.244\.1\.50\.\d+ > 10\.244\.2\.60\.8081: UDP, length 13\n/,
    "real addresses in the tunnel",
  );
  const f = await far;
  assert.match(
    f.stdout,
    /IP 10\.68\.1\.50\.\d+ > 10\.244\.2\.60\.8081/,
    "SNATed source on the remote Geneve",
  );
  // A capture that ended before the packet shows nothing.
  const late = await host.exec("rome", gw(rome, ROME_GW), "gateway", captureOn("liqo-tunnel", 0), sig())!;
  assert.equal(late.stdout, "");
  assert.match(late.stderr, /0 packets captured/);
});

Deno.test("probe_exec: the first hop without the nonce is where the fault is", async () => {
  const { host, rome, milan, run } = await twoClusters({ udpBlockedUnderlay: true, timeScale: 0 });
  const gw = (objs: K8sObject[], name: string) => objs.find((o) => o.metadata.name === name)!;
  const local = host.exec("rome", gw(rome, ROME_GW), "gateway", captureOn("liqo-tunnel", 1), sig())!;
  const remote = host.exec("milan", gw(milan, MILAN_GW), "gateway", captureOn("liqo-tunnel", 1), sig())!;
  await new Promise((r) => setTimeout(r, 100));
  await run("rome", "p-rome-w1", [
    "curl",
    "-sS",
    "--max-time",
    "7",
    udpDial("10.71.2.60", "echo ff-zz-1")[4],
  ]);
  assert.match((await local).stdout, /ff-zz-1/);
  assert.doesNotMatch((await remote).stdout, /ff-zz-1/);
});

Deno.test("probe_exec: tcpdump honours the abort signal; unknown interface; no tcpdump in probe pods", async () => {
  const { host, rome, run } = await twoClusters();
  const gw = rome.find((o) => o.metadata.name === ROME_GW)!;
  const ac = new AbortController();
  const t0 = Date.now();
  const p = host.exec("rome", gw, "gateway", captureOn("liqo-tunnel", 30), ac.signal)!;
  setTimeout(() => ac.abort(), 50);
  assert.equal((await p).exitCode, 124);
  assert.ok(Date.now() - t0 < 5000);
  const bad = await host.exec("rome", gw, "gateway", captureOn("eth7", 1), sig())!;
  assert.equal(bad.exitCode, 1);
  assert.equal(bad.stderr, "tcpdump: eth7: No such device exists\n(No such device exists)\n");
  assert.equal((await run("rome", "p-rome-w1", captureOn("eth0", 1))).exitCode, 127);
});

/** A consumer-only (offload) rome: offloaded probe pods on the virtual node, and a Service over all. */
async function offloaded(model: unknown) {
  const rome = (await loadBase("rome")).objects;
  const ns = "flyingfish-probe-t3st0001";
  rome.push(
    {
      apiVersion: "offloading.liqo.io/v1beta1",
      kind: "NamespaceOffloading",
      metadata: { name: "offloading", namespace: ns },
      status: { offloadingPhase: "Ready", remoteNamespaceName: `${ns}-rome-4b2a9e` },
    },
    probePod("p-local-w1", "rome-worker-1", "10.244.1.50", { app: "svc" }),
    probePod("p-off-a", "milan-8d1f03", "10.71.1.70", { app: "svc" }),
    probePod("p-off-b", "milan-8d1f03", "10.71.2.70", { app: "svc" }),
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "ff-echo", namespace: ns },
      spec: { clusterIP: "10.96.50.5", selector: { app: "svc" } },
    },
  );
  const host = createNetworkHost(model);
  host.attach("rome", () => rome);
  const run = (name: string, cmd: readonly string[]) =>
    host.exec("rome", rome.find((o) => o.metadata.name === name)!, "probe", cmd, sig())!;
  return { host, run };
}

Deno.test("probe_exec: offload — provider nodes by round robin, a blackholed one, a dead backend", async () => {
  const { run } = await offloaded({
    offload: { remoteNodes: ["milan-worker-1", "milan-worker-2"] },
    blackholedNodes: ["milan-8d1f03/milan-worker-2"],
    timeScale: 0,
  });
  assert.equal(
    (await run("p-local-w1", ["/agnhost", "connect", "10.71.1.70:8080", "--timeout=3s"])).exitCode,
    0,
  );
  assert.equal(
    (await run("p-local-w1", ["/agnhost", "connect", "10.71.2.70:8080", "--timeout=3s"])).stderr,
    "TIMEOUT\n",
  );
  // The offloaded pod dials back through the consumer's address of the local pod.
  assert.equal(
    (await run("p-off-a", ["/agnhost", "connect", "10.244.1.50:8080", "--timeout=3s"])).exitCode,
    0,
  );

  const d = await offloaded({
    offload: { remoteNodes: ["milan-worker-1", "milan-worker-2"] },
    deadBackends: ["milan-8d1f03/milan-worker-2"],
    timeScale: 0,
  });
  const sweep = await d.run("p-local-w1", serviceSweep("ff-echo", 30));
  const lines = sweep.stdout.trim().split("\n");
  assert.equal(lines.length, 30);
  const seen = new Set(lines);
  assert.ok(seen.has("p-local-w1") && seen.has("p-off-a") && seen.has("ERR 28"), [...seen].join(","));
  assert.ok(!seen.has("p-off-b"), "the dead backend never answers");
  assert.match(sweep.stderr, /curl: \(28\) Connection timed out after 2001 milliseconds/);
  // From the offloaded side the reflected Service resolves too (another ClusterIP), short name.
  const dns = await d.run("p-off-a", ["getent", "hosts", "ff-echo"]);
  assert.match(
    dns.stdout,
    /^10\.\d+\.\d+\.\d+ +ff-echo\.flyingfish-probe-t3st0001-rome-4b2a9e\.svc\.cluster\.local\n$/,
  );
  assert.equal((await d.run("p-local-w1", serviceSweep("nope", 1))).stdout, "ERR 6\n");
});

Deno.test("probe_exec: the fake server streams network answers over the exec WebSocket", async () => {
  const rome = (await loadBase("rome")).objects;
  rome.push(
    probePod("p-rome-w1", "rome-worker-1", "10.244.1.50"),
    probePod("p-rome-w2", "rome-worker-2", "10.244.2.50"),
  );
  const host = createNetworkHost({});
  const c = await startFakeCluster({ name: "rome", objects: rome, wireguard: {}, tls: false, network: host });
  try {
    const q = new URLSearchParams({ container: "probe", stdout: "true", stderr: "true" });
    for (const a of udpDial("10.244.2.50", "hostname")) q.append("command", a);
    const url = `${
      c.url.replace(/^http/, "ws")
    }/api/v1/namespaces/flyingfish-probe-t3st0001/pods/p-rome-w1/exec?${q}`;
    const ws = new WebSocket(url, [
      "v5.channel.k8s.io",
      `base64url.bearer.authorization.k8s.io.${
        btoa(c.token).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")
      }`,
    ]);
    ws.binaryType = "arraybuffer";
    const frames: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.onmessage = (e) => frames.push(new TextDecoder().decode(new Uint8Array(e.data as ArrayBuffer)));
      ws.onclose = () => resolve();
      ws.onerror = () => reject(new Error("ws error"));
    });
    assert.ok(frames.some((f) => f.slice(1) === '{"responses":["p-rome-w2"]}'), frames.join("|"));
    assert.ok(frames.some((f) => f.includes('"status":"Success"')));
  } finally {
    await c.close();
  }
});

Deno.test("probe_exec: a gateway's kernel caches a 'frag needed' path MTU; larger pings then fail locally with it", async () => {
  const { run } = await twoClusters({ mtu: { underlay: 1340 }, timeScale: 0 });
  const ping = (payload: number) => dontFragmentPing("169.254.18.1", payload);
  const before = await run("rome", ROME_GW, ping(1312), sig(), "gateway");
  assert.match(before.stdout, /Frag needed and DF set \(mtu = 1280\)/);
  // Linux: the route's MTU is min(interface, cached path MTU); iputils prints it as a local error.
  const big = await run("rome", ROME_GW, ping(1472), sig(), "gateway");
  assert.equal(big.stderr, "ping: local error: message too long, mtu=1280\n");
  const again = await run("rome", ROME_GW, ping(1312), sig(), "gateway");
  assert.equal(again.stderr, "ping: local error: message too long, mtu=1280\n");
  // The interface itself still says 1340 (GatewayClient spec.mtu), read in the gateway container.
  const mtu = await run("rome", ROME_GW, interfaceMtu("liqo-tunnel"), sig(), "gateway");
  assert.equal(mtu.stdout, "1340\n");
  // The cache is the gateway pod's: milan's gateway learnt nothing.
  const other = await run("milan", MILAN_GW, dontFragmentPing("169.254.18.2", 1312), sig(), "gateway");
  assert.match(other.stdout, /Frag needed/);
});
