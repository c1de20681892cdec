/**
 * Keeping a long-running watch or serve process flat. Between rounds V8 keeps the old-space pages
 * it grew into while a round ran (promoted round garbage leaves them sparsely used), so RSS creeps
 * up although the live heap does not (`deno task bench:watch`). A memory-reducing full collection
 * (V8's "last resort" flavour, which compacts and releases the empty pages) every few rounds brings
 * it back; it needs `--v8-flags=--expose-gc`, which every entry point passes. Without it, nothing
 * happens: the process works the same, only less tidily.
 */

import { exposedGc, type GcFunction } from "../heap.ts";

/** Rounds between compactions when rounds come back to back. */
export const COMPACT_EVERY_ROUNDS = 20;

/** At most this long between compactions (a 30 s watch interval compacts after every round). */
export const COMPACT_EVERY_MS = 10_000;

/** Decides when to compact the heap after a round, and does it. */
export class HeapCompactor {
  #rounds = 0;
  #last: number;
  readonly #gc: GcFunction | null;
  readonly #now: () => number;

  /** `gc` and `now` are for tests; by default the exposed gc() and the monotonic clock. */
  constructor(opts: { gc?: GcFunction | null; now?: () => number } = {}) {
    this.#gc = opts.gc === undefined ? exposedGc() : opts.gc;
    this.#now = opts.now ?? (() => performance.now());
    this.#last = this.#now();
  }

  /** True when gc() is exposed and compaction will happen. */
  get enabled(): boolean {
    return this.#gc !== null;
  }

  /** Call after each round; compacts every {@link COMPACT_EVERY_ROUNDS} rounds or {@link COMPACT_EVERY_MS}. */
  afterRound(): boolean {
    this.#rounds++;
    const now = this.#now();
    if (this.#gc === null) return false;
    if (this.#rounds < COMPACT_EVERY_ROUNDS && now - this.#last < COMPACT_EVERY_MS) return false;
    this.#gc({ type: "major", execution: "sync", flavor: "last-resort" });
    this.#rounds = 0;
    this.#last = this.#now();
    return true;
  }
}
