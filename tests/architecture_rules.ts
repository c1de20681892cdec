/**
 * The house rules of the active wing and of folder-private modules, as pure functions over a map of
 * product sources (path → text): each returns the violations it finds, one line each, so that the
 * architecture tests can run them on the real tree and on planted violations alike.
 */

/** One import of a product module: who imports whom, and whether it is `import type` only. */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Relative import targets of every module (static, re-exports and dynamic), resolved to repo paths. */
export function importEdges(sources: ReadonlyMap<string, string>): ImportEdge[] {
  const root = new URL("file:///repo/");
  const out: ImportEdge[] = [];
  for (const [from, source] of sources) {
    const base = new URL(from, root);
    const push = (spec: string, typeOnly: boolean) =>
      out.push({ from, to: new URL(spec, base).pathname.slice(root.pathname.length), typeOnly });
    for (
      const m of source.matchAll(
        /(?:^|\n)\s*(import|export)(\s+type)?\b[^"';]*?from\s*["'](\.{1,2}\/[^"']+)["']/g,
      )
    ) {
      push(m[3], m[2] !== undefined);
    }
    for (const m of source.matchAll(/import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) push(m[1], false);
  }
  return out;
}

/**
 * Outside `active/`, only `active/mod.ts` is imported: the wing has one door. (The fake API server
 * has a rule of its own: it imports nothing of the product but types.)
 */
export function activeDoorViolations(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter((e) => !/^(active|fakekube|demo\/fakekube)\//.test(e.from))
    .filter((e) => e.to.startsWith("active/") && e.to !== "active/mod.ts")
    .map((e) => `${e.from} -> ${e.to} (outside active/, import active/mod.ts)`);
}

/** Modules a judge (or its folder's private helpers) may import values from: pure ones only. */
const PURE_FOR_JUDGES: readonly RegExp[] = [
  /^active\/model\.ts$/,
  /^active\/commands\.ts$/,
  /^active\/preflight\/model\.ts$/,
  /^checks\//,
  /^liqo\//,
  /^probes\/(cidr|duration)\.ts$/,
];

/** APIs that do I/O or keep time: a judge reads what was measured and decides, nothing else. */
const IO_CALLS = /\bDeno\.\w+|\bfetch\(|\bsetTimeout\(|\bsetInterval\(|\bnew WebSocket\(/;

/** Whether `path` is a judge or a private helper of a probe folder (`active/<probe>/_x.ts`). */
function isJudgeSide(path: string): boolean {
  // One folder per probe, and preflight's probes one level deeper (active/preflight/udp/judge.ts).
  return /^active\/(preflight\/)?[a-z]+\/(judge|_[a-z_]+)\.ts$/.test(path) &&
    !path.startsWith("active/fleet/");
}

/**
 * Judges import no I/O: an `active/<probe>/judge.ts` (and its folder's `_` helpers, the parsers it
 * reads raw output with) imports values only from pure modules — its own folder's `_` files, the
 * run-record model, the probe commands, checks/, liqo/, CIDR and duration math — and calls no I/O API.
 */
export function judgeIoViolations(
  edges: readonly ImportEdge[],
  sources: ReadonlyMap<string, string>,
): string[] {
  const out: string[] = [];
  for (const e of edges.filter((e) => isJudgeSide(e.from) && !e.typeOnly)) {
    const folder = e.from.slice(0, e.from.lastIndexOf("/") + 1);
    const own = e.to.startsWith(folder) && /\/_[a-z_]+\.ts$/.test(e.to);
    if (!own && !PURE_FOR_JUDGES.some((re) => re.test(e.to))) {
      out.push(`${e.from} -> ${e.to} (a judge imports no I/O module)`);
    }
  }
  for (const [path, source] of sources) {
    if (!isJudgeSide(path)) continue;
    const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
    const call = IO_CALLS.exec(code);
    if (call) out.push(`${path}: calls ${call[0]} (a judge does no I/O)`);
  }
  return out;
}

/** Only `active/fleet/` imports the writer (`kube/live/write.ts`): every write of a run goes through it. */
export function writeViolations(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter((e) => e.to === "kube/live/write.ts" && !e.from.startsWith("active/fleet/"))
    .map((e) => `${e.from} -> ${e.to} (only active/fleet/ writes)`);
}

/** A folder-private module (`dir/_name.ts`) is imported only from its own folder. */
export function privateViolations(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter((e) => /(^|\/)_[^/]+\.ts$/.test(e.to))
    .filter((e) => e.from.slice(0, e.from.lastIndexOf("/") + 1) !== e.to.slice(0, e.to.lastIndexOf("/") + 1))
    .map((e) => `${e.from} -> ${e.to} (private to ${e.to.slice(0, e.to.lastIndexOf("/") + 1) || "./"})`);
}
