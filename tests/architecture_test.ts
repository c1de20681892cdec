/**
 * The house rules, read from the product's own imports: every import points down the floors of the
 * pipeline (docs/architecture.md, "Architecture"), no check imports another check, renderers see only the report
 * model, nothing in the product imports tests/, and Liqo's names are spelled only in liqo/. The fake
 * API server (fakekube/) is no floor but its own workspace member: it imports only types of the
 * product, and everything else reaches it through fakekube/mod.ts (rules in
 * tests/support/import_rules.ts, which a planted violation tests).
 */
import assert from "node:assert/strict";
import { liqoNameLiterals } from "./support/liqo_literals.ts";
import { FAKEKUBE, importsOf, isTestSide, memberViolations } from "./support/import_rules.ts";

const ROOT = new URL("../", import.meta.url);

/** The floors, ground first: a module may import only its own floor or lower ones. */
const FLOORS: readonly (readonly string[])[] = [
  ["errors.ts", "time.ts", "version.ts", "heap.ts"],
  ["kube/"],
  ["probes/"],
  ["liqo/"],
  ["checks/"],
  ["active/"],
  ["report/"],
  ["collect/"],
  ["diagnose/"],
  ["diff/"],
  ["multicluster/"],
  ["watch/"],
  ["render/"],
  ["serve/"],
  ["cli/"],
  ["mod.ts"],
];

/** Not product code: tests, benchmarks, fixtures, the pinned toolchain; the fakekube/ member. */
const isProduct = (path: string): boolean => !isTestSide(path) && !path.startsWith(FAKEKUBE);

function floorOf(path: string): number {
  const i = FLOORS.findIndex((f) => f.some((p) => p.endsWith("/") ? path.startsWith(p) : path === p));
  if (i < 0) throw new Error(`${path} is on no floor: add its folder to FLOORS and to docs/architecture.md`);
  return i;
}

/** Every .ts file of the checkout (repo paths), toolchain and build output aside. */
async function tsFiles(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + e.name;
    if (e.name.startsWith(".") || e.name === "node_modules" || /^(tools|dist|cov)$/.test(path)) continue;
    if (e.isDirectory) out.push(...await tsFiles(`${path}/`));
    else if (e.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

function isCheckFile(source: string): boolean {
  return /export const \w+: CheckDef\b/.test(source);
}

const allFiles = await tsFiles();
const sources = new Map(
  await Promise.all(allFiles.map(async (f) => [f, await Deno.readTextFile(new URL(f, ROOT))] as const)),
);
const files = allFiles.filter(isProduct);
/** The product's imports of repo modules (fakekube/ included: the member rules check those). */
const edges = files.flatMap((f) =>
  importsOf(f, sources.get(f)!).flatMap((e) => e.to === null ? [] : [{ from: f, to: e.to }])
);

Deno.test("architecture: the product has files on every floor it names and reads its imports", () => {
  assert.ok(files.length > 50, `only ${files.length} product files found`);
  assert.ok(edges.length > 100, `only ${edges.length} imports found`);
});

Deno.test("architecture: every import points down the floors", () => {
  const up = edges.filter((e) =>
    !e.to.startsWith("tests/") && !e.to.startsWith(FAKEKUBE) && floorOf(e.to) > floorOf(e.from)
  );
  assert.deepEqual(up.map((e) => `${e.from} -> ${e.to}`), []);
});

Deno.test("architecture: no check imports another check", () => {
  const checkFiles = new Set(files.filter((f) => f.startsWith("checks/") && isCheckFile(sources.get(f)!)));
  assert.ok(checkFiles.size >= 30, `only ${checkFiles.size} check files (one file per check)`);
  // Only a layer's mod.ts gathers its checks; nothing else may reach into a check.
  const bad = edges.filter((e) => checkFiles.has(e.to) && !/^checks\/[a-z]+\/mod\.ts$/.test(e.from));
  assert.deepEqual(bad.map((e) => `${e.from} -> ${e.to}`), []);
  for (const f of checkFiles) {
    // GW-05 → gateway/gw05.ts; an ID without a number (PF-RBAC) → preflight/pf_rbac.ts.
    assert.match(
      f,
      /^checks\/[a-z]+\/([a-z]+\d+|[a-z]+_[a-z]+)\.ts$/,
      `${f}: one file per check, named by its ID`,
    );
  }
});

Deno.test("architecture: renderers import only the report model", () => {
  const bad = edges.filter((e) => e.from.startsWith("render/") && !/^(render|report)\//.test(e.to));
  assert.deepEqual(bad.map((e) => `${e.from} -> ${e.to}`), []);
});

Deno.test("architecture: nothing in the product imports tests/", () => {
  const bad = edges.filter((e) => e.to.startsWith("tests/"));
  assert.deepEqual(bad.map((e) => `${e.from} -> ${e.to}`), []);
});

Deno.test("architecture: no `any` in kube/, liqo/, report/, render/ (checks/ only with a reason)", () => {
  const anyRe = /\bany\b(?=\s*[\[\]>;,)|=]|\s*$)|no-explicit-any/m;
  const strict = files.filter((f) => /^(kube|liqo|report|render)\//.test(f) && anyRe.test(sources.get(f)!));
  assert.deepEqual(strict, []);
  for (const f of files.filter((f) => f.startsWith("checks/"))) {
    const lines = sources.get(f)!.split("\n");
    lines.forEach((l, i) => {
      if (!l.includes("no-explicit-any")) return;
      const why = l.split("no-explicit-any")[1]?.replace(/^[\s:—-]+/, "") ?? "";
      assert.ok(
        why.length > 10,
        `${f}:${i + 1}: an \`any\` in checks/ needs a reason on its lint-ignore line`,
      );
    });
  }
});

/**
 * Where a Liqo name may be spelled outside liqo/, and why. The fake API server stands in for Liqo
 * itself: it spells the names as Liqo does, on its own, so a product typo is not mirrored by the
 * fake and left unnoticed. kube/kinds.ts is below liqo/ (it cannot import it) and selects the one
 * kind it narrows by a Liqo label.
 */
const LIQO_NAME_EXEMPT = [/^demo\/fakekube\//, /^fakekube\//, /^kube\/kinds\.ts$/];

/** `path:line: literal` for every Liqo name literal of `source` (see tests/support/liqo_literals.ts). */
export function liqoNameViolations(path: string, source: string): string[] {
  if (path.startsWith("liqo/") || LIQO_NAME_EXEMPT.some((re) => re.test(path))) return [];
  return liqoNameLiterals(source).map((l) => `${path}:${l.line}: "${l.text}" (import it from liqo/names.ts)`);
}

Deno.test("architecture: no Liqo label/annotation literal in product code outside liqo/", () => {
  const bad = files.flatMap((f) => liqoNameViolations(f, sources.get(f)!));
  assert.deepEqual(bad, []);
});

Deno.test("architecture: the Liqo-name rule catches a planted literal, not a comment, prose or a URL", () => {
  const planted = [
    "// a comment may say liqo.io/type",
    "/* and so may networking.liqo.io/active */",
    "const re = /[\"']/; // a regex with quotes does not open a string",
    'const typed = labels["liqo.io/type"];',
    "const path = `/apis/offloading.liqo.io/v1beta1/namespaces/${ns}/namespaceoffloadings`;",
    'const prose = "Tenant namespaces (label liqo.io/tenant-namespace=true)";',
    'const url = "https://docs.liqo.io/en/stable";',
    "const nested = `${labels['networking.liqo.io/active']}`;",
  ].join("\n");
  assert.deepEqual(liqoNameViolations("checks/env/env99.ts", planted), [
    'checks/env/env99.ts:4: "liqo.io/type" (import it from liqo/names.ts)',
    'checks/env/env99.ts:5: "/apis/offloading.liqo.io/v1beta1/namespaces/${}/namespaceoffloadings" (import it from liqo/names.ts)',
    'checks/env/env99.ts:8: "networking.liqo.io/active" (import it from liqo/names.ts)',
  ]);
  assert.deepEqual(liqoNameViolations("liqo/names.ts", planted), []);
});

Deno.test("architecture: fakekube/ imports only types of the product, and is reached only through its mod.ts", () => {
  assert.ok([...sources.keys()].filter((f) => f.startsWith(FAKEKUBE)).length > 20, "fakekube/ not found");
  assert.ok(
    edges.some((e) => e.to === `${FAKEKUBE}mod.ts`),
    "the product (cli/demo.ts) imports the fake through its face",
  );
  assert.deepEqual(memberViolations(sources), []);
});

Deno.test("architecture: the member rules report planted violations", () => {
  const planted = new Map([
    // fakekube/ using a product value, a multi-line one, a dynamic one, and tests/ even for types
    ["fakekube/a.ts", 'import { field } from "../kube/selectors.ts";\n'],
    ["fakekube/b.ts", 'import {\n  formatIPv4,\n  parseCidr,\n} from "../probes/cidr.ts";\n'],
    ["fakekube/c.ts", 'const m = await import("../kube/kinds.ts");\n'],
    ["fakekube/d.ts", 'import type { Loose } from "../tests/support/fixtures.ts";\n'],
    ["fakekube/e.ts", 'import { type K8sObject } from "../kube/source.ts";\n'],
    // fine: types of the product, its own modules, npm packages
    [
      "fakekube/ok.ts",
      'import type { K8sObject } from "../kube/source.ts";\nimport { z } from "zod";\n' +
      'import { field } from "./object.ts";\nexport type { Status } from "../checks/types.ts";\n',
    ],
    // outside reaching past the face, relatively or dynamically
    ["cli/x.ts", 'import { startFakeCluster } from "../fakekube/server.ts";\n'],
    ["tests/e2e/y_test.ts", 'const s = await import("../../fakekube/scenario.ts");\n'],
    // fine: the face, by path or by package name
    ["cli/ok.ts", 'import { loadScenario } from "@flyingfish/fakekube";\n'],
    ["tests/ok_test.ts", 'import { loadScenario } from "../fakekube/mod.ts";\n'],
  ]);
  assert.deepEqual(memberViolations(planted), [
    "cli/x.ts -> ../fakekube/server.ts: outside fakekube/, import its face fakekube/mod.ts only",
    "fakekube/a.ts -> ../kube/selectors.ts: fakekube/ imports only types of the product (import type)",
    "fakekube/b.ts -> ../probes/cidr.ts: fakekube/ imports only types of the product (import type)",
    "fakekube/c.ts -> ../kube/kinds.ts: fakekube/ imports only types of the product (import type)",
    "fakekube/d.ts -> ../tests/support/fixtures.ts: fakekube/ imports nothing of tests/",
    "fakekube/e.ts -> ../kube/source.ts: fakekube/ imports only types of the product (import type)",
    "tests/e2e/y_test.ts -> ../../fakekube/scenario.ts: outside fakekube/, import its face fakekube/mod.ts only",
  ]);
});
