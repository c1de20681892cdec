/**
 * The README is the on-ramp and docs/ the reference (issue 21): the README keeps the two set-up
 * commands verbatim, its table of contents links every docs/ page, every relative link of the README
 * and of docs/ reaches a file (and, with `#anchor`, a heading of it), and every `flyingfish …` command
 * line shown in a shell block of any of them names a real command and only flags that command has.
 * (The pages' other commands are tested where they are shown: docs/install.md's install line in
 * tests/e2e/distribution_test.ts, docs/rbac.md's ClusterRole in tests/e2e/rbac_test.ts and
 * tests/deploy_test.ts, docs/ci.md's workflow in tests/e2e/ci_example_test.ts.)
 */
import assert from "node:assert/strict";
import { buildProgram } from "../cli/program.ts";

const REPO = new URL("../", import.meta.url);

async function pages(): Promise<Map<string, string>> {
  const out = new Map<string, string>([["README.md", await Deno.readTextFile(new URL("README.md", REPO))]]);
  for await (const e of Deno.readDir(new URL("docs/", REPO))) {
    if (e.isFile && e.name.endsWith(".md")) {
      out.set(`docs/${e.name}`, await Deno.readTextFile(new URL(`docs/${e.name}`, REPO)));
    }
  }
  return out;
}

/** The text outside fenced code blocks. */
function prose(md: string): string {
  return md.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

function anchors(md: string): Set<string> {
  return new Set([...prose(md).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

Deno.test("docs: the README keeps the two set-up commands verbatim", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", REPO));
  for (const cmd of ["demo", "test"]) {
    const line = `npm ci --prefix tools --prefer-offline && tools/node_modules/.bin/deno task ${cmd}`;
    assert.ok(readme.split("\n").includes(line), `README: ${line}`);
  }
});

Deno.test("docs: the README's contents table links every docs/ page", async () => {
  const all = await pages();
  const readme = all.get("README.md")!;
  const contents = readme.split(/^## /m).find((s) => s.startsWith("Contents"));
  assert.ok(contents, 'README has no "## Contents" section');
  for (const page of all.keys()) {
    if (page === "README.md") continue;
    assert.ok(contents.includes(`](${page})`), `README contents: no link to ${page}`);
  }
});

Deno.test("docs: every relative link of the README and docs/ reaches a file, and its #anchor a heading", async () => {
  const all = await pages();
  for (const [page, md] of all) {
    for (const [, target] of prose(md).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split("#");
      const url = file === "" ? new URL(page, REPO) : new URL(file, new URL(page, REPO));
      const stat = await Deno.stat(url).catch(() => null);
      assert.ok(stat, `${page}: link ${target}: no such file`);
      if (anchor !== undefined) {
        const text = await Deno.readTextFile(url);
        assert.ok(anchors(text).has(anchor), `${page}: link ${target}: no heading with that anchor`);
      }
    }
  }
});

/** `flyingfish …` lines of the shell blocks of a page, without comments and redirections. */
function commandLines(md: string): string[] {
  const out: string[] = [];
  for (const [, lang, body] of md.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    if (!["sh", "bash", "shell", ""].includes(lang)) continue;
    for (const raw of body.split("\n")) {
      const line = raw.replace(/^\s*(\$ )?/, "").replace(/\s+#.*$/, "");
      if (line.startsWith("flyingfish ")) out.push(line.split(/\s[|>]/)[0]);
    }
  }
  return out;
}

Deno.test("docs: every flyingfish command line shown names a real command and only its flags", async () => {
  const program = buildProgram();
  const commands = new Map(program.commands.map((c) => [c.name(), c]));
  let seen = 0;
  for (const [page, md] of await pages()) {
    for (const line of commandLines(md)) {
      seen++;
      const words = line.split(/\s+/).slice(1);
      const name = words.find((w) => !w.startsWith("-"));
      const cmd = name ? commands.get(name) : undefined;
      assert.ok(cmd, `${page}: "${line}": no command ${name}`);
      const flags = new Set(["-h", "--help"]);
      for (const o of cmd.options) {
        if (o.long) flags.add(o.long);
        if (o.short) flags.add(o.short);
        // `--no-color` and friends: commander names the negated flag itself.
      }
      for (const w of words.filter((w) => w.startsWith("-"))) {
        const flag = w.split("=")[0];
        assert.ok(flags.has(flag), `${page}: "${line}": ${name} has no flag ${flag}`);
      }
    }
  }
  assert.ok(seen > 20, `only ${seen} command lines found`);
});
