/**
 * "Did you mean …?" for names typed on the command line (commands, layers, demo scenarios): the
 * candidates within a small edit distance of what was typed, or sharing its start. Pure.
 */
import { editDistance } from "../checks/ids.ts";

/**
 * The candidates `typed` most likely meant (case ignored): those nearest within a third of its
 * length (at least 1, at most 3 edits), else those it is a prefix of; empty when nothing is close.
 */
export function suggestions(typed: string, candidates: readonly string[]): string[] {
  const t = typed.trim().toLowerCase();
  if (!t) return [];
  const bound = Math.min(3, Math.max(1, Math.floor(t.length / 3)));
  const scored = candidates.map((c) => ({ c, d: editDistance(t, c.toLowerCase()) })).filter((s) =>
    s.d <= bound
  );
  if (scored.length) {
    const best = Math.min(...scored.map((s) => s.d));
    return scored.filter((s) => s.d === best).map((s) => s.c);
  }
  return candidates.filter((c) => c.toLowerCase().startsWith(t));
}

/** ` — did you mean X?` / ` — did you mean one of X, Y?`, or "" when nothing is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const s = suggestions(typed, candidates);
  if (!s.length) return "";
  return s.length === 1 ? ` — did you mean ${s[0]}?` : ` — did you mean one of ${s.join(", ")}?`;
}
