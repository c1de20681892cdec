/**
 * Zod's process-wide settings for CLI runs, applied before any schema is built (zod reads them when
 * a schema is constructed): no JIT. Zod otherwise compiles, with `new Function`, a specialised parser
 * for every object schema on its first parse — worth it in a process that parses one shape millions
 * of times, a loss in a CLI run that parses each shape a few hundred times: measured on a `check` of
 * the demo peering, 55 ms of its ~290 ms of CPU.
 */
import { config } from "zod";

config({ jitless: true });
