import assert from "node:assert/strict";
import { PF_TPL, serverTemplateProblems } from "./pf_tpl.ts";
import { pairContext, solo } from "../../tests/support/preflight_checks.ts";

Deno.test("PF-TPL: the server template's service and the NodePort field", async () => {
  const m = await solo("milan-solo");
  const t = m.find((o) => o.kind === "WgGatewayServerTemplate")!;
  assert.deepEqual(serverTemplateProblems(t, "NodePort"), []);
  // deno-lint-ignore no-explicit-any
  delete (t as any).spec.template.spec.service.spec.ports[0]["?nodePort"];
  assert.deepEqual(serverTemplateProblems(t, "LoadBalancer"), []);
  assert.match(serverTemplateProblems(t, "NodePort")[0], /ports\[0\]\.nodePort is missing/);
  const o = await PF_TPL.run(
    pairContext(await solo("rome-solo"), m, { preflight: { serviceType: "NodePort" } }),
  );
  assert.equal(o.status, "fail");
  assert.match(o.summary, /WgGatewayServerTemplate liqo\/wireguard-server on milan-8d1f03 \(provider\)/);
});

Deno.test("PF-TPL: Liqo absent on the server side says so; on both sides it is a skip", async () => {
  const half = await PF_TPL.run(pairContext(await solo("rome-solo"), await solo("milan-bare")));
  assert.equal(half.status, "pass");
  assert.match(half.summary, /Liqo is not installed on milan/);
  const none = await PF_TPL.run(pairContext(await solo("milan-bare"), await solo("milan-bare")));
  assert.equal(none.status, "skip");
});
