/**
 * Remediation as steps: checks write a fix as free-form text (commands, `#` comments, prose that
 * ends in a command); the report carries it as a list of `{command, comment}` so that JSON
 * consumers get runnable commands and the Markdown/HTML reports can put every command in a code
 * block with nothing to strip. Pure functions, no I/O.
 */
import { z } from "zod";

/**
 * One remediation step: a command to run (null for a remark only) and the comment that annotates
 * it (null when there is none). A comment that stands alone is a step without a command.
 */
export interface RemediationStep {
  /** A command line to run as is (null: a remark only). */
  command: string | null;
  /** What the command does or when to use it; alone, a remark (null: none). */
  comment: string | null;
}

/** Zod schema of {@link RemediationStep}. */
export const RemediationStepSchema: z.ZodType<RemediationStep> = z.object({
  command: z.string().nullable().describe("A command line to run as is (flags naming its cluster included)"),
  comment: z.string().nullable().describe("What the command does or when to use it; alone: a remark"),
});

/** Programs whose invocation starts a command line (a line starting with one is a command). */
const COMMAND_WORDS: ReadonlySet<string> = new Set([
  "flyingfish",
  "kubectl",
  "liqoctl",
  "helm",
  "nc",
  "curl",
  "ping",
  "dig",
  "nslookup",
  "openssl",
  "tcpdump",
  "traceroute",
  "wg",
]);

/** Programs recognised after `: ` inside a sentence ("Re-run the authentication: liqoctl peer …"). */
const INLINE_WORDS = /: (?=(?:kubectl|liqoctl|helm) )/g;

/** True when `line` (trimmed) starts with a known program followed by an argument. */
function startsWithCommand(line: string): boolean {
  const word = /^([a-z][\w-]*)(?: |$)/.exec(line)?.[1];
  return word !== undefined && COMMAND_WORDS.has(word) && line.length > word.length;
}

/**
 * Index of a shell comment (`#` after whitespace, outside quotes) in `cmd`, or -1.
 */
export function shellCommentIndex(cmd: string): number {
  let quote: string | null = null;
  for (let i = 0; i < cmd.length; i++) {
    const ch = cmd[i];
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"') i++;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\") i++;
    else if (ch === "#" && i > 0 && /\s/.test(cmd[i - 1])) return i;
  }
  return -1;
}

/** True when quotes and parentheses in `s` are balanced (a command a shell would accept). */
function balanced(s: string): boolean {
  let quote: string | null = null;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quote) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth < 0) return false;
  }
  return quote === null && depth === 0;
}

/**
 * A trailing parenthetical remark of a command taken from a sentence ("… --version v1 (same
 * options as the original install)"): split off, since a shell would choke on it.
 */
function splitTrailingRemark(cmd: string): { command: string; remark: string | null } {
  if (!cmd.endsWith(")")) return { command: cmd, remark: null };
  let depth = 0;
  for (let i = cmd.length - 1; i >= 0; i--) {
    if (cmd[i] === ")") depth++;
    else if (cmd[i] === "(" && --depth === 0) {
      const before = cmd.slice(0, i);
      // `$(…)` and `foo(…)` are shell, not a remark: only " (" opens one.
      if (!before.endsWith(" ")) return { command: cmd, remark: null };
      return { command: before.trimEnd(), remark: cmd.slice(i) };
    }
  }
  return { command: cmd, remark: null };
}

/** A command line with its trailing `# comment` split off. */
function commandLine(line: string): RemediationStep {
  const at = shellCommentIndex(line);
  if (at < 0) return { command: line.trimEnd(), comment: null };
  const comment = line.slice(at + 1).trim();
  return { command: line.slice(0, at).trimEnd(), comment: comment || null };
}

/** A prose line that ends in a command after `: ` — or null when it holds no command. */
function proseWithCommand(line: string): RemediationStep | null {
  for (const m of line.matchAll(INLINE_WORDS)) {
    const lead = line.slice(0, m.index + 1).trim();
    const rest = line.slice(m.index + 2);
    const { command: withComment, remark } = splitTrailingRemark(rest);
    const step = commandLine(withComment);
    if (!step.command || !balanced(step.command)) continue;
    const comment = [lead, remark, step.comment].filter((x) => x).join(" ");
    return { command: step.command, comment };
  }
  return null;
}

/** Classifies one non-empty line: a `#` comment, a command, prose ending in a command, or prose. */
function classify(raw: string): RemediationStep {
  const line = raw.trim();
  if (line.startsWith("#")) return { command: null, comment: line.replace(/^#+/, "").trim() || null };
  if (startsWithCommand(line)) return commandLine(line);
  return proseWithCommand(line) ?? { command: null, comment: line };
}

/**
 * Parses a free-form remediation into steps. Each non-empty line is a command (it starts with
 * kubectl, liqoctl, helm, nc, curl…; a trailing `# …` is its comment), a comment (`# …`, or prose),
 * or prose ending in a command after `: ` (the sentence becomes the comment, a trailing
 * parenthetical remark too). A remark that introduces the command below it (it ends with `:`) is
 * that command's comment, unless the command has one of its own; other remarks stay steps of their
 * own. Order is kept.
 */
export function parseRemediation(text: string | null): RemediationStep[] {
  if (!text) return [];
  const steps: RemediationStep[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === "") continue;
    const step = classify(raw);
    if (step.command === null && step.comment === null) continue;
    const prev = steps.at(-1);
    const introduces = prev?.command === null && prev.comment?.endsWith(":") === true;
    if (step.command !== null && step.comment === null && prev && introduces) {
      steps[steps.length - 1] = { command: step.command, comment: prev.comment };
    } else {
      steps.push(step);
    }
  }
  return steps;
}

/** Widest line {@link remediationLines} puts a comment beside its command on. */
const BESIDE_MAX = 100;

/**
 * Where a command's comment goes: `above` when it introduces the command (it ends with `:`) or
 * would make the line too long, else `beside` it as a shell comment (`cmd   # comment`).
 */
export function commentPlacement(step: RemediationStep): "above" | "beside" {
  if (step.command === null || step.comment === null) return "above";
  return step.comment.endsWith(":") || step.command.length + step.comment.length + 5 > BESIDE_MAX
    ? "above"
    : "beside";
}

/**
 * The steps as shell-ready lines (the text renderer's form): a remark is a `# …` line; a comment
 * that introduces its command (it ends with `:`) or would make the line too long goes on the line
 * above it, a short one beside it (`cmd   # comment`).
 */
export function remediationLines(steps: readonly RemediationStep[]): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (s.command === null) {
      if (s.comment !== null) out.push(`# ${s.comment}`);
      continue;
    }
    if (s.comment === null) out.push(s.command);
    else if (commentPlacement(s) === "above") out.push(`# ${s.comment}`, s.command);
    else out.push(`${s.command}   # ${s.comment}`);
  }
  return out;
}

/** {@link remediationLines} joined with newlines, or null when there are no steps. */
export function remediationText(steps: readonly RemediationStep[]): string | null {
  const lines = remediationLines(steps);
  return lines.length ? lines.join("\n") : null;
}

/** The commands of the steps, in order. */
export function commandsOf(steps: readonly RemediationStep[]): string[] {
  return steps.flatMap((s) => (s.command === null ? [] : [s.command]));
}
