/** Writing a report to a file: the permission asked up front, failures as one-line tool errors. */
import { PermissionError, ToolError, toToolError } from "../errors.ts";

/** Fails with the `--allow-write` permission error unless writing `file` is already granted. */
export function requireWrite(file: string): void {
  let state: Deno.PermissionState;
  try {
    state = Deno.permissions.querySync({ name: "write", path: file }).state;
  } catch {
    state = "denied";
  }
  // "prompt" counts as missing: a diagnosis run should not stop half-way to ask.
  if (state !== "granted") throw new PermissionError("--allow-write", `write the report to ${file}`);
}

/** Writes `text` to `file`, mapping failures to one-line tool errors. */
export async function writeReportFile(file: string, text: string): Promise<void> {
  try {
    await Deno.writeTextFile(file, text);
  } catch (err) {
    const tool = toToolError(err, `write the report to ${file}`);
    if (tool) throw tool;
    throw new ToolError(`cannot write the report to ${file}: ${err instanceof Error ? err.message : err}`, {
      cause: err,
    });
  }
}
