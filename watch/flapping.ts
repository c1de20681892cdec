/**
 * Flapping: a check that changed status more than `threshold` times within `windowMs` is flapping —
 * a tunnel that drops every few minutes looks healthy to any single `check`. Reported once when it
 * starts flapping; it stops flapping when its changes within the window fall back to the threshold.
 */

/** Status-change times per check, and which checks are flapping. */
export class FlapTracker {
  readonly #changes = new Map<string, number[]>();
  readonly #flapping = new Set<string>();

  /** Flapping above `threshold` changes within `windowMs`. */
  constructor(readonly threshold: number, readonly windowMs: number) {}

  /**
   * Records a status change of `key` at `atMs`. Returns the change times within the window (oldest
   * first) when this change makes it flapping, else null (also when it already was).
   */
  change(key: string, atMs: number): number[] | null {
    const times = this.#recent(key, atMs);
    times.push(atMs);
    this.#changes.set(key, times);
    if (times.length > this.threshold && !this.#flapping.has(key)) {
      this.#flapping.add(key);
      return [...times];
    }
    return null;
  }

  /** Forgets changes older than the window; checks back at or under the threshold stop flapping. */
  settle(atMs: number): void {
    for (const key of [...this.#changes.keys()]) {
      const times = this.#recent(key, atMs);
      if (times.length === 0) this.#changes.delete(key);
      else this.#changes.set(key, times);
      if (times.length <= this.threshold) this.#flapping.delete(key);
    }
  }

  /** The checks flapping at `atMs`, with their change times within the window. */
  active(atMs: number): [string, number[]][] {
    return [...this.#flapping].map((k) => [k, this.#recent(k, atMs)] as [string, number[]])
      .filter(([, t]) => t.length > 0);
  }

  #recent(key: string, atMs: number): number[] {
    return (this.#changes.get(key) ?? []).filter((t) => atMs - t < this.windowMs);
  }
}
