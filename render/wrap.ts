/**
 * Fitting text into a terminal's columns: display width, word wrapping with a hanging indent, and
 * wrapping of shell commands so that the wrapped lines still paste as one command.
 */

/** Columns of the text report when stdout is not a terminal. */
export const PIPE_WIDTH = 100;

/** Narrowest width the wrappers lay out for (a narrower terminal still gets no line past this). */
const MIN_WIDTH = 20;

/** East Asian wide and fullwidth ranges (and emoji presentation): two columns each. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
/** Combining marks and zero-width characters: no column. */
const ZERO = /[\u0300-\u036f\u200b-\u200f\u20d0-\u20ff\ufe00-\ufe0f]/u;

/** Columns `s` takes on a terminal (no escape sequences expected: strip them first). */
export function displayWidth(s: string): number {
  let n = 0;
  for (const ch of s) n += ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
  return n;
}

/** Removes ANSI escape sequences (CSI and OSC). */
export function stripAnsi(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, "");
}

/** The longest prefix of `s` that fits in `cols` columns (at least one character). */
function takeColumns(s: string, cols: number): [string, string] {
  const chars = [...s];
  let w = 0, i = 0;
  for (; i < chars.length; i++) {
    const cw = displayWidth(chars[i]);
    if (w + cw > cols && i > 0) break;
    w += cw;
  }
  return [chars.slice(0, i).join(""), chars.slice(i).join("")];
}

/** How the lines of one wrapped paragraph start. */
export interface Hang {
  /** Written before the first line (e.g. `      · `). */
  first: string;
  /** Written before every continuation line (e.g. 8 spaces). */
  rest: string;
}

/**
 * Word-wraps one line of text to `width` columns: `first` before the first line, `rest` before the
 * others. Breaks at spaces; a word longer than a whole line is cut (no line is ever wider).
 */
export function wrapWords(text: string, width: number, hang: Hang): string[] {
  const w = Math.max(MIN_WIDTH, width);
  const words = text.split(" ");
  const out: string[] = [];
  let line = hang.first;
  let empty = true; // nothing but the prefix on `line` yet
  const flush = () => {
    out.push(line.trimEnd());
    line = hang.rest;
    empty = true;
  };
  for (let word of words) {
    if (word === "" && !empty) {
      line += " "; // keep runs of spaces inside a line
      continue;
    }
    const sep = empty ? "" : " ";
    if (!empty && displayWidth(line + sep + word) > w) flush();
    while (displayWidth(line + (empty ? "" : " ") + word) > w) {
      // Too long even for an empty line: cut it.
      const room = w - displayWidth(line) - (empty ? 0 : 1);
      if (room <= 0) {
        flush();
        continue;
      }
      const [head, tail] = takeColumns(word, room);
      line += (empty ? "" : " ") + head;
      word = tail;
      flush();
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  if (!empty || out.length === 0) out.push(line.trimEnd());
  return out;
}

/**
 * Wraps a shell command to `width` columns so that it still pastes as one command: every line but
 * the last ends with ` \` (a shell line continuation), continuation lines are indented by `rest`.
 * Breaks only at spaces outside quotes; a word longer than a line is left whole unless it cannot fit
 * at all, then cut (no line is ever wider than `width`).
 */
export function wrapCommand(command: string, width: number, hang: Hang): string[] {
  const w = Math.max(MIN_WIDTH, width);
  if (displayWidth(hang.first + command) <= w) return [hang.first + command];
  const words = shellWords(command);
  const out: string[] = [];
  let line = hang.first;
  let empty = true;
  for (const word of words) {
    // Room for the word plus " \" when more follows.
    if (!empty && displayWidth(line + " " + word + " \\") > w) {
      out.push(line + " \\");
      line = hang.rest;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  out.push(line);
  // A single word wider than the line: fall back to plain cutting (still no overlong line).
  return out.flatMap((l, i) =>
    displayWidth(l) <= w ? [l] : wrapWords(l.slice(i === 0 ? hang.first.length : hang.rest.length), w, {
      first: i === 0 ? hang.first : hang.rest,
      rest: hang.rest,
    })
  );
}

/** Splits a command at spaces that are outside single and double quotes (quotes are kept). */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = "";
  let quote: string | null = null;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = null;
      cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
    } else if (ch === " ") {
      if (cur) words.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur) words.push(cur);
  return words;
}

/** Truncates a one-line string to `cols` columns, ending with `…` when cut. */
export function truncate(s: string, cols: number): string {
  if (displayWidth(s) <= cols) return s;
  return takeColumns(s, Math.max(1, cols - 1))[0] + "…";
}
