/**
 * The command line that runs this same FlyingFish invocation again with one more program allowed to
 * run (an exec credential plugin): Deno cannot widen its own permissions, so the best a missing
 * `--allow-run` can do is print the exact command that works.
 */

/** Permission kinds granted as a whole that are carried over to the new command line. */
const WHOLE = ["env", "read", "write", "net", "sys", "ffi"] as const;

/** Quotes one shell word (POSIX sh) when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

function granted(desc: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/** The nearest deno.json(c) above `dir` (the project whose import map the entry point needs). */
function findConfig(dir: string): string | null {
  for (let d = dir; d !== "" && d !== "/"; d = d.slice(0, d.lastIndexOf("/"))) {
    for (const name of ["deno.json", "deno.jsonc"]) {
      try {
        if (Deno.statSync(`${d}/${name}`).isFile) return `${d}/${name}`;
      } catch {
        // not there (or not readable): keep looking
      }
    }
  }
  return null;
}

/** What the new command line must allow beyond what this process was granted. */
export interface RerunNeeds {
  /** Programs for `--allow-run` (kubectl is always kept: the documented entry point grants it). */
  run: string[];
  /** `host:port` of the API server, kept when `--allow-net` was granted for it only. */
  netHost?: string;
}

/**
 * `deno run <the permissions of this process> --allow-run=kubectl,<run…> <entry point> <its
 * arguments>`, built from Deno.execPath(), the granted permissions, Deno.mainModule and Deno.args;
 * null inside a `deno compile`d binary (its permissions are fixed when it is built).
 */
export function rerunCommand(needs: RerunNeeds): string | null {
  if (Deno.build.standalone) return null;
  const flags: string[] = [];
  const main = new URL(Deno.mainModule);
  const entry = main.protocol === "file:" ? decodeURIComponent(main.pathname) : main.href;
  const config = main.protocol === "file:" ? findConfig(entry.slice(0, entry.lastIndexOf("/"))) : null;
  // Without the project's deno.json (a jsr: or https: entry point), ask for its unstable API directly.
  if (!config) flags.push("--unstable-net");
  else {
    flags.push("--config", config);
    const lock = config.replace(/[^/]+$/, "deno.lock");
    try {
      if (Deno.statSync(lock).isFile) flags.push("--frozen");
    } catch {
      // no lockfile (or not readable)
    }
  }
  for (const kind of WHOLE) {
    if (granted({ name: kind })) flags.push(`--allow-${kind}`);
    else if (kind === "net" && needs.netHost) {
      const hostname = needs.netHost.replace(/:\d+$/, "");
      if (granted({ name: "net", host: hostname })) flags.push(`--allow-net=${hostname}`);
      else if (granted({ name: "net", host: needs.netHost })) flags.push(`--allow-net=${needs.netHost}`);
    }
  }
  if (granted({ name: "run" })) flags.push("--allow-run");
  else flags.push(`--allow-run=${[...new Set(["kubectl", ...needs.run])].join(",")}`);
  return [Deno.execPath(), "run", ...flags, entry, ...Deno.args].map(shellQuote).join(" ");
}
