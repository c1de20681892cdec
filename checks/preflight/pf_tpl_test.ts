import assert from "node:assert/strict";
import { PF_TPL, serverTemplateProblems } from "./pf_tpl.ts";
import { pairContext, solo } from "../../tests/support/preflight_checks.ts";

Deno.test("PF-TPL: the nodePort field matters only when a NodePort is forced (as liqoctl checks it)", async () => {
  const m = await solo("milan-solo");
  const t = m.find((o) => o.kind === "WgGatewayServerTemplate")!;
  // Liqo's chart renders `?nodePort`: liqoctl accepts it, with or without --gw-server-service-nodeport.
  assert.deepEqual(serverTemplateProblems(t, "NodePort", true), []);
  // deno-lint-ignore no-explicit-any
  delete (t as any).spec.template.spec.service.spec.ports[0]["?nodePort"];
  assert.deepEqual(serverTemplateProblems(t, "LoadBalancer", true), []);
  assert.deepEqual(serverTemplateProblems(t, "NodePort"), [], "a random NodePort needs no field");
  assert.match(serverTemplateProblems(t, "NodePort", true)[0], /ports\[0\]\.nodePort is missing/);
  const rome = await solo("rome-solo");
  const random = await PF_TPL.run(pairContext(rome, m, { preflight: { serviceType: "NodePort" } }));
  assert.equal(random.status, "warn", random.summary);
  assert.match(random.summary, /WgGatewayServerTemplate liqo\/wireguard-server on milan-8d1f03 \(provider\)/);
  assert.match(random.summary, /no nodePort field: Kubernetes allocates the NodePort at random/);
  const forced = await PF_TPL.run(
    pairContext(rome, m, { preflight: { serviceType: "NodePort", nodePort: 31840 } }),
  );
  assert.equal(forced.status, "fail");
  assert.match(forced.summary, /needed by --gw-server-service-nodeport/);
});

Deno.test("PF-TPL: Liqo absent on the server side says so; on both sides it is a skip", async () => {
  const half = await PF_TPL.run(pairContext(await solo("rome-solo"), await solo("milan-bare")));
  assert.equal(half.status, "pass");
  assert.match(half.summary, /Liqo is not installed on milan/);
  const none = await PF_TPL.run(pairContext(await solo("milan-bare"), await solo("milan-bare")));
  assert.equal(none.status, "skip");
});
