/** A faulting remote degrades check, report and collect like a refused one (see tool_error_remote.ts). */
import { registerRemoteFaultTest } from "./tool_error_remote.ts";

registerRemoteFaultTest(["check", "report", "collect"]);
