/** A run that did not finish says so in every format, and never "no failure found" as if complete. */
import assert from "node:assert/strict";
import { render } from "./render.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { Report } from "../report/model.ts";

const MESSAGE = "the run did not finish (interrupted by SIGINT): the probes were stopped and what it " +
  "created was removed; the results are what was measured so far, not a verdict";

function stopped(): Report {
  const base = sampleReport();
  const results = base.results.map((r) => ({ ...r, status: "pass" as const, remediation: [] }));
  return {
    ...base,
    results,
    diagnosis: null,
    summary: { pass: results.length, warn: 0, fail: 0, skip: 0, unknown: 0, total: results.length },
    stopped: { by: "SIGINT", message: MESSAGE },
    exitCode: 130,
  };
}

Deno.test("a stopped run: text says it did not finish and claims no verdict", () => {
  const out = render(stopped(), "text", { color: false, verbose: false, quiet: false, width: 200 });
  assert.match(out, /run not finished: the run did not finish \(interrupted by SIGINT\)/);
  assert.match(out, /no failure found in what was measured/);
  assert.ok(!/\n no failure found\n/.test(out), "never the plain all-clear");
});

Deno.test("a stopped run: JSON and YAML carry `stopped` and the process's exit code", () => {
  const doc = JSON.parse(render(stopped(), "json", { color: false, verbose: false, quiet: false }));
  assert.equal(doc.exitCode, 130);
  assert.deepEqual(doc.stopped, { by: "SIGINT", message: MESSAGE });
  const yaml = render(stopped(), "yaml", { color: false, verbose: false, quiet: false });
  assert.match(yaml, /stopped:\n\s+by: SIGINT/);
  assert.match(yaml, /exitCode: 130/);
});

Deno.test("a stopped run: Markdown, HTML and JUnit say so too (JUnit as an error of the run)", () => {
  const opts = { color: false, verbose: false, quiet: false };
  assert.match(render(stopped(), "markdown", opts), /\*\*. Run not finished:\*\* the run did not finish/);
  const html = render(stopped(), "html", opts);
  assert.match(html, /<section id="stopped"[^>]*>.*Run not finished: the run did not finish/s);
  const junit = render(stopped(), "junit", opts);
  assert.match(junit, /<testsuites name="flyingfish"[^>]* errors="1"/);
  assert.match(junit, /<error message="run not finished: the run did not finish \(interrupted by SIGINT\)/);
});
