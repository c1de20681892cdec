/**
 * Sharding of the per-scenario e2e matrices across test files, so that `deno test --parallel` (one
 * worker per test file) runs them concurrently. Shard `k` of `n` holds the scenarios whose index in
 * the sorted `listScenarios()` is `k` modulo `n`; every shard file of a matrix registers one shard,
 * and shard 0 also checks that the shard files on disk are exactly `<prefix>_0 … <prefix>_{n-1}`,
 * so no scenario can fall out of the run.
 */
import assert from "node:assert/strict";
import { listScenarios } from "../../fakekube/mod.ts";

/** Number of shard files per matrix (tests/e2e/<prefix>_<k>_test.ts, k < SHARDS). */
export const SHARDS = 6;

/** The scenarios of shard `k` (of {@link SHARDS}). */
export async function scenariosOfShard(k: number): Promise<string[]> {
  assert.ok(Number.isInteger(k) && k >= 0 && k < SHARDS, `shard ${k} is not in 0..${SHARDS - 1}`);
  return (await listScenarios()).filter((_, i) => i % SHARDS === k);
}

/** Registers (in shard 0 only) the test that the shard files of `prefix` are exactly 0..SHARDS-1. */
export function registerShardFilesTest(prefix: string, k: number): void {
  if (k !== 0) return;
  Deno.test(`${prefix}: the shard files are ${prefix}_0..${SHARDS - 1}_test.ts, every scenario in one`, async () => {
    const dir = new URL("./", import.meta.url);
    const re = new RegExp(`^${prefix}_(\\d+)_test\\.ts$`);
    const found: number[] = [];
    for await (const e of Deno.readDir(dir)) {
      const m = e.name.match(re);
      if (m) found.push(Number(m[1]));
    }
    assert.deepEqual(found.sort((a, b) => a - b), [...Array(SHARDS).keys()]);
    const all = await listScenarios();
    const sharded = (await Promise.all(found.map(scenariosOfShard))).flat().sort();
    assert.deepEqual(sharded, all);
  });
}
