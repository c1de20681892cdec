import assert from "node:assert/strict";
import { CONTROLPLANE_CHECKS } from "./mod.ts";

Deno.test("CONTROLPLANE catalog entries are well formed", () => {
  for (const c of CONTROLPLANE_CHECKS) {
    assert.equal(c.layer, "controlplane");
    assert.equal(c.perPeer, true);
    assert.ok(c.explain.reads && c.explain.decides && c.explain.fixes, c.id);
  }
});
