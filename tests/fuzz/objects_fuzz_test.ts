/**
 * Property-based fuzzing of the cluster objects (issue 10): start from the healthy rome ↔ milan base
 * clusters, break them the way odd or broken clusters look (fields deleted or replaced by values of
 * the wrong type, empty / huge / unicode strings, negative numbers, objects dropped or duplicated,
 * unknown fields, malformed timestamps, conditions whose status is an array), run the whole
 * diagnosis in-process (an in-memory ClusterSource, scripted probes, single and dual mode) and check:
 *
 * - the run never throws, no check and no report section crashes;
 * - every check instance yields exactly one result, with a valid status;
 * - a check whose declared `reads` include a kind with a malformed object is `unknown` or skipped,
 *   never pass/warn/fail judged on what was left out;
 * - every ForeignCluster with a readable name is still a peer of the report;
 * - the report, and the `-o json` document, validate against ReportSchema.
 *
 * Seeded (tests/support/fuzz.ts): `FUZZ_SEED=<n>` replays another sequence, `FUZZ_RUNS=<n>` soaks.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, locked in tests/deno.lock (tests/support/runtime_lock.ts)
import fc from "npm:fast-check@4.11.0";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { runDiagnosis } from "../../diagnose/run.ts";
import { Inventory } from "../../kube/inventory.ts";
import { type KindId, KINDS } from "../../kube/kinds.ts";
import type { ClusterSource } from "../../kube/source.ts";
import { Objects } from "../../liqo/views/mod.ts";
import { renderJson } from "../../render/json.ts";
import { type Report, ReportSchema } from "../../report/model.ts";
import { baseObjects, TEST_OPTIONS } from "../support/fixtures.ts";
import { fuzzParams, listsOf, memorySource } from "../support/fuzz.ts";
import { probes } from "../support/tunnel_checks.ts";

type Lists = Map<KindId, unknown[]>;
type Path = (string | number)[];
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const BASE: { rome: Lists; milan: Lists } = {
  rome: listsOf(await baseObjects("rome")),
  milan: listsOf(await baseObjects("milan")),
};

// ---------------------------------------------------------------------------------------------
// Generators: what an odd cluster holds.

const HUGE = "x".repeat(20_000);

/** Scalars of every JSON type, biased toward the edges. */
const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -70_000, max: 70_000 }),
  fc.constantFrom(-1, 0, -0.5, 1.5, 2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER, 2 ** 64, -1e308, 1e308),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom("", " ", HUGE, "True", "False", "Unknown", "-1", "1e999", "0x10", "10.0.0.0/8", "::1"),
  fc.constantFrom("not-a-cidr", "300.1.2.3", "10.0.0.1/99", "a:b:c", "liqo-tunnel", "(none)", "\n", "\t"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
);

/** Any JSON value (small containers of scalars, one level of nesting). */
const weird: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constantFrom<Json>([], {}, [null], { "": "" }) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }) },
);

const badTimestamp: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    "",
    "yesterday",
    "2026-02-30T25:61:61Z",
    "0000-00-00T00:00:00Z",
    "2026-11-30T02:30:00",
    "2026-11-30",
    "1970-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "+275760-09-13T00:00:00.000Z",
    "-000001-01-01T00:00:00Z",
    "2027-06-01T00:00:00Z",
    "2026-11-30T02:30:00.123456789+05:45",
    1764469800,
    -1,
    null,
    ["2026-11-30T02:30:00Z"],
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);

/** Strings and numbers that still fit a view's types but say odd things. */
const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", " ", HUGE, "-1", "0", "65536", "99999999999999999999", "1.5", "True", "False"),
  fc.constantFrom("10.0.0.0/33", "999.1.1.1", "::", "0.0.0.0/0", " 10.0.0.1", "10.0.0.1\n", "fe80::1%eth0"),
  fc.constantFrom("rome-4b2a9e", "milan-8d1f03", "liqo", "liqo-tunnel", "UDP", "NodePort", "LoadBalancer"),
  fc.constantFrom("Consumer", "Provider", "ConsumerAndProvider", "Unknown", "Established", "Connected"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
);
const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(-1, 0, 1, 65535, 65536, 2 ** 31, -(2 ** 53), 1.5, 1e308, Number.MAX_SAFE_INTEGER),
  fc.integer({ min: -100_000, max: 100_000 }),
);

/** Which object an operation touches: a kind (among those with objects) and an index in its list. */
const target = fc.record({ side: fc.constantFrom("rome", "milan"), kind: fc.nat(), index: fc.nat() });

type Op =
  | { op: "set"; at: Target; path: number; value: Json }
  | { op: "tweak"; at: Target; path: number; str: string; num: number }
  | { op: "delete"; at: Target; path: number }
  | { op: "drop"; at: Target }
  | { op: "duplicate"; at: Target; rename: boolean }
  | { op: "unknown-field"; at: Target; path: number; key: string; value: Json }
  | { op: "timestamp"; at: Target; path: number; value: Json }
  | { op: "condition-array"; at: Target; path: number; value: Json[] };
type Target = { side: string; kind: number; index: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("set"), at: target, path: fc.nat(), value: weird }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("tweak"),
      at: target,
      path: fc.nat(),
      str: oddString,
      num: oddNumber,
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("delete"), at: target, path: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("drop"), at: target }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("duplicate"), at: target, rename: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("unknown-field"),
      at: target,
      path: fc.nat(),
      key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "toString")),
      value: weird,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("timestamp"), at: target, path: fc.nat(), value: badTimestamp }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("condition-array"),
      at: target,
      path: fc.nat(),
      value: fc.oneof(
        fc.array(fc.constantFrom<Json>("True", "False", "Unknown"), { maxLength: 3 }),
        fc.array(scalar),
      ),
    }),
  },
) as fc.Arbitrary<Op>;

const scenario = fc.record({ dual: fc.boolean(), ops: fc.array(op, { minLength: 1, maxLength: 6 }) });

// ---------------------------------------------------------------------------------------------
// Applying the operations.

function isContainer(v: unknown): v is Record<string | number, unknown> {
  return typeof v === "object" && v !== null;
}

/** Every path inside a value (not the root), depth first. */
function pathsOf(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (!isContainer(v)) return out;
  for (const k of Array.isArray(v) ? v.keys() : Object.keys(v)) {
    const p = [...prefix, k];
    out.push(p);
    pathsOf((v as Record<string | number, unknown>)[k], p, out);
  }
  return out;
}

function parentOf(root: unknown, path: Path): Record<string | number, unknown> | null {
  let cur: unknown = root;
  for (const k of path.slice(0, -1)) {
    if (!isContainer(cur)) return null;
    cur = cur[k];
  }
  return isContainer(cur) ? cur : null;
}

/** Sets a key as JSON.parse would (an own property, even for `__proto__`). */
function define(obj: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function pick(lists: { rome: Lists; milan: Lists }, at: Target): { list: unknown[]; i: number } | null {
  const side = lists[at.side as "rome" | "milan"];
  const kinds = [...side.values()].filter((l) => l.length > 0);
  if (kinds.length === 0) return null;
  const list = kinds[at.kind % kinds.length];
  return { list, i: at.index % list.length };
}

const TIME_KEY = /(Time|Timestamp|At)$/;

function apply(lists: { rome: Lists; milan: Lists }, o: Op): void {
  const t = pick(lists, o.at);
  if (!t) return;
  const obj = t.list[t.i];
  const choose = (paths: Path[], n: number): Path | null => paths.length ? paths[n % paths.length] : null;
  switch (o.op) {
    case "set": {
      const p = choose(pathsOf(obj), o.path);
      if (p) define(parentOf(obj, p)!, p[p.length - 1], o.value);
      else t.list[t.i] = o.value;
      return;
    }
    case "tweak": {
      // Same JSON type, odd value: the views accept it, so the checks see it.
      const p = choose(pathsOf(obj).filter((q) => !isContainer(parentOf(obj, q)![q[q.length - 1]])), o.path);
      if (!p) return;
      const parent = parentOf(obj, p)!, key = p[p.length - 1], v = parent[key];
      define(parent, key, typeof v === "number" ? o.num : typeof v === "boolean" ? !v : o.str);
      return;
    }
    case "delete": {
      const p = choose(pathsOf(obj), o.path);
      if (!p) return;
      const parent = parentOf(obj, p)!;
      if (Array.isArray(parent)) parent.splice(Number(p[p.length - 1]), 1);
      else delete parent[p[p.length - 1]];
      return;
    }
    case "drop":
      t.list.splice(t.i, 1);
      return;
    case "duplicate": {
      const copy = structuredClone(obj);
      const meta = isContainer(copy) ? copy.metadata : null;
      if (o.rename && isContainer(meta) && typeof meta.name === "string") meta.name = `${meta.name}-dup`;
      t.list.push(copy);
      return;
    }
    case "unknown-field": {
      const containers = [[], ...pathsOf(obj)].filter((p) => {
        const v = p.length ? parentOf(obj, p)?.[p[p.length - 1]] : obj;
        return isContainer(v) && !Array.isArray(v);
      });
      const p = choose(containers, o.path)!;
      const at = p.length ? parentOf(obj, p)?.[p[p.length - 1]] : obj;
      if (isContainer(at)) define(at, o.key, o.value);
      return;
    }
    case "timestamp": {
      const p = choose(pathsOf(obj).filter((q) => TIME_KEY.test(String(q[q.length - 1]))), o.path) ??
        ["metadata", "creationTimestamp"];
      const parent = parentOf(obj, p);
      if (parent) define(parent, p[p.length - 1], o.value);
      return;
    }
    case "condition-array": {
      const p = choose(
        pathsOf(obj).filter((q) =>
          q.length >= 3 && q[q.length - 1] === "status" && q[q.length - 3] === "conditions"
        ),
        o.path,
      );
      if (p) define(parentOf(obj, p)!, "status", o.value);
      else if (isContainer(obj)) {
        const status = isContainer(obj.status) ? obj.status : (obj.status = {});
        define(status as Record<string, unknown>, "conditions", [{ type: "Ready", status: o.value }]);
      }
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The properties.

function malformedKinds(lists: Lists): Map<KindId, string> {
  const inv = new Objects(Inventory.fromLists(Object.fromEntries(lists) as never));
  const out = new Map<KindId, string>();
  for (const kind of lists.keys()) {
    const bad = inv.malformed(kind);
    if (bad.length) out.set(kind, `${bad[0].name}: ${bad[0].issue}`);
  }
  return out;
}

/** The ForeignClusters a report must list as peers: every one with a readable, non-empty name. */
function readablePeers(lists: Lists): string[] {
  return (lists.get("foreignclusters") ?? []).flatMap((fcObj) => {
    const o = fcObj as { metadata?: { name?: unknown }; spec?: { clusterID?: unknown } };
    const name = isContainer(o) && isContainer(o.metadata) ? o.metadata.name : undefined;
    if (typeof name !== "string" || name === "") return [];
    const id = isContainer(o.spec) && typeof o.spec.clusterID === "string" ? o.spec.clusterID : name;
    return [id];
  });
}

function firstIssues(
  r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } },
) {
  return (r.error?.issues ?? []).slice(0, 3).map((i) => `${i.path.map(String).join(".")}: ${i.message}`);
}

function checkReport(
  report: Report,
  lists: { rome: Lists; milan: Lists },
  dual: boolean,
  read: { rome: Lists; milan: Lists } = lists,
): void {
  const input = JSON.stringify([[...lists.rome.values()], [...lists.milan.values()]]);
  // The report document and what `-o json` prints both fit the schema.
  const direct = ReportSchema.safeParse(report);
  assert.ok(direct.success, `report violates ReportSchema: ${firstIssues(direct).join("; ")}`);
  const printed = ReportSchema.safeParse(JSON.parse(renderJson(report)));
  assert.ok(printed.success, `-o json violates ReportSchema: ${firstIssues(printed).join("; ")}`);

  // Values are formatted, never printed raw: no NaN, Infinity or [object Object] the input did not hold.
  // (A missing optional field still prints as "undefined" in some evidence lines: cosmetic, not checked.)
  const json = JSON.stringify(report);
  for (const token of ["NaN", "[object Object]", "Infinity"]) {
    if (json.includes(token) && !input.includes(token)) {
      const at = json.indexOf(token);
      assert.fail(`the report prints ${token}: …${json.slice(Math.max(0, at - 120), at + 40)}…`);
    }
  }

  // Nothing crashed: no check threw, no report section was left out by an exception.
  for (const r of report.results) {
    assert.doesNotMatch(r.summary, /^check error:/, `${r.id} on ${r.cluster} crashed: ${r.summary}`);
  }
  for (const g of report.incomplete) assert.doesNotMatch(g.reason, /^left out:/, `${g.section} crashed`);

  // Every check instance yields exactly one result.
  const [local, remote] = report.clusters;
  const peersOn = (c: string | undefined) =>
    report.peers.filter((p) => p.cluster === c).map((p) => p.clusterId);
  const twoNames = remote === undefined || remote.name !== local.name;
  if (twoNames) {
    const expected: string[] = [];
    const dualLabel = remote ? `${local.name} ↔ ${remote.name}` : local.name;
    for (const def of CATALOG) {
      const k = (cluster: string, peer: string | null) => `${def.id}@${cluster}#${peer ?? "-"}`;
      if (def.scope === "dual") {
        if (!def.perPeer) expected.push(k(dualLabel, null));
        else for (const p of peersOn(local.name)) expected.push(k(dualLabel, p));
        continue;
      }
      for (const c of report.clusters) {
        if (!def.perPeer) expected.push(k(c.name, null));
        else for (const p of peersOn(c.name)) expected.push(k(c.name, p));
      }
    }
    const got = report.results.map((r) => `${r.id}@${r.cluster}#${r.peer ?? "-"}`);
    assert.deepEqual(got.toSorted(), expected.toSorted(), "one result per check instance");
  }

  // A check never judges on top of an object it could not read (of those the run read: a malformed
  // pod in a namespace no check looks at is never listed).
  const malformed = [malformedKinds(read.rome)];
  if (report.clusters.length === 2) malformed.push(malformedKinds(read.milan));
  for (const r of report.results) {
    if (r.status === "unknown" || r.status === "skip") continue;
    const def = CATALOG.find((c) => c.id === r.id)!;
    for (const kind of def.reads) {
      const bad = malformed.map((m) => m.get(kind)).find((x) => x !== undefined);
      assert.equal(
        bad,
        undefined,
        `${r.id} on ${r.cluster} is ${r.status} although ${kind} has a malformed object (${bad})`,
      );
    }
  }

  // A ForeignCluster that does not fit its view is still a peer: it does not silently disappear.
  const sides: [string | undefined, Lists][] = [[local.name, lists.rome]];
  if (dual && report.clusters.length === 2) sides.push([remote.name, lists.milan]);
  for (const [cluster, l] of sides) {
    const listed = peersOn(cluster);
    for (const id of readablePeers(l)) {
      assert.ok(listed.includes(id), `ForeignCluster ${id} on ${cluster} is missing from the peers`);
    }
  }
}

/** A memory source that records what it served: the run reads only where its checks look. */
function recording(source: ClusterSource): { source: ClusterSource; served: Lists } {
  const served: Lists = new Map();
  return {
    served,
    source: {
      ...source,
      list: async (spec, scope, opts) => {
        const out = await source.list(spec, scope, opts);
        const kind = (Object.keys(KINDS) as KindId[]).find((k) => KINDS[k] === spec);
        if (out.ok && kind) {
          const have = served.get(kind) ?? [];
          served.set(kind, [...have, ...out.items.filter((o) => !have.some((h) => sameObject(h, o)))]);
        }
        return out;
      },
    },
  };
}

/** The same object by namespace and name (as far as they can be read). */
function sameObject(a: unknown, b: unknown): boolean {
  const id = (o: unknown) => {
    const m = (o as { metadata?: { name?: unknown; namespace?: unknown } })?.metadata;
    return JSON.stringify([m?.namespace, m?.name]);
  };
  return id(a) === id(b);
}

/** The report, and what each cluster's source served (the objects the run actually read). */
async function diagnoseMutated(
  lists: { rome: Lists; milan: Lists },
  dual: boolean,
): Promise<{ report: Report; read: { rome: Lists; milan: Lists } }> {
  const rome = recording(memorySource(lists.rome, "rome"));
  const milan = recording(memorySource(lists.milan, "milan"));
  const report = await runDiagnosis({
    local: rome.source,
    remote: dual ? { source: milan.source } : null,
    options: TEST_OPTIONS,
    probes: () => probes(),
  });
  return { report, read: { rome: rome.served, milan: milan.served } };
}

Deno.test("fuzz: the healthy base clusters pass the properties unmutated", async () => {
  for (const dual of [false, true]) {
    const { report, read } = await diagnoseMutated(BASE, dual);
    checkReport(report, BASE, dual, read);
    assert.equal(report.summary.fail, 0);
  }
});

Deno.test("fuzz: mutated cluster objects never break the run, the results or the JSON contract", async () => {
  let cases = 0, malformedCases = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async ({ dual, ops }) => {
      const lists = { rome: cloneLists(BASE.rome), milan: cloneLists(BASE.milan) };
      for (const o of ops) apply(lists, o);
      const { report, read } = await diagnoseMutated(lists, dual);
      checkReport(report, lists, dual, read);
      cases++;
      if (malformedKinds(lists.rome).size + malformedKinds(lists.milan).size > 0) malformedCases++;
    }),
    fuzzParams(150),
  );
  console.log(`${cases} cases (${malformedCases} with malformed objects)`);
});

function cloneLists(l: Lists): Lists {
  return new Map([...l].map(([k, v]) => [k, structuredClone(v)]));
}
