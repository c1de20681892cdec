/** GW-01 gateway workload running. */
import { fixText } from "../../report/remediation.ts";
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
  assert.match(fixText(o.remediation), /logs gw-rome-4b2a9e-5b8f9c7d6b-w2kxm -c wireguard --previous/);
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

Deno.test("GW-01: a crash-looping container's log is read (previous instance) and its error line cited", async () => {
  const { scriptedProbes } = await import("../../tests/support/fixtures.ts");
  const objs = await milan();
  const wg = container(find(objs, "Pod", MILAN_POD, MILAN_NS), "wireguard");
  wg.ready = false;
  wg.restartCount = 4;
  wg.state = { waiting: { reason: "CrashLoopBackOff" } };
  wg.lastState = { terminated: { reason: "Error", exitCode: 1 } };
  const asked: string[] = [];
  const probes = scriptedProbes({
    logs: (_c, ns, pod, c, previous) => {
      asked.push(`${ns}/${pod}/${c} previous=${previous}`);
      return {
        ok: true,
        namespace: ns,
        pod,
        container: c,
        previous,
        via: "api",
        matched: true,
        totalLines: 3,
        lines: [
          "E1130 02:26:41.020771       1 netlink.go:64] cannot create wireguard interface: operation not supported",
        ],
      };
    },
  });
  const o = await run("GW-01", objs, { probes });
  assert.equal(o.status, "fail");
  assert.deepEqual(asked, [`${MILAN_NS}/${MILAN_POD}/wireguard previous=true`]);
  assert.match(o.summary, /log: "cannot create wireguard interface: operation not supported"/);
  assert.match(text(o), /log of wireguard \(previous instance, last 1 error line\):/);
  assert.match(fixText(o.remediation), /implementation=userspace/);
});

Deno.test("GW-01: an unreadable log says why and the summary stands without it", async () => {
  const { scriptedProbes } = await import("../../tests/support/fixtures.ts");
  const objs = await milan();
  const wg = container(find(objs, "Pod", MILAN_POD, MILAN_NS), "wireguard");
  wg.ready = false;
  wg.state = { waiting: { reason: "CrashLoopBackOff" } };
  const probes = scriptedProbes({
    logs: (_c, namespace, pod, c) => ({
      ok: false,
      namespace,
      pod,
      container: c,
      reason: "forbidden",
      message: `missing permission: get pods/log in namespace ${namespace}`,
    }),
  });
  const o = await run("GW-01", objs, { probes });
  assert.equal(o.status, "fail");
  assert.doesNotMatch(o.summary, /log:/);
  assert.match(
    text(o),
    /log of wireguard: not readable — missing permission: get pods\/log in namespace liqo-tenant-rome/,
  );
});

Deno.test("GW-01: a gateway pod on a NotReady node fails naming the node (see ENV-07)", async () => {
  const { loseNode } = await import("../../tests/support/env_checks.ts");
  const objs = await milan();
  loseNode(find(objs, "Node", "milan-worker-2"));
  const o = await run("GW-01", objs);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /gateway pod gw-rome-4b2a9e-5b8f9c7d6b-w2kxm is on NotReady node milan-worker-2 \(see ENV-07\): NotReady for 7m0s/,
  );
  assert.match(fixText(o.remediation), /delete pod gw-rome-4b2a9e-5b8f9c7d6b-w2kxm --force/);
});
