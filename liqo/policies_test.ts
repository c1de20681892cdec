import assert from "node:assert/strict";
import { ruleAdmitsPort, ruleAdmitsSource, selectorMatches } from "./policies.ts";

Deno.test("selector and rule helpers", () => {
  assert.ok(selectorMatches({}, { a: "b" }));
  assert.ok(selectorMatches({ matchExpressions: [{ key: "a", operator: "In", values: ["b"] }] }, { a: "b" }));
  assert.ok(!selectorMatches({ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, { a: "b" }));
  assert.ok(ruleAdmitsSource({ from: [{ ipBlock: { cidr: "10.0.0.0/8" } }] }, "10.71.0.0/16"));
  assert.ok(
    !ruleAdmitsSource(
      { from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.71.0.0/16"] } }] },
      "10.71.0.0/16",
    ),
  );
  assert.ok(!ruleAdmitsSource({ from: [{ podSelector: {} }] }, "10.71.0.0/16"));
  assert.ok(ruleAdmitsPort({ ports: [{ protocol: "UDP", port: 6000, endPort: 7000 }] }, "UDP", 6091));
  assert.ok(!ruleAdmitsPort({ ports: [{ port: 6091 }] }, "UDP", 6091));
});
