/** Helpers of the distribution tests: run a program from a directory outside the checkout. */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout. */
export const REPO: string = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
/** The folder of this Deno, put first on PATH. */
export const DENO_DIR: string = dirname(Deno.execPath());
/** Test options: the fake API servers keep connections that the sanitizers would flag. */
export const opts = { sanitizeResources: false, sanitizeOps: false };

/** What a run printed and returned. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program with NO_COLOR, this Deno first on PATH, and the given directory and environment. */
export async function run(
  cmd: string,
  args: string[],
  o: { cwd: string; env?: Record<string, string> },
): Promise<Run> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: o.cwd,
    env: { NO_COLOR: "1", PATH: `${DENO_DIR}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`, ...o.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A run, for an assertion message. */
export const show = (r: Run): string =>
  `exit ${r.code}\nstdout: ${r.stdout.slice(-1500)}\nstderr: ${r.stderr.slice(-1500)}`;

/** Runs `fn` in a temporary directory, removed afterwards. */
export async function withTmp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ff-dist-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
