/**
 * `liqoctl version --client` on this host, for preflight's PF-VER: run through the permission the
 * launcher already grants (`--allow-run` names liqoctl beside kubectl, cli/launch.ts). liqoctl not
 * on PATH, or not allowed to run, is a fact for the check ("not checked: …"), never an error.
 */

/** The version liqoctl reports, or why there is none. */
export interface LiqoctlVersion {
  version: string | null;
  detail: string;
}

/** Reads "v1.2.0" out of `liqoctl version --client` output ("Client version: v1.2.0"). */
export function parseLiqoctlVersion(out: string): string | null {
  return /\bv?(\d+\.\d+\.\d+[\w.+-]*)/.exec(out)?.[0] ?? null;
}

const NOT_ON_PATH: LiqoctlVersion = { version: null, detail: "liqoctl is not on PATH: not checked" };

/** True when a file `liqoctl` is in a PATH folder (unreadable PATH or folders: null, unknown). */
function onPath(): boolean | null {
  try {
    const sep = Deno.build.os === "windows" ? ";" : ":";
    const names = Deno.build.os === "windows" ? ["liqoctl.exe"] : ["liqoctl"];
    for (const dir of (Deno.env.get("PATH") ?? "").split(sep).filter(Boolean)) {
      for (const n of names) {
        try {
          if (Deno.statSync(`${dir}/${n}`).isFile) return true;
        } catch {
          // not there
        }
      }
    }
    return false;
  } catch {
    return null;
  }
}

/** Runs `liqoctl version --client` (bounded by `timeoutMs`). */
export async function liqoctlVersion(timeoutMs = 5_000): Promise<LiqoctlVersion> {
  let state: Deno.PermissionState;
  try {
    state = (await Deno.permissions.query({ name: "run", command: "liqoctl" })).state;
  } catch {
    state = "denied";
  }
  if (state !== "granted") {
    // Deno cannot grant a program it cannot resolve: say which of the two it is.
    if (onPath() === false) return NOT_ON_PATH;
    return { version: null, detail: "liqoctl not checked: running it is not allowed (--allow-run=liqoctl)" };
  }
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const out = await new Deno.Command("liqoctl", {
      args: ["version", "--client"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: ctl.signal,
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const version = out.success ? parseLiqoctlVersion(text) : null;
    return version ? { version, detail: `liqoctl ${version} (liqoctl version --client)` } : {
      version: null,
      detail: `liqoctl version --client said: ${text.trim().split("\n")[0].slice(0, 120)}`,
    };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return { version: null, detail: "liqoctl is not on PATH: not checked" };
    }
    return {
      version: null,
      detail: `liqoctl not checked: ${err instanceof Error ? err.message : String(err)}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
