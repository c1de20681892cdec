/** A faulting remote degrades probe like a refused one (see tool_error_remote.ts). */
import { registerRemoteFaultTest } from "./tool_error_remote.ts";

registerRemoteFaultTest(["probe"]);
