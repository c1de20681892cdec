/**
 * `flyingfish report` printed: the HTML report written by the CLI, printed to PDF by headless Chromium
 * (`chromium --print-to-pdf`, as a user would) and read back with `pdftotext` (poppler-utils). Every
 * command of the report — the fixes and the cheat sheet — must be in the PDF whole: not clipped by
 * its box, and no word of it cut across two lines (but after a hyphen or a slash).
 *
 * Chromium is looked up as $CHROMIUM, /usr/bin/chromium, chromium-browser, google-chrome; pdftotext on
 * PATH. Without either the test is ignored with a message naming what is missing (the CI script
 * installs Debian's `chromium` and `poppler-utils`).
 */
import assert from "node:assert/strict";
import { CLI_PERMISSIONS } from "./harness.ts";
import { runScenarioCommand } from "./scenario_cli.ts";

function findChromium(): string | null {
  for (
    const c of [
      Deno.env.get("CHROMIUM"),
      "/usr/bin/chromium",
      "/usr/bin/chromium-browser",
      "/usr/bin/google-chrome",
      "/usr/bin/google-chrome-stable",
    ]
  ) {
    if (!c) continue;
    try {
      if (Deno.statSync(c).isFile) return c;
    } catch {
      // not there
    }
  }
  return null;
}

async function hasPdftotext(): Promise<boolean> {
  try {
    const out = await new Deno.Command("pdftotext", { args: ["-v"], stdout: "null", stderr: "null" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

const CHROMIUM = findChromium();
const PDFTOTEXT = await hasPdftotext();
const MISSING = [
  CHROMIUM ? null : "no Chromium (set $CHROMIUM or `apt-get install -y chromium`)",
  PDFTOTEXT ? null : "no pdftotext (`apt-get install -y poppler-utils`)",
].filter(Boolean).join(", ");
if (MISSING) console.warn(`report_print_test: ${MISSING}: printed-report test ignored`);

/** The text of every command block of the HTML (`<pre>` fixes and cheat-sheet commands), unescaped. */
function commandsOf(html: string): string[] {
  const unescape = (s: string) =>
    s.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  return [...html.matchAll(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].flatMap((m) =>
    unescape(m[1]).split("\n")
  ).filter((l) => l.trim());
}

/** Prints `file` to `pdf` with headless Chromium, network-less, in a throwaway profile. */
async function printToPdf(file: string, pdf: string): Promise<void> {
  const profile = await Deno.makeTempDir({ prefix: "ff-chromium-" });
  try {
    const out = await new Deno.Command(CHROMIUM!, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-extensions",
        "--no-proxy-server",
        // Nothing but loopback resolves, so no packet can leave 127.0.0.0/8.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        `--user-data-dir=${profile}`,
        "--no-pdf-header-footer",
        `--print-to-pdf=${pdf}`,
        new URL(`file://${file}`).href,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(out.success, `chromium --print-to-pdf failed: ${new TextDecoder().decode(out.stderr)}`);
  } finally {
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "report -o html printed by Chromium to PDF: every fix and cheat-sheet command whole (not clipped, no word cut)",
  ignore: !!MISSING,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    let html = "";
    let text = "";
    const run = await runScenarioCommand("gw-lb-pending", "report", {
      args: (tmp) => ["-o", "html", "--output-file", `${tmp}/r.html`],
      permissions: [...CLI_PERMISSIONS, "--allow-write"],
      after: async (tmp) => {
        html = await Deno.readTextFile(`${tmp}/r.html`);
        await printToPdf(`${tmp}/r.html`, `${tmp}/r.pdf`);
        const out = await new Deno.Command("pdftotext", {
          args: ["-raw", `${tmp}/r.pdf`, "-"],
          stdout: "piped",
        })
          .output();
        text = new TextDecoder().decode(out.stdout);
      },
    });
    assert.equal(run.code, 2, run.stderr);
    const commands = commandsOf(html);
    assert.ok(commands.some((c) => c.length > 100), "the report has commands longer than a printed line");
    const flat = text.replace(/\s+/g, "");
    // The browser may break after a hyphen or a slash (a line-break opportunity; a copy keeps the
    // command intact): such a break is not a cut word. break-all cut anywhere, e.g. "netwo|rk".
    const lines = text.replace(/([-/])\n/g, "$1").split("\n");
    for (const c of commands) {
      assert.ok(flat.includes(c.replace(/\s+/g, "")), `not whole in the PDF: ${c}`);
      // A word that fits on a line is never cut across two lines.
      for (const word of c.split(/\s+/).filter((w) => w.length >= 4 && w.length <= 60)) {
        assert.ok(
          lines.some((l) => l.includes(word)),
          `"${word}" of \`${c}\` is cut across lines in the PDF`,
        );
      }
    }
  },
});
