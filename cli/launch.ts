#!/usr/bin/env -S deno run --allow-env --allow-read --allow-run
/**
 * The launcher of the documented entry points (`deno task flyingfish`, bin/flyingfish,
 * bin/kubectl-flyingfish, the README's install line): it reads the kubeconfig files this run will
 * read and starts cli/main.ts in a second Deno process whose `--allow-run` names kubectl, liqoctl
 * (`preflight` reads its version) and the exec credential plugins those files name (`users[].user.exec.command`: aws, gke-gcloud-auth-plugin,
 * kubelogin, …), so a managed cluster works on the first run. The CLI itself, which parses what API
 * servers send, never gets more than that: Deno cannot widen a running process's permissions, so the
 * choice is made here, from local files only, before anything is sent.
 *
 * Why these programs: they are the ones kubectl would run for the same kubeconfig (every user of every
 * file, not only the selected context: the context is resolved later, with kubectl's merge rules).
 * `FLYINGFISH_ALLOW_RUN` (a comma-separated list, e.g. `kubectl`) replaces the derived list, for a
 * locked-down run; a run started with `deno run … cli/main.ts` directly keeps its own flags.
 *
 * Kept light on purpose (its cost is one more Deno start, measured in the README, "Permissions"): it
 * imports nothing, and loads the YAML parser only for a kubeconfig that mentions `exec`.
 */
/** What the CLI process is granted besides `--allow-run` (the README's permission table). */
export const CLI_FLAGS: readonly string[] = [
  "--v8-flags=--max-semi-space-size=2,--expose-gc",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-sys",
];

/** The kubeconfig files a run with `args` reads: `--kubeconfig`, `--remote-kubeconfig`, else KUBECONFIG or ~/.kube/config. */
export function kubeconfigPaths(
  args: readonly string[],
  env: (name: string) => string | undefined,
): string[] {
  const explicit: string[] = [];
  let local = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") break;
    for (const flag of ["--kubeconfig", "--remote-kubeconfig"]) {
      let value: string | undefined;
      if (a === flag) value = args[i + 1];
      else if (a.startsWith(`${flag}=`)) value = a.slice(flag.length + 1);
      if (value === undefined) continue;
      explicit.push(value);
      if (flag === "--kubeconfig") local = true;
    }
  }
  if (local) return explicit;
  const fromEnv = env("KUBECONFIG");
  const sep = Deno.build.os === "windows" ? ";" : ":";
  const defaults = fromEnv
    ? fromEnv.split(sep).filter((p) => p !== "")
    : [`${env("HOME") ?? env("USERPROFILE") ?? ""}/.kube/config`];
  return [...explicit, ...defaults];
}

/** The programs `--allow-run` names for a run over these kubeconfig files: kubectl and liqoctl first, then their plugins. */
export async function allowedPrograms(paths: readonly string[]): Promise<string[]> {
  const programs = new Set<string>(["kubectl", "liqoctl"]);
  for (const path of paths) {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch {
      continue; // missing or unreadable: the CLI says so, in its own words
    }
    // No exec entry, nothing to grant: the YAML parser is not even loaded (most of the launcher's cost).
    if (!/\bexec\b/.test(text)) continue;
    let doc: unknown;
    try {
      const { parse } = await import("yaml");
      doc = parse(text);
    } catch {
      continue; // malformed: likewise
    }
    for (const c of pluginCommands(doc)) programs.add(c);
  }
  return [...programs];
}

/** The `users[].user.exec.command` of a parsed kubeconfig (non-empty strings; anything else is skipped). */
export function pluginCommands(doc: unknown): string[] {
  const users = isRecord(doc) && Array.isArray(doc.users) ? doc.users : [];
  const out: string[] = [];
  for (const u of users) {
    const exec = isRecord(u) && isRecord(u.user) && isRecord(u.user.exec) ? u.user.exec : null;
    if (exec && typeof exec.command === "string" && exec.command.trim() !== "") out.push(exec.command.trim());
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Starts cli/main.ts with the derived permissions and exits with its exit code. */
async function main(): Promise<never> {
  const args = Deno.args;
  const override = Deno.env.get("FLYINGFISH_ALLOW_RUN");
  const programs = override !== undefined
    ? override.split(",").map((p) => p.trim()).filter((p) => p !== "")
    : await allowedPrograms(kubeconfigPaths(args, (n) => Deno.env.get(n)));
  const config = new URL("../deno.json", import.meta.url);
  const entry = new URL("./main.ts", import.meta.url);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      // Quiet: Deno's own notes (e.g. "Failed to resolve 'aws' for allow-run" when a plugin is not
      // installed) would come before the CLI's one line, which says it better (with the installHint).
      "--quiet",
      "--frozen",
      "--config",
      decodeURIComponent(config.pathname),
      ...CLI_FLAGS,
      ...(programs.length > 0 ? [`--allow-run=${programs.join(",")}`] : []),
      decodeURIComponent(entry.pathname),
      ...args,
    ],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // The terminal sends Ctrl-C to the whole process group: the CLI handles it (cleanup, exit 130);
  // the launcher only waits for it. A SIGTERM sent to the launcher alone is passed on.
  const forwarded: Deno.Signal[] = Deno.build.os === "windows" ? [] : ["SIGTERM", "SIGHUP"];
  Deno.addSignalListener("SIGINT", () => {});
  for (const sig of forwarded) {
    Deno.addSignalListener(sig, () => {
      try {
        child.kill(sig);
      } catch {
        // already gone
      }
    });
  }
  const status = await child.status;
  Deno.exit(status.signal ? 128 + signalNumber(status.signal) : status.code);
}

function signalNumber(sig: Deno.Signal): number {
  const numbers: Partial<Record<Deno.Signal, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return numbers[sig] ?? 1;
}

if (import.meta.main) await main();
