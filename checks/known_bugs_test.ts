/** Known Liqo bugs: each entry's signature, its version range and how it amends a result. */
import assert from "node:assert/strict";
import { fixText } from "../report/remediation.ts";
import { find, type Loose } from "../tests/support/fixtures.ts";
import { milan, MILAN_NS, rome, run, text } from "../tests/support/gateway_checks.ts";
import {
  amendWithKnownBugs,
  inRange,
  KNOWN_BUGS,
  knownBugsOf,
  parseRelease,
  withKnownBugs,
} from "./known_bugs.ts";
import { PASSIVE_CHECKS } from "./catalog.ts";
import { BASE_TIME, contextOf, inventoryOf, peersOf, viewOf } from "../tests/support/fixtures.ts";
import type { K8sObject } from "../kube/source.ts";
import type { Outcome } from "./types.ts";

/** Sets the controller-manager image tag of a fixture cluster (the version Liqo reports). */
function version(objs: Loose[], tag: string) {
  const cm = find(objs, "Deployment", "liqo-controller-manager", "liqo");
  for (const c of cm.spec.template.spec.containers) c.image = c.image.replace(/:v[\d.]+$/, `:${tag}`);
}

function ctxOf(objs: K8sObject[], remote?: K8sObject[]) {
  const view = viewOf(inventoryOf(objs), BASE_TIME);
  const rv = remote ? viewOf(inventoryOf(remote), BASE_TIME) : null;
  return contextOf(view, { peer: peersOf(view)[0], remote: rv, remotePeer: rv ? peersOf(rv)[0] : null });
}

const failing: Outcome = { status: "fail", summary: "symptom", remediation: [] };

Deno.test("known bugs: versions are compared as releases, in [from, fixedIn)", () => {
  assert.deepEqual(parseRelease("v1.1.2"), [1, 1, 2]);
  assert.equal(parseRelease("sha-1a2b3c"), null);
  assert.equal(inRange("v1.1.1", "v1.0.0", "v1.1.2"), true);
  assert.equal(inRange("v1.1.2", "v1.0.0", "v1.1.2"), false);
  assert.equal(inRange("v0.10.3", "v1.0.0", "v1.1.2"), false);
  assert.equal(inRange("latest", "v1.0.0", "v1.1.2"), null);
});

Deno.test("known bugs: every entry cites liqotech/liqo, names checks of the catalog, and the catalog carries it", () => {
  const ids = new Set(PASSIVE_CHECKS.map((c) => c.id));
  for (const b of KNOWN_BUGS) {
    assert.match(b.source, /^https:\/\/github\.com\/liqotech\/liqo\/(commit|releases|pull|issues)\//);
    assert.ok(parseRelease(b.from) && parseRelease(b.fixedIn), b.id);
    for (const c of b.checks) {
      assert.ok(ids.has(c), `${b.id} names ${c}`);
      assert.ok(knownBugsOf(c).includes(b));
    }
  }
  // a check without entries is left as it is
  const env01 = PASSIVE_CHECKS.find((c) => c.id === "ENV-01")!;
  assert.equal(withKnownBugs(env01), env01);
});

Deno.test("known bug liqo-0581b38e2: EKS LoadBalancer without the AWS type annotation on v1.1.1, not on v1.1.2", async () => {
  const objs = await milan();
  for (const n of objs.filter((o) => o.kind === "Node")) {
    n.metadata.labels = { ...n.metadata.labels, "eks.amazonaws.com/nodegroup": "ng-1" };
  }
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).status = { loadBalancer: {} };
  version(objs, "v1.1.1");
  const o = await run("GW-02", objs);
  assert.equal(o.status, "fail");
  const a = amendWithKnownBugs("GW-02", ctxOf(objs), o);
  assert.match(a.summary, /<pending>.*known Liqo bug of v1\.1\.1 .*fixed in v1\.1\.2/);
  assert.match(
    text(a),
    /known bug liqo-0581b38e2 .*without service\.beta\.kubernetes\.io\/aws-load-balancer-type/,
  );
  // the upgrade comes first, then the workaround, then the check's own fix
  const fixes = fixText(a.remediation);
  assert.ok(fixes.indexOf("--version v1.1.2") < fixes.indexOf("aws-load-balancer-type=nlb"), fixes);
  assert.ok(fixes.indexOf("aws-load-balancer-type=nlb") < fixes.indexOf("MetalLB"), fixes);
  // fixed release, an annotated Service, or a pass: no claim
  version(objs, "v1.1.2");
  assert.equal(amendWithKnownBugs("GW-02", ctxOf(objs), o), o);
  version(objs, "v1.1.1");
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).metadata.annotations = {
    "service.beta.kubernetes.io/aws-load-balancer-type": "external",
  };
  assert.equal(amendWithKnownBugs("GW-02", ctxOf(objs), o), o);
  const pass: Outcome = { status: "pass", summary: "ok" };
  assert.equal(amendWithKnownBugs("GW-02", ctxOf(objs), pass), pass);
});

Deno.test("known bug liqo-a6076eca2: hostname before IP in the server's endpoint, judged with the server's version", async () => {
  const m = await milan();
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = [
    "gw.milan.example.net",
    "203.0.113.50",
  ];
  version(m, "v1.1.2");
  // from the client's side (dual): the server milan runs the buggy version, the upgrade runs there
  const a = amendWithKnownBugs("GW-04", ctxOf(await rome(), m), failing);
  assert.match(a.summary, /known Liqo bug of v1\.1\.2/);
  assert.match(
    text(a),
    /milan-8d1f03 GatewayServer rome-4b2a9e status\.endpoint lists gw\.milan\.example\.net before 203\.0\.113\.50/,
  );
  assert.equal(a.remediation![0].command?.on, "remote");
  // on the server itself (GW-03)
  assert.equal(amendWithKnownBugs("GW-03", ctxOf(m), failing).remediation![0].command?.on, "local");
  version(m, "v1.2.0");
  assert.equal(amendWithKnownBugs("GW-03", ctxOf(m), failing), failing);
});
