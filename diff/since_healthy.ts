/**
 * What `watch` and `serve` remember to say what changed since a peering last worked: the last
 * healthy round's side (its report and the objects it read, redacted like `collect` and bounded per
 * kind: diff/capture.ts), one at a time. A round with a failure is compared with it (diff.ts); a
 * healthy round replaces it. Pure but for the one side it holds.
 */
import type { CheckDef } from "../checks/types.ts";
import type { DiffReport } from "../report/diff_schema.ts";
import type { SideCapture } from "./capture.ts";
import { diffSides } from "./diff.ts";

/** Tracks the last healthy round and diffs failing rounds against it. */
export class SinceHealthy {
  readonly #catalog: readonly CheckDef[];
  #healthy: SideCapture | null = null;

  /** A tracker that has seen no round. */
  constructor(catalog: readonly CheckDef[]) {
    this.#catalog = catalog;
  }

  /** The last healthy round's side (null: none seen yet). */
  get lastHealthy(): SideCapture | null {
    return this.#healthy;
  }

  /**
   * Takes a round: a round without a failing check becomes the one kept (null returned); a round
   * with one is compared with the kept one (null when no healthy round was seen yet).
   */
  observe(side: SideCapture, now: Date = new Date()): DiffReport | null {
    if (side.report.results.every((r) => r.status !== "fail")) {
      this.#healthy = side;
      return null;
    }
    return this.#healthy ? diffSides(this.#healthy, side, this.#catalog, now) : null;
  }
}
