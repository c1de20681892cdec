import assert from "node:assert/strict";
import { EXEC_HEADROOM_MS, gatewayNode, podOnNode, runUdp, seriesBatches } from "./measure.ts";
import { type ExecCall, fakeProbeContext, probePod, ran } from "../../tests/support/probe_run_ctx.ts";
import { UDP_DATAGRAM_WAIT_S, UDP_SERIES_MARKER } from "../commands.ts";
import type { ExecOutcome } from "../../kube/source.ts";

// The base fixtures' gateway pods run on rome-worker-1 (rome) and milan-worker-2 (milan).
const ROME = [1, 2].map((i) => probePod("local", `rome-worker-${i}`, `10.244.1.${10 + i}`)).reverse();
const MILAN = [1, 2].map((i) => probePod("remote", `milan-worker-${i}`, `10.244.2.${10 + i}`));

/** Answers the series script and the clientip dial like netexec behind curl. */
function farSide(
  opts: { lose?: (seq: number) => boolean; sourceSeen?: string; execLimitS?: number } = {},
) {
  return (call: ExecCall): ExecOutcome => {
    const script = call.command[2] ?? "";
    if (call.command[0] === "sh" && script.includes(UDP_SERIES_MARKER)) {
      const count = Number(/count=(\d+)/.exec(script)![1]);
      const first = Number(/first=(\d+)/.exec(script)?.[1] ?? "1");
      const nonce = /nonce=([a-z0-9]+)/.exec(script)![1];
      const seqs = Array.from({ length: count }, (_, i) => first + i);
      // The client's exec limit, like kube/live/exec.ts: a script that waits longer is cut off.
      const worstS = seqs.filter((q) => opts.lose?.(q)).length * UDP_DATAGRAM_WAIT_S;
      if (opts.execLimitS !== undefined && worstS > opts.execLimitS) {
        return { ok: false, reason: "error", message: `exec timed out after ${opts.execLimitS * 1000} ms` };
      }
      const lines = seqs.map((seq) => {
        return opts.lose?.(seq)
          ? `${seq} {"responses":[],"errors":["reading from udp connection failed. err:'i/o timeout'"]} 2.001`
          : `${seq} {"responses":["ff-${nonce}-${seq}"],"errors":[]} 0.00${seq % 9 + 1}`;
      });
      return ran(lines.join("\n") + "\n");
    }
    if (call.command[0] === "curl" && call.command.at(-1)!.includes("request=clientip")) {
      return ran(JSON.stringify({ responses: [`${opts.sourceSeen ?? "10.68.1.11"}:40123`], errors: [] }));
    }
    return ran("", `unexpected ${call.command.join(" ")}`, 2);
  };
}

Deno.test("udp runner: sends from the pod on the gateway's node to the peer's gateway node", async () => {
  const { ctx, calls } = await fakeProbeContext(farSide(), { localPods: ROME, remotePods: MILAN });
  assert.equal(gatewayNode(ctx.local.view, ctx.peer), "rome-worker-1");
  assert.equal(podOnNode(ROME, "rome-worker-1")!.name, "ff-probe-rome-worker-1");
  const run = await runUdp(ctx);
  assert.equal(run.status, "pass", run.summary);
  assert.ok(calls.every((c) => c.pod === "ff-probe-rome-worker-1"));
  const series = calls.find((c) => c.command[0] === "sh")!;
  // milan-worker-2 (10.244.2.12) is reached at 10.71.2.12 from rome.
  assert.match(series.command[2], /host=10\.71\.2\.12/);
  const batches = calls.filter((c) => c.command[0] === "sh").map((c) =>
    /count=(\d+) first=(\d+)/.exec(
      c.command[2],
    )!.slice(1).join("@")
  );
  assert.deepEqual(batches, ["6@1", "6@7", "6@13", "2@19"]);
  assert.ok(
    run.evidence!.some((l) =>
      /ff-probe-milan-worker-2 \(milan-8d1f03, milan-worker-2\) at 10\.71\.2\.12/.test(l)
    ),
  );
  assert.ok(run.evidence!.some((l) => /far side saw 10\.68\.1\.11 = expected 10\.68\.1\.11/.test(l)));
});

Deno.test("udp runner: 100 % loss fails as the tunnel dropping UDP", async () => {
  const { ctx } = await fakeProbeContext(farSide({ lose: () => true }), {
    localPods: ROME,
    remotePods: MILAN,
  });
  const run = await runUdp(ctx);
  assert.equal(run.status, "fail");
  assert.match(run.summary, /the tunnel drops UDP: 0\/20/);
});

Deno.test("udp runner: the far side seeing the un-remapped pod IP is a NAT finding", async () => {
  const { ctx } = await fakeProbeContext(farSide({ sourceSeen: "10.244.1.11" }), {
    localPods: ROME,
    remotePods: MILAN,
  });
  const run = await runUdp(ctx);
  assert.equal(run.status, "fail");
  assert.equal(run.summary, "NAT: far side saw 10.244.1.11, expected 10.68.1.11");
});

Deno.test("udp runner: without a remote probe pod it is unknown", async () => {
  const { ctx } = await fakeProbeContext(farSide(), { localPods: ROME, remotePods: [] });
  const run = await runUdp(ctx);
  assert.equal(run.status, "unknown");
  assert.match(run.summary, /no probe pod in milan-8d1f03/);
});

Deno.test("udp series batches: each batch's worst case (all lost) ends inside the exec limit", () => {
  for (const limitMs of [3_000, 7_000, 15_000, 60_000]) {
    const batches = seriesBatches(20, limitMs);
    assert.equal(batches.reduce((n, b) => n + b.count, 0), 20);
    assert.deepEqual(batches.map((b) => b.first), batches.map((_, i) => 1 + i * batches[0].count));
    for (const b of batches) {
      assert.ok(
        b.count === 1 || b.count * UDP_DATAGRAM_WAIT_S * 1000 <= limitMs - EXEC_HEADROOM_MS,
        `${limitMs}: ${JSON.stringify(b)}`,
      );
    }
  }
  assert.deepEqual(seriesBatches(20, 15_000).map((b) => b.count), [6, 6, 6, 2]);
});

Deno.test("udp runner: every datagram lost under a 15 s exec limit fails as loss, not unknown", async () => {
  const { ctx } = await fakeProbeContext(farSide({ lose: () => true, execLimitS: 15 }), {
    localPods: ROME,
    remotePods: MILAN,
  });
  const run = await runUdp(ctx);
  assert.equal(run.status, "fail", run.summary);
  assert.match(run.summary, /the tunnel drops UDP: 0\/20/);
});

Deno.test("udp runner: heavy loss (every other datagram) fails as 50 % loss", async () => {
  const { ctx } = await fakeProbeContext(farSide({ lose: (q) => q % 2 === 0, execLimitS: 15 }), {
    localPods: ROME,
    remotePods: MILAN,
  });
  const run = await runUdp(ctx);
  assert.equal(run.status, "fail", run.summary);
  assert.match(run.summary, /^50% UDP loss \(10\/20\)/);
});

Deno.test("udp runner: a batch whose exec failed is named and not counted as loss", async () => {
  let n = 0;
  const far = farSide();
  const { ctx } = await fakeProbeContext((call) => {
    if (call.command[0] === "sh" && n++ === 1) return { ok: false, reason: "error", message: "stream reset" };
    return far(call);
  }, { localPods: ROME, remotePods: MILAN });
  const run = await runUdp(ctx);
  assert.equal(run.status, "unknown", run.summary);
  assert.match(
    run.summary,
    /part of the UDP series could not run \(14 datagrams measured\): datagrams 7-12: stream reset/,
  );
  assert.ok(
    run.evidence!.includes(
      "14/14 datagrams answered (0% loss), nonce ff-" +
        /nonce ff-([a-z0-9]+)/.exec(run.evidence!.join("\n"))![1],
    ),
  );
});
