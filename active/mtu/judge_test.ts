import { fixAsReported } from "../../tests/support/remediation_view.ts";
import assert from "node:assert/strict";
import {
  GENEVE_OVERHEAD,
  judgeMtu,
  MAX_PACKET,
  type MtuMeasurement,
  type PathSearch,
  PING_OVERHEAD,
  WIREGUARD_OVERHEAD,
} from "./judge.ts";

function search(p: Partial<PathSearch> = {}): PathSearch {
  return {
    target: "169.254.18.1",
    targetWhat: "the server's tunnel address",
    from: "gateway pod liqo-tenant-milan/gw-milan-1 (rome, client)",
    steps: [],
    largestPacket: 1340,
    firstFailing: 1341,
    boundary: { kind: "local-limit", mtu: 1340, line: "ping: local error: message too long, mtu=1340" },
    flakyAt: null,
    aborted: null,
    ...p,
  };
}

function measurement(p: Partial<MtuMeasurement> = {}): MtuMeasurement {
  return {
    peer: "milan",
    role: "client",
    missing: null,
    configured: [
      { source: "GatewayClient liqo-tenant-milan/milan spec.mtu (rome)", mtu: 1340, kind: "gateway" },
      { source: "InternalFabric liqo-tenant-milan/milan spec.mtu (rome)", mtu: 1340, kind: "fabric" },
    ],
    tunnel: search(),
    underlay: search({
      target: "203.0.113.10",
      targetWhat: "GatewayClient milan spec.endpoint.addresses[0] on rome",
      largestPacket: MAX_PACKET,
      firstFailing: null,
      boundary: null,
    }),
    gateway: { cluster: "rome", namespace: "liqo-tenant-milan", kind: "gatewayclient", name: "milan" },
    peerGateway: null,
    clusters: { local: "rome", peer: "milan", localId: "rome" },
    ...p,
  };
}

Deno.test("mtu arithmetic: the overheads are the IPv4 ones Liqo documents", () => {
  assert.equal(PING_OVERHEAD, 20 + 8);
  assert.equal(WIREGUARD_OVERHEAD, 20 + 8 + 16 + 16);
  assert.equal(GENEVE_OVERHEAD, 20 + 8 + 8 + 14);
  // Liqo's docs: a 1500-byte link gives a WireGuard MTU of 1440.
  assert.equal(1500 - WIREGUARD_OVERHEAD, 1440);
});

Deno.test("judgeMtu: the configured MTU crosses the tunnel → pass, with the arithmetic in evidence", () => {
  const o = judgeMtu(measurement());
  assert.equal(o.status, "pass");
  assert.match(o.summary, /gateway MTU 1340 fits: 1340-byte packets cross the tunnel/);
  assert.match(o.summary, /1500 bytes pass on the underlay/);
  const ev = o.evidence!.join("\n");
  assert.match(
    ev,
    /largest passing packet 1340 bytes \(1312-byte payload \+ 28\); 1341 bytes: refused locally/,
  );
  assert.match(ev, /a 1340-byte tunnel packet is 1400 bytes on the underlay/);
  assert.match(ev, /1340-byte fabric packets are 1390 bytes between the nodes and the gateway pod/);
});

Deno.test("judgeMtu: a silent black hole below the MTU fails naming N, M and the fix", () => {
  const o = judgeMtu(measurement({
    tunnel: search({ largestPacket: 1240, firstFailing: 1241, boundary: { kind: "lost" } }),
  }));
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /^largest packet through the tunnel is 1240 bytes; the gateway MTU is 1340: set spec\.mtu ≤ 1240 \(larger packets vanish without an error: a silent black hole\)$/,
  );
  // Observed on rome (the client) about milan, milan outside the run.
  assert.equal(
    fixAsReported(o.remediation, { cluster: "rome", peer: "milan" }),
    [
      "# the same tunnel MTU (1240 or less) on both gateways: Liqo copies spec.mtu to the WireGuard interface (--mtu) and the InternalFabric",
      "# on rome",
      `kubectl -n liqo-tenant-milan patch gatewayclient milan --type merge -p '{"spec":{"mtu":1240}}'`,
      "# on milan",
      `kubectl --kubeconfig <milan kubeconfig> -n <tenant namespace> patch gatewayserver rome --type merge -p '{"spec":{"mtu":1240}}'`,
      "# or set the network up again with it (liqoctl peer takes --mtu too):",
      "liqoctl network connect --remote-kubeconfig <milan kubeconfig> --mtu 1240",
    ].join("\n"),
  );
});

Deno.test("judgeMtu: frag needed names the router; the underlay bound lowers the advice", () => {
  const o = judgeMtu(measurement({
    tunnel: search({
      largestPacket: 1300,
      firstFailing: 1301,
      boundary: { kind: "frag-needed", mtu: 1300, from: "169.254.18.2", line: "" },
    }),
    underlay: search({
      target: "203.0.113.10",
      largestPacket: 1350,
      firstFailing: 1351,
      boundary: { kind: "lost" },
    }),
  }));
  assert.equal(o.status, "fail");
  // min(1300 through the tunnel, 1350 − 60 on the underlay) = 1290.
  assert.match(
    o.summary,
    /set spec\.mtu ≤ 1290 \(a router \(169\.254\.18\.2\) answered "frag needed", mtu 1300\)/,
  );
});

Deno.test("judgeMtu: the tunnel works but its WireGuard packets exceed the underlay → warn (fragmented)", () => {
  const o = judgeMtu(measurement({
    underlay: search({
      target: "203.0.113.10",
      largestPacket: 1380,
      firstFailing: 1381,
      boundary: { kind: "lost" },
    }),
  }));
  assert.equal(o.status, "warn");
  assert.match(
    o.summary,
    /1400 bytes and the underlay path passes only 1380: they travel fragmented — set spec\.mtu ≤ 1320/,
  );
});

Deno.test("judgeMtu: ICMP filtered on the underlay is unknown for the underlay, not a failure", () => {
  const o = judgeMtu(measurement({
    underlay: search({
      target: "203.0.113.10",
      largestPacket: null,
      firstFailing: 68,
      boundary: { kind: "lost" },
    }),
  }));
  assert.equal(o.status, "pass");
  assert.match(
    o.evidence!.join("\n"),
    /got no answer at any size \(filtered\?\): the underlay path MTU is unknown, not a failure/,
  );
});

Deno.test("judgeMtu: the server side says why the underlay was not measured", () => {
  const o = judgeMtu(measurement({
    role: "server",
    underlay: { skipped: "the local gateway is the WireGuard server: it does not know the client's address" },
  }));
  assert.equal(o.status, "pass");
  assert.match(o.evidence!.join("\n"), /underlay: not measured — the local gateway is the WireGuard server/);
});

Deno.test("judgeMtu: nothing crosses the tunnel → fail; no iputils → unknown with the reason", () => {
  const dead = judgeMtu(
    measurement({ tunnel: search({ largestPacket: null, firstFailing: 68, boundary: { kind: "lost" } }) }),
  );
  assert.equal(dead.status, "fail");
  assert.match(dead.summary, /no ping crossed the tunnel to 169\.254\.18\.1, not even 68 bytes/);
  const busybox = judgeMtu(measurement({
    tunnel: search({ aborted: "ping in the container is not iputils (no don't-fragment option `-M do`)" }),
  }));
  assert.equal(busybox.status, "unknown");
  assert.match(busybox.summary, /tunnel MTU not measured: ping in the container is not iputils/);
});

Deno.test("judgeMtu: missing inputs and a missing spec.mtu are unknown", () => {
  assert.equal(judgeMtu(measurement({ missing: "rome has no running gateway pod" })).status, "unknown");
  const o = judgeMtu(measurement({ configured: [] }));
  assert.equal(o.status, "unknown");
  assert.match(o.summary, /no gateway spec\.mtu was found/);
});

Deno.test("judgeMtu: a lost ping that passed on re-try is a warning, never a pass or a hard fail", () => {
  const ok = judgeMtu(measurement({
    tunnel: search({ largestPacket: 1340, firstFailing: null, boundary: null, flakyAt: 1340 }),
  }));
  assert.equal(ok.status, "warn");
  assert.match(ok.summary, /a lost ping passed on re-try/);
  const low = judgeMtu(measurement({
    tunnel: search({ largestPacket: 1200, firstFailing: null, boundary: null, flakyAt: 1200 }),
  }));
  assert.equal(low.status, "warn");
  assert.match(low.summary, /unreliable, re-run/);
});

Deno.test("judgeMtu: the remote gateway's larger MTU is the one judged", () => {
  const o = judgeMtu(measurement({
    configured: [
      { source: "GatewayClient liqo-tenant-milan/milan spec.mtu (rome)", mtu: 1340, kind: "gateway" },
      { source: "GatewayServer liqo-tenant-rome/rome spec.mtu (milan)", mtu: 1440, kind: "gateway" },
    ],
  }));
  assert.equal(o.status, "fail");
  assert.match(o.summary, /the gateway MTU is 1440: set spec\.mtu ≤ 1340/);
});

Deno.test("judgeMtu: a local refusal is the interface only when it equals the interface's MTU", () => {
  const boundary = (mtu: number) => ({
    kind: "local-limit" as const,
    mtu,
    line: `ping: local error: message too long, mtu=${mtu}`,
  });
  const configured = [{ source: "GatewayClient x spec.mtu (rome)", mtu: 1400, kind: "gateway" as const }];
  const own = judgeMtu(measurement({
    configured,
    tunnel: search({ boundary: boundary(1340), iface: { name: "liqo-tunnel", mtu: 1340 } }),
  }));
  assert.match(own.summary, /the gateway's own interface liqo-tunnel refuses larger packets: mtu 1340/);
  const cached = judgeMtu(measurement({
    configured,
    tunnel: search({
      largestPacket: 1280,
      firstFailing: 1281,
      boundary: boundary(1280),
      iface: { name: "liqo-tunnel", mtu: 1400 },
    }),
  }));
  assert.equal(cached.status, "fail");
  assert.doesNotMatch(cached.summary, /own interface/);
  assert.match(
    cached.summary,
    /path MTU of 1280 learnt from an earlier "frag needed" — its liqo-tunnel is 1400/,
  );
  const unread = judgeMtu(measurement({
    configured,
    tunnel: search({
      boundary: boundary(1340),
      iface: { name: "liqo-tunnel", error: "exit 1: no such file" },
    }),
  }));
  assert.doesNotMatch(unread.summary, /own interface/);
  assert.match(unread.summary, /its interface's MTU, or a path MTU cached/);
  assert.ok(unread.evidence!.some((l) => /liqo-tunnel MTU not read/.test(l)));
});
