/**
 * The import rules of tests/architecture_test.ts as functions over a source map (repo path →
 * source text), so the test runs them on the checkout and, with a planted violation, on a made-up
 * map: a rule that reports nothing on the checkout is only worth something if it reports a
 * violation when there is one.
 */

/** One import of a module: its specifier, whether only types come through, and the repo path it names. */
export interface ImportEdge {
  from: string;
  spec: string;
  /** `import type …` / `export type … from`: erased, loads nothing at run time. */
  typeOnly: boolean;
  /** The repo path the specifier names; null for a package outside the workspace (npm:, jsr:, …). */
  to: string | null;
}

/** Workspace package names → the repo path of the module each export names. */
const WORKSPACE_EXPORTS: Readonly<Record<string, string>> = {
  "@flyingfish/cli": "mod.ts",
  "@flyingfish/cli/cli": "cli/main.ts",
  "@flyingfish/fakekube": "fakekube/mod.ts",
};

const STATIC =
  /(?:^|\n)[ \t]*(import|export)(\s+type)?\s+(?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+)\s+from\s*["']([^"']+)["']/g;
const SIDE_EFFECT = /(?:^|\n)[ \t]*import\s*["']([^"']+)["']/g;
const DYNAMIC = /import\(\s*["']([^"']+)["']\s*\)/g;

function resolve(from: string, spec: string): string | null {
  if (spec.startsWith("./") || spec.startsWith("../")) {
    const base = new URL(from, "file:///repo/");
    return new URL(spec, base).pathname.slice("/repo/".length);
  }
  return WORKSPACE_EXPORTS[spec] ?? null;
}

/** Every import of `source` (static, re-export, side-effect and dynamic), resolved from `path`. */
export function importsOf(path: string, source: string): ImportEdge[] {
  const out: ImportEdge[] = [];
  for (const m of source.matchAll(STATIC)) {
    out.push({ from: path, spec: m[3], typeOnly: m[2] !== undefined, to: resolve(path, m[3]) });
  }
  for (const re of [SIDE_EFFECT, DYNAMIC]) {
    for (const m of source.matchAll(re)) {
      out.push({ from: path, spec: m[1], typeOnly: false, to: resolve(path, m[1]) });
    }
  }
  return out;
}

/** The fake API server's workspace member. */
export const FAKEKUBE = "fakekube/";

/** Repo paths that are neither product nor fakekube: tests, benchmarks, data, toolchain. */
export function isTestSide(path: string): boolean {
  return /^(tests|bench|testdata|tools|dist|cov|\.ci)\//.test(path) || /_test\.ts$/.test(path);
}

/**
 * The member rules: (1) a file under fakekube/ imports nothing of the product but types
 * (`import type`), and nothing of tests/ at all; (2) no file outside fakekube/ reaches into it
 * other than through its face, fakekube/mod.ts (`@flyingfish/fakekube`). Returns one line per
 * violation, "from -> spec: why".
 */
export function memberViolations(sources: ReadonlyMap<string, string>): string[] {
  const bad: string[] = [];
  for (const [path, source] of sources) {
    for (const e of importsOf(path, source)) {
      if (e.to === null) continue;
      const inMember = path.startsWith(FAKEKUBE);
      const toMember = e.to.startsWith(FAKEKUBE);
      if (inMember && !toMember) {
        if (e.to.startsWith("tests/")) bad.push(`${path} -> ${e.spec}: fakekube/ imports nothing of tests/`);
        else if (!e.typeOnly) {
          bad.push(`${path} -> ${e.spec}: fakekube/ imports only types of the product (import type)`);
        }
      }
      if (!inMember && toMember && e.to !== `${FAKEKUBE}mod.ts`) {
        bad.push(`${path} -> ${e.spec}: outside fakekube/, import its face fakekube/mod.ts only`);
      }
    }
  }
  return bad.sort();
}
