/**
 * deploy/probe-clusterrole.yaml grants exactly what the probe pre-flight asks for
 * (active/fleet/preflight.ts `accessNeeds`, over every mode, side and probe): the README points at
 * it, and the pre-flight's error message too.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { accessNeeds } from "../active/fleet/preflight.ts";
import { PROBE_NAMES } from "../active/model.ts";

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

Deno.test("deploy/probe-clusterrole.yaml grants exactly the verbs the probe pre-flight asks", async () => {
  const role = parse(
    await Deno.readTextFile(new URL("../deploy/probe-clusterrole.yaml", import.meta.url)),
  ) as {
    kind: string;
    rules: Rule[];
  };
  assert.equal(role.kind, "ClusterRole");
  const granted = new Set(
    role.rules.flatMap((r) =>
      r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`)))
    ),
  );
  const asked = new Set<string>();
  for (const mode of ["direct", "offload"] as const) {
    for (const side of ["local", "remote"] as const) {
      const needs = accessNeeds({
        side,
        mode,
        probes: [...PROBE_NAMES],
        runNamespace: "flyingfish-probe-abcd1234",
        gatewayNamespace: "liqo-tenant-x",
      });
      for (const a of needs) {
        asked.add(`${a.verb} ${a.group ?? ""}/${a.resource}${a.subresource ? `/${a.subresource}` : ""}`);
      }
    }
  }
  assert.deepEqual([...granted].sort(), [...asked].sort());
});

Deno.test("each probe alone is asked only what it uses, and deploy/probe-clusterrole.yaml covers it", async () => {
  const role = parse(
    await Deno.readTextFile(new URL("../deploy/probe-clusterrole.yaml", import.meta.url)),
  ) as { rules: Rule[] };
  const granted = new Set(
    role.rules.flatMap((r) =>
      r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`)))
    ),
  );
  const key = (
    a: { verb: string; group?: string; resource: string; subresource?: string; namespace?: string },
  ) => `${a.verb} ${a.group ?? ""}/${a.resource}${a.subresource ? `/${a.subresource}` : ""}`;
  for (const probe of PROBE_NAMES) {
    for (const side of ["local", "remote"] as const) {
      const needs = accessNeeds({
        side,
        mode: "direct",
        probes: [probe],
        runNamespace: "flyingfish-probe-abcd1234",
        gatewayNamespace: "liqo-tenant-x",
      });
      for (const a of needs) assert.ok(granted.has(key(a)), `${probe}: ${key(a)} not granted`);
      if (probe === "mtu") {
        // PROBE-MTU pings from the gateway pod: no namespace, no pod, no node list.
        assert.deepEqual(needs.map((a) => `${key(a)} ${a.namespace ?? ""}`), [
          "create /pods/exec liqo-tenant-x",
        ]);
      } else {
        assert.ok(needs.some((a) => key(a) === "create /pods"), `${probe} creates probe pods`);
      }
    }
  }
});
