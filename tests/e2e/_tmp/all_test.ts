import { listScenarios } from "../../../fakekube/mod.ts";
import { registerTruthTests } from "../truth_matrix.ts";
const only = Deno.env.get("ONLY");
registerTruthTests((await listScenarios()).filter((s) => !only || s.includes(only)));
