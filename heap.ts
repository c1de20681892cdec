/**
 * Keeping a process's heap near what it really holds. V8 collects its old space only once it has
 * grown well past what survived the previous collection, and a run over thousands of peers
 * allocates hundreds of megabytes of short-lived promises, closures and strings in one go: peak RSS
 * then follows the garbage, not the live set (`deno task bench --many-peers`). With V8's gc()
 * extension (`--v8-flags=--expose-gc`, which every entry point passes) {@link HeapBound} collects
 * when the heap has grown a fixed slack past the last collection's survivors; watch/serve compact
 * between rounds (watch/heap.ts). Without the extension nothing happens: the process works the same,
 * only less tidily.
 */

/** V8's gc() extension with options (`--expose-gc`). */
export type GcFunction = (
  options?: { type?: "major" | "minor"; execution?: "sync" | "async"; flavor?: string },
) => void;

/** The exposed gc(), if the runtime flags expose it. */
export function exposedGc(): GcFunction | null {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === "function" ? gc as GcFunction : null;
}

/** Heap growth past the last collection's survivors that triggers a collection (bytes). */
export const HEAP_SLACK_BYTES = 64 * 1024 * 1024;

/** Calls to {@link HeapBound.tick} between two looks at the heap (a look is an op call). */
const LOOK_EVERY = 512;

/** Collects when the heap has grown {@link HEAP_SLACK_BYTES} past what the last collection kept. */
export class HeapBound {
  readonly #gc: GcFunction | null;
  readonly #used: () => number;
  readonly #slack: number;
  #ticks = 0;
  #limit: number;

  /** `gc` and `heapUsed` are for tests; by default the exposed gc() and Deno.memoryUsage(). */
  constructor(opts: { gc?: GcFunction | null; heapUsed?: () => number; slackBytes?: number } = {}) {
    this.#gc = opts.gc === undefined ? exposedGc() : opts.gc;
    this.#used = opts.heapUsed ?? (() => Deno.memoryUsage().heapUsed);
    this.#slack = opts.slackBytes ?? HEAP_SLACK_BYTES;
    this.#limit = this.#gc ? this.#used() + this.#slack : Infinity;
  }

  /** Call as work progresses (cheap: looks at the heap every few hundred calls). True when it collected. */
  tick(): boolean {
    if (this.#gc === null || ++this.#ticks < LOOK_EVERY) return false;
    this.#ticks = 0;
    return this.check();
  }

  /** Looks at the heap now; collects if it is past the bound. True when it collected. */
  check(): boolean {
    if (this.#gc === null || this.#used() < this.#limit) return false;
    this.#gc({ type: "major", execution: "sync" });
    this.#limit = this.#used() + this.#slack;
    return true;
  }
}

let shared: HeapBound | null = null;

/**
 * The process's one bound, created on first use: the engine ticks it per result, a run checks it
 * between its phases (sections, the report's assembly), the JSON output per written batch.
 */
export function heapBound(): HeapBound {
  return shared ??= new HeapBound();
}
