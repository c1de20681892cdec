/**
 * The per-scenario e2e matrices a shard file registers its share of (see shards.ts): the passive
 * scenario matrix (scenario_matrix.ts), the snapshot round trips (snapshot_matrix.ts) and the
 * active scenarios (active_matrix.ts), and the truth matrix (truth_matrix.ts: no finding hidden by an
 * unreadable input); shard 0 adds the guard that no scenario falls out.
 */
import assert from "node:assert/strict";
import { listScenarios } from "../../fakekube/mod.ts";
import { activeScenarios, registerActiveShare } from "./active_matrix.ts";
import { registerScenarioTests } from "./scenario_matrix.ts";
import { registerSnapshotTests } from "./snapshot_matrix.ts";
import { shardFilesOnDisk, shardOfModule, SHARDS, shareOf } from "./shards.ts";
import { registerTruthTests } from "./truth_matrix.ts";

/** Registers the share of every matrix that belongs to the shard file `moduleUrl`. */
export async function registerShare(moduleUrl: string): Promise<void> {
  const k = shardOfModule(moduleUrl);
  if (k === 0) registerGuard();
  const passive = await listScenarios();
  await registerScenarioTests(shareOf(passive, k));
  registerSnapshotTests(shareOf(passive, k));
  registerTruthTests(shareOf(passive, k));
  await registerActiveShare(shareOf(await activeScenarios(), k));
}

function registerGuard(): void {
  Deno.test(`e2e matrices: the shard files are matrix/shard_0..${SHARDS - 1}, every scenario in exactly one`, async () => {
    const found = await shardFilesOnDisk();
    assert.deepEqual(found, [...Array(SHARDS).keys()]);
    for (
      const [matrix, all] of [["passive", await listScenarios()], [
        "active",
        await activeScenarios(),
      ]] as const
    ) {
      assert.ok(all.length >= 10, `only ${all.length} ${matrix} scenarios`);
      const shared = found.flatMap((k) => shareOf(all, k));
      assert.deepEqual([...shared].sort(), [...all].sort(), `${matrix}: a scenario is in no share or in two`);
      assert.equal(new Set(shared).size, shared.length, `${matrix}: a scenario is in two shares`);
    }
  });
}
