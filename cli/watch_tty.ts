/**
 * The terminal side of `flyingfish watch`: draws the dashboard in place (cursor up, each line
 * rewritten and cleared to its end, the rest of the screen cleared), hides the cursor while it runs,
 * and reads the keyboard in raw mode so `q` (or Ctrl-C, which raw mode delivers as a byte) stops the
 * watch. {@link TerminalDashboard.close} always restores the terminal: raw mode off, cursor shown.
 */
import { terminalColumns, writeOut } from "./output.ts";

const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";
const ERASE_LINE_END = "\x1b[K";
const ERASE_BELOW = "\x1b[J";

/** Rows of the terminal (0 when unknown). */
function terminalRows(): number {
  try {
    return Deno.consoleSize().rows;
  } catch {
    return 0;
  }
}

/** A dashboard redrawn in place on stdout, with `q`/Ctrl-C read from stdin. */
export class TerminalDashboard {
  #drawn = 0;
  #raw = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #closed = false;
  readonly #onQuit: () => void;

  /** Starts: hides the cursor; stdin in raw mode when it is a terminal, `q`/Ctrl-C call `onQuit`. */
  constructor(onQuit: () => void) {
    this.#onQuit = onQuit;
    writeOut(HIDE_CURSOR);
    let tty = false;
    try {
      tty = Deno.stdin.isTerminal();
    } catch {
      tty = false;
    }
    if (tty) {
      try {
        Deno.stdin.setRaw(true, { cbreak: false });
        this.#raw = true;
      } catch {
        this.#raw = false;
      }
      this.#readKeys();
    }
  }

  /** The terminal's size for the next frame. */
  size(): { width: number; height: number } {
    return { width: terminalColumns(), height: terminalRows() };
  }

  /** Replaces the previous frame with `lines`. */
  draw(lines: readonly string[]): void {
    if (this.#closed) return;
    let out = "\r";
    if (this.#drawn > 1) out += `\x1b[${this.#drawn - 1}A`;
    out += lines.map((l) => l + ERASE_LINE_END).join("\n") + ERASE_BELOW;
    writeOut(out);
    this.#drawn = Math.max(1, lines.length);
  }

  /** Leaves the last frame on screen, then a line of its own for `message` (if any); restores the terminal. */
  async close(message?: string): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    writeOut(`\n${message ? `${message}\n` : ""}${SHOW_CURSOR}`);
    if (this.#raw) {
      try {
        Deno.stdin.setRaw(false);
      } catch {
        // stdin already gone
      }
    }
    const reader = this.#reader;
    this.#reader = null;
    await reader?.cancel().catch(() => {});
  }

  async #readKeys(): Promise<void> {
    try {
      this.#reader = Deno.stdin.readable.getReader();
      while (!this.#closed) {
        const { value, done } = await this.#reader.read();
        if (done) return;
        // q, Q, Ctrl-C (raw mode: ETX), Ctrl-D (EOT)
        if (value.some((b) => b === 0x71 || b === 0x51 || b === 0x03 || b === 0x04)) {
          this.#onQuit();
          return;
        }
      }
    } catch {
      // stdin closed
    }
  }
}
