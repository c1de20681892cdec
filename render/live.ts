/**
 * The live progress line of a text run on a terminal: one spinner line, redrawn in place, saying
 * what is going on — `connecting to …` while the first requests are pending, then how many checks
 * are done (and how many found something) and which are running. It prints no result: the report
 * is printed whole, in catalog order, once the run is over, after {@link LiveProgress.stop} has
 * erased the line. Off a terminal there is no progress line at all (the caller makes none).
 */
import { type Colors, createColors } from "./colors.ts";
import type { CheckResult, Status } from "../report/model.ts";

/** What the progress line needs of a result. */
export type ResultEvent = Pick<CheckResult, "id" | "cluster" | "peer" | "status">;
import { displayWidth, truncate } from "./wrap.ts";

/** Options of the progress line. */
export interface LiveOptions {
  /** Colour the spinner and erase with `ESC[2K`; without it the line is erased with spaces. */
  color: boolean;
  /** Terminal width: the line is cut to fit (a wrapped line could not be redrawn in place). */
  columns: number;
  /** What the line says before the first check starts (e.g. `connecting to …`). */
  status?: string;
  /** Spinner redraw period. */
  intervalMs?: number;
}

/** Braille spinner frames. */
export const SPINNER: readonly string[] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const ERASE_LINE = "\r\x1b[2K";
/** Running check IDs named on the line; the rest are counted. */
const SHOWN_RUNNING = 4;

/** Control characters out: the line must stay one line. */
function clean(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/[\x00-\x1f\x7f-\x9f]/g, " ");
}

/**
 * A spinner line written through `write`, redrawn every `intervalMs` and on every event. Call
 * {@link stop} once the run is over (also on error): it stops the timer and erases the line.
 */
export class LiveProgress {
  readonly #write: (s: string) => void;
  readonly #opts: LiveOptions;
  readonly #c: Colors;
  readonly #running = new Map<string, string>();
  readonly #found: Record<Status, number> = { pass: 0, warn: 0, fail: 0, skip: 0, unknown: 0 };
  #status: string;
  #done = 0;
  #timer: ReturnType<typeof setInterval> | null = null;
  #frame = 0;
  #shownWidth = 0;
  #stopped = false;

  /** Creates the progress line and draws it. */
  constructor(write: (s: string) => void, opts: LiveOptions) {
    this.#write = write;
    this.#opts = opts;
    this.#c = createColors(opts.color);
    this.#status = opts.status ?? "starting…";
    const timer = setInterval(() => this.#tick(), opts.intervalMs ?? 80);
    Deno.unrefTimer(timer);
    this.#timer = timer;
    this.#draw();
  }

  /** Replaces the waiting text shown before the first check starts. */
  status(text: string): void {
    this.#status = text;
    this.#draw();
  }

  /** A check instance started running. */
  start(id: string, cluster: string, peer: string | null): void {
    this.#running.set(`${cluster}\u0000${peer ?? ""}\u0000${id}`, id);
    this.#draw();
  }

  /** A result arrived. */
  result(r: ResultEvent): void {
    this.#running.delete(`${r.cluster}\u0000${r.peer ?? ""}\u0000${r.id}`);
    this.#done++;
    this.#found[r.status]++;
    this.#draw();
  }

  /** Stops the timer and erases the line; later events draw nothing. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#erase();
  }

  /** The text after the spinner frame. */
  text(): string {
    if (this.#done === 0 && this.#running.size === 0) return clean(this.#status);
    const found = [
      this.#found.fail ? `${this.#found.fail} failed` : "",
      this.#found.warn ? `${this.#found.warn} warning${this.#found.warn === 1 ? "" : "s"}` : "",
      this.#found.unknown ? `${this.#found.unknown} unknown` : "",
    ].filter(Boolean);
    const ids = [...new Set(this.#running.values())].map(clean);
    const more = ids.length > SHOWN_RUNNING ? ` +${ids.length - SHOWN_RUNNING}` : "";
    const running = ids.length ? ` · running ${ids.slice(0, SHOWN_RUNNING).join(" ")}${more}` : "";
    return `${this.#done} checks done${found.length ? ` (${found.join(", ")})` : ""}${running}`;
  }

  #tick(): void {
    this.#frame = (this.#frame + 1) % SPINNER.length;
    this.#draw();
  }

  #erase(): void {
    if (this.#shownWidth === 0) return;
    this.#write(this.#opts.color ? ERASE_LINE : `\r${" ".repeat(this.#shownWidth)}\r`);
    this.#shownWidth = 0;
  }

  #draw(): void {
    if (this.#stopped) return;
    // One column short of the edge: writing the last column makes some terminals wrap.
    const line = truncate(`${SPINNER[this.#frame]} ${this.text()}`, Math.max(1, this.#opts.columns - 1));
    const width = displayWidth(line);
    const c = this.#c;
    const shown = `${c.cyan(line.slice(0, SPINNER[this.#frame].length))}${
      c.dim(line.slice(SPINNER[this.#frame].length))
    }`;
    const pad = this.#opts.color ? "" : " ".repeat(Math.max(0, this.#shownWidth - width));
    this.#write(`${this.#opts.color ? ERASE_LINE : "\r"}${shown}${pad}`);
    this.#shownWidth = Math.max(width, this.#opts.color ? 0 : this.#shownWidth);
  }
}
