/** One share of the e2e matrices; which one it reads from its file name (see ../shards.ts). */
import { registerShare } from "../matrices.ts";

await registerShare(import.meta.url);
