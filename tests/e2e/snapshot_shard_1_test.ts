/** Shard 1 of the snapshot round trips (tests/e2e/snapshot_matrix.ts, sharding in shards.ts). */
import { registerSnapshotTests } from "./snapshot_matrix.ts";

await registerSnapshotTests(1);
