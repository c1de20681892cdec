/** Shard 1 of the scenario matrix (tests/e2e/scenario_matrix.ts, sharding in shards.ts). */
import { registerScenarioTests } from "./scenario_matrix.ts";

await registerScenarioTests(1);
