/**
 * Runs any CLI command (`check`, `report`, …) against a served scenario, with the same cluster
 * flags `runScenario` builds, plus a caller-chosen environment and permissions. Used by the
 * format, golden, TTY and report tests.
 */
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, type CliRun, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { VERSION } from "../../version.ts";

const REPO_ROOT = new URL("../../", import.meta.url);

/** Path of util-linux `script` (runs a command in a pseudo-terminal), or null. */
export function scriptPath(): string | null {
  for (const p of ["/usr/bin/script", "/bin/script"]) {
    try {
      if (Deno.statSync(p).isFile) return p;
    } catch {
      // not there
    }
  }
  return null;
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the CLI like `runCli`, but with stdout and stderr on a pseudo-terminal created by
 * util-linux `script`; what the terminal received comes back as `stdout` (`\r\n` line ends).
 * NO_COLOR is not set unless `env` sets it.
 */
export async function runCliInPty(
  args: string[],
  opts: { env?: Record<string, string>; permissions?: string[]; cwd?: string } = {},
): Promise<CliRun> {
  const script = scriptPath();
  if (!script) throw new Error("util-linux `script` not found");
  const argv = [
    Deno.execPath(),
    "run",
    "--frozen",
    "--config",
    new URL("deno.json", REPO_ROOT).pathname,
    ...(opts.permissions ?? CLI_PERMISSIONS),
    new URL("cli/main.ts", REPO_ROOT).pathname,
    ...args,
  ];
  const env: Record<string, string> = { TERM: "xterm-256color", ...opts.env };
  const out = await new Deno.Command(script, {
    args: ["-q", "-e", "-f", "-c", argv.map(shQuote).join(" "), "/dev/null"],
    cwd: opts.cwd ?? REPO_ROOT.pathname,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Options of {@link runScenarioCommand}. */
export interface ScenarioCommandOptions {
  /** Arguments after the cluster flags (e.g. `["-o", "json"]`), or a function of the temporary directory. */
  args?: string[] | ((tmp: string) => string[]);
  /** Extra environment (NO_COLOR=1 is set unless overridden). */
  env?: Record<string, string>;
  /** Deno permissions of the CLI process (default: CLI_PERMISSIONS). */
  permissions?: string[];
  /** Run the CLI inside a pseudo-terminal (util-linux `script`), stdout and stderr merged. */
  pty?: boolean;
  /** Runs before the CLI, with the temporary directory (e.g. to create an output folder). */
  before?: (dir: string) => Promise<void> | void;
  /** Runs with the temporary directory still present, e.g. to read a written file. */
  after?: (dir: string, run: CliRun) => Promise<void> | void;
  /** Serve over HTTPS (default) or plain HTTP where the transport is not what the test is about. */
  tls?: boolean;
}

function hasFlag(args: readonly string[], flag: string): boolean {
  return args.some((a) => a === flag || a.startsWith(`${flag}=`));
}

/** Serves scenario `name` and runs `flyingfish <command> --kubeconfig … [args]` against it. */
export async function runScenarioCommand(
  name: string,
  command: string,
  opts: ScenarioCommandOptions = {},
): Promise<CliRun> {
  const s = await loadScenario(name);
  const served = await serveScenario(s, { tls: opts.tls ?? true, ...FAKE_CLOCK });
  const tmp = await Deno.makeTempDir({ prefix: `ff-e2e-${name}-` });
  try {
    // The CLI runs in the temporary folder and names the kubeconfigs relatively: the fix commands
    // quote them, and goldens must not depend on a random path (nor its length: text wraps).
    const local = `${s.run.local}.kubeconfig`;
    await Deno.writeTextFile(`${tmp}/${local}`, served.kubeconfigYaml(s.run.local));
    const args = [command, "--kubeconfig", local];
    if (s.run.remote) {
      const remote = `${s.run.remote}.kubeconfig`;
      await Deno.writeTextFile(`${tmp}/${remote}`, served.kubeconfigYaml(s.run.remote));
      args.push("--remote-kubeconfig", remote);
    }
    const own = typeof opts.args === "function" ? opts.args(tmp) : opts.args ?? [];
    const extra = [...s.run.args, ...own];
    if (!s.run.networkProbes && !hasFlag(extra, "--no-network-probes")) args.push("--no-network-probes");
    if (!hasFlag(extra, "--sample-interval")) args.push("--sample-interval", SAMPLE_INTERVAL);
    args.push(...extra);
    await opts.before?.(tmp);
    const permissions = opts.permissions ?? CLI_PERMISSIONS;
    const run = opts.pty
      ? await runCliInPty(args, { env: opts.env, permissions, cwd: tmp })
      : await runCli(args, { env: opts.env, permissions, cwd: tmp });
    await opts.after?.(tmp, run);
    return run;
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

/** Removes ANSI escape sequences (CSI and OSC). */
export function stripAnsi(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, "");
}

/** What a terminal would show: ANSI removed, and each `\r` returning to the start of the line. */
export function terminalView(s: string): string {
  return stripAnsi(s).split("\n").map((line) => {
    let shown: string[] = [];
    for (const seg of line.split("\r")) {
      const chars = [...seg];
      shown = [...chars, ...shown.slice(chars.length)];
    }
    return shown.join("").trimEnd();
  }).join("\n");
}

const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g;
// Ages as formatAge prints them, including those whose second unit is zero ("24m", "3h", "2d"):
// a run shorter than a second after the fake server shifted the timestamps gives "24m", not "24m1s".
const AGE = /\b(?:\d+d\d+h|\d+h\d+m|\d+m\d+s|\d+(?:\.\d+)?s|\d+[dhm])\b/g;
const RUN_DURATION = /\d+(?:\.\d+)?m?s|\d+m\d\ds/.source;

/**
 * Replaces what changes between runs with stable placeholders: timestamps (the fake API server
 * shifts every timestamp to "now"), ages (also "24m", "3h", "2d") and other second-resolution
 * durations, run and check durations, WireGuard byte counters, the fake servers' loopback ports and
 * the tool version.
 * `suffix` names the format (`txt`, `verbose.txt`, `json`, `yaml`, `md`, `xml`, `html`).
 */
export function normalise(text: string, suffix: string): string {
  let s = text
    .replace(ISO_TIME, "<time>")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
    // The per-run temporary directory of the kubeconfigs (remediation commands and the command line name them).
    .replace(/[^\s'"]*\/ff-e2e-[\w.-]*?-[0-9a-f]{8,}/g, "<tmp>")
    .replace(/\+?\d+ B(\/s)?\b/g, (_m, rate) => `<n> B${rate ?? ""}`)
    .replace(new RegExp(`(?<![\\w.])${VERSION.replace(/\./g, "\\.")}(?![\\w.])`, "g"), "<version>");
  switch (suffix) {
    case "json":
      s = s.replace(/"durationMs": \d+(\.\d+)?/g, `"durationMs": 0`);
      break;
    case "yaml":
      s = s.replace(/^(\s*)durationMs: \d+(\.\d+)?$/gm, "$1durationMs: 0");
      break;
    case "xml":
      s = s.replace(/ time="\d+\.\d+"/g, ` time="0.000"`)
        .replace(/&lt;(time|age|tmp|port|version|n|duration)&gt;/g, "<$1>");
      break;
    case "md":
    case "html":
      s = s.replace(new RegExp(` · (?:${RUN_DURATION}) · exit code`, "g"), " · <duration> · exit code")
        // Rendered from an already normalised report, the placeholders come back escaped.
        .replace(/&lt;(time|age|tmp|port|version|n|duration)&gt;/g, "<$1>");
      break;
    default: // text
      s = s.replace(new RegExp(`\\((?:${RUN_DURATION})\\)$`, "gm"), "(<duration>)");
  }
  s = s.replace(AGE, "<age>");
  if (suffix.endsWith("txt")) s = collapsePeeringPadding(s);
  return s;
}

/** In the text PEERING section, column padding follows the (normalised) ages: collapse it. */
function collapsePeeringPadding(s: string): string {
  let inPeering = false;
  return s.split("\n").map((line) => {
    if (/^ [A-Z]/.test(line) || /^ ─/.test(line)) inPeering = line.startsWith(" PEERING");
    return inPeering && line.startsWith("   ") ? "   " + line.trim().replace(/ {2,}/g, "  ") : line;
  }).join("\n");
}
