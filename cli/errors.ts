/**
 * How a tool error reaches the user: one line on stderr (the errors themselves live in the ground
 * floor's errors.ts, so every layer can raise them).
 */
import { oneLine, PermissionError, type ToolError } from "../errors.ts";

/** Formats a tool error as the single line printed to stderr. */
export function formatToolError(e: ToolError): string {
  if (e instanceof PermissionError) {
    return `flyingfish: missing Deno permission ${e.flag} (needed to ${e.purpose}). Run with ${e.flag} or use the \`deno task flyingfish\` task.`;
  }
  return `flyingfish: ${oneLine(e.message)}`;
}
