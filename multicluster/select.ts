/**
 * Which contexts a fleet run looks at: every context of the merged kubeconfig (`--all-contexts`)
 * or the ones `--contexts` names — a name, `/regex/` (every context it matches), and `^name` or
 * `^/regex/` to exclude (an exclusion alone starts from every context). Pure.
 */
import { ToolError } from "../errors.ts";

/** What the flags ask for. */
export interface ContextSelection {
  /** `--all-contexts`. */
  all: boolean;
  /** `--contexts` entries (comma-separated, repeatable), in the order given. */
  patterns: readonly string[];
}

/** One entry of `--contexts`, parsed. */
interface Pattern {
  exclude: boolean;
  match: (name: string) => boolean;
  text: string;
  regex: boolean;
}

function parse(entry: string): Pattern {
  const exclude = entry.startsWith("^");
  const body = exclude ? entry.slice(1) : entry;
  if (body.length >= 2 && body.startsWith("/") && body.endsWith("/")) {
    let re: RegExp;
    try {
      re = new RegExp(body.slice(1, -1));
    } catch (e) {
      throw new ToolError(`--contexts: invalid pattern ${entry}: ${e instanceof Error ? e.message : e}`);
    }
    return { exclude, match: (n) => re.test(n), text: entry, regex: true };
  }
  if (body === "") throw new ToolError(`--contexts: empty entry "${entry}"`);
  return { exclude, match: (n) => n === body, text: entry, regex: false };
}

/**
 * The selected context names, in kubeconfig order. A plain name that is no context is exit 3
 * (a typo must not silently shrink the fleet); a pattern that matches nothing is fine; nothing
 * selected at all is exit 3.
 */
export function selectContexts(available: readonly string[], sel: ContextSelection): string[] {
  const patterns = sel.patterns.map(parse);
  for (const p of patterns) {
    if (!p.regex && !available.some(p.match)) {
      throw new ToolError(
        `--contexts: no context "${p.text.replace(/^\^/, "")}" in the kubeconfig (available: ${
          available.join(", ") || "none"
        })`,
      );
    }
  }
  const includes = patterns.filter((p) => !p.exclude);
  const excludes = patterns.filter((p) => p.exclude);
  const chosen = available.filter((n) =>
    (sel.all || includes.length === 0 || includes.some((p) => p.match(n))) &&
    !excludes.some((p) => p.match(n))
  );
  if (chosen.length === 0) {
    throw new ToolError(
      `no context selected (kubeconfig contexts: ${available.join(", ") || "none"}; --contexts ${
        sel.patterns.join(",")
      })`,
    );
  }
  return chosen;
}
