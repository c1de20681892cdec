/** Terminal facts shared by the commands: colour and TTY decisions. */

/** True when stdout is a terminal (FORCE_TTY=1 forces it, for tests through a pipe). */
export function stdoutIsTty(): boolean {
  if (envValue("FORCE_TTY") === "1") return true;
  try {
    return Deno.stdout.isTerminal();
  } catch {
    return false;
  }
}

/** Colour only on a TTY, never with NO_COLOR or --no-color; FORCE_COLOR=1 forces it. */
export function useColor(flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (envValue("NO_COLOR")) return false;
  if (envValue("FORCE_COLOR") === "1") return true;
  return stdoutIsTty();
}

/** An environment variable, or undefined when unset or not permitted (never prompts, never throws). */
export function envValue(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return undefined;
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Terminal width assumed when stdout is a terminal that reports none (e.g. a bare pty). */
const DEFAULT_COLUMNS = 80;

/**
 * Columns of the terminal on stdout: its reported size, else `$COLUMNS`, else 80. Only meaningful
 * when {@link stdoutIsTty}; a pipe gets the renderer's own width.
 */
export function terminalColumns(): number {
  try {
    const { columns } = Deno.consoleSize();
    if (columns > 0) return columns;
  } catch {
    // not a terminal (FORCE_TTY=1 through a pipe)
  }
  const env = Number(envValue("COLUMNS"));
  return Number.isInteger(env) && env > 0 ? env : DEFAULT_COLUMNS;
}

function writeAll(file: { writeSync(p: Uint8Array): number }, s: string): void {
  const bytes = new TextEncoder().encode(s);
  let off = 0;
  while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
}

/** Writes text to stdout synchronously (no console formatting). */
export function writeOut(s: string): void {
  writeAll(Deno.stdout, s);
}

/** Pieces of text gathered into writes of about this many characters. */
const PIECES_BATCH = 1 << 20;

/**
 * Writes text given in pieces (the JSON reporter's) to `write` in batches of about a megabyte: the
 * document is never one string, and the writes are few.
 */
export function writePieces(pieces: Iterable<string>, write: (s: string) => void): void {
  let batch: string[] = [];
  let size = 0;
  for (const p of pieces) {
    batch.push(p);
    size += p.length;
    if (size >= PIECES_BATCH) {
      write(batch.join(""));
      batch = [];
      size = 0;
    }
  }
  if (batch.length) write(batch.join(""));
}

/** Writes text to stderr synchronously (progress and context lines beside a machine format). */
export function writeErr(s: string): void {
  writeAll(Deno.stderr, s);
}

/** Something drawing in place on the terminal (the progress line of a run). */
export interface Progress {
  stop(): void;
}

let activeProgress: Progress | null = null;
let consoleRestore: (() => void) | null = null;

/**
 * Registers the progress line being drawn (null when it is gone), for {@link stopProgress}. While
 * one is registered, `console.error`/`console.warn` erase it first: a message that ends the run
 * early (the `--timeout` tool error) must not land on the spinner's line.
 */
export function setProgress(p: Progress | null): void {
  if (p === null) {
    stopProgress();
    return;
  }
  activeProgress = p;
  if (consoleRestore) return;
  const { error, warn } = console;
  console.error = (...args: unknown[]) => {
    stopProgress();
    error(...args);
  };
  console.warn = (...args: unknown[]) => {
    stopProgress();
    warn(...args);
  };
  consoleRestore = () => {
    console.error = error;
    console.warn = warn;
  };
}

/** Erases the progress line, if one is drawn, and gives the console back its own functions. */
export function stopProgress(): void {
  const p = activeProgress;
  activeProgress = null;
  consoleRestore?.();
  consoleRestore = null;
  p?.stop();
}
