/**
 * What a terminal shows after a program wrote to it: a small VT100 screen model (printable text,
 * CR/LF, auto-wrap at the last column, erase-in-line/display, cursor column and moves, SGR and
 * cursor-visibility sequences ignored), and a runner that starts the CLI in a real pseudo-terminal
 * of a chosen size (util-linux `script` + `stty`) against a served scenario.
 *
 * The model throws on any escape sequence it does not know, so a test built on it also catches
 * unexpected cursor movement.
 */
import { displayWidth } from "../../render/wrap.ts";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, type CliRun, FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";
import { scriptPath } from "./scenario_cli.ts";

/** A terminal screen of `cols` columns (rows grow as needed: nothing scrolls away). */
export class Screen {
  readonly cols: number;
  readonly #rows: string[][] = [[]];
  #row = 0;
  #col = 0;
  /** Set when text ran past the last column and the terminal wrapped it. */
  wrapped = false;

  /** A blank screen `cols` wide. */
  constructor(cols: number) {
    this.cols = cols;
  }

  #line(): string[] {
    while (this.#rows.length <= this.#row) this.#rows.push([]);
    return this.#rows[this.#row];
  }

  #put(ch: string): void {
    const w = displayWidth(ch);
    if (w === 0) return;
    if (this.#col + w > this.cols) {
      this.wrapped = true;
      this.#row++;
      this.#col = 0;
    }
    const line = this.#line();
    while (line.length < this.#col) line.push(" ");
    line[this.#col] = ch;
    if (w === 2) line[this.#col + 1] = "";
    this.#col += w;
  }

  #csi(params: string, final: string): void {
    const n = params.replace(/^\?/, "").split(";").map((p) => (p === "" ? 0 : Number(p)));
    const line = this.#line();
    switch (final) {
      case "m": // colours and attributes
        return;
      case "h":
      case "l": // modes (cursor visibility)
        if (!params.startsWith("?")) break;
        return;
      case "K": // erase in line
        if (n[0] === 0) line.length = Math.min(line.length, this.#col);
        else if (n[0] === 1) { for (let i = 0; i <= this.#col && i < line.length; i++) line[i] = " "; }
        else line.length = 0;
        return;
      case "J": // erase in display
        if (n[0] === 0) {
          line.length = Math.min(line.length, this.#col);
          this.#rows.length = this.#row + 1;
        } else if (n[0] === 2) this.#rows.length = 0;
        else break;
        return;
      case "G": // cursor to column (1-based)
        this.#col = Math.max(1, n[0] || 1) - 1;
        return;
      case "A":
        this.#row = Math.max(0, this.#row - (n[0] || 1));
        return;
      case "B":
        this.#row += n[0] || 1;
        return;
      case "C":
        this.#col = Math.min(this.cols - 1, this.#col + (n[0] || 1));
        return;
      case "D":
        this.#col = Math.max(0, this.#col - (n[0] || 1));
        return;
    }
    throw new Error(`unexpected escape sequence ESC[${params}${final}`);
  }

  /** Feeds what the program wrote (escape sequences interpreted). */
  write(s: string): void {
    for (let i = 0; i < s.length;) {
      const ch = s[i];
      if (ch === "\x1b") {
        // deno-lint-ignore no-control-regex
        const csi = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(s.slice(i, i + 32));
        if (csi) {
          this.#csi(csi[1], csi[2]);
          i += csi[0].length;
          continue;
        }
        // deno-lint-ignore no-control-regex
        const osc = /^\x1b\][^\x07]*\x07/.exec(s.slice(i));
        if (osc) {
          i += osc[0].length;
          continue;
        }
        throw new Error(`unexpected escape sequence ${JSON.stringify(s.slice(i, i + 8))}`);
      }
      if (ch === "\r") this.#col = 0;
      else if (ch === "\n") this.#row++;
      else if (ch === "\b") this.#col = Math.max(0, this.#col - 1);
      else if (ch < " ") throw new Error(`unexpected control character ${JSON.stringify(ch)}`);
      else {
        const cp = s.codePointAt(i)!;
        const c = String.fromCodePoint(cp);
        this.#put(c);
        i += c.length;
        continue;
      }
      i++;
    }
  }

  /** The screen's text: lines without trailing blanks, trailing empty lines dropped, `\n`-joined. */
  text(): string {
    const lines = this.#rows.map((l) => l.join("").trimEnd());
    while (lines.length && lines[lines.length - 1] === "") lines.pop();
    return lines.join("\n") + "\n";
  }
}

/** What a terminal of `cols` columns shows after receiving `raw`. */
export function screenOf(raw: string, cols: number): Screen {
  const screen = new Screen(cols);
  screen.write(raw);
  return screen;
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Serves scenario `name` and runs `flyingfish check --kubeconfig …` with `args` in a pseudo-terminal
 * `cols` columns wide (stdout and stderr both on it); `stdout` is what the terminal received.
 * `NO_COLOR` is unset unless `env` sets it; `latencyMs` slows every answer of the API server.
 */
export async function checkInPty(
  name: string,
  args: readonly string[],
  opts: { cols: number; env?: Record<string, string>; latencyMs?: number },
): Promise<CliRun> {
  const script = scriptPath();
  if (!script) throw new Error("util-linux `script` not found");
  const s = await loadScenario(name);
  if (opts.latencyMs !== undefined) s.clusters[s.run.local].latencyMs = opts.latencyMs;
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const tmp = await Deno.makeTempDir({ prefix: `ff-pty-${name}-` });
  try {
    // Run from the temporary folder with a relative kubeconfig: the fix commands name it, and the
    // screen must not depend on a random path.
    const kubeconfig = `${s.run.local}.kubeconfig`;
    await Deno.writeTextFile(`${tmp}/${kubeconfig}`, served.kubeconfigYaml(s.run.local));
    const argv = [
      Deno.execPath(),
      "run",
      "--frozen",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      ...CLI_PERMISSIONS,
      new URL("../../cli/main.ts", import.meta.url).pathname,
      "check",
      "--kubeconfig",
      kubeconfig,
      ...(s.run.networkProbes ? [] : ["--no-network-probes"]),
      "--sample-interval",
      SAMPLE_INTERVAL,
      ...s.run.args,
      ...args,
    ];
    // `script` gives the child a pty without a size: set one, as a real terminal has.
    const command = `stty cols ${opts.cols} rows 50 && exec ${argv.map(shQuote).join(" ")}`;
    const out = await new Deno.Command(script, {
      args: ["-q", "-e", "-f", "-c", command, "/dev/null"],
      cwd: tmp,
      env: { TERM: "xterm-256color", NO_COLOR: "", ...opts.env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
}
