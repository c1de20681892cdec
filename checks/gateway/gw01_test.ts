/** GW-01 gateway workload running. */
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import { container, milan, MILAN_NS, MILAN_POD, run, text } from "../../tests/support/gateway_checks.ts";

Deno.test("GW-01: wireguard CrashLoopBackOff fails with the termination message", async () => {
  const objs = await milan();
  const pod = find(objs, "Pod", MILAN_POD, MILAN_NS);
  const wg = container(pod, "wireguard");
  wg.ready = false;
  wg.restartCount = 7;
  wg.state = {
    waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s restarting failed container" },
  };
  wg.lastState = {
    terminated: {
      reason: "Error",
      exitCode: 1,
      message: "failed to create liqo-tunnel: operation not supported",
    },
  };
  const o = await run("GW-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /wireguard not running.*CrashLoopBackOff/);
  assert.match(text(o), /operation not supported/);
  assert.match(o.remediation!, /logs gw-rome-4b2a9e-5b8f9c7d6b-w2kxm -c wireguard --previous/);
});

Deno.test("GW-01: missing Deployment, zero replicas, pending pod", async () => {
  let objs = (await milan()).filter((o) =>
    !(o.kind === "Deployment" && o.metadata.name === "gw-rome-4b2a9e")
  );
  assert.equal((await run("GW-01", objs)).status, "fail");

  objs = await milan();
  find(objs, "Deployment", "gw-rome-4b2a9e", MILAN_NS).spec.replicas = 0;
  assert.match((await run("GW-01", objs)).summary, /scaled to 0/);

  objs = await milan();
  const pod = find(objs, "Pod", MILAN_POD, MILAN_NS);
  pod.status = {
    phase: "Pending",
    conditions: [{
      type: "PodScheduled",
      status: "False",
      reason: "Unschedulable",
      message: "0/3 nodes are available: 3 Insufficient memory.",
    }],
  };
  const o = await run("GW-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /not running \(Pending, Unschedulable\)/);
  assert.match(text(o), /Insufficient memory/);

  objs = (await milan()).filter((o) => !(o.kind === "Pod" && o.metadata.name === MILAN_POD));
  assert.match((await run("GW-01", objs)).summary, /no pod/);
});

Deno.test("GW-01: no gateway — skip when networking disabled, fail otherwise", async () => {
  const objs = (await milan()).filter((o) => o.kind !== "GatewayServer");
  const o = await run("GW-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no gateway for peer rome-4b2a9e/);
  find(objs, "ForeignCluster", "rome-4b2a9e").status.modules.networking.enabled = false;
  const s = await run("GW-01", objs);
  assert.equal(s.status, "skip");
  assert.equal(s.summary, "networking not enabled for this peer");
});

Deno.test("GW-01: recent restart warns; old restart passes", async () => {
  const objs = await milan();
  const wg = container(find(objs, "Pod", MILAN_POD, MILAN_NS), "wireguard");
  wg.restartCount = 1;
  wg.lastState = { terminated: { reason: "OOMKilled", exitCode: 137, finishedAt: "2026-11-30T02:20:00Z" } };
  assert.equal((await run("GW-01", objs)).status, "warn");
  wg.lastState.terminated.finishedAt = "2026-11-29T02:20:00Z";
  assert.equal((await run("GW-01", objs)).status, "pass");
});
