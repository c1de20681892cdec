import { fixAsReported } from "../../tests/support/remediation_view.ts";
import assert from "node:assert/strict";
import {
  MAX_PINGS,
  measureMtu,
  peerTunnelAddress,
  type PingFn,
  runMtu,
  searchLargestPacket,
} from "./measure.ts";
import type { PingReading } from "./_ping.ts";
import { PING_OVERHEAD } from "./judge.ts";
import { fakeProbeContext, MILAN_GW, ran, ROME_GW } from "../../tests/support/probe_run_ctx.ts";
import { find } from "../../tests/support/fixtures.ts";

/** A path: the sender's interface MTU, the path MTU beyond it, and whether a too-big packet gets ICMP back. */
interface PathModel {
  iface: number;
  path: number;
  icmp: boolean;
  /** Sizes (IP bytes) whose first ping is lost (then they behave normally). */
  lossOnce?: number[];
  /** Nothing ever answers (ICMP filtered). */
  silent?: boolean;
  /** A path MTU the kernel cached from an earlier "frag needed": larger sends fail locally with it. */
  cached?: number;
}

function modelPing(m: PathModel): { ping: PingFn; sent: number[] } {
  const sent: number[] = [];
  const lossOnce = new Set(m.lossOnce ?? []);
  const ping: PingFn = (payload) => {
    const packet = payload + PING_OVERHEAD;
    sent.push(packet);
    let r: PingReading;
    if (packet > m.iface) {
      r = { kind: "local-limit", mtu: m.iface, line: `ping: local error: message too long, mtu=${m.iface}` };
    } else if (m.silent) r = { kind: "lost" };
    else if (lossOnce.delete(packet)) r = { kind: "lost" };
    else if (packet > m.path) {
      r = m.icmp ? { kind: "frag-needed", mtu: m.path, from: "10.0.0.1", line: "" } : { kind: "lost" };
    } else r = { kind: "pass" };
    return Promise.resolve(r);
  };
  return { ping, sent };
}

Deno.test("search: a healthy 1340 tunnel takes two pings (the interface's mtu hint, then the MTU itself)", async () => {
  const { ping, sent } = modelPing({ iface: 1340, path: 9000, icmp: true });
  const r = await searchLargestPacket(ping);
  assert.deepEqual(sent, [1500, 1340]);
  assert.equal(r.largestPacket, 1340);
  assert.equal(r.firstFailing, 1341);
  assert.equal(r.boundary?.kind, "local-limit");
  assert.equal(r.aborted, null);
});

Deno.test("search: a path that carries 1500 takes one ping", async () => {
  const { ping, sent } = modelPing({ iface: 1500, path: 1500, icmp: true });
  const r = await searchLargestPacket(ping);
  assert.deepEqual(sent, [1500]);
  assert.equal(r.largestPacket, 1500);
  assert.equal(r.firstFailing, null);
});

Deno.test("search: frag needed (mtu = X) jumps straight to X", async () => {
  const { ping, sent } = modelPing({ iface: 1340, path: 1300, icmp: true });
  const r = await searchLargestPacket(ping);
  assert.deepEqual(sent, [1500, 1340, 1300]);
  assert.equal(r.largestPacket, 1300);
  assert.equal(r.firstFailing, 1301);
  assert.equal(r.boundary?.kind, "frag-needed");
});

Deno.test("search: a silent black hole is bisected exactly, within the ping budget, with one re-try", async () => {
  for (let path = 68; path <= 1340; path += 37) {
    const { ping, sent } = modelPing({ iface: 1340, path, icmp: false });
    const r = await searchLargestPacket(ping);
    assert.equal(r.largestPacket, path, `path ${path}`);
    assert.equal(r.firstFailing, path === 1340 ? 1341 : path + 1, `path ${path}`);
    assert.ok(sent.length <= MAX_PINGS, `path ${path}: ${sent.length} pings`);
    if (path < 1340) {
      assert.equal(r.boundary?.kind, "lost");
      assert.equal(r.steps.at(-1)?.retry, true, "the unanswered boundary is re-tried once");
      assert.equal(r.steps.at(-1)?.payload, path + 1 - PING_OVERHEAD);
    }
  }
});

Deno.test("search: ICMP filtered entirely → nothing passes, not even 68 bytes (re-tried once)", async () => {
  const { ping, sent } = modelPing({ iface: 1500, path: 1500, icmp: false, silent: true });
  const r = await searchLargestPacket(ping);
  assert.equal(r.largestPacket, null);
  assert.equal(r.firstFailing, 68);
  // The top, then the smallest, then its one re-try: a filtered endpoint costs three 1 s waits,
  // not a bisection of a path that never answers (~12 s).
  assert.deepEqual(sent, [1500, 68, 68]);
});

Deno.test("search: a size lost once and passing on re-try is flaky, not a boundary", async () => {
  const { ping } = modelPing({ iface: 1340, path: 9000, icmp: true, lossOnce: [1340] });
  const r = await searchLargestPacket(ping);
  assert.equal(r.flakyAt, 1340);
  assert.equal(r.largestPacket, 1340);
  assert.equal(r.firstFailing, null);
  assert.equal(r.steps.filter((s) => s.payload === 1340 - PING_OVERHEAD).length, 2);
});

Deno.test("search: no iputils aborts at once with the reason; the ping budget is a hard stop", async () => {
  let n = 0;
  const busybox: PingFn = () => {
    n++;
    return Promise.resolve({ kind: "unsupported", reason: "ping in the container is not iputils" });
  };
  const r = await searchLargestPacket(busybox);
  assert.equal(n, 1);
  assert.equal(r.aborted, "ping in the container is not iputils");
  const { ping, sent } = modelPing({ iface: 1500, path: 700, icmp: false });
  const capped = await searchLargestPacket(ping, { minPacket: 68, maxPacket: 1500, maxPings: 3 });
  assert.equal(sent.length, 3);
  assert.match(capped.aborted ?? "", /stopped after 3 pings between/);
});

Deno.test("search: stops when the run is interrupted", async () => {
  const ac = new AbortController();
  const { ping, sent } = modelPing({ iface: 1340, path: 700, icmp: false });
  const r = await searchLargestPacket(
    (p) => {
      if (sent.length === 2) ac.abort();
      return ping(p);
    },
    undefined,
    ac.signal,
  );
  assert.equal(r.aborted, "interrupted");
  assert.equal(sent.length, 3);
});

/** An exec router answering the gateways' `ping -M do` from per-target path models. */
function pingRouter(models: Record<string, PathModel>) {
  return (call: { command: readonly string[] }) => {
    const c = call.command;
    if (c[0] === "cat" && c[1] === "/sys/class/net/liqo-tunnel/mtu") return ran("1340\n");
    if (c[0] === "cat" && c[1] === "/sys/class/net/eth0/mtu") return ran("1500\n");
    if (c[0] !== "ping") return ran("", `unexpected ${c.join(" ")}`, 1);
    const payload = Number(c[c.indexOf("-s") + 1]);
    const target = c.at(-1)!;
    const m = models[target];
    if (!m) return ran("", `ping: ${target}: Name or service not known`, 2);
    const packet = payload + 28;
    const head = `PING ${target} (${target}) ${payload}(${packet}) bytes of data.\n`;
    const stats = (rx: number, err = "") =>
      `\n--- ${target} ping statistics ---\n1 packets transmitted, ${rx} received, ${err}${
        rx ? "0" : "100"
      }% packet loss, time 0ms\n`;
    const local = Math.min(m.iface, m.cached ?? Infinity);
    if (packet > local) {
      return ran(head + stats(0, "+1 errors, "), `ping: local error: message too long, mtu=${local}\n`, 1);
    }
    if (m.silent) return ran(head + stats(0), "", 1);
    if (packet > m.path) {
      return m.icmp
        ? ran(
          `${head}From 10.0.0.1 icmp_seq=1 Frag needed and DF set (mtu = ${m.path})\n${
            stats(0, "+1 errors, ")
          }`,
          "",
          1,
        )
        : ran(head + stats(0), "", 1);
    }
    return ran(`${head}${payload + 8} bytes from ${target}: icmp_seq=1 ttl=64 time=0.5 ms\n${stats(1)}`);
  };
}

Deno.test("runMtu (rome, client): pings the server's tunnel address and its GatewayClient endpoint from the gateway container", async () => {
  const { ctx, calls } = await fakeProbeContext(pingRouter({
    "169.254.18.1": { iface: 1340, path: 9000, icmp: true },
    "203.0.113.50": { iface: 1500, path: 1500, icmp: true },
  }));
  const out = await runMtu(ctx);
  assert.equal(out.status, "pass", out.summary);
  assert.match(
    out.summary,
    /gateway MTU 1340 fits: 1340-byte packets cross the tunnel with don't-fragment, 1500 bytes pass on the underlay/,
  );
  assert.ok(calls.every((c) => c.side === "local" && c.pod === ROME_GW.pod && c.container === "gateway"));
  assert.deepEqual(calls.map((c) => c.command.join(" ")).sort(), [
    "cat /sys/class/net/eth0/mtu",
    "cat /sys/class/net/liqo-tunnel/mtu",
    "ping -M do -c 1 -W 1 -s 1312 169.254.18.1",
    "ping -M do -c 1 -W 1 -s 1472 169.254.18.1",
    "ping -M do -c 1 -W 1 -s 1472 203.0.113.50",
  ]);
  const ev = out.evidence!.join("\n");
  assert.match(
    ev,
    /configured: GatewayClient liqo-tenant-milan-8d1f03\/milan-8d1f03 spec\.mtu \(rome-4b2a9e\) = 1340/,
  );
  assert.match(
    ev,
    /configured: GatewayServer liqo-tenant-rome-4b2a9e\/rome-4b2a9e spec\.mtu \(milan-8d1f03\) = 1340/,
  );
  assert.match(ev, /configured: InternalFabric .* spec\.mtu \(rome-4b2a9e\) = 1340/);
});

Deno.test("runMtu: a black hole below the MTU fails with the safe value; the underlay bound joins it", async () => {
  const { ctx } = await fakeProbeContext(pingRouter({
    "169.254.18.1": { iface: 1340, path: 1280, icmp: false },
    "203.0.113.50": { iface: 1500, path: 1340, icmp: false },
  }));
  const out = await runMtu(ctx);
  assert.equal(out.status, "fail");
  assert.equal(
    out.summary,
    "largest packet through the tunnel is 1280 bytes; the gateway MTU is 1340: set spec.mtu ≤ 1280 (larger packets vanish without an error: a silent black hole)",
  );
  // As a dual run's report prints it: the peer's gateway is patched on milan, the network set up from rome.
  const fix = fixAsReported(out.remediation, { cluster: "rome-4b2a9e", peer: "milan-8d1f03" }, [
    "rome-4b2a9e",
    "milan-8d1f03",
  ]);
  assert.match(
    fix,
    /# on milan-8d1f03\nkubectl --context milan-8d1f03 -n liqo-tenant-rome-4b2a9e patch gatewayserver rome-4b2a9e --type merge -p '\{"spec":\{"mtu":1280\}\}'/,
  );
  assert.match(fix, /liqoctl network connect --remote-kubeconfig <milan-8d1f03 kubeconfig> --mtu 1280/);
});

Deno.test("runMtu (milan, server, no remote kubeconfig): the underlay is skipped with the reason", async () => {
  const { ctx, calls } = await fakeProbeContext(
    pingRouter({ "169.254.18.2": { iface: 1340, path: 9000, icmp: true } }),
    { local: "milan", withRemote: false },
  );
  const m = await measureMtu(ctx);
  assert.equal(m.role, "server");
  assert.ok(m.underlay && "skipped" in m.underlay);
  assert.match(
    m.underlay.skipped,
    /the local gateway is the WireGuard server: it does not know the client's address \(give --remote-kubeconfig/,
  );
  assert.ok(
    calls.every((c) =>
      c.pod === MILAN_GW.pod &&
      (c.command.at(-1) === peerTunnelAddress("server") ||
        c.command.join(" ") === "cat /sys/class/net/liqo-tunnel/mtu")
    ),
  );
  assert.equal(peerTunnelAddress("server"), "169.254.18.2");
});

Deno.test("runMtu (milan, server, direct): the underlay is measured from the client's gateway", async () => {
  const { ctx, calls } = await fakeProbeContext(
    pingRouter({
      "169.254.18.2": { iface: 1340, path: 9000, icmp: true },
      "203.0.113.50": { iface: 1500, path: 1380, icmp: true },
    }),
    { local: "milan" },
  );
  const out = await runMtu(ctx);
  const underlay = calls.filter((c) => c.command.at(-1) === "203.0.113.50");
  assert.ok(underlay.length > 0 && underlay.every((c) => c.side === "remote" && c.pod === ROME_GW.pod));
  assert.equal(out.status, "warn");
  assert.match(
    out.summary,
    /1400 bytes and the underlay path passes only 1380: they travel fragmented — set spec\.mtu ≤ 1320/,
  );
});

Deno.test("runMtu: no running gateway pod, or an image without iputils, is unknown with the reason", async () => {
  const { ctx } = await fakeProbeContext(pingRouter({}), {
    withRemote: false,
    mutate: (_side, objs) => {
      find(objs, "Pod", ROME_GW.pod, ROME_GW.namespace).status.phase = "Pending";
    },
  });
  const none = await runMtu(ctx);
  assert.equal(none.status, "unknown");
  assert.match(
    none.summary,
    /no running gateway pod for GatewayClient liqo-tenant-milan-8d1f03\/milan-8d1f03 on rome-4b2a9e/,
  );

  const { ctx: bb } = await fakeProbeContext(
    () => ran("", "ping: invalid option -- 'M'\nBusyBox v1.36.1 multi-call binary.\n", 1),
    { withRemote: false },
  );
  const busybox = await runMtu(bb);
  assert.equal(busybox.status, "unknown");
  assert.match(busybox.summary, /tunnel MTU not measured: ping in the container is not iputils/);
});

Deno.test("runMtu: a path MTU cached from an earlier run is told from the interface (read in the container)", async () => {
  const { ctx } = await fakeProbeContext(pingRouter({
    "169.254.18.1": { iface: 1340, path: 1280, icmp: true, cached: 1280 },
    "203.0.113.50": { iface: 1500, path: 1500, icmp: true },
  }));
  const out = await runMtu(ctx);
  assert.equal(out.status, "fail");
  assert.doesNotMatch(out.summary, /own interface/);
  assert.match(
    out.summary,
    /set spec\.mtu ≤ 1280 \(a router on the path limits it: the gateway's kernel holds a path MTU of 1280 learnt from an earlier "frag needed" — its liqo-tunnel is 1340\)/,
  );
  assert.ok(
    out.evidence!.some((l) =>
      /liqo-tunnel MTU is 1340: the local refusal at mtu=1280 is a path MTU the kernel cached/.test(l)
    ),
    out.evidence!.join("\n"),
  );
});
