/**
 * Flag defaults and choices shared by the command definitions (cli/main.ts, loaded for `--help`)
 * and the commands that use them. The values are the run defaults of diagnose/defaults.ts (a module
 * with no imports, so the help stays light).
 */
import { RUN_DEFAULTS } from "../diagnose/defaults.ts";

/** Default of `--request-timeout`: each API request and exec (kubectl's name; `0` = none). */
export const DEFAULT_REQUEST_TIMEOUT: string = RUN_DEFAULTS.requestTimeout;

/** Default of `--timeout`: the whole run (`0` = none). */
export const DEFAULT_RUN_TIMEOUT: string = RUN_DEFAULTS.runTimeout;

/** Formats `flyingfish report` writes. */
export const REPORT_FORMATS = ["html", "markdown"] as const;

export { RUN_DEFAULTS };
