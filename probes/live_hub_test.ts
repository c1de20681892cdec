import assert from "node:assert/strict";
import type { ClusterSource } from "../kube/source.ts";
import type { ProbeHub, WgEvidence } from "./hub.ts";
import {
  createProbeHub,
  DNS_PROBES_DISABLED,
  NETWORK_PROBES_DISABLED,
  prefetchWireguard,
  SNAPSHOT_NO_PROBES,
} from "./live_hub.ts";

function source(isSnapshot = false): ClusterSource {
  return {
    endpoint: { context: "rome", server: "https://127.0.0.1:6443" },
    now: () => new Date(),
    isSnapshot,
    list: () => Promise.resolve({ ok: false, reason: "error", message: "n/a" }),
    discovery: () => Promise.resolve({ ok: false, reason: "error", message: "n/a" }),
    exec: () => Promise.resolve({ ok: false, reason: "forbidden", message: "no exec" }),
    close: () => Promise.resolve(),
  };
}

function counters() {
  const calls = { wg: 0, udp: 0, tls: 0 };
  const impls = {
    collectWireguard: async (
      _s: ClusterSource,
      ns: string,
      pod: string,
      intervalMs: number,
    ): Promise<WgEvidence> => {
      calls.wg++;
      await new Promise((r) => setTimeout(r, 10));
      return { ok: false, namespace: ns, pod, reason: "error", message: `interval ${intervalMs}` };
    },
    probeUdp: async (host: string, port: number, o: { timeoutMs: number; precise?: boolean }) => {
      calls.udp++;
      await Promise.resolve();
      return { outcome: "silence" as const, detail: `${host}:${port} ${o.timeoutMs} ${o.precise}` };
    },
    dialTls: async (url: string, o: { timeoutMs: number }) => {
      calls.tls++;
      await Promise.resolve();
      return { outcome: "ok" as const, detail: `${url} ${o.timeoutMs}`, ms: 1 };
    },
  };
  return { calls, impls };
}

Deno.test("hub memoises probes so concurrent checks share them", async () => {
  const { calls, impls } = counters();
  const hub = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: true,
    preciseUdp: true,
    sampleIntervalMs: 3000,
    udpTimeoutMs: 1500,
    impls,
  });
  prefetchWireguard(hub, "rome", "liqo-tenant-milan", "gw-milan");
  const [a, b] = await Promise.all([
    hub.wireguard("rome", "liqo-tenant-milan", "gw-milan"),
    hub.wireguard("rome", "liqo-tenant-milan", "gw-milan"),
  ]);
  assert.equal(a, b);
  assert.equal(calls.wg, 1);
  assert.equal(a.ok === false && a.message, "interval 3000");
  await hub.wireguard("rome", "liqo-tenant-milan", "gw-other");
  assert.equal(calls.wg, 2);

  const [u1, u2] = await Promise.all([hub.udp("203.0.113.50", 51840), hub.udp("203.0.113.50", 51840)]);
  assert.equal(u1, u2);
  assert.equal(u1.detail, "203.0.113.50:51840 1500 true");
  await hub.udp("203.0.113.50", 51841);
  assert.equal(calls.udp, 2);

  await Promise.all([hub.tls("https://203.0.113.20:6443"), hub.tls("https://203.0.113.20:6443")]);
  const t = await hub.tls("https://203.0.113.20:6443");
  assert.equal(t.detail, "https://203.0.113.20:6443 5000");
  assert.equal(calls.tls, 1);
});

Deno.test("hub: unknown cluster and thrown probe errors become results", async () => {
  const hub = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 1,
    impls: {
      collectWireguard: () => Promise.reject(new Error("boom")),
      probeUdp: () => Promise.reject(new Error("udp boom")),
      dialTls: () => Promise.reject(new Error("tls boom")),
    },
  });
  const unknown = await hub.wireguard("paris", "ns", "pod");
  assert.deepEqual(unknown, {
    ok: false,
    namespace: "ns",
    pod: "pod",
    reason: "error",
    message: 'unknown cluster "paris"',
  });
  const boom = await hub.wireguard("rome", "ns", "pod");
  assert.equal(boom.ok === false && boom.message, "wireguard probe failed: boom");
  assert.deepEqual(await hub.udp("10.0.0.1", 1), {
    outcome: "unavailable",
    detail: "UDP probe failed: udp boom",
  });
  assert.deepEqual(await hub.tls("https://x"), { outcome: "failed", detail: "TLS dial failed: tls boom" });
});

Deno.test("hub: --no-network-probes and snapshots skip host-side probes", async () => {
  const { calls, impls } = counters();
  const off = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: false,
    preciseUdp: false,
    sampleIntervalMs: 1,
    impls,
  });
  assert.deepEqual(await off.udp("203.0.113.50", 51840), {
    outcome: "unavailable",
    detail: NETWORK_PROBES_DISABLED,
  });
  assert.deepEqual(await off.tls("https://203.0.113.20:6443"), {
    outcome: "unavailable",
    detail: NETWORK_PROBES_DISABLED,
  });
  const snap = createProbeHub({
    sources: new Map([["rome", source(true)]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 1,
    impls,
  });
  assert.deepEqual(await snap.udp("203.0.113.50", 51840), {
    outcome: "unavailable",
    detail: SNAPSHOT_NO_PROBES,
  });
  assert.deepEqual(await snap.tls("https://203.0.113.20:6443"), {
    outcome: "unavailable",
    detail: SNAPSHOT_NO_PROBES,
  });
  // WireGuard evidence still comes from the snapshot's recorded exec output.
  await snap.wireguard("rome", "ns", "pod");
  assert.deepEqual(calls, { wg: 1, udp: 0, tls: 0 });
});

Deno.test("prefetchWireguard works on any ProbeHub", async () => {
  let n = 0;
  const plain: ProbeHub = {
    wireguard: (_c, ns, pod) => {
      n++;
      return Promise.reject(new Error(`${ns}/${pod}`));
    },
    udp: () => Promise.resolve({ outcome: "unavailable", detail: "" }),
    tls: () => Promise.resolve({ outcome: "unavailable", detail: "" }),
    logs: (_c, namespace, pod, container) =>
      Promise.resolve({ ok: false, namespace, pod, container, reason: "missing", message: "" }),
  };
  prefetchWireguard(plain, "rome", "ns", "pod");
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(n, 1);
});

Deno.test("real hub wiring: wireguard exec failure flows through", async () => {
  const hub = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 1,
  });
  const ev = await hub.wireguard("rome", "ns", "pod");
  assert.deepEqual(ev, {
    ok: false,
    namespace: "ns",
    pod: "pod",
    reason: "forbidden",
    message: "exec forbidden: no exec",
  });
});

Deno.test("hub memoises container log reads per container and instance, through the source", async () => {
  const calls: string[] = [];
  const src: ClusterSource = {
    ...source(),
    logs: (ns, pod, container, req) => {
      calls.push(`${ns}/${pod}/${container} previous=${req?.previous} tail=${req?.tailLines}`);
      return Promise.resolve({
        ok: true,
        text: "I1130 starting\nE1130 02:25:49.030118       1 main.go:201] failed to start\n",
        previous: req?.previous === true,
        via: "api",
      });
    },
  };
  const hub = createProbeHub({
    sources: new Map([["rome", src]]),
    networkProbes: false,
    preciseUdp: false,
    sampleIntervalMs: 10,
  });
  const [a, b] = await Promise.all([
    hub.logs("rome", "liqo", "liqo-ipam-x", "ipam", { previous: true }),
    hub.logs("rome", "liqo", "liqo-ipam-x", "ipam", { previous: true }),
  ]);
  assert.equal(a, b);
  assert.equal(calls.length, 1);
  assert.match(calls[0], /previous=true tail=100/);
  assert.ok(a.ok && a.matched && a.previous);
  assert.deepEqual(a.ok && a.lines, ["E1130 02:25:49.030118       1 main.go:201] failed to start"]);
  await hub.logs("rome", "liqo", "liqo-ipam-x", "ipam");
  assert.equal(calls.length, 2);
  const unknown = await hub.logs("paris", "liqo", "p", "c");
  assert.ok(!unknown.ok && unknown.message.includes("unknown cluster"));
  const noLogs = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: false,
    preciseUdp: false,
    sampleIntervalMs: 10,
  });
  const none = await noLogs.logs("rome", "liqo", "p", "c");
  assert.ok(!none.ok && /cannot read container logs/.test(none.message));
});

Deno.test("hub resolve: memoised per host, off without network probes or on snapshots, denied is a result", async () => {
  let n = 0;
  const impls = {
    resolveHost: async (host: string) => {
      n++;
      await Promise.resolve();
      return host.startsWith("denied")
        ? { outcome: "unavailable" as const, detail: "no permission to query DNS: grant --allow-net" }
        : { outcome: "resolved" as const, addresses: ["203.0.113.50"], detail: "resolves to 203.0.113.50" };
    },
  };
  const hub = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 1,
    impls,
  });
  const [a, b] = await Promise.all([hub.resolve("gw.example.net"), hub.resolve("GW.example.net")]);
  assert.deepEqual(a, b);
  assert.equal(a.outcome, "resolved");
  assert.equal(n, 1);
  assert.match((await hub.resolve("denied.example.net")).detail, /--allow-net/);
  const off = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: false,
    preciseUdp: false,
    sampleIntervalMs: 1,
    impls,
  });
  assert.deepEqual(await off.resolve("gw.example.net"), {
    outcome: "unavailable",
    detail: DNS_PROBES_DISABLED,
  });
  const snap = createProbeHub({
    sources: new Map([["rome", source(true)]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 1,
    impls,
  });
  assert.deepEqual(await snap.resolve("gw.example.net"), {
    outcome: "unavailable",
    detail: SNAPSHOT_NO_PROBES,
  });
  const throwing = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 1,
    impls: { resolveHost: () => Promise.reject(new Error("boom")) },
  });
  assert.deepEqual(await throwing.resolve("x.example"), {
    outcome: "unavailable",
    detail: "DNS query failed: boom",
  });
  assert.equal(n, 2);
});

Deno.test("live hub: access reviews and dry runs go to the cluster's access client; a snapshot has none", async () => {
  const asked: string[] = [];
  const live: ClusterSource = {
    ...source(),
    access: {
      review: (attrs) => {
        asked.push(...attrs.map((a) => `${a.verb} ${a.resource}`));
        return Promise.resolve(attrs.map((a) => ({ ...a, allowed: a.verb !== "delete", reason: "" })));
      },
      dryRunCreate: (obj) =>
        Promise.resolve(
          obj.metadata.name === "refused"
            ? { ok: false as const, status: 403, reason: "Forbidden", message: "denied" }
            : { ok: true as const, status: 201, object: obj },
        ),
    },
  };
  const hub = createProbeHub({
    sources: new Map([["rome", live], ["snap", source(true)]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 0,
  });
  const ns = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  const a = await hub.access("rome", {
    reviews: [{ verb: "create", resource: "namespaces" }, { verb: "delete", resource: "pods" }],
    dryRuns: [ns("ok"), ns("refused")],
  });
  assert.ok(a.ok);
  assert.deepEqual(a.verdicts.map((v) => v.allowed), [true, false]);
  assert.deepEqual(a.dryRuns.map((d) => d.admitted), [true, false]);
  assert.deepEqual(asked, ["create namespaces", "delete pods"]);
  const s = await hub.access("snap", { reviews: [], dryRuns: [] });
  assert.equal(s.ok, false);
  assert.match(s.ok ? "" : s.unavailable, /snapshot/);
  const u = await hub.access("paris", { reviews: [], dryRuns: [] });
  assert.equal(u.ok, false);
});

Deno.test("warm resolves once the first WireGuard sample is in, before the sampling ends", async () => {
  let releaseFirst = () => {};
  const firstIn = new Promise<void>((r) => releaseFirst = r);
  let endSampling = () => {};
  const ended = new Promise<void>((r) => endSampling = r);
  const hub = createProbeHub({
    sources: new Map([["rome", source()]]),
    networkProbes: true,
    preciseUdp: false,
    sampleIntervalMs: 3000,
    udpTimeoutMs: 1500,
    impls: {
      collectWireguard: async (_s, ns, pod, _i, _sig, onFirst) => {
        await firstIn; // the first `wg show`
        onFirst?.();
        await ended; // the interval and the second sample
        return { ok: false, namespace: ns, pod, reason: "error", message: "done" };
      },
    },
  });
  let sampled = false;
  const whole = hub.wireguard("rome", "ns", "gw").then((e) => (sampled = true, e));
  let warmed = false;
  const warming = prefetchWireguard(hub, "rome", "ns", "gw").then(() => warmed = true);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(warmed, false, "not before the first sample");
  releaseFirst();
  await warming;
  assert.equal(sampled, false, "warm waited only for the first sample");
  endSampling();
  assert.equal((await whole).ok, false);
  // Once sampling has ended, warming the same pod again resolves at once (memoised).
  await prefetchWireguard(hub, "rome", "ns", "gw");
});
