import assert from "node:assert/strict";
import { NetworkModelSchema } from "../../fakekube/mod.ts";
import { NS, twoClusters } from "../support/netfixture.ts";
import { dialUrl, dontFragmentPing, resolveName, tcpConnect, udpDial } from "../../active/commands.ts";

const ROME_GW = "gw-milan-8d1f03-7c9d5b6f8d-q4xzt";

Deno.test("netmodel: empty model is healthy and valid", () => {
  const m = NetworkModelSchema.parse({});
  assert.equal(m.udpBlockedUnderlay, false);
  assert.equal(m.mtu.underlay, 1500);
  assert.throws(() => NetworkModelSchema.parse({ blackholedNodes: ["no-slash"] }));
  assert.throws(() => NetworkModelSchema.parse({ bogus: 1 }));
});

Deno.test("netmodel: remote pods are un-remapped through the Configuration, host bits kept", async () => {
  const { net, rome } = await twoClusters();
  const src = net.endpointOf("rome", rome.find((o) => o.metadata.name === "p-rome-w1")!)!;
  const t = net.resolve(src, "10.71.2.60");
  assert.equal(t.kind, "pod");
  if (t.kind !== "pod") return;
  assert.equal(t.dst.net, "milan");
  assert.equal(t.dst.pod.metadata.name, "p-milan-w2");
  assert.equal(t.dst.node, "milan-worker-2");
  // The same address un-remapped is rome's own pod, not milan's.
  const own = net.resolve(src, "10.244.2.50");
  assert.equal(own.kind === "pod" && own.dst.pod.metadata.name, "p-rome-w2");
  assert.equal(net.resolve(src, "10.71.9.9").kind, "none");
});

Deno.test("netmodel: healthy cross-cluster TCP, UDP echo and the source the far side sees", async () => {
  const { run } = await twoClusters();
  const c = await run("rome", "p-rome-w1", tcpConnect("10.71.2.60"));
  assert.deepEqual(c, { stdout: "", stderr: "", exitCode: 0 });
  const ip = await run("rome", "p-rome-w1", udpDial("10.71.2.60", "clientip"));
  assert.equal(ip.exitCode, 0);
  assert.match(ip.stdout, /^\{"responses":\["10\.68\.1\.50:\d+"\]\}$/);
  const host = await run("milan", "p-milan-w2", udpDial("10.68.1.50", "hostname"));
  assert.equal(host.stdout, '{"responses":["p-rome-w1"]}');
  const echo = await run("rome", "p-rome-w2", udpDial("10.244.1.50", "echo Hello"));
  assert.equal(echo.stdout, '{"responses":["hello"]}', "netexec lowercases what it echoes");
});

Deno.test("netmodel: a blackholed remote node takes its column, same-cluster stays fine", async () => {
  const { run } = await twoClusters({ blackholedNodes: ["milan/milan-worker-2"], timeScale: 0 });
  assert.deepEqual(await run("rome", "p-rome-w1", tcpConnect("10.71.2.60")), {
    stdout: "",
    stderr: "TIMEOUT\n",
    exitCode: 1,
  });
  assert.equal((await run("rome", "p-rome-w2", tcpConnect("10.71.2.60"))).exitCode, 1);
  assert.equal((await run("rome", "p-rome-w2", tcpConnect("10.71.1.60"))).exitCode, 0);
  assert.equal((await run("milan", "p-milan-w1", tcpConnect("10.244.2.60"))).exitCode, 0);
  // Replies towards it die too.
  assert.equal((await run("milan", "p-milan-w2", tcpConnect("10.68.1.50"))).exitCode, 1);
});

Deno.test("netmodel: a node without its Geneve path reaches nothing cross-cluster (its row)", async () => {
  const { run } = await twoClusters({ geneveBroken: ["rome/rome-worker-2"], timeScale: 0 });
  assert.equal((await run("rome", "p-rome-w2", tcpConnect("10.71.1.60"))).stderr, "TIMEOUT\n");
  assert.equal((await run("rome", "p-rome-w2", tcpConnect("10.71.2.60"))).stderr, "TIMEOUT\n");
  assert.equal((await run("rome", "p-rome-w1", tcpConnect("10.71.2.60"))).exitCode, 0);
  assert.equal((await run("rome", "p-rome-w2", tcpConnect("10.244.1.50"))).exitCode, 0, "same cluster fine");
});

Deno.test("netmodel: UDP blocked on the underlay: nothing crosses, tunnel ping lost, underlay ping fine", async () => {
  const { run, host, rome } = await twoClusters({ udpBlockedUnderlay: true, timeScale: 0 });
  assert.equal((await run("rome", "p-rome-w1", tcpConnect("10.71.1.60"))).stderr, "TIMEOUT\n");
  const gw = rome.find((o) => o.metadata.name === ROME_GW)!;
  const sig = new AbortController().signal;
  const t = await host.exec("rome", gw, "gateway", dontFragmentPing("169.254.18.1", 1000), sig)!;
  assert.equal(t.exitCode, 1);
  assert.match(t.stdout, /1 packets transmitted, 0 received, 100% packet loss, time 0ms/);
  const u = await host.exec("rome", gw, "gateway", dontFragmentPing("203.0.113.50", 1000), sig)!;
  assert.equal(u.exitCode, 0);
});

Deno.test("netmodel: NAT mis-translation shows in clientip; traffic still flows", async () => {
  const { run } = await twoClusters({ nat: [{ into: "milan", source: "gateway" }] });
  const r = await run("rome", "p-rome-w1", udpDial("10.71.2.60", "clientip"));
  assert.match(r.stdout, /^\{"responses":\["10\.80\.0\.4:\d+"\]\}$/);
  const back = await run("milan", "p-milan-w1", udpDial("10.68.1.50", "clientip"));
  assert.match(back.stdout, /"10\.71\.1\.60:\d+"/, "the other direction is fine");
  const { run: run2 } = await twoClusters({ nat: [{ into: "milan", source: "unmapped" }], timeScale: 0 });
  const lost = await run2("rome", "p-rome-w1", [
    "curl",
    "-sS",
    "--max-time",
    "7",
    dialUrl("10.71.2.60", "clientip"),
  ]);
  assert.match(lost.stdout, /i\/o timeout/, "the answer to an un-remapped source never comes back");
});

Deno.test("netmodel: path MTU — interface limit, frag needed, silent black hole", async () => {
  const sig = new AbortController().signal;
  const ping = async (model: unknown, size: number, addr = "169.254.18.1") => {
    const { host, rome } = await twoClusters({ timeScale: 0, ...model as object });
    return await host.exec(
      "rome",
      rome.find((o) => o.metadata.name === ROME_GW)!,
      "gateway",
      dontFragmentPing(addr, size),
      sig,
    )!;
  };
  const okp = await ping({}, 1312);
  assert.equal(okp.exitCode, 0);
  assert.equal(
    okp.stdout.split("\n").slice(0, 2).join("\n"),
    "PING 169.254.18.1 (169.254.18.1) 1312(1340) bytes of data.\n1320 bytes from 169.254.18.1: icmp_seq=1 ttl=64 time=2.000 ms",
  );
  const local = await ping({}, 1313);
  assert.equal(local.exitCode, 1);
  assert.equal(local.stderr, "ping: local error: message too long, mtu=1340\n");
  const frag = await ping({ mtu: { underlay: 1340 } }, 1300);
  assert.match(frag.stdout, /^From 169\.254\.18\.2 icmp_seq=1 Frag needed and DF set \(mtu = 1280\)$/m);
  assert.match(frag.stdout, /1 packets transmitted, 0 received, \+1 errors, 100% packet loss/);
  assert.equal((await ping({ mtu: { underlay: 1340 } }, 1252)).exitCode, 0, "1280 passes");
  const hole = await ping({ mtu: { underlay: 1340, icmp: false } }, 1300);
  assert.equal(hole.exitCode, 1);
  assert.doesNotMatch(hole.stdout, /Frag needed/);
  assert.match(hole.stdout, /1 packets transmitted, 0 received, 100% packet loss, time 0ms/);
  const under = await ping({ mtu: { underlay: 1400, icmpFrom: "198.51.100.1" } }, 1400, "203.0.113.50");
  assert.match(under.stdout, /From 198\.51\.100\.1 icmp_seq=1 Frag needed and DF set \(mtu = 1400\)/);
  const eth0 = await ping({}, 1473, "203.0.113.50");
  assert.equal(eth0.stderr, "ping: local error: message too long, mtu=1500\n");
});

Deno.test("netmodel: DNS from Services and overrides; getent exit 2 when missing", async () => {
  const { run, rome } = await twoClusters({
    dns: { rome: { "gone.example": null, "db.example": "10.96.7.7" } },
  });
  rome.push({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "echo", namespace: NS },
    spec: { clusterIP: "10.96.40.4", selector: { "app.kubernetes.io/component": "probe" } },
  });
  assert.deepEqual(await run("rome", "p-rome-w1", resolveName("echo")), {
    stdout: `10.96.40.4      echo.${NS}.svc.cluster.local\n`,
    stderr: "",
    exitCode: 0,
  });
  assert.equal((await run("rome", "p-rome-w1", resolveName(`echo.${NS}.svc.cluster.local`))).exitCode, 0);
  assert.deepEqual(await run("rome", "p-rome-w1", resolveName("nope")), {
    stdout: "",
    stderr: "",
    exitCode: 2,
  });
  assert.equal((await run("rome", "p-rome-w1", resolveName("gone.example"))).exitCode, 2);
  assert.equal(
    (await run("rome", "p-rome-w1", resolveName("db.example"))).stdout,
    "10.96.7.7       db.example\n",
  );
  assert.equal(
    (await run("milan", "p-milan-w1", resolveName("echo"))).exitCode,
    2,
    "milan has no such Service",
  );
});

Deno.test("netmodel: directional drop and flaky cells", async () => {
  const { run } = await twoClusters({
    drops: [{ from: "rome/rome-worker-1", to: "milan/milan-worker-1", protocol: "udp" }],
    timeScale: 0,
  });
  const there = await run("rome", "p-rome-w1", [
    "curl",
    "-sS",
    "--max-time",
    "7",
    dialUrl("10.71.1.60", "hostname"),
  ]);
  assert.equal(
    there.stdout.replace(/:\d+-\\u003e/, ":P-\\u003e"),
    `{"errors":["reading from udp connection failed. err:'read udp 10.244.1.50:P-\\u003e10.71.1.60:8081: i/o timeout'"]}`,
  );
  assert.equal((await run("rome", "p-rome-w1", tcpConnect("10.71.1.60"))).exitCode, 0, "TCP unaffected");
  assert.equal(
    (await run("rome", "p-rome-w2", udpDial("10.71.1.60", "hostname"))).exitCode,
    0,
    "other pairs fine",
  );
  assert.equal((await run("milan", "p-milan-w1", udpDial("10.68.2.50", "hostname"))).exitCode, 0);
  // The other way the request arrives but the answer (rome-worker-1 → milan-worker-1) is dropped.
  // netexec's own 5 s wait ends first (curl waits 7 s): its error comes back in the JSON.
  const back = await run("milan", "p-milan-w1", udpDial("10.68.1.50", "hostname"));
  assert.equal(back.exitCode, 0);
  assert.match(back.stdout, /"errors":\["reading from udp connection failed/);
  const short = await run("rome", "p-rome-w1", udpDial("10.71.1.60", "hostname", 5));
  assert.deepEqual(short, {
    stdout: "",
    stderr: "curl: (28) Operation timed out after 5001 milliseconds with 0 bytes received\n",
    exitCode: 28,
  });

  const f = await twoClusters({
    flaky: [{ from: "rome/rome-worker-1", to: "milan/milan-worker-2" }],
    timeScale: 0,
  });
  assert.equal((await f.run("rome", "p-rome-w1", tcpConnect("10.71.2.60"))).exitCode, 1);
  assert.equal((await f.run("rome", "p-rome-w1", tcpConnect("10.71.2.60"))).exitCode, 0, "the retry passes");
  assert.equal((await f.run("rome", "p-rome-w1", tcpConnect("10.71.1.60"))).exitCode, 0);
});

Deno.test("netmodel: REFUSED from a pod without a listener; unknown commands fall through", async () => {
  const { run, host, rome } = await twoClusters();
  const gwIp = "10.71.2.31"; // milan's gateway pod, no netexec
  assert.deepEqual(await run("rome", "p-rome-w1", tcpConnect(gwIp)), {
    stdout: "",
    stderr: "REFUSED\n",
    exitCode: 1,
  });
  assert.equal(
    host.exec("rome", rome[0], "x", ["wg", "show", "all", "dump"], new AbortController().signal),
    null,
  );
});
