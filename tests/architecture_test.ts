/**
 * The house rules, read from the product's own imports: every import points down the floors of the
 * pipeline (README, "Architecture"), no check imports another check, renderers see only the report
 * model, and nothing in the product imports tests/.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** The floors, ground first: a module may import only its own floor or lower ones. */
const FLOORS: readonly (readonly string[])[] = [
  ["errors.ts", "version.ts"],
  ["kube/"],
  ["probes/"],
  ["liqo/"],
  ["checks/"],
  ["active/"],
  ["report/"],
  ["collect/"],
  ["diagnose/"],
  ["watch/"],
  ["render/"],
  ["serve/"],
  ["demo/"],
  ["cli/"],
  ["mod.ts"],
];

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

function floorOf(path: string): number {
  const i = FLOORS.findIndex((f) => f.some((p) => p.endsWith("/") ? path.startsWith(p) : path === p));
  if (i < 0) throw new Error(`${path} is on no floor: add its folder to FLOORS and to the README`);
  return i;
}

async function productFiles(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + e.name;
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    if (e.isDirectory) out.push(...await productFiles(`${path}/`));
    else if (e.name.endsWith(".ts") && !NOT_PRODUCT.some((re) => re.test(path))) out.push(path);
  }
  return out;
}

/** Relative import targets of a module (static and dynamic), resolved to repo paths. */
function importsOf(path: string, source: string): string[] {
  const specs = [
    ...source.matchAll(/(?:^|\n)\s*(?:import|export)[^"';]*?from\s*["'](\.{1,2}\/[^"']+)["']/g),
    ...source.matchAll(/import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g),
  ].map((m) => m[1]);
  return specs.map((s) => new URL(s, new URL(path, ROOT)).pathname.slice(ROOT.pathname.length));
}

function isCheckFile(source: string): boolean {
  return /export const \w+: CheckDef\b/.test(source);
}

const files = await productFiles();
const sources = new Map(
  await Promise.all(files.map(async (f) => [f, await Deno.readTextFile(new URL(f, ROOT))] as const)),
);
const edges = files.flatMap((f) => importsOf(f, sources.get(f)!).map((to) => ({ from: f, to })));

Deno.test("architecture: the product has files on every floor it names and reads its imports", () => {
  assert.ok(files.length > 50, `only ${files.length} product files found`);
  assert.ok(edges.length > 100, `only ${edges.length} imports found`);
});

Deno.test("architecture: every import points down the floors", () => {
  const up = edges.filter((e) => !e.to.startsWith("tests/") && floorOf(e.to) > floorOf(e.from));
  assert.deepEqual(up.map((e) => `${e.from} -> ${e.to}`), []);
});

Deno.test("architecture: no check imports another check", () => {
  const checkFiles = new Set(files.filter((f) => f.startsWith("checks/") && isCheckFile(sources.get(f)!)));
  assert.ok(checkFiles.size >= 30, `only ${checkFiles.size} check files (one file per check)`);
  // Only a layer's mod.ts gathers its checks; nothing else may reach into a check.
  const bad = edges.filter((e) => checkFiles.has(e.to) && !/^checks\/[a-z]+\/mod\.ts$/.test(e.from));
  assert.deepEqual(bad.map((e) => `${e.from} -> ${e.to}`), []);
  for (const f of checkFiles) {
    assert.match(f, /^checks\/[a-z]+\/[a-z]+\d+\.ts$/, `${f}: one file per check, named by its ID`);
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
