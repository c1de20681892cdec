/** Shard 2 of the active-scenario matrix (tests/e2e/active_matrix.ts). */
import { registerActiveShard } from "./active_matrix.ts";

await registerActiveShard(2);
