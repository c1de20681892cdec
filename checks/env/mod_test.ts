import assert from "node:assert/strict";
import type { CheckDef } from "../types.ts";
import { ENV_CHECKS } from "./mod.ts";

const check = (id: string): CheckDef => ENV_CHECKS.find((c) => c.id === id)!;

Deno.test("ENV catalog entries are well formed", () => {
  for (const c of ENV_CHECKS) {
    assert.equal(c.layer, "env");
    assert.ok(c.explain.reads && c.explain.decides && c.explain.fixes, c.id);
  }
  assert.deepEqual(check("ENV-01").needs, ["ENV-05", "ENV-03"]);
});
