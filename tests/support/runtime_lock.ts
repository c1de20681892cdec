/**
 * deno.lock, the lockfile of everything a user runs (the CLI, the demo, the benchmarks), is
 * tests/deno.lock (the whole repository, tests included) restricted to the npm packages that
 * deno.json's import map reaches. Test-only packages (fast-check, ajv, kubernetes-models, …) are
 * imported by `npm:` specifier from tests/ alone and live only in tests/deno.lock: `deno task`
 * installs every package of deno.json's import map and of deno.lock before it runs a task, so a
 * test package in either would be downloaded by `deno task demo` on a fresh machine.
 *
 * `deno run --allow-read --allow-write tests/support/runtime_lock.ts` rewrites deno.lock from
 * tests/deno.lock (after `deno check --lock=tests/deno.lock .` has updated the latter);
 * tests/lockfiles_test.ts checks that the two agree.
 */

/** The parts of a lockfile (version 5) this module reads and writes. */
export interface Lockfile {
  version: string;
  specifiers: Record<string, string>;
  npm: Record<string, { integrity: string; dependencies?: string[]; optionalDependencies?: string[] }>;
  workspace: { dependencies: string[] };
  [other: string]: unknown;
}

const ROOT = new URL("../../", import.meta.url);

/** `@scope/name` or `name` of a lockfile package key (`name@version[_peers]`) or dependency. */
function packageName(key: string): string {
  const at = key.indexOf("@", 1);
  return at < 0 ? key : key.slice(0, at);
}

/** The npm specifiers of deno.json's import map (`npm:name@version`), sorted. */
export function importMapNpm(config: { imports?: Record<string, string> }): string[] {
  return Object.values(config.imports ?? {}).filter((v) => v.startsWith("npm:")).sort();
}

/** `full` restricted to `specifiers` and the npm packages they reach. */
export function restrictLock(full: Lockfile, specifiers: readonly string[]): Lockfile {
  const byName = new Map<string, string[]>();
  for (const key of Object.keys(full.npm)) {
    const n = packageName(key);
    byName.set(n, [...byName.get(n) ?? [], key]);
  }
  const resolve = (dep: string): string => {
    const n = packageName(dep);
    const candidates = byName.get(n) ?? [];
    const version = dep.slice(n.length + 1);
    const hits = version === "" ? candidates : candidates.filter((k) => k === dep || k.startsWith(`${dep}_`));
    if (hits.length !== 1) throw new Error(`lockfile: cannot resolve dependency ${dep} (${hits.join(", ")})`);
    return hits[0];
  };
  const kept = new Set<string>();
  const todo: string[] = [];
  const spec: Record<string, string> = {};
  for (const s of specifiers) {
    const resolved = full.specifiers[s];
    if (resolved === undefined) throw new Error(`lockfile: ${s} is not in the full lockfile`);
    spec[s] = resolved;
    todo.push(`${packageName(s.slice("npm:".length))}@${resolved}`);
  }
  while (todo.length > 0) {
    const key = todo.pop()!;
    if (kept.has(key)) continue;
    const entry = full.npm[key];
    if (!entry) throw new Error(`lockfile: ${key} is not in the full lockfile`);
    kept.add(key);
    for (const d of [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []]) todo.push(resolve(d));
  }
  return {
    ...full,
    specifiers: Object.fromEntries(Object.entries(full.specifiers).filter(([k]) => k in spec)),
    npm: Object.fromEntries(Object.entries(full.npm).filter(([k]) => kept.has(k))),
    workspace: { ...full.workspace, dependencies: [...specifiers] },
  };
}

/** deno.lock as it must be: tests/deno.lock restricted to deno.json's import map, as JSON text. */
export async function expectedRuntimeLock(): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const full: Lockfile = JSON.parse(await Deno.readTextFile(new URL("tests/deno.lock", ROOT)));
  return JSON.stringify(restrictLock(full, importMapNpm(config)), null, 2) + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile(new URL("deno.lock", ROOT), await expectedRuntimeLock());
  console.log("deno.lock rewritten from tests/deno.lock");
}
