/** Terminal facts shared by the commands: colour and TTY decisions. */

/** True when stdout is a terminal (FORCE_TTY=1 forces it, for tests through a pipe). */
export function stdoutIsTty(): boolean {
  if (envValue("FORCE_TTY") === "1") return true;
  try {
    return Deno.stdout.isTerminal();
  } catch {
    return false;
  }
}

/** Colour only on a TTY, never with NO_COLOR or --no-color; FORCE_COLOR=1 forces it. */
export function useColor(flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (envValue("NO_COLOR")) return false;
  if (envValue("FORCE_COLOR") === "1") return true;
  return stdoutIsTty();
}

/** An environment variable, or undefined when unset or not permitted (never prompts, never throws). */
export function envValue(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return undefined;
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Writes text to stdout synchronously (no console formatting). */
export function writeOut(s: string): void {
  const bytes = new TextEncoder().encode(s);
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
}
