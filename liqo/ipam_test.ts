import assert from "node:assert/strict";
import type { K8sObject } from "../kube/source.ts";
import { configurationConfigured } from "./ipam.ts";

Deno.test("configurationConfigured accepts the v1.0/1.1 label", () => {
  const cfg = {
    metadata: { name: "x", labels: { "configuration.liqo.io/configured": "true" } },
  } as K8sObject;
  assert.ok(configurationConfigured(cfg));
  assert.ok(!configurationConfigured({ metadata: { name: "x" } }));
});
