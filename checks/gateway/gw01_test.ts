/** GW-01 gateway workload running. */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import {
  container,
  milan,
  MILAN_NS,
  MILAN_POD,
  rome,
  ROME_NS,
  ROME_POD,
  run,
  text,
} from "../../tests/support/gateway_checks.ts";

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

/** rome with its gateway pod stuck Terminating on lost node rome-worker-1, replaced on rome-worker-2. */
async function stuckTerminating(version: string, endpointFollows: boolean) {
  const objs = await rome();
  const node = find(objs, "Node", "rome-worker-1");
  for (const c of node.status.conditions) {
    Object.assign(c, { status: "Unknown", lastTransitionTime: "2026-11-30T02:16:00Z" });
  }
  node.spec.taints = [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }];
  const old = find(objs, "Pod", ROME_POD, ROME_NS);
  const repl = structuredClone(old);
  repl.metadata.name = "gw-milan-8d1f03-7c9d5b6f8d-k9r2v";
  repl.metadata.uid = "0c1d2e3f-4a5b-4c6d-8e7f-0123456789ab";
  repl.spec.nodeName = "rome-worker-2";
  repl.status.podIP = "10.244.2.31";
  objs.push(repl);
  old.metadata.deletionTimestamp = "2026-11-30T02:21:30Z";
  const cm = find(objs, "Deployment", "liqo-controller-manager");
  for (const c of cm.spec.template.spec.containers) c.image = c.image.replace(/:v[0-9.]+$/, `:${version}`);
  if (endpointFollows) {
    find(objs, "GatewayClient", "milan-8d1f03", ROME_NS).status.internalEndpoint = {
      ip: "10.244.2.31",
      node: "rome-worker-2",
    };
  }
  return objs;
}

Deno.test("GW-01: two pods labelled active, the internal endpoint frozen at the Terminating one (v1.1.2) fails", async () => {
  const o = await run("GW-01", await stuckTerminating("v1.1.2", false));
  assert.equal(o.status, "fail", o.summary);
  assert.match(
    o.summary,
    /2 pods carry networking\.liqo\.io\/active=true — gw-milan-8d1f03-7c9d5b6f8d-q4xzt/,
  );
  assert.match(o.summary, /Terminating for 8m30s on NotReady node rome-worker-1/);
  assert.match(o.summary, /internal endpoint is frozen at 10\.244\.1\.17/);
  assert.match(fixText(o.remediation), /00322dfc5/);
  assert.match(
    fixText(o.remediation),
    /delete pod gw-milan-8d1f03-7c9d5b6f8d-q4xzt --force --grace-period=0/,
  );
});

Deno.test("GW-01: two pods labelled active but the endpoint follows the running one (v1.2.0) passes with the evidence", async () => {
  const o = await run("GW-01", await stuckTerminating("v1.2.0", true));
  assert.equal(o.status, "pass", o.summary);
  assert.match(text(o), /2 gateway pods carry networking\.liqo\.io\/active=true/);
  assert.match(
    text(o),
    /follows the running pod gw-milan-8d1f03-7c9d5b6f8d-k9r2v \(Liqo v1\.2\.0 skips pods being deleted\)/,
  );
});
