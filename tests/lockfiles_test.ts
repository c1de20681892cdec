/**
 * The two lockfiles (tests/support/runtime_lock.ts): deno.lock holds exactly what deno.json's import
 * map reaches — so `deno task demo` on a fresh machine downloads the CLI's packages and nothing
 * else — and every package of the import map is one the product imports (a test-only package there
 * would be installed by every `deno task`).
 */
import assert from "node:assert/strict";
import { expectedRuntimeLock, importMapNpm, type Lockfile } from "./support/runtime_lock.ts";

const ROOT = new URL("../", import.meta.url);
const NOT_PRODUCT = [/^tests\//, /^bench\//, /^tools\//, /^testdata\//, /_test\.ts$/];

async function productSources(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + e.name;
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    if (e.isDirectory) out.push(...await productSources(`${path}/`));
    else if (e.name.endsWith(".ts") && !NOT_PRODUCT.some((re) => re.test(path))) {
      out.push(await Deno.readTextFile(new URL(path, ROOT)));
    }
  }
  return out;
}

Deno.test("lockfiles: deno.lock is tests/deno.lock restricted to the import map (tests/support/runtime_lock.ts)", async () => {
  const actual = await Deno.readTextFile(new URL("deno.lock", ROOT));
  assert.equal(
    actual,
    await expectedRuntimeLock(),
    "deno.lock drifted: run `deno check --lock=tests/deno.lock .` then " +
      "`deno run --allow-read --allow-write tests/support/runtime_lock.ts`",
  );
  for (const testOnly of ["fast-check", "ajv", "kubernetes-models", "lezer-promql", "pure-rand"]) {
    assert.ok(
      !actual.includes(`"${testOnly}@`) && !actual.includes(`/${testOnly}@`),
      `${testOnly} in deno.lock`,
    );
  }
});

Deno.test("lockfiles: every npm package of the import map is imported by product code (or a peer of one)", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const lock: Lockfile = JSON.parse(await Deno.readTextFile(new URL("deno.lock", ROOT)));
  const sources = (await productSources()).join("\n");
  const imported = (name: string) => sources.includes(`"${name}"`) || sources.includes(`"${name}/`);
  // A peer dependency (commander of @commander-js/extra-typings) is pinned in the map, not imported.
  const peers = new Set(
    Object.values(lock.npm).flatMap((e) => e.dependencies ?? []).map((d) => d.replace(/(.)@.*$/, "$1")),
  );
  const unused = Object.entries(config.imports as Record<string, string>)
    .filter(([, target]) => importMapNpm({ imports: { x: target } }).length > 0)
    .filter(([name]) => !imported(name) && !peers.has(name))
    .map(([name]) => name);
  assert.deepEqual(unused, [], "test-only packages belong in tests/ as npm: specifiers (tests/deno.lock)");
});
