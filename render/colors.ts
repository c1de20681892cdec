/**
 * ANSI colours for the text output, on or off by the caller's decision (cli/output.ts `useColor`).
 *
 * Own code rather than picocolors: picocolors reads NO_COLOR, FORCE_COLOR, TERM and CI from
 * `process.env` when it is imported, and under Deno each of those reads needs `--allow-env` (or
 * prompts on a terminal) — `check --snapshot` must run with `--allow-read` alone.
 */

/** A colour function: wraps text in an SGR sequence (identity when colours are off). */
export type Paint = (s: string | number) => string;

/** The colours the renderers use. */
export interface Colors {
  readonly isColorSupported: boolean;
  readonly bold: Paint;
  readonly dim: Paint;
  readonly italic: Paint;
  readonly underline: Paint;
  readonly red: Paint;
  readonly green: Paint;
  readonly yellow: Paint;
  readonly blue: Paint;
  readonly magenta: Paint;
  readonly cyan: Paint;
  readonly gray: Paint;
}

/**
 * Colour functions, picocolors-style: `open … close`, and an inner `close` re-opened so nested
 * colours survive (`red("a " + bold("b") + " c")`).
 */
export function createColors(enabled: boolean): Colors {
  const sgr = (open: number, close: number, replace = `\x1b[${open}m`): Paint => {
    if (!enabled) return (s) => String(s);
    const o = `\x1b[${open}m`, c = `\x1b[${close}m`;
    return (s) => {
      const text = String(s);
      return o + text.split(c).join(replace) + c;
    };
  };
  return {
    isColorSupported: enabled,
    bold: sgr(1, 22, "\x1b[22m\x1b[1m"),
    dim: sgr(2, 22, "\x1b[22m\x1b[2m"),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
    gray: sgr(90, 39),
  };
}
