/**
 * Check IDs as users type them, matched the way kubectl matches resource names: case does not
 * matter (`tun-02` is TUN-02); anything else that is close — a missing dash (`TUN02`), a number
 * without its zero (`TUN-2`), a typo (`TUM-02`) — is refused with "did you mean TUN-02?", so a
 * flag never silently means another check. Also the selection `check --only` / `--skip` makes of
 * the catalog. Pure: no I/O.
 */
import { type CheckDef, type Layer, LAYERS } from "./types.ts";

/** What a typed check ID resolves to. */
export type IdMatch =
  | { ok: true; id: string }
  | { ok: false; input: string; suggestions: string[] };

/** Upper case, letters and digits only, numbers without leading zeros: `tun-02` → `TUN2`. */
function loose(id: string): string {
  return id.toUpperCase().replace(/[^A-Z0-9]/g, "").replace(/(^|[A-Z])0+(?=\d)/g, "$1");
}

/** Levenshtein distance, for typo suggestions (check IDs here, command-line names in cli/suggest.ts). */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

/**
 * Resolves a typed check ID against the catalog: an exact match ignoring case is accepted; for
 * anything else the likely meant IDs are suggested — the same ID spelled differently, else the one
 * ID a single typo away, else the checks sharing the typed prefix (`TUN-9` → the TUN checks).
 */
export function resolveCheckId(input: string, catalog: readonly Pick<CheckDef, "id">[]): IdMatch {
  const typed = input.trim();
  const exact = catalog.find((c) => c.id.toLowerCase() === typed.toLowerCase());
  if (exact) return { ok: true, id: exact.id };
  const key = loose(typed);
  const same = catalog.filter((c) => loose(c.id) === key).map((c) => c.id);
  if (same.length) return { ok: false, input: typed, suggestions: same };
  const near = key ? catalog.filter((c) => editDistance(key, loose(c.id)) <= 1).map((c) => c.id) : [];
  if (near.length === 1) return { ok: false, input: typed, suggestions: near };
  const prefix = key.replace(/\d+$/, "");
  const family = prefix
    ? catalog.filter((c) => loose(c.id).replace(/\d+$/, "") === prefix).map((c) => c.id)
    : [];
  return { ok: false, input: typed, suggestions: family };
}

/** The one-line refusal of an unmatched ID: `no check "TUN02" — did you mean TUN-02?`. */
export function unknownIdMessage(m: Extract<IdMatch, { ok: false }>): string {
  const hint = m.suggestions.length === 0
    ? ""
    : m.suggestions.length === 1
    ? ` — did you mean ${m.suggestions[0]}?`
    : ` — did you mean one of ${m.suggestions.join(", ")}?`;
  return `no check "${m.input}"${hint} (see \`flyingfish checks\`)`;
}

/** A layer named in `--only`/`--skip` (its ID, any case: `tunnel`, `GATEWAY`), if it is one. */
export function resolveLayer(input: string): Layer | null {
  const typed = input.trim().toLowerCase().replace(/[^a-z]/g, "");
  return LAYERS.find((l) => l === typed) ?? null;
}

/** IDs (or layer names) of a list flag, each resolved; an unmatched entry is an error message. */
export function resolveSelection(
  entries: readonly string[],
  catalog: readonly Pick<CheckDef, "id" | "layer">[],
): { ids: string[]; errors: string[] } {
  const ids: string[] = [];
  const errors: string[] = [];
  for (const raw of entries.flatMap((e) => e.split(","))) {
    if (!raw.trim()) continue;
    const m = resolveCheckId(raw, catalog);
    const layer = m.ok ? null : resolveLayer(raw);
    if (m.ok) ids.push(m.id);
    else if (layer) ids.push(...catalog.filter((c) => c.layer === layer).map((c) => c.id));
    else errors.push(unknownIdMessage(m));
  }
  return { ids: [...new Set(ids)], errors };
}

/** The check IDs `id` needs, transitively (without `id` itself). */
function needsClosure(id: string, byId: ReadonlyMap<string, CheckDef>): Set<string> {
  const out = new Set<string>();
  const visit = (x: string): void => {
    for (const n of byId.get(x)?.needs ?? []) {
      if (out.has(n)) continue;
      out.add(n);
      visit(n);
    }
  };
  visit(id);
  return out;
}

/** What `check --only` and `--skip` keep of the catalog (resolved IDs, see {@link resolveSelection}). */
export interface CatalogSelection {
  /** Run only these checks, plus what they need (transitively), so the dependency logic holds. */
  only?: readonly string[];
  /** Do not run these; a check that needs one (transitively) is not run either. */
  skip?: readonly string[];
}

/**
 * The catalog narrowed by `--only` and `--skip`, in catalog order.
 *
 * `--only`: the named checks and every check they need, transitively — a check is only judged on
 * top of dependencies that were verified, so the prerequisites run and are reported too.
 *
 * `--skip`: a skipped check is still listed, as `skip` (skipKind `disabled`, "skipped (--skip X)"),
 * so a report never looks complete when it is not; a check that needs it, transitively, is skipped
 * the same way ("not run: needs X (--skip X)") rather than judged on an unverified link. Skipped
 * checks read nothing, so the kinds only they read are not listed at all.
 */
export function selectCatalog(catalog: readonly CheckDef[], sel: CatalogSelection): CheckDef[] {
  const byId = new Map(catalog.map((c) => [c.id, c]));
  let kept: CheckDef[] = [...catalog];
  if (sel.only?.length) {
    const wanted = new Set(sel.only);
    for (const id of sel.only) for (const n of needsClosure(id, byId)) wanted.add(n);
    kept = kept.filter((c) => wanted.has(c.id));
  }
  const skipped = new Set(sel.skip ?? []);
  if (!skipped.size) return kept;
  return kept.map((c) => {
    if (skipped.has(c.id)) {
      return { ...disabledCheck(c, `skipped (--skip ${c.id})`), needs: [], runsIfUnknown: [] };
    }
    const closure = needsClosure(c.id, byId);
    const root = catalog.find((d) => skipped.has(d.id) && closure.has(d.id));
    return root ? disabledCheck(c, `not run: needs ${root.id} (--skip ${root.id})`) : c;
  });
}

/**
 * The check, turned into a `skip` (disabled) that reads nothing, takes no inputs, and keeps its
 * place and needs.
 */
export function disabledCheck(c: CheckDef, summary: string): CheckDef {
  return {
    ...c,
    reads: [],
    optionalReads: [],
    inputs: [],
    run: () => ({ status: "skip", skipKind: "disabled", summary }),
  };
}
