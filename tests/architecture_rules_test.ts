/**
 * The active wing's rules and the privacy of `_` modules (tests/architecture_rules.ts), run on the
 * product tree — and each shown to catch a planted violation, so that a rule that silently matches
 * nothing cannot pass.
 */
import assert from "node:assert/strict";
import {
  activeDoorViolations,
  importEdges,
  judgeIoViolations,
  privateViolations,
  writeViolations,
} from "./architecture_rules.ts";

const ROOT = new URL("../", import.meta.url);

/** Not product code: tests, benchmarks, fixtures, the pinned toolchain. */
const NOT_PRODUCT = [
  /^tests\//,
  /^bench\//,
  /^testdata\//,
  /^tools\//,
  /^\.ci\//,
  /_test\.ts$/,
  /^dist\//,
  /^cov\//,
];

async function productSources(dir = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + e.name;
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    if (e.isDirectory) { for (const [k, v] of await productSources(`${path}/`)) out.set(k, v); }
    else if (e.name.endsWith(".ts") && !NOT_PRODUCT.some((re) => re.test(path))) {
      out.set(path, await Deno.readTextFile(new URL(path, ROOT)));
    }
  }
  return out;
}

const sources = await productSources();
const edges = importEdges(sources);

/** The tree's sources with `extra` files added (a planted violation). */
function planted(
  extra: Record<string, string>,
): { sources: Map<string, string>; edges: ReturnType<typeof importEdges> } {
  const s = new Map([...sources, ...Object.entries(extra)]);
  return { sources: s, edges: importEdges(s) };
}

Deno.test("architecture: the active wing's rules read the tree (judges, fleet, the door are there)", () => {
  assert.ok(sources.has("active/mod.ts"), "active/mod.ts is the wing's door");
  for (const p of ["matrix", "udp", "mtu", "trace", "service"]) {
    assert.ok(sources.has(`active/${p}/judge.ts`), `active/${p}/judge.ts`);
    assert.ok(sources.has(`active/${p}/measure.ts`), `active/${p}/measure.ts`);
  }
  assert.ok(edges.some((e) => e.from.startsWith("active/fleet/") && e.to === "kube/live/write.ts"));
  assert.ok(edges.some((e) => !e.from.startsWith("active/") && e.to === "active/mod.ts"));
});

Deno.test("architecture: outside active/ only active/mod.ts is imported", () => {
  assert.deepEqual(activeDoorViolations(edges), []);
  const p = planted({ "report/planted.ts": 'import { runActive } from "../active/session.ts";\n' });
  assert.deepEqual(activeDoorViolations(p.edges), [
    "report/planted.ts -> active/session.ts (outside active/, import active/mod.ts)",
  ]);
});

Deno.test("architecture: judges import no I/O and call no I/O API", () => {
  assert.deepEqual(judgeIoViolations(edges, sources), []);
  const p = planted({
    "active/udp/judge.ts": sources.get("active/udp/judge.ts") +
      '\nimport { openFleet } from "../fleet/fleet.ts";\nexport const x = () => Deno.readTextFile("x");\n',
  });
  assert.deepEqual(judgeIoViolations(p.edges, p.sources), [
    "active/udp/judge.ts -> active/fleet/fleet.ts (a judge imports no I/O module)",
    "active/udp/judge.ts: calls Deno.readTextFile (a judge does no I/O)",
  ]);
  // A type-only import of an I/O module is fine (a judge may name the shape of what was measured).
  const typed = planted({
    "active/mtu/_planted.ts":
      'import type { ExecOutcome } from "../../kube/source.ts";\nexport type X = ExecOutcome;\n',
  });
  assert.deepEqual(judgeIoViolations(typed.edges, typed.sources), []);
});

Deno.test("architecture: only active/fleet/ imports the writer", () => {
  assert.deepEqual(writeViolations(edges), []);
  const p = planted({ "active/udp/measure.ts": 'import { kubeWriter } from "../../kube/live/write.ts";\n' });
  assert.deepEqual(writeViolations(p.edges), [
    "active/udp/measure.ts -> kube/live/write.ts (only active/fleet/ writes)",
  ]);
});

Deno.test("architecture: a `_` module is imported only from its own folder", () => {
  assert.deepEqual(privateViolations(edges), []);
  const p = planted({ "active/session_planted.ts": 'import { parsePing } from "./mtu/_ping.ts";\n' });
  assert.deepEqual(privateViolations(p.edges), [
    "active/session_planted.ts -> active/mtu/_ping.ts (private to active/mtu/)",
  ]);
});
