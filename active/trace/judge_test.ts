import { fixText } from "../../report/remediation.ts";
import { fixAsReported } from "../../tests/support/remediation_view.ts";
import type { RemediationStep } from "../../checks/remediation.ts";
import assert from "node:assert/strict";
import {
  type HopCapture,
  judgeTrace,
  localise,
  TRACE_HOPS,
  type TraceDirection,
  type TraceHopId,
  type TraceMeasurement,
} from "./judge.ts";

/** What a capture saw: r = request, e = echo, re = both, - = neither, x = capture failed. */
type Saw = "r" | "e" | "re" | "-" | "x";

const FORWARD = {
  src: "rome-4b2a9e",
  dst: "milan-8d1f03",
  srcNode: "rome-worker-1",
  dstNode: "milan-worker-2",
};
const REVERSE = {
  src: "milan-8d1f03",
  dst: "rome-4b2a9e",
  srcNode: "milan-worker-2",
  dstNode: "rome-worker-1",
};

function hop(id: TraceHopId, saw: Saw, names: typeof FORWARD): HopCapture {
  const srcSide = id.startsWith("src");
  return {
    hop: id,
    cluster: srcSide ? names.src : names.dst,
    pod: srcSide ? "liqo-tenant-x/gw-src" : "liqo-tenant-y/gw-dst",
    iface: id.endsWith("geneve") ? (srcSide ? "liqo.srcgeneve1" : "liqo.dstgeneve1") : "liqo-tunnel",
    ...(id.endsWith("geneve") ? { node: srcSide ? names.srcNode : names.dstNode } : {}),
    capture: saw === "x"
      ? { kind: "unavailable", reason: "tcpdump: No such device exists" }
      : { kind: "captured", request: saw.includes("r"), reply: saw.includes("e"), packets: saw.length },
  };
}

const sideOf = (cluster: string) => (cluster === FORWARD.src ? "local" : "remote");

/** The fix as the dual run's report prints it (rome local, milan remote). */
const reported = (o: { remediation?: RemediationStep[] }) =>
  fixAsReported(o.remediation, { cluster: "rome-4b2a9e", peer: "milan-8d1f03" }, [
    "rome-4b2a9e",
    "milan-8d1f03",
  ]);

function direction(
  saws: [Saw, Saw, Saw, Saw],
  o: { echoed?: boolean; names?: typeof FORWARD; wg?: [number, number, number, number] } = {},
): TraceDirection {
  const names = o.names ?? FORWARD;
  const [stx, srx, dtx, drx] = o.wg ?? [0, 0, 0, 0];
  return {
    title: `${names.src} → ${names.dst}`,
    // rome is the local cluster of the run.
    source: {
      pod: `ff-probe-${names.srcNode}`,
      node: names.srcNode,
      cluster: names.src,
      side: sideOf(names.src),
    },
    destination: {
      pod: `ff-probe-${names.dstNode}`,
      node: names.dstNode,
      cluster: names.dst,
      side: sideOf(names.dst),
      address: "10.81.1.7",
    },
    nonce: "k3x9q2m7ab",
    skipped: null,
    hops: TRACE_HOPS.map((id, i) => hop(id, saws[i], names)),
    srcWg: { ok: true, cluster: names.src, tx: stx, rx: srx },
    dstWg: { ok: true, cluster: names.dst, tx: dtx, rx: drx },
    dial: o.echoed
      ? { ok: true, echoed: true, detail: "echo received" }
      : { ok: true, echoed: false, detail: "no answer" },
  };
}

const trace = (...directions: TraceDirection[]): TraceMeasurement => ({
  peer: "milan-8d1f03",
  missing: null,
  directions,
  notes: [],
});

Deno.test("localise: the echo came back → pass, a capture that missed it is noted", () => {
  assert.equal(localise(direction(["re", "re", "re", "re"], { echoed: true })).status, "pass");
  const r = localise(direction(["re", "-", "re", "re"], { echoed: true }));
  assert.equal(r.status, "pass");
  assert.match(r.text, /the captures on rome-4b2a9e source gateway's liqo-tunnel did not see it/);
});

Deno.test("localise: each request position names its fault", () => {
  const cases: [[Saw, Saw, Saw, Saw], string][] = [
    [["-", "-", "-", "-"], "node-geneve"],
    [["r", "-", "-", "-"], "gateway-routing"],
    [["r", "r", "-", "-"], "wireguard"],
    [["r", "r", "r", "-"], "remote-gateway-routing"],
    [["r", "r", "r", "r"], "remote-node"],
  ];
  for (const [saws, fault] of cases) {
    const r = localise(direction(saws));
    assert.equal(r.status, "fail", saws.join(","));
    assert.deepEqual(r.faults, [fault], saws.join(","));
  }
  assert.match(
    localise(direction(["-", "-", "-", "-"])).text,
    /last seen at the source pod, not at rome-4b2a9e source gateway's Geneve interface liqo\.srcgeneve1 toward rome-worker-1/,
  );
});

Deno.test("localise: the echo's way back names its fault", () => {
  const cases: [[Saw, Saw, Saw, Saw], string][] = [
    [["r", "r", "r", "re"], "reply-remote-gateway"],
    [["r", "r", "re", "re"], "reply-wireguard"],
    [["r", "re", "re", "re"], "reply-gateway-routing"],
    [["re", "re", "re", "re"], "reply-node-geneve"],
  ];
  for (const [saws, fault] of cases) {
    assert.deepEqual(localise(direction(saws)).faults, [fault], saws.join(","));
  }
});

Deno.test("localise: a capture that failed widens the fault to every segment since the last sighting", () => {
  const r = localise(direction(["r", "x", "-", "-"]));
  assert.deepEqual(r.faults, ["gateway-routing", "wireguard"]);
  assert.match(r.text, /hops in between could not be captured/);
  // Offload mode: the remote hops cannot be captured at all.
  const off = localise(direction(["r", "r", "x", "x"]));
  assert.equal(off.status, "fail");
  assert.deepEqual(off.faults, ["wireguard", "remote-gateway-routing", "remote-node"]);
  assert.match(off.text, /the hops after it could not be captured/);
});

Deno.test("localise: no datagram sent, or no address, is unknown", () => {
  const d = direction(["-", "-", "-", "-"]);
  assert.equal(localise({ ...d, dial: { ok: false, reason: "curl could not run" } }).status, "unknown");
  assert.equal(localise({ ...d, skipped: "no address to dial" }).status, "unknown");
});

Deno.test("judgeTrace: both directions pass → pass, every hop listed as seen", () => {
  const o = judgeTrace(trace(
    direction(["re", "re", "re", "re"], { echoed: true }),
    direction(["re", "re", "re", "re"], { echoed: true, names: REVERSE }),
  ));
  assert.equal(o.status, "pass");
  assert.equal(o.summary, "the nonce'd datagram came back for all 2 pairs traced, both directions");
  assert.deepEqual(o.evidence, [
    "rome-4b2a9e → milan-8d1f03 (rome-worker-1 → milan-worker-2): ff-probe-rome-worker-1 → ff-probe-milan-worker-2 at 10.81.1.7, nonce ff-trace-k3x9q2m7ab: echo received, seen at 4/4 capture points",
    "milan-8d1f03 → rome-4b2a9e (milan-worker-2 → rome-worker-1): ff-probe-milan-worker-2 → ff-probe-rome-worker-1 at 10.81.1.7, nonce ff-trace-k3x9q2m7ab: echo received, seen at 4/4 capture points",
  ]);
});

Deno.test("judgeTrace: one direction broken in the underlay names WireGuard with the counters", () => {
  const o = judgeTrace(trace(
    direction(["r", "r", "-", "-"], { wg: [148, 0, 0, 0] }),
    direction(["re", "re", "re", "re"], { echoed: true, names: REVERSE }),
  ));
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /^rome-4b2a9e → milan-8d1f03 \(rome-worker-1 → milan-worker-2\): WireGuard \/ underlay .* — during the trace rome-4b2a9e's WireGuard sent 148 B and milan-8d1f03's received nothing: the underlay drops WireGuard's UDP/,
  );
  assert.match(o.evidence!.join("\n"), /milan-8d1f03 destination gateway's liqo-tunnel: NOT seen/);
  assert.match(fixText(o.remediation), /TUN-01\.\.04, GW-05/);
});

Deno.test("judgeTrace: the reverse direction's broken Geneve path names the remote source node", () => {
  const o = judgeTrace(trace(
    direction(["re", "re", "re", "re"], { echoed: true }),
    direction(["-", "-", "-", "-"], { names: REVERSE }),
  ));
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /^milan-8d1f03 → rome-4b2a9e \(milan-worker-2 → rome-worker-1\): node → gateway Geneve/,
  );
  assert.match(reported(o), /kubectl --context milan-8d1f03 get internalnode milan-worker-2 -o yaml/);
});

Deno.test("judgeTrace: a remote node that never answers points at its CNI / policy", () => {
  const o = judgeTrace(trace(direction(["r", "r", "r", "r"])));
  assert.equal(o.status, "fail");
  assert.match(o.summary, /remote node \/ CNI \/ NetworkPolicy/);
  assert.match(reported(o), /# on milan-8d1f03: .*\nkubectl --context milan-8d1f03 get networkpolicies -A/);
  assert.match(
    o.evidence!.join("\n"),
    /reached milan-8d1f03 destination gateway's Geneve interface .* and no echo came back/,
  );
});

Deno.test("judgeTrace: unavailable captures show as unknown hops; nothing traced is unknown", () => {
  const o = judgeTrace(trace(direction(["r", "x", "x", "x"])));
  assert.equal(o.status, "fail");
  assert.match(
    o.evidence!.join("\n"),
    /milan-8d1f03 destination gateway's liqo-tunnel: unknown \(tcpdump: No such device exists\)/,
  );
  assert.match(
    o.summary,
    /gateway routing .* or WireGuard \/ underlay .* or remote gateway routing .* or remote node/,
  );
  assert.equal(judgeTrace({ ...trace(), missing: "no probe pod" }).status, "unknown");
  const skipped = direction(["-", "-", "-", "-"]);
  assert.equal(judgeTrace(trace({ ...skipped, skipped: "no address" })).status, "unknown");
});

Deno.test("judgeTrace: TCP crossed the pair the datagram died on → a UDP filter, not keys or AllowedIPs", () => {
  const lost = direction(["r", "r", "-", "-"], { wg: [148, 0, 0, 2000] });
  const tcpDown = judgeTrace(trace({ ...lost, tcp: "failed" }));
  assert.match(tcpDown.summary, /keys or AllowedIPs|WireGuard \/ underlay/);
  const o = judgeTrace(trace({ ...lost, tcp: "crossed" }));
  assert.equal(o.status, "fail");
  assert.doesNotMatch(o.summary, /keys or AllowedIPs/);
  assert.match(
    o.summary,
    /the UDP datagram stopped at WireGuard \/ underlay .* while TCP crossed the same pair: a filter on UDP there \(a NetworkPolicy, a firewall or NAT rule matching UDP 8081\)/,
  );
  assert.match(o.evidence!.join("\n"), /TCP control to 10\.81\.1\.7: crossed/);
  assert.match(fixText(o.remediation), /get networkpolicies -A/);
  assert.doesNotMatch(fixText(o.remediation), /TUN-01\.\.04/);
});
