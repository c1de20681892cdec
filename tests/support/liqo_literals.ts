/**
 * The house rule "Liqo's names are spelled once, in liqo/": finds the string literals of a module
 * that spell a Liqo label, annotation or API group path (`liqo.io/type`,
 * `networking.liqo.io/active`, `/apis/offloading.liqo.io/v1beta1/…`).
 *
 * Only string literals count: comments may mention labels. A literal that is prose (an explain
 * text, a remediation command for the user to type, or a piece of one: it has spaces, brackets or
 * ends a sentence) is not a spelling the code reads by; a URL (`https://docs.liqo.io/…`) is not a
 * name either.
 */

/** A Liqo label, annotation, or group path inside a literal's text. */
export const LIQO_NAME = /\b[a-z.]*liqo\.io\/[\w.-]+/;

/** One literal that spells a Liqo name. */
export interface LiqoLiteral {
  /** 1-based line of the literal's opening quote. */
  line: number;
  /** The literal's text (a template's `${…}` parts shown as `${}`). */
  text: string;
}

/** The string literals of `source` (a TypeScript module), with the lines they start on. */
export function stringLiterals(source: string): LiqoLiteral[] {
  const out: LiqoLiteral[] = [];
  let line = 1;
  let i = 0;
  // The last significant character outside literals and comments: tells a regex from a division.
  let prev = "";
  const n = source.length;
  const advance = (to: number): void => {
    for (; i < to; i++) if (source[i] === "\n") line++;
  };
  /** Reads a quoted literal from `i` (at its quote); returns its text, template parts elided. */
  const readQuoted = (): string => {
    const quote = source[i];
    let text = "";
    advance(i + 1);
    while (i < n && source[i] !== quote) {
      if (source[i] === "\\") {
        text += source.slice(i, i + 2);
        advance(i + 2);
      } else if (quote === "`" && source.startsWith("${", i)) {
        text += "${}";
        advance(i + 2);
        skipExpression();
      } else {
        text += source[i];
        advance(i + 1);
      }
    }
    advance(i + 1);
    return text;
  };
  /** Skips a template's `${…}` expression (from after `${` to after its `}`), literals inside too. */
  const skipExpression = (): void => {
    let depth = 1;
    while (i < n && depth > 0) {
      const c = source[i];
      if (c === '"' || c === "'" || c === "`") {
        const start = line;
        out.push({ line: start, text: readQuoted() });
        continue;
      }
      if (c === "{") depth++;
      if (c === "}") depth--;
      advance(i + 1);
    }
  };
  while (i < n) {
    const c = source[i];
    if (source.startsWith("//", i)) {
      const end = source.indexOf("\n", i);
      advance(end < 0 ? n : end);
    } else if (source.startsWith("/*", i)) {
      const end = source.indexOf("*/", i + 2);
      advance(end < 0 ? n : end + 2);
    } else if (c === '"' || c === "'" || c === "`") {
      const start = line;
      out.push({ line: start, text: readQuoted() });
      prev = c;
    } else if (c === "/" && (prev === "" || "(,=:[!&|?{};+-*%<>~^".includes(prev))) {
      // A regex literal: skip it (a quote inside would open a false string).
      let inClass = false;
      advance(i + 1);
      while (i < n && source[i] !== "\n" && (inClass || source[i] !== "/")) {
        if (source[i] === "\\") advance(i + 1);
        else if (source[i] === "[") inClass = true;
        else if (source[i] === "]") inClass = false;
        advance(i + 1);
      }
      advance(i + 1);
      prev = "/";
    } else {
      if (!/\s/.test(c)) prev = c;
      advance(i + 1);
    }
  }
  return out;
}

/** The literals of `source` that spell a Liqo name (see the module comment for what is exempt). */
export function liqoNameLiterals(source: string): LiqoLiteral[] {
  return stringLiterals(source).filter((l) => {
    // Prose, or a piece of it split over concatenated literals: spaces, brackets, a full stop.
    if (!/^[\w./${}:=?&@-]*$/.test(l.text) || l.text.endsWith(".")) return false;
    const withoutUrls = l.text.replace(/[a-z]+:\/\/\S*/g, "");
    return LIQO_NAME.test(withoutUrls);
  });
}
