/**
 * .ci/run: the JSR package check (`deno task jsr:check`: doc lint, publish dry run) runs before the
 * tests, a failure of it makes the run red and counts as one failure, and the last line stays the
 * test run's "N passed, M failed". Run on a copy of the script with stand-ins for npm, chromium, promtool,
 * kubectl and the pinned Deno, so nothing is installed and no test runs twice.
 */
import assert from "node:assert/strict";

const CI_RUN = new URL("../.ci/run", import.meta.url);

interface Case {
  jsrExit: number;
  /** What the stand-in `deno task test` prints, and its exit code. */
  testOutput: string;
  testExit: number;
  /** Exit code of the stand-in `deno task check` of the cache warm-up. */
  warmExit?: number;
}

async function runCi(c: Case): Promise<{ code: number; lastLine: string; calls: string[] }> {
  const root = await Deno.makeTempDir({ prefix: "ff-ci-" });
  try {
    await Deno.mkdir(`${root}/.ci`);
    await Deno.mkdir(`${root}/tools/node_modules/.bin`, { recursive: true });
    await Deno.mkdir(`${root}/fakebin`);
    await Deno.copyFile(CI_RUN, `${root}/.ci/run`);
    const script = async (path: string, body: string) => {
      await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
      await Deno.chmod(path, 0o755);
    };
    await script(`${root}/fakebin/npm`, "exit 0");
    await script(`${root}/fakebin/chromium`, "exit 0");
    await script(`${root}/fakebin/promtool`, "exit 0");
    await script(`${root}/fakebin/kubectl`, "exit 0");
    await script(`${root}/fakebin/pdftotext`, "exit 0");
    await script(
      `${root}/tools/node_modules/.bin/deno`,
      [
        `echo "$*" >> "${root}/calls"`,
        `case "$2" in`,
        `  jsr:check) echo "error: Found 3 documentation lint errors."; exit ${c.jsrExit} ;;`,
        `  test) printf '%s\\n' '${c.testOutput}'; exit ${c.testExit} ;;`,
        `  check) exit ${c.warmExit ?? 0} ;;`,
        `esac`,
        `case "$1" in fmt|lint) exit 0 ;; esac`,
        `exit 9`,
      ].join("\n"),
    );
    const out = await new Deno.Command("bash", {
      args: [`${root}/.ci/run`],
      env: { PATH: `${root}/fakebin:/usr/bin:/bin` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    const calls = (await Deno.readTextFile(`${root}/calls`)).trim().split("\n");
    return { code: out.code, lastLine: lines[lines.length - 1], calls };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * The package check and the warm-up of the test command's fmt, lint and type-check caches run side by
 * side (in either order), and the README's test command comes last, once.
 */
function assertCalls(calls: string[]): void {
  assert.equal(calls.at(-1), "task test", `the test command runs last: ${calls}`);
  assert.deepEqual(calls.slice(0, -1).sort(), ["fmt --check", "lint", "task check", "task jsr:check"]);
}

Deno.test(".ci/run: a failed cache warm-up changes nothing: the test command judges", async () => {
  const r = await runCi({
    jsrExit: 0,
    testOutput: "ok | 12 passed | 0 failed (3s)",
    testExit: 0,
    warmExit: 1,
  });
  assert.equal(r.calls.at(-1), "task test");
  assert.equal(r.lastLine, "12 passed, 0 failed");
  assert.equal(r.code, 0);
});

Deno.test(".ci/run: the package check runs before the tests and a failure of it makes the run red", async () => {
  const green = await runCi({ jsrExit: 0, testOutput: "ok | 12 passed | 0 failed (3s)", testExit: 0 });
  assertCalls(green.calls);
  assert.equal(green.lastLine, "12 passed, 0 failed");
  assert.equal(green.code, 0);

  const docLint = await runCi({ jsrExit: 1, testOutput: "ok | 12 passed | 0 failed (3s)", testExit: 0 });
  assertCalls(docLint.calls);
  assert.equal(docLint.lastLine, "12 passed, 1 failed");
  assert.equal(docLint.code, 1);

  const testFails = await runCi({
    jsrExit: 0,
    testOutput: "FAILED | 11 passed | 1 failed (3s)",
    testExit: 1,
  });
  assert.equal(testFails.lastLine, "11 passed, 1 failed");
  assert.equal(testFails.code, 1);

  const fmt = await runCi({ jsrExit: 0, testOutput: "error: Found 1 not formatted file", testExit: 1 });
  assert.equal(fmt.lastLine, "0 passed, 1 failed");
  assert.equal(fmt.code, 1);
});
