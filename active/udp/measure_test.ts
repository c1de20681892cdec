import assert from "node:assert/strict";
import { gatewayNode, podOnNode, runUdp } from "./measure.ts";
import { type ExecCall, fakeProbeContext, probePod, ran } from "../../tests/support/probe_run_ctx.ts";
import { UDP_SERIES_MARKER } from "../commands.ts";
import type { ExecOutcome } from "../../kube/source.ts";

// The base fixtures' gateway pods run on rome-worker-1 (rome) and milan-worker-2 (milan).
const ROME = [1, 2].map((i) => probePod("local", `rome-worker-${i}`, `10.244.1.${10 + i}`)).reverse();
const MILAN = [1, 2].map((i) => probePod("remote", `milan-worker-${i}`, `10.244.2.${10 + i}`));

/** Answers the series script and the clientip dial like netexec behind curl. */
function farSide(opts: { lose?: (seq: number) => boolean; sourceSeen?: string } = {}) {
  return (call: ExecCall): ExecOutcome => {
    const script = call.command[2] ?? "";
    if (call.command[0] === "sh" && script.includes(UDP_SERIES_MARKER)) {
      const count = Number(/count=(\d+)/.exec(script)![1]);
      const nonce = /nonce=([a-z0-9]+)/.exec(script)![1];
      const lines = Array.from({ length: count }, (_, i) => {
        const seq = i + 1;
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
  assert.match(series.command[2], /count=20 /);
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
