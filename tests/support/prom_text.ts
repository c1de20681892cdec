/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for the tests of `/metrics`. It
 * refuses what Prometheus' own parser refuses and what the naming conventions forbid: a line that is
 * not a HELP, a TYPE or a sample; bad metric or label names; unescaped quotes, backslashes or line
 * feeds in label values; a sample before its family's TYPE, or of a family declared elsewhere; two
 * HELP or TYPE lines for a family; a family split in two; a duplicate series; a counter whose name
 * does not end in `_total`; a value that is not a float.
 */

/** One sample. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family. */
export interface PromFamily {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help: string;
  samples: PromSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$/;

function parseValue(s: string, where: string): number {
  if (!VALUE.test(s)) throw new Error(`${where}: bad value "${s}"`);
  if (s.endsWith("Inf")) return s.startsWith("-") ? -Infinity : Infinity;
  return s === "NaN" ? NaN : Number(s);
}

/** Parses `{a="x",b="y"}` starting at `i` (at the `{`); returns the labels and the index after `}`. */
function parseLabels(
  line: string,
  i: number,
  where: string,
): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  i++; // {
  while (line[i] !== "}") {
    const m = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i));
    if (!m) throw new Error(`${where}: bad label name at column ${i + 1}`);
    const name = m[0];
    if (!LABEL_NAME.test(name) || name.startsWith("__")) {
      throw new Error(`${where}: reserved label name ${name}`);
    }
    i += name.length;
    if (line[i] !== "=" || line[i + 1] !== '"') throw new Error(`${where}: expected ="…" after ${name}`);
    i += 2;
    let value = "";
    for (;;) {
      const c = line[i];
      if (c === undefined) throw new Error(`${where}: unterminated value of ${name}`);
      if (c === '"') break;
      if (c === "\\") {
        const n = line[i + 1];
        if (n === "\\") value += "\\";
        else if (n === '"') value += '"';
        else if (n === "n") value += "\n";
        else throw new Error(`${where}: bad escape \\${n} in ${name}`);
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    i++; // closing quote
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    labels[name] = value;
    if (line[i] === ",") i++;
    else if (line[i] !== "}") throw new Error(`${where}: expected , or } after ${name}`);
  }
  return { labels, end: i + 1 };
}

/** The family a sample name belongs to (histogram and summary suffixes folded). */
function familyOf(name: string, families: Map<string, PromFamily>): PromFamily | undefined {
  const direct = families.get(name);
  if (direct) return direct;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  const f = families.get(base);
  return f && (f.type === "histogram" || f.type === "summary") ? f : undefined;
}

/** Parses an exposition; throws an Error naming the line on the first violation. */
export function parsePromText(text: string): Map<string, PromFamily> {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a line feed");
  const families = new Map<string, PromFamily>();
  const helps = new Map<string, string>();
  const closed = new Set<string>();
  const series = new Set<string>();
  let current: string | null = null;
  const lines = text.slice(0, -1).split("\n");
  lines.forEach((line, n) => {
    const where = `line ${n + 1}`;
    if (line === "") throw new Error(`${where}: empty line`);
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) throw new Error(`${where}: a comment that is neither HELP nor TYPE: ${line}`);
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name ${name}`);
      if (closed.has(name)) throw new Error(`${where}: family ${name} continues after another one`);
      if (current !== null && current !== name) closed.add(current);
      current = name;
      if (kind === "HELP") {
        if (helps.has(name)) throw new Error(`${where}: second HELP for ${name}`);
        if (/\\(?![\\n])/.test(rest)) throw new Error(`${where}: bad escape in HELP of ${name}`);
        helps.set(name, rest.replace(/\\n/g, "\n").replace(/\\\\/g, "\\"));
        return;
      }
      if (families.has(name)) throw new Error(`${where}: second TYPE for ${name}`);
      if (!TYPES.has(rest)) throw new Error(`${where}: unknown type ${rest}`);
      if (rest === "counter" && !name.endsWith("_total")) {
        throw new Error(`${where}: counter ${name} without _total`);
      }
      families.set(name, {
        name,
        type: rest as PromFamily["type"],
        help: helps.get(name) ?? "",
        samples: [],
      });
      return;
    }
    const m = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (!m) throw new Error(`${where}: bad metric name in ${line}`);
    const name = m[0];
    let i = name.length;
    let labels: Record<string, string> = {};
    if (line[i] === "{") ({ labels, end: i } = parseLabels(line, i, where));
    if (line[i] !== " ") throw new Error(`${where}: expected a space before the value`);
    const parts = line.slice(i + 1).split(" ");
    if (parts.length > 2 || parts[0] === "") throw new Error(`${where}: expected "value [timestamp]"`);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new Error(`${where}: bad timestamp`);
    const family = familyOf(name, families);
    if (!family) throw new Error(`${where}: sample ${name} before (or without) its TYPE line`);
    if (family.name !== current) throw new Error(`${where}: sample ${name} outside its family's block`);
    const id = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(id)) throw new Error(`${where}: duplicate series ${line}`);
    series.add(id);
    family.samples.push({ name, labels, value: parseValue(parts[0], where) });
  });
  for (const [name, f] of families) f.help = helps.get(name) ?? f.help;
  return families;
}
