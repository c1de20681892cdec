/**
 * Install and distribution, the Deno way, each proved from a directory outside the checkout: the
 * README's `deno install -g` line, the `kubectl-flyingfish` launcher found through PATH, the compile
 * wrapper that leaves no empty `dist/` behind, and `mod.ts` run as a program (what
 * `deno run jsr:@flyingfish/cli` runs). The single-file bundle has its own file (bundle_test.ts).
 */
import assert from "node:assert/strict";
import { DENO_DIR, opts, REPO, run, show, withTmp } from "./dist_support.ts";

/**
 * The one-line `deno install -g` command of docs/install.md's "Install" section, which the README's quick
 * start shows too: the same line in both places.
 */
async function readmeInstallLine(): Promise<string> {
  const page = await Deno.readTextFile(`${REPO}/docs/install.md`);
  const section = page.split(/^## /m).find((s) => s.startsWith("Install"));
  assert.ok(section, 'docs/install.md has no "## Install" section');
  const isInstall = (l: string) => /^\S*deno install -g /.test(l);
  const line = section.split("\n").find(isInstall);
  assert.ok(line, 'docs/install.md "Install" has no `deno install -g` line');
  const readme = await Deno.readTextFile(`${REPO}/README.md`);
  const quick = readme.split(/^## /m).find((s) => s.startsWith("Quick start"));
  assert.ok(quick, 'README has no "## Quick start" section');
  assert.deepEqual(
    quick.split("\n").filter(isInstall),
    [line],
    "the README's quick start shows the same install line",
  );
  return line;
}

Deno.test({
  name: "install: the README's deno install -g line gives a flyingfish command that runs from any directory",
  ...opts,
  fn: () =>
    withTmp(async (tmp) => {
      const root = `${tmp}/root`;
      const elsewhere = await Deno.makeTempDir({ dir: tmp, prefix: "cwd-" });
      const install = await run("sh", ["-c", await readmeInstallLine()], {
        cwd: REPO,
        env: { DENO_INSTALL_ROOT: root },
      });
      assert.equal(install.code, 0, show(install));
      const demo = await run(`${root}/bin/flyingfish`, ["demo", "dual-healthy"], { cwd: elsewhere });
      assert.equal(demo.code, 0, show(demo));
      assert.match(demo.stdout, /no failure found/, show(demo));
      const completion = await run(`${root}/bin/flyingfish`, ["completion", "bash"], { cwd: elsewhere });
      assert.equal(completion.code, 0, show(completion));
      assert.match(completion.stdout, /^# bash completion for flyingfish/);
      assert.match(completion.stdout, /complete -F _flyingfish flyingfish/);
    }),
});

Deno.test({
  name: "kubectl plugin: kubectl-flyingfish on PATH (a symlink) runs the CLI from any directory",
  ...opts,
  fn: () =>
    withTmp(async (tmp) => {
      const bin = `${tmp}/bin`;
      await Deno.mkdir(bin);
      await Deno.symlink(`${REPO}/bin/kubectl-flyingfish`, `${bin}/kubectl-flyingfish`);
      const path = `${bin}:${DENO_DIR}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
      const r = await run("kubectl-flyingfish", ["demo", "gw-lb-pending", "-o", "json"], {
        cwd: tmp,
        env: { PATH: path },
      });
      assert.equal(r.code, 2, show(r));
      assert.equal(JSON.parse(r.stdout).diagnosis?.id, "GW-02");
      // kubectl finds plugins on PATH by name: `kubectl flyingfish …` runs the same launcher.
      const kubectl = await run("sh", ["-c", "command -v kubectl"], { cwd: tmp, env: { PATH: path } });
      if (kubectl.code === 0) {
        const v = await run("kubectl", ["flyingfish", "--version"], { cwd: tmp, env: { PATH: path } });
        assert.equal(v.code, 0, show(v));
        assert.match(v.stdout, /^\d+\.\d+\.\d+/);
      }
    }),
});

Deno.test({
  name: "compile: a failed deno compile (offline: no denort) leaves no empty dist/ behind",
  ...opts,
  fn: () =>
    withTmp(async (tmp) => {
      const tasks: Record<string, string> = JSON.parse(await Deno.readTextFile(`${REPO}/deno.json`)).tasks;
      const compileTasks = Object.entries(tasks).filter(([name]) => name.startsWith("compile:"));
      assert.ok(compileTasks.length >= 4);
      for (const [name, cmd] of compileTasks) assert.match(cmd, /^\.\/bin\/compile /, name);
      // A Deno whose compile fails the way an offline one does, after creating its output folder.
      const fake = `${tmp}/deno`;
      await Deno.writeTextFile(
        fake,
        '#!/bin/sh\nfor a; do [ "$prev" = --output ] && mkdir -p "$(dirname "$a")"; prev=$a; done\n' +
          'echo "error: dns error: failed to lookup address information" >&2; exit 1\n',
      );
      await Deno.chmod(fake, 0o755);
      const r = await run(`${REPO}/bin/compile`, [
        "x86_64-unknown-linux-gnu",
        "flyingfish-linux-x64",
        `${tmp}/dist`,
      ], {
        cwd: tmp,
        env: { DENO: fake },
      });
      assert.notEqual(r.code, 0, show(r));
      assert.match(r.stderr, /dns error/);
      await assert.rejects(Deno.stat(`${tmp}/dist`), Deno.errors.NotFound);
    }),
});

Deno.test({
  name: "jsr: mod.ts, the package's root export, runs the CLI when run as a program",
  ...opts,
  fn: () =>
    withTmp(async (tmp) => {
      const r = await run(
        Deno.execPath(),
        ["run", "--allow-env", "--allow-read", `${REPO}/mod.ts`, "checks"],
        {
          cwd: tmp,
        },
      );
      assert.equal(r.code, 0, show(r));
      assert.match(r.stdout, /GW-02/);
    }),
});
