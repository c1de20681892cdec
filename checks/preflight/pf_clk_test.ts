import assert from "node:assert/strict";
import { PF_CLK } from "./pf_clk.ts";
import { pairContext, solo } from "../../tests/support/preflight_checks.ts";

function setBeat(objs: { kind?: string; metadata: { name: string } }[], node: string, at: string): void {
  const n = objs.find((o) => o.kind === "Node" && o.metadata.name === node)!;
  // deno-lint-ignore no-explicit-any
  for (const c of (n as any).status.conditions) if (c.type === "Ready") c.lastHeartbeatTime = at;
}

Deno.test("PF-CLK: in step passes; 2 minutes ahead warns; 10 minutes ahead fails", async () => {
  const r = await solo("rome-solo");
  assert.equal((await PF_CLK.run(pairContext(r, await solo("milan-solo")))).status, "pass");
  const warn = await solo("milan-solo");
  setBeat(warn, "milan-worker-1", "2026-11-30T02:32:00Z");
  const w = await PF_CLK.run(pairContext(r, warn));
  assert.equal(w.status, "warn");
  assert.match(w.summary, /milan-worker-1: clock 2m0s ahead/);
  const fail = await solo("milan-solo");
  setBeat(fail, "milan-worker-1", "2026-11-30T02:40:00Z");
  assert.equal((await PF_CLK.run(pairContext(r, fail))).status, "fail");
});
