import assert from "node:assert/strict";
import { measureTrace, readDial, runTrace, tracePairs, type TraceTiming, wgTotals } from "./measure.ts";
import {
  type ExecCall,
  fakeProbeContext,
  MILAN_GW,
  probePod,
  ran,
  ROME_GW,
} from "../../tests/support/probe_run_ctx.ts";
import type { ExecOutcome } from "../../kube/source.ts";
import type { Side } from "../model.ts";

/** Short windows: the fake captures last CAPTURE_MS of real time, like tcpdump's `timeout`. */
const TIMING: TraceTiming = { settleMs: 20, dialSeconds: 1, captureSeconds: 1 };
const CAPTURE_MS = 150;

/** The Geneve interface each gateway has toward each node (base fixtures' InternalNodes). */
const GENEVE: Record<string, string> = {
  "rome-worker-1": "liqo.n8tfw6hcz5",
  "milan-worker-2": "liqo.f2mx8vqb7h",
};
const GATEWAY_POD: Record<Side, string> = { local: ROME_GW.pod, remote: MILAN_GW.pod };

/** How far a datagram gets: request positions 0..4 (0: never reaches the first capture; 4: reaches the node, unanswered), 5: answered. */
interface Path {
  /** Request hops crossed (0..4); 4 plus `answer` means the destination replied. */
  reach: number;
  /** Reply hops crossed on the way back (0..4); 4 = the echo reaches the source pod. */
  back: number;
}

interface Packet {
  side: Side;
  iface: string;
  at: number;
  text: string;
}

/**
 * A fake data plane for rome (local, pod on rome-worker-1, 10.244.1.10) ⇄ milan (remote, pod on
 * milan-worker-2, 10.244.2.20): each dial lays its packets on the interfaces it crosses, captures
 * print those that crossed their interface during their window, wg counters move with them.
 */
function network(paths: Record<"rome" | "milan", Path>, opts: { tcpdumpMissing?: Side } = {}) {
  const packets: Packet[] = [];
  const wg: Record<Side, { rx: number; tx: number }> = {
    local: { rx: 1000, tx: 2000 },
    remote: { rx: 5000, tx: 6000 },
  };
  const exec = async (call: ExecCall): Promise<ExecOutcome> => {
    const c = call.command;
    if (c[0] === "timeout" && c[2] === "tcpdump") {
      if (opts.tcpdumpMissing === call.side) {
        return ran("", "timeout: failed to run command 'tcpdump': No such file or directory\n", 127);
      }
      const iface = c[c.indexOf("-i") + 1];
      const start = Date.now();
      await new Promise((r) => setTimeout(r, CAPTURE_MS));
      const seen = packets.filter((p) => p.side === call.side && p.iface === iface && p.at >= start);
      const out = seen.map((p) => p.text).join("");
      return ran(
        out,
        `listening on ${iface}, link-type RAW (Raw IPv4), snapshot length 256 bytes\n${seen.length} packets captured\n`,
        124,
      );
    }
    if (c[0] === "wg") {
      const w = wg[call.side];
      return ran(
        `PRIVATEKEYPRIVATEKEYPRIVATEKEYPRIVATEKEY0A=\tyWekIEb7O8JoD5KvxJfEeICYekx+a6stG9+TRBHm0RI=\t51840\toff\n` +
          `eCdzmlAqNdp4k3Kn0MiDJFewM1a7PirEMJvqYVj4tHk=\t(none)\t203.0.113.50:51840\t0.0.0.0/0\t1764469800\t${w.rx}\t${w.tx}\toff\n`,
      );
    }
    if (c[0] === "curl") {
      const url = new URL(c.at(-1)!);
      const request = url.searchParams.get("request")!;
      const nonce = request.replace(/^echo /, "");
      const from: Side = call.side;
      const to: Side = from === "local" ? "remote" : "local";
      const path = paths[from === "local" ? "rome" : "milan"];
      const srcNode = from === "local" ? "rome-worker-1" : "milan-worker-2";
      const dstNode = from === "local" ? "milan-worker-2" : "rome-worker-1";
      const hops: [Side, string][] = [[from, GENEVE[srcNode]], [from, "liqo-tunnel"], [to, "liqo-tunnel"], [
        to,
        GENEVE[dstNode],
      ]];
      const now = Date.now();
      const req = (a: string) =>
        `${
          new Date(now).toISOString().slice(11, 23)
        }456 IP ${a} > 10.71.2.20.8081: UDP, length 29\nE..9..@.?..Z\nG....echo ${nonce}\n`;
      const rep = (a: string) =>
        `${
          new Date(now).toISOString().slice(11, 23)
        }456 IP 10.71.2.20.8081 > ${a}: UDP, length 24\nE..4..@.?...\nQ....${nonce}\n`;
      hops.slice(0, path.reach).forEach(([side, iface]) =>
        packets.push({ side, iface, at: now, text: req("10.244.1.10.40000") })
      );
      if (path.reach >= 2) wg[from].tx += 148;
      if (path.reach >= 3) wg[to].rx += 148;
      if (path.reach === 4) {
        [...hops].reverse().slice(0, path.back).forEach(([side, iface]) =>
          packets.push({ side, iface, at: now, text: rep("10.244.1.10.40000") })
        );
      }
      if (path.reach === 4 && path.back === 4) return ran(JSON.stringify({ responses: [nonce], errors: [] }));
      return ran(
        JSON.stringify({
          responses: [],
          errors: ["reading from udp connection failed. err:'read udp: i/o timeout'"],
        }),
      );
    }
    return ran("", `unexpected command ${c.join(" ")}`, 1);
  };
  return { exec };
}

const PODS = {
  localPods: [probePod("local", "rome-worker-1", "10.244.1.10")],
  remotePods: [probePod("remote", "milan-worker-2", "10.244.2.20")],
};

Deno.test("trace: healthy, both directions → pass; captures ran in the gateway containers, wg in wireguard", async () => {
  const net = network({ rome: { reach: 4, back: 4 }, milan: { reach: 4, back: 4 } });
  const { ctx, calls } = await fakeProbeContext(net.exec, PODS);
  const out = await runTrace(ctx, TIMING);
  assert.equal(out.status, "pass", out.summary);
  assert.equal(out.cluster, "rome-4b2a9e ↔ milan-8d1f03");
  const captures = calls.filter((c) => c.command[2] === "tcpdump");
  assert.equal(captures.length, 8);
  assert.ok(captures.every((c) => c.container === "gateway" && c.pod === GATEWAY_POD[c.side]));
  assert.deepEqual(
    [
      ...new Set(
        captures.filter((c) => c.side === "local").map((c) => c.command[c.command.indexOf("-i") + 1]),
      ),
    ].sort(),
    ["liqo-tunnel", "liqo.n8tfw6hcz5"],
  );
  assert.ok(calls.filter((c) => c.command[0] === "wg").every((c) => c.container === "wireguard"));
  const dials = calls.filter((c) => c.command[0] === "curl");
  assert.deepEqual(dials.map((c) => [c.side, c.pod, c.container]).sort(), [
    ["local", "ff-probe-rome-worker-1", "probe"],
    ["remote", "ff-probe-milan-worker-2", "probe"],
  ]);
  // rome dials milan's pod at its remapped address (rome's Configuration: 10.244.0.0/16 → 10.71.0.0/16).
  assert.match(dials.find((c) => c.side === "local")!.command.at(-1)!, /host=10\.71\.2\.20/);
  assert.equal(out.evidence!.filter((l) => /echo received, seen at 4\/4 capture points$/.test(l)).length, 2);
});

Deno.test("trace: each fault position is localised, in either direction", async () => {
  const cases: [Path, RegExp][] = [
    [{ reach: 0, back: 0 }, /node → gateway Geneve/],
    [{ reach: 1, back: 0 }, /gateway routing \(the source gateway/],
    [{ reach: 2, back: 0 }, /WireGuard \/ underlay .* WireGuard sent 148 B and .* received nothing/],
    [{ reach: 3, back: 0 }, /remote gateway routing/],
    [{ reach: 4, back: 0 }, /remote node \/ CNI \/ NetworkPolicy/],
    [{ reach: 4, back: 2 }, /the echo's way back: WireGuard \/ underlay/],
  ];
  for (const [broken, re] of cases) {
    for (const dir of ["rome", "milan"] as const) {
      const healthy: Path = { reach: 4, back: 4 };
      const net = network(
        dir === "rome" ? { rome: broken, milan: healthy } : { rome: healthy, milan: broken },
      );
      const { ctx } = await fakeProbeContext(net.exec, PODS);
      const out = await runTrace(ctx, TIMING);
      const title = dir === "rome" ? "rome-4b2a9e → milan-8d1f03" : "milan-8d1f03 → rome-4b2a9e";
      assert.equal(out.status, "fail", `${dir} ${JSON.stringify(broken)}`);
      assert.ok(out.summary.startsWith(`${title} (`), out.summary);
      assert.match(out.summary, re, `${dir} ${JSON.stringify(broken)}: ${out.summary}`);
      assert.equal(out.summary.split("; ").length, 1, "only the broken direction is named");
    }
  }
});

Deno.test("trace: without the remote cluster only local → remote is traced, the remote hops unknown", async () => {
  const net = network({ rome: { reach: 2, back: 0 }, milan: { reach: 4, back: 4 } });
  const { ctx, calls } = await fakeProbeContext(net.exec, { ...PODS, withRemote: false, mode: "offload" });
  const m = await measureTrace(ctx, TIMING);
  assert.equal(m.directions.length, 1);
  assert.match(
    m.notes[0],
    /offload mode without --remote-kubeconfig: only rome-4b2a9e → milan-8d1f03 traced/,
  );
  assert.ok(calls.every((c) => c.side === "local"));
  const out = await runTrace(ctx, TIMING);
  assert.equal(out.status, "fail");
  assert.match(out.summary, /WireGuard \/ underlay .* or remote gateway routing .* or remote node/);
  assert.match(
    out.evidence!.join("\n"),
    /milan-8d1f03 destination gateway's liqo-tunnel: unknown \(offload mode without --remote-kubeconfig/,
  );
});

Deno.test("trace: tcpdump missing in one cluster makes its hops unknown, not 'not seen'", async () => {
  const net = network({ rome: { reach: 4, back: 4 }, milan: { reach: 4, back: 4 } }, {
    tcpdumpMissing: "remote",
  });
  const { ctx } = await fakeProbeContext(net.exec, PODS);
  const out = await runTrace(ctx, TIMING);
  assert.equal(out.status, "pass");
  assert.match(
    out.evidence!.join("\n"),
    /rome-4b2a9e → milan-8d1f03 \(rome-worker-1 → milan-worker-2\): .*: echo received, seen at 2\/4 capture points/,
  );
});

Deno.test("trace: no probe pod, or no address to dial, is unknown", async () => {
  const net = network({ rome: { reach: 4, back: 4 }, milan: { reach: 4, back: 4 } });
  const { ctx } = await fakeProbeContext(net.exec, { localPods: PODS.localPods, remotePods: [] });
  const none = await runTrace(ctx, TIMING);
  assert.equal(none.status, "unknown");
  assert.match(none.summary, /no probe pod on the remote side/);
  const { ctx: outside } = await fakeProbeContext(net.exec, {
    localPods: PODS.localPods,
    remotePods: [probePod("remote", "milan-worker-2", "192.168.9.9")],
  });
  const r = await runTrace(outside, TIMING);
  assert.equal(r.status, "unknown");
  assert.match(
    r.evidence!.join("\n"),
    /not traced — no address to dial: 192\.168\.9\.9 .* is not inside spec\.remote\.cidr\.pod/,
  );
});

Deno.test("readDial and wgTotals read netexec's JSON and wg's dump", () => {
  assert.deepEqual(readDial(ran('{"responses":["ff-trace-abc"],"errors":[]}'), "ff-trace-abc"), {
    ok: true,
    echoed: true,
    detail: "echo received",
  });
  const lost = readDial(ran('{"responses":[],"errors":["read udp: i/o timeout"]}'), "ff-trace-abc");
  assert.deepEqual(lost, { ok: true, echoed: false, detail: "read udp: i/o timeout" });
  assert.equal(readDial(ran("", "curl: (7) Failed to connect to 127.0.0.1 port 8080", 7), "x").ok, false);
  assert.deepEqual(
    readDial(
      ran("", "curl: (28) Operation timed out after 3001 milliseconds with 0 bytes received", 28),
      "x",
    ),
    {
      ok: true,
      echoed: false,
      detail: "curl's --max-time passed while netexec still waited for the echo",
    },
  );
  assert.equal(readDial(ran("<html>"), "x").ok, false);
  assert.deepEqual(
    wgTotals(
      ran(
        "K\tP\t1\toff\nP2\t(none)\t1.2.3.4:5\t0.0.0.0/0\t0\t10\t20\toff\n".replace(
          "K",
          "qNV+r8tTemNWVIOgIL/Cmra10L1IGDl3jifN/h8lNW4=",
        ).replace("P\t", "yWekIEb7O8JoD5KvxJfEeICYekx+a6stG9+TRBHm0RI=\t").replace(
          "P2",
          "eCdzmlAqNdp4k3Kn0MiDJFewM1a7PirEMJvqYVj4tHk=",
        ),
      ),
    ),
    { rx: 10, tx: 20 },
  );
  assert.deepEqual(wgTotals(ran("", "Unable to access interface: No such device", 1)), {
    reason: "wg exited 1: Unable to access interface: No such device",
  });
});

Deno.test("tracePairs: every node of either side in a pair, at most four, sorted by node", () => {
  const l = ["b", "a", "c"].map((n) => probePod("local", `rome-${n}`, "10.244.1.1"));
  const r = ["y", "x"].map((n) => probePod("remote", `milan-${n}`, "10.244.1.2"));
  assert.deepEqual(tracePairs(l, r).map(([s, d]) => `${s.node}>${d.node}`), [
    "rome-a>milan-x",
    "rome-b>milan-y",
    "rome-c>milan-x",
  ]);
  const many = Array.from({ length: 7 }, (_, i) => probePod("local", `n${i}`, "10.244.1.1"));
  assert.equal(tracePairs(many, r).length, 4);
  assert.deepEqual(tracePairs([], r), []);
});
