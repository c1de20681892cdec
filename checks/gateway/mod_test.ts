/** Layer-wide tests: every GATEWAY EXPOSURE check on healthy and on status-less objects. */
import assert from "node:assert/strict";
import { GATEWAY_CHECKS, milan, rome, run } from "../../tests/support/gateway_checks.ts";

Deno.test("healthy base: every gateway check passes or skips for a reason", async () => {
  for (const [objs, remote] of [[await rome(), await milan()], [await milan(), await rome()]]) {
    for (const c of GATEWAY_CHECKS) {
      const single = await run(c.id, objs);
      const dual = await run(c.id, objs, { remote });
      for (const o of [single, dual]) {
        assert.ok(["pass", "skip"].includes(o.status), `${c.id}: ${o.status} ${o.summary}`);
      }
    }
  }
  assert.equal((await run("GW-01", await milan())).status, "pass");
  assert.equal((await run("GW-02", await milan())).status, "pass");
  assert.equal((await run("GW-03", await milan())).status, "pass");
  assert.equal((await run("GW-04", await rome(), { remote: await milan() })).status, "pass");
  assert.equal((await run("GW-04", await milan(), { remote: await rome() })).status, "pass");
  assert.equal((await run("GW-06", await rome())).status, "pass");
});

Deno.test("gateway checks survive objects without status", async () => {
  for (const base of [await rome(), await milan()]) {
    const objs = base.map((o) =>
      ["GatewayServer", "GatewayClient", "Service", "Pod", "Deployment", "Node"].includes(o.kind ?? "")
        ? { ...o, status: undefined }
        : o
    );
    for (const c of GATEWAY_CHECKS) {
      const o = await run(c.id, objs, { remote: base, networkProbes: true });
      assert.ok(["pass", "warn", "fail", "skip", "unknown"].includes(o.status), c.id);
    }
  }
});
