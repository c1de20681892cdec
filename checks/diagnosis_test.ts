/**
 * The diagnosis and its `alsoFailing` list: the first root failure in dependency order, then every
 * other failure that no earlier root failure explains (not on its dependency chain, not the same
 * link seen from the other end, not downstream of the same per-peer link).
 */
import { fix } from "./remediation.ts";
import assert from "node:assert/strict";
import { runEngine } from "./engine.ts";
import { diagnosisOf as diagnose } from "./diagnosis.ts";
import type { CheckDef, CheckResult, Layer, Outcome } from "./types.ts";
import { PASSIVE_CHECKS as CATALOG } from "./catalog.ts";
import { inventoryOf, scriptedProbes, TEST_OPTIONS, viewOf } from "../tests/support/fixtures.ts";

const ROME = "rome-4b2a9e", MILAN = "milan-8d1f03", PARIS = "paris-5c3e71";

/** A result of a shipped check (its layer from the catalog). */
function res(id: string, status: CheckResult["status"], cluster: string, peer: string | null): CheckResult {
  const def = CATALOG.find((c) => c.id === id);
  assert.ok(def, `no check ${id} in the catalog`);
  return {
    id,
    title: def.title,
    layer: def.layer,
    status,
    peer,
    cluster,
    summary: `${id} ${status} on ${cluster}${peer ? ` for ${peer}` : ""}`,
    evidence: [],
    remediation: status === "fail" ? fix(`fix ${id}`) : [],
    blockedBy: null,
    skipKind: null,
    durationMs: 1,
  };
}

/** Results in catalog order, as the engine sorts them (layer, then position in the catalog). */
function ordered(rs: CheckResult[]): CheckResult[] {
  const rank = (r: CheckResult) => CATALOG.findIndex((c) => c.id === r.id);
  return [...rs].sort((a, b) => rank(a) - rank(b));
}

const also = (rs: CheckResult[]) =>
  diagnose(ordered(rs), CATALOG)?.alsoFailing?.map((f) => `${f.id}@${f.cluster}#${f.peer ?? ""}`);

Deno.test("one fault: the diagnosis with an empty alsoFailing", () => {
  const d = diagnose(
    ordered([res("GW-02", "fail", MILAN, ROME), res("GW-03", "skip", MILAN, ROME)]),
    CATALOG,
  );
  assert.equal(d?.id, "GW-02");
  assert.equal(d?.summary, `GW-02 fail on ${MILAN} for ${ROME}`);
  assert.deepEqual(d?.remediation, fix("fix GW-02"));
  assert.deepEqual(d?.alsoFailing, []);
  assert.equal(diagnose([], CATALOG), null);
  assert.equal(diagnose([res("TUN-05", "warn", ROME, MILAN)], CATALOG), null);
});

Deno.test("two independent faults: the earliest is the diagnosis, the other is also failing", () => {
  // A tainted node without fabric (cluster-wide) and a key mismatch on one peering.
  const rs = [res("FAB-01", "fail", ROME, null), res("TUN-04", "fail", ROME, MILAN)];
  const d = diagnose(ordered(rs), CATALOG);
  assert.equal(d?.id, "TUN-04", "tunnel comes before fabric in dependency order");
  assert.deepEqual(d?.alsoFailing, [{
    id: "FAB-01",
    layer: "fabric",
    peer: null,
    cluster: ROME,
    summary: `FAB-01 fail on ${ROME}`,
  }]);
});

Deno.test("a fault on one of two peers beside a fault on the other: both are roots", () => {
  assert.deepEqual(
    also([
      res("GW-02", "fail", ROME, PARIS),
      res("TUN-01", "fail", ROME, MILAN),
      res("TUN-02", "fail", ROME, MILAN),
    ]),
    [`TUN-01@${ROME}#${MILAN}`],
    "TUN-02 on milan is the same dead tunnel as TUN-01 on milan, not a third fault",
  );
});

Deno.test("the same check failing at both ends of one peering is one fault", () => {
  assert.deepEqual(also([res("TUN-06", "fail", ROME, MILAN), res("TUN-06", "fail", MILAN, ROME)]), []);
  // …but the same check on two different peerings is two.
  assert.deepEqual(
    also([res("TUN-06", "fail", ROME, MILAN), res("TUN-06", "fail", ROME, PARIS)]),
    [`TUN-06@${ROME}#${PARIS}`],
  );
});

Deno.test("failures downstream of the same per-peer link are symptoms, on both ends and in dual checks", () => {
  // A stale client endpoint (GW-04, dual) keeps the tunnel down: TUN-01/TUN-02 on both ends share
  // GW-03 with it. An MTU mismatch on the same peering does not follow from it.
  const dual = `${ROME} ↔ ${MILAN}`;
  assert.deepEqual(
    also([
      res("GW-04", "fail", dual, MILAN),
      res("TUN-01", "fail", ROME, MILAN),
      res("TUN-01", "fail", MILAN, ROME),
      res("TUN-02", "fail", ROME, MILAN),
      res("TUN-02", "fail", MILAN, ROME),
      res("TUN-06", "fail", MILAN, ROME),
    ]),
    [`TUN-06@${MILAN}#${ROME}`],
  );
  // A stale PublicKey seen on rome explains the dead Connection seen on milan (TUN-01 needs TUN-04).
  assert.deepEqual(
    also([
      res("TUN-04", "fail", ROME, MILAN),
      res("TUN-01", "fail", MILAN, ROME),
      res("TUN-02", "fail", MILAN, ROME),
    ]),
    [],
  );
});

Deno.test("a second root's own symptoms are not listed; only the root is", () => {
  // Missing CRDs on rome, and a tunnel stuck Connecting to paris (TUN-01 and TUN-02 fail).
  assert.deepEqual(
    also([
      res("ENV-03", "fail", ROME, null),
      res("TUN-01", "fail", ROME, PARIS),
      res("TUN-02", "fail", ROME, PARIS),
      res("IPAM-04", "fail", ROME, null),
    ]),
    [`TUN-01@${ROME}#${PARIS}`, `IPAM-04@${ROME}#`],
  );
});

Deno.test("a cluster-wide root explains only its dependants on its own cluster", () => {
  const catalog: CheckDef[] = [
    def("ENV-K", "env", false),
    def("GW-K", "gateway", true, ["ENV-K"]),
  ];
  const r = (id: string, layer: Layer, cluster: string, peer: string | null): CheckResult => ({
    ...res("ENV-01", "fail", cluster, peer),
    id,
    layer,
    summary: id,
  });
  // GW-K failing on milan while ENV-K failed on rome: another cluster, not explained.
  const d = diagnose([r("ENV-K", "env", ROME, null), r("GW-K", "gateway", MILAN, ROME)], catalog);
  assert.deepEqual(d?.alsoFailing?.map((f) => f.id), ["GW-K"]);
  // Same cluster: explained (a check can fail although it needs a failed one only if the engine
  // was bypassed, but diagnose does not rely on the engine's skipping).
  const d2 = diagnose([r("ENV-K", "env", ROME, null), r("GW-K", "gateway", ROME, MILAN)], catalog);
  assert.deepEqual(d2?.alsoFailing, []);
  // Without a catalog only the same check at both ends counts as explained.
  const d3 = diagnose([r("GW-K", "gateway", ROME, MILAN), r("GW-K", "gateway", MILAN, ROME)]);
  assert.deepEqual(d3?.alsoFailing, []);
});

function def(
  id: string,
  layer: Layer,
  perPeer: boolean,
  needs: string[] = [],
  run?: () => Outcome,
): CheckDef {
  return {
    id,
    title: id,
    layer,
    needs,
    scope: "single",
    perPeer,
    reads: [],
    explain: { reads: "", decides: "", fixes: "" },
    hops: [],
    run: run ?? (() => ({ status: "pass", summary: "ok" })),
  };
}

Deno.test("runEngine: two independent faults are both failures; the report's diagnosis lists the other", async () => {
  const fail = (s: string): Outcome => ({ status: "fail", summary: s, remediation: fix("fix") });
  const view = viewOf(inventoryOf([]), new Date(), "ctx");
  const out = await runEngine({
    catalog: [
      def("ENV-A", "env", false, [], () => fail("component down")),
      def("GW-A", "gateway", false, ["ENV-A"]),
      def("FAB-A", "fabric", false, [], () => fail("node without fabric")),
      def("FAB-B", "fabric", false, ["FAB-A"]),
    ],
    local: { view, peers: [] },
    probes: scriptedProbes(),
    options: { ...TEST_OPTIONS, checkTimeoutMs: 200 },
  });
  assert.equal(out.exitCode, 2);
  assert.deepEqual(out.results.map((r) => `${r.id}:${r.status}`), [
    "ENV-A:fail",
    "GW-A:skip",
    "FAB-A:fail",
    "FAB-B:skip",
  ]);
  assert.equal(out.diagnosis?.id, "ENV-A");
  assert.deepEqual(out.diagnosis?.alsoFailing?.map((f) => [f.id, f.summary]), [[
    "FAB-A",
    "node without fabric",
  ]]);
});
