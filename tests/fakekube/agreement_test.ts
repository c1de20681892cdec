/**
 * Where the fake API server re-implements something the product also has (it imports nothing of
 * the product), the two must agree on what the protocol fixes: the probe scripts' batch markers,
 * the Liqo kinds' plurals and scopes, and which objects a label or field selector selects. The
 * implementations stay independent; these tests pin the shared facts.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, locked in tests/deno.lock (tests/support/runtime_lock.ts)
import fc from "npm:fast-check@4.11.0";
import * as commands from "../../active/commands.ts";
import * as cidr from "../../probes/cidr.ts";
import { KINDS } from "../../kube/kinds.ts";
import {
  parseFieldSelector as productField,
  parseLabelSelector as productLabel,
} from "../../kube/selectors.ts";
import type { K8sObject } from "../../kube/source.ts";
import {
  LIQO_CRDS,
  MATRIX_ROW_MARKER,
  parseFieldSelector,
  parseLabelSelector,
  PREFLIGHT_ECHO_MARKER,
  remapAddress,
  SERVICE_SWEEP_MARKER,
  UDP_SERIES_MARKER,
} from "../../fakekube/mod.ts";

Deno.test("agreement: the fake data plane knows the product's batch markers", () => {
  assert.equal(UDP_SERIES_MARKER, commands.UDP_SERIES_MARKER);
  assert.equal(SERVICE_SWEEP_MARKER, commands.SERVICE_SWEEP_MARKER);
  assert.equal(MATRIX_ROW_MARKER, commands.MATRIX_ROW_MARKER);
  assert.equal(PREFLIGHT_ECHO_MARKER, commands.PREFLIGHT_ECHO_MARKER);
});

Deno.test("agreement: every Liqo kind the product reads is a CRD the fake serves, same plural and scope", () => {
  const builtinGroups = new Set(["", "apps", "discovery.k8s.io", "networking.k8s.io"]);
  const liqoKinds = Object.values(KINDS).filter((k) => !builtinGroups.has(k.group));
  const served = new Map(LIQO_CRDS.map((c) => [`${c.group}/${c.version}/${c.kind}`, c]));
  for (const k of liqoKinds) {
    const c = served.get(`${k.group}/${k.version}/${k.kind}`);
    assert.ok(c, `${k.kind} (${k.group}/${k.version}) is not served by the fake`);
    assert.equal(c.plural, k.plural, k.kind);
    assert.equal(c.namespaced, k.namespaced, k.kind);
  }
  assert.equal(LIQO_CRDS.length, liqoKinds.length, "the fake serves a Liqo kind the product does not read");
});

const OBJECTS: K8sObject[] = [
  { metadata: { name: "a", namespace: "x", labels: { app: "gw", tier: "1" } }, spec: { nodeName: "n1" } },
  { metadata: { name: "b", namespace: "y", labels: { app: "fabric" } }, status: { phase: "Running" } },
  { metadata: { name: "c", labels: {} }, type: "Warning", involvedObject: { kind: "Pod", name: "a" } },
  { metadata: { name: "d", namespace: "x" }, status: { phase: "Pending" } },
];

/** The names `sel` selects, or the rejection message (both parsers answer 400 with it). */
function selects(parse: (s: string) => (o: K8sObject) => boolean, sel: string): string[] | string {
  try {
    const m = parse(sel);
    return OBJECTS.filter(m).map((o) => o.metadata.name);
  } catch (e) {
    if (e instanceof Error && e.name === "SelectorError") return `rejected: ${e.message}`;
    throw e;
  }
}

const LABEL_PARTS = [
  "app=gw",
  "app==fabric",
  "app!=gw",
  "tier",
  "!tier",
  "app in (gw, fabric)",
  "app notin (gw)",
  "bad key=1",
  "=x",
  "liqo.io/remote-cluster-id",
];
const FIELD_PARTS = [
  "metadata.name=a",
  "metadata.namespace!=x",
  "spec.nodeName=n1",
  "status.phase==Running",
  "type=Warning",
  "involvedObject.kind=Pod",
  "involvedObject.name=a",
  "involvedObject.namespace=",
  "spec.unknown=1",
  "nonsense",
];

Deno.test("agreement: the fake's selectors select what the product's do (and reject the same, in the same words)", () => {
  const combo = (parts: string[]) =>
    fc.array(fc.constantFrom(...parts), { minLength: 0, maxLength: 3 }).map((ps) => ps.join(","));
  fc.assert(
    fc.property(combo(LABEL_PARTS), (sel) => {
      assert.deepEqual(selects(parseLabelSelector, sel), selects(productLabel, sel), sel);
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(combo(FIELD_PARTS), (sel) => {
      assert.deepEqual(selects(parseFieldSelector, sel), selects(productField, sel), sel);
    }),
    { numRuns: 300 },
  );
});

Deno.test("agreement: the fake's IPv4 remapping maps addresses as the product's CIDR math does", () => {
  const octet = fc.integer({ min: 0, max: 255 });
  const ip = fc.tuple(octet, octet, octet, octet).map((o) => o.join("."));
  const net = fc.tuple(ip, fc.integer({ min: 0, max: 32 })).map(([a, p]) => `${a}/${p}`);
  const odd = fc.constantFrom("10.0.0.256", "1.2.3", "10.0.0.0/33", "x", "", "10.0.0.0/8/1", " 10.1.2.3 ");
  fc.assert(
    fc.property(fc.oneof(ip, odd), fc.oneof(net, odd), fc.oneof(net, odd), (a, from, to) => {
      assert.equal(remapAddress(a, from, to), cidr.remapAddress(a, from, to), `${a} ${from} ${to}`);
    }),
    { numRuns: 500 },
  );
  // same prefix, the address inside `from` (an address is in its own network): the mapping proper
  const prefix = fc.integer({ min: 0, max: 32 });
  fc.assert(
    fc.property(ip, ip, prefix, (a, b, p) => {
      const mapped = remapAddress(a, `${a}/${p}`, `${b}/${p}`);
      assert.notEqual(mapped, null);
      assert.equal(mapped, cidr.remapAddress(a, `${a}/${p}`, `${b}/${p}`), `${a} ${b} /${p}`);
    }),
    { numRuns: 500 },
  );
  assert.equal(remapAddress("10.70.1.2", "10.70.0.0/16", "10.71.0.0/16"), "10.71.1.2");
});
