/**
 * The one catalog, checked whole: every check — passive and active — carries its `explain` text,
 * its hops and its declared reads (inventory kinds, probe-hub reads, inputs), and `flyingfish checks`
 * / `explain` list them from that one list. Probe-hub declarations are tested both ways: the engine
 * refuses an undeclared read (no healthy check may trip it), and every declared read is one the
 * check's code (or a shared helper it imports) actually makes.
 */
import assert from "node:assert/strict";
import {
  ALL_CHECKS,
  CATALOG,
  PREFLIGHT_CATALOG,
  PREFLIGHT_CHECKS,
  PROBE_CHECKS,
  PROBE_NAMES,
} from "../active/mod.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import { HUB_READS, LAYERS } from "../checks/types.ts";
import { allCatalogEntries, explanation } from "../cli/catalog_cmd.ts";
import { runEngine } from "../checks/engine.ts";
import { baseObjects, inventoryOf, peersOf, scriptedProbes, viewOf } from "./support/fixtures.ts";

const ROOT = new URL("../", import.meta.url);

Deno.test("catalog: one list, passive then active, every ID once; checks and explain read it", () => {
  assert.deepEqual(CATALOG.map((c) => c.id), [...PASSIVE_CHECKS, ...PROBE_CHECKS].map((c) => c.id));
  assert.equal(new Set(CATALOG.map((c) => c.id)).size, CATALOG.length);
  // `checks` lists check's catalog, then preflight's; `explain` knows both; no ID in both.
  assert.deepEqual(ALL_CHECKS.map((c) => c.id), [...CATALOG, ...PREFLIGHT_CATALOG].map((c) => c.id));
  assert.equal(new Set(ALL_CHECKS.map((c) => c.id)).size, ALL_CHECKS.length);
  assert.deepEqual(allCatalogEntries().map((e) => e.id), ALL_CHECKS.map((c) => c.id));
  for (const c of ALL_CHECKS) assert.ok(explanation(c.id), `explain ${c.id}`);
  for (const c of PREFLIGHT_CATALOG) assert.equal(c.layer, "preflight", `${c.id}: layer preflight`);
});

Deno.test("catalog: every check has explain text, hops and declared reads", () => {
  for (const c of ALL_CHECKS) {
    for (const part of ["reads", "decides", "fixes"] as const) {
      assert.ok(c.explain[part].trim().length > 20, `${c.id}: explain.${part} says something`);
    }
    assert.ok(LAYERS.includes(c.layer), `${c.id}: a known layer`);
    assert.ok(Array.isArray(c.hops), `${c.id}: hops declared`);
    // ENV-03 reads API discovery, which every run fetches: no inventory kind to declare.
    assert.ok(
      c.reads.length > 0 || /discovery/i.test(c.explain.reads),
      `${c.id}: declares the inventory kinds it reads`,
    );
    for (const r of c.hubReads ?? []) assert.ok(HUB_READS.includes(r), `${c.id}: hub read ${r} is known`);
    for (const i of c.inputs ?? []) {
      assert.ok(ALL_CHECKS.some((d) => d.id === i), `${c.id}: input ${i} exists`);
    }
    if (c.active && CATALOG.includes(c)) {
      assert.ok(PROBE_NAMES.includes(c.active.probe as never), `${c.id}: its probe exists`);
    }
  }
  // Hub reads show in explain, so a reader knows what the check sends or execs.
  for (const c of ALL_CHECKS.filter((c) => c.hubReads?.length)) {
    assert.match(explanation(c.id)!, new RegExp(`through the probe hub: ${c.hubReads!.join(", ")}`));
  }
});

/** Source of a check's module and the checks/ helpers it imports, transitively. */
async function checkSources(file: string, seen = new Set<string>()): Promise<string> {
  if (seen.has(file)) return "";
  seen.add(file);
  const src = await Deno.readTextFile(new URL(file, ROOT));
  let all = src;
  for (const m of src.matchAll(/from\s*"(\.{1,2}\/[^"]+)"/g)) {
    const to = new URL(m[1], new URL(file, ROOT)).pathname.slice(ROOT.pathname.length);
    if (to.startsWith("checks/") && !to.endsWith("types.ts")) all += await checkSources(to, seen);
  }
  return all;
}

Deno.test("catalog: every declared probe-hub read is one the check's code makes", async () => {
  for (const c of [...PASSIVE_CHECKS, ...PREFLIGHT_CHECKS].filter((c) => c.hubReads?.length)) {
    const [layer] = [c.layer];
    // PF-RBAC lives in checks/preflight/pf_rbac.ts; GW-05 in checks/gateway/gw05.ts.
    const file = `checks/${layer}/${c.id.toLowerCase().replace("-", c.layer === "preflight" ? "_" : "")}.ts`;
    const src = await checkSources(file);
    for (const r of c.hubReads!) {
      assert.match(
        src,
        new RegExp(`probes[?!]?\\.${r}\\b`),
        `${c.id} declares ${r}: ${file} or its helpers use it`,
      );
    }
  }
});

Deno.test("catalog: no check of a healthy peering reads through the hub what it did not declare", async () => {
  for (const cluster of ["rome", "milan"] as const) {
    const view = viewOf(inventoryOf(await baseObjects(cluster)));
    const out = await runEngine({
      catalog: PASSIVE_CHECKS,
      local: { view, peers: peersOf(view) },
      probes: scriptedProbes(),
      options: {
        networkProbes: true,
        preciseUdp: false,
        sampleIntervalMs: 1,
        latencyThresholdMs: 200,
        checkTimeoutMs: 5_000,
      },
    });
    const refused = out.results.filter((r) => /without declaring it/.test(r.summary));
    assert.deepEqual(refused.map((r) => `${r.id}: ${r.summary}`), []);
  }
});

Deno.test("catalog: the engine refuses a probe-hub read a check did not declare", async () => {
  const view = viewOf(inventoryOf(await baseObjects("rome")));
  const sneaky = {
    ...PASSIVE_CHECKS[0],
    id: "ENV-99",
    needs: [],
    hubReads: [],
    run: async (ctx: Parameters<typeof PASSIVE_CHECKS[0]["run"]>[0]) => {
      await ctx.probes.udp("127.0.0.1", 9);
      return { status: "pass" as const, summary: "sent a datagram" };
    },
  };
  const out = await runEngine({
    catalog: [sneaky],
    local: { view, peers: peersOf(view) },
    probes: scriptedProbes(),
    options: {
      networkProbes: true,
      preciseUdp: false,
      sampleIntervalMs: 1,
      latencyThresholdMs: 200,
      checkTimeoutMs: 5_000,
    },
  });
  assert.equal(out.results[0].status, "unknown");
  assert.match(out.results[0].summary, /ENV-99 reads udp through the probe hub without declaring it/);
});
