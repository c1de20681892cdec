/**
 * Field cases (testdata/scenarios/field2-*): at least 15, each with a `diagnosis.yaml` saying what
 * its diagnosis must tell a user (asserted on the scenario matrix's run of it: diagnosis_expect.ts).
 */
import assert from "node:assert/strict";
import { listScenarios } from "../../fakekube/mod.ts";
import { diagnosisExpectation } from "./diagnosis_expect.ts";

Deno.test("field2: at least 15 scenarios, each with a diagnosis.yaml", async () => {
  const names = (await listScenarios()).filter((n) => n.startsWith("field2-"));
  assert.ok(names.length >= 15, `only ${names.length} field2- scenarios`);
  for (const n of names) assert.ok(await diagnosisExpectation(n), `${n}: no diagnosis.yaml`);
});
