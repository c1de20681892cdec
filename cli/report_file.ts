/** Writing a report to a file: the permission asked up front, failures as one-line tool errors. */
import { PermissionError, ToolError, toToolError } from "../errors.ts";
import { writePieces } from "./output.ts";

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

/** Writes `text` (or its pieces, in order) to `file`, mapping failures to one-line tool errors. */
export async function writeReportFile(file: string, text: string | Iterable<string>): Promise<void> {
  try {
    if (typeof text === "string") await Deno.writeTextFile(file, text);
    else {
      using f = await Deno.open(file, { write: true, create: true, truncate: true });
      const enc = new TextEncoder();
      writePieces(text, (s) => {
        const bytes = enc.encode(s);
        let off = 0;
        while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
      });
    }
  } catch (err) {
    const tool = toToolError(err, `write the report to ${file}`);
    if (tool) throw tool;
    throw new ToolError(`cannot write the report to ${file}: ${err instanceof Error ? err.message : err}`, {
      cause: err,
    });
  }
}
