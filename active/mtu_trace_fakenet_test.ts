/**
 * PROBE-MTU and PROBE-TRACE in-process against the fake data plane the fake API server uses
 * (fakekube/probe_exec.ts over the rome ↔ milan base examples): the real command lines go
 * into the exec router that answers like iputils, tcpdump and netexec would.
 */
import assert from "node:assert/strict";
import { runMtu } from "./mtu/measure.ts";
import { runTrace } from "./trace/measure.ts";
import { twoClusters } from "../tests/support/netfixture.ts";
import { fakeProbeContext, probePod } from "../tests/support/probe_run_ctx.ts";
import type { ExecOutcome } from "../kube/source.ts";

const PODS = {
  localPods: [probePod("local", "rome-worker-1", "10.244.1.50", "p-rome-w1")],
  remotePods: [probePod("remote", "milan-worker-1", "10.244.1.60", "p-milan-w1")],
};

async function fakeNet(model: unknown) {
  const net = await twoClusters(model);
  const exec = async (
    call: { side: "local" | "remote"; pod: string; container: string; command: readonly string[] },
  ): Promise<ExecOutcome> => {
    const cluster = call.side === "local" ? "rome" : "milan";
    const pod = (cluster === "rome" ? net.rome : net.milan).find((o) => o.metadata.name === call.pod);
    if (!pod) return { ok: false, reason: "missing", message: `pods "${call.pod}" not found` };
    const answer = net.host.exec(cluster, pod, call.container, call.command, new AbortController().signal);
    // `wg` is answered by the API server's own exec handler, not by the data plane: unknown here.
    if (!answer) return { ok: false, reason: "error", message: `no fake answer for ${call.command[0]}` };
    const r = await answer;
    return { ok: true, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, via: "api" };
  };
  return exec;
}

Deno.test("fake data plane: PROBE-MTU passes on a healthy peering and names the safe MTU below the tunnel's", async () => {
  const { ctx } = await fakeProbeContext(await fakeNet({}), PODS);
  const healthy = await runMtu(ctx);
  assert.equal(healthy.status, "pass", healthy.summary);

  const { ctx: low } = await fakeProbeContext(await fakeNet({ mtu: { tunnel: 1240, icmp: false } }), PODS);
  const hole = await runMtu(low);
  assert.equal(hole.status, "fail");
  assert.match(
    hole.summary,
    /^largest packet through the tunnel is 1240 bytes; the gateway MTU is 1340: set spec\.mtu ≤ 1240/,
  );
  assert.match(hole.summary, /silent black hole/);

  const { ctx: under } = await fakeProbeContext(await fakeNet({ mtu: { underlay: 1380 } }), PODS);
  const small = await runMtu(under);
  assert.equal(small.status, "fail");
  assert.match(
    small.summary,
    /largest packet through the tunnel is 1320 bytes; the gateway MTU is 1340: set spec\.mtu ≤ 1320 \(a router/,
  );
});

Deno.test("fake data plane: PROBE-TRACE passes when healthy, localises a broken Geneve path and a black-holed node", async () => {
  const timing = { settleMs: 100, dialSeconds: 1, captureSeconds: 1 };
  const { ctx } = await fakeProbeContext(await fakeNet({}), PODS);
  const healthy = await runTrace(ctx, timing);
  assert.equal(healthy.status, "pass", healthy.summary + "\n" + healthy.evidence?.join("\n"));

  const { ctx: geneve } = await fakeProbeContext(
    await fakeNet({ geneveBroken: ["rome/rome-worker-1"] }),
    PODS,
  );
  const g = await runTrace(geneve, timing);
  assert.equal(g.status, "fail", g.summary + "\n" + g.evidence?.join("\n"));
  assert.match(
    g.summary,
    /rome-4b2a9e → milan-8d1f03 \(rome-worker-1 → milan-worker-1\): node → gateway Geneve/,
    g.summary,
  );

  const { ctx: hole } = await fakeProbeContext(
    await fakeNet({ blackholedNodes: ["milan/milan-worker-1"] }),
    PODS,
  );
  const h = await runTrace(hole, timing);
  assert.equal(h.status, "fail");
  assert.match(
    h.summary,
    /rome-4b2a9e → milan-8d1f03 \(rome-worker-1 → milan-worker-1\): remote node \/ CNI \/ NetworkPolicy/,
    h.summary,
  );

  const { ctx: udp } = await fakeProbeContext(await fakeNet({ udpBlockedUnderlay: true }), PODS);
  const u = await runTrace(udp, timing);
  assert.equal(u.status, "fail");
  assert.match(
    u.summary,
    /^rome-4b2a9e → milan-8d1f03 \(.*\): WireGuard \/ underlay .*; milan-8d1f03 → rome-4b2a9e \(.*\): WireGuard \/ underlay/,
    u.summary,
  );
});

Deno.test("fake data plane: PROBE-TRACE covers every node, so one black-holed remote node is named by its pairs", async () => {
  const pods = {
    localPods: [
      probePod("local", "rome-worker-1", "10.244.1.50", "p-rome-w1"),
      probePod("local", "rome-worker-2", "10.244.2.50", "p-rome-w2"),
    ],
    remotePods: [
      probePod("remote", "milan-worker-1", "10.244.1.60", "p-milan-w1"),
      probePod("remote", "milan-worker-2", "10.244.2.60", "p-milan-w2"),
    ],
  };
  const { ctx } = await fakeProbeContext(await fakeNet({ blackholedNodes: ["milan/milan-worker-2"] }), pods);
  const out = await runTrace(ctx, { settleMs: 100, dialSeconds: 1, captureSeconds: 1 });
  assert.equal(out.status, "fail");
  assert.equal(
    out.summary,
    "rome-4b2a9e → milan-8d1f03 (rome-worker-2 → milan-worker-2): remote node / CNI / NetworkPolicy (it reached the destination node's Geneve and got no answer); " +
      "milan-8d1f03 → rome-4b2a9e (milan-worker-2 → rome-worker-2): the echo's way back: the source node's Geneve / CNI path to the pod",
  );
  const ev = out.evidence!.join("\n");
  assert.match(
    ev,
    /rome-4b2a9e → milan-8d1f03 \(rome-worker-1 → milan-worker-1\): .*echo received, seen at 4\/4 capture points/,
  );
});
