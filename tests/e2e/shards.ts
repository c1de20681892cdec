/**
 * How the per-scenario e2e matrices (passive scenarios, snapshot round trips, active scenarios)
 * are spread over test files, so that `deno test --parallel` (one worker per test FILE) runs them
 * concurrently: tests/e2e/matrix/shard_<k>_test.ts, k < {@link SHARDS}, each registers share `k`
 * of every matrix (matrices.ts) — the scenarios whose index in the sorted list is `k` modulo
 * SHARDS. The shard files are all alike; each reads its `k` from its own name. Shard 0 also checks
 * that the files on disk are exactly shard_0 … shard_{SHARDS-1} and that every scenario of every
 * matrix lands in exactly one share, so none can fall out of the run.
 */
import assert from "node:assert/strict";

/**
 * Number of shard files. Eight: small enough to keep tests/e2e tidy, enough to spread the ~4 min of
 * matrix work evenly over the `DENO_JOBS=6` workers of `deno task test` beside the other e2e files.
 */
export const SHARDS = 8;

/** The folder of the shard files. */
export const SHARD_DIR: URL = new URL("./matrix/", import.meta.url);

const SHARD_FILE = /^shard_(\d+)_test\.ts$/;

/** Share `k` of `items`: those whose index is `k` modulo {@link SHARDS}. */
export function shareOf<T>(items: readonly T[], k: number): T[] {
  assert.ok(Number.isInteger(k) && k >= 0 && k < SHARDS, `shard ${k} is not in 0..${SHARDS - 1}`);
  return items.filter((_, i) => i % SHARDS === k);
}

/** The shard index of a shard file, from its module URL (…/matrix/shard_<k>_test.ts). */
export function shardOfModule(moduleUrl: string): number {
  const m = new URL(moduleUrl).pathname.split("/").pop()?.match(SHARD_FILE);
  assert.ok(m, `${moduleUrl} is not a tests/e2e/matrix/shard_<k>_test.ts file`);
  return Number(m[1]);
}

/** The shard indices of the shard files on disk, sorted. */
export async function shardFilesOnDisk(): Promise<number[]> {
  const found: number[] = [];
  for await (const e of Deno.readDir(SHARD_DIR)) {
    const m = e.name.match(SHARD_FILE);
    if (m) found.push(Number(m[1]));
  }
  return found.sort((a, b) => a - b);
}
