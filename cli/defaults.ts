/**
 * Flag defaults and choices shared by the command definitions (cli/main.ts, loaded for `--help`)
 * and the commands that use them: a module with no imports, so the help stays light.
 */

/** Default of `--request-timeout`: each API request and exec (kubectl's name; `0` = none). */
export const DEFAULT_REQUEST_TIMEOUT = "30s";

/** Default of `--timeout`: the whole run (`0` = none). */
export const DEFAULT_RUN_TIMEOUT = "5m";

/** Formats `flyingfish report` writes. */
export const REPORT_FORMATS = ["html", "markdown"] as const;
