/**
 * deploy/preflight-probe-clusterrole.yaml grants exactly what the `preflight --probe` pre-flight
 * asks for (active/fleet/preflight.ts `preflightAccessNeeds`), in either cluster.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { preflightAccessNeeds } from "../active/fleet/preflight.ts";

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

Deno.test("deploy/preflight-probe-clusterrole.yaml grants exactly the verbs the preflight --probe pre-flight asks", async () => {
  const role = parse(
    await Deno.readTextFile(new URL("../deploy/preflight-probe-clusterrole.yaml", import.meta.url)),
  ) as { kind: string; rules: Rule[] };
  assert.equal(role.kind, "ClusterRole");
  const granted = new Set(
    role.rules.flatMap((r) =>
      r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`)))
    ),
  );
  const asked = new Set(
    preflightAccessNeeds("flyingfish-preflight-abcd1234").map((a) =>
      `${a.verb} ${a.group ?? ""}/${a.resource}${a.subresource ? `/${a.subresource}` : ""}`
    ),
  );
  assert.deepEqual([...granted].sort(), [...asked].sort());
  // Everything but the namespace itself and the nodes is asked in the run namespace only.
  for (const a of preflightAccessNeeds("flyingfish-preflight-abcd1234")) {
    if (a.resource !== "namespaces" && a.resource !== "nodes") {
      assert.equal(a.namespace, "flyingfish-preflight-abcd1234");
    }
  }
});
