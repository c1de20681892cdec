/** The preflight verdict in every format: text, Markdown, HTML, JUnit (failed unless it can peer), JSON/YAML (the block). */
import assert from "node:assert/strict";
import { render } from "./render.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { Report } from "../report/model.ts";

function withVerdict(verdict: "cannot-peer" | "can-peer"): Report {
  return {
    ...sampleReport(),
    preflight: {
      version: "1",
      consumer: "rome",
      provider: "milan",
      verdict,
      message: verdict === "can-peer"
        ? "can peer: nothing found in the way"
        : "cannot peer: 1 check(s) failed",
      blockers: verdict === "can-peer" ? [] : ["PF-RBAC: cannot create tenants"],
      changes: [],
      undecided: [],
      probed: false,
      liqoctl: { argv: ["liqoctl", "peer", "--context", "rome"], line: "liqoctl peer --context rome" },
    },
  };
}

Deno.test("preflight verdict renders in text, markdown, html, junit, json and yaml", () => {
  const r = withVerdict("cannot-peer");
  const opts = { color: false, verbose: false, quiet: false, width: 120 };
  assert.match(
    render(r, "text", opts),
    /✗ verdict: cannot peer: 1 check\(s\) failed\n\s+✗ PF-RBAC: cannot create tenants\n.*# once fixed, peer from the consumer \(rome\):\n\s+liqoctl peer --context rome/,
  );
  assert.match(render(r, "markdown", opts), /## Preflight verdict\n\n\*\*✗ cannot peer\*\*/);
  assert.match(render(r, "markdown", opts), /```sh\nliqoctl peer --context rome\n```/);
  assert.match(render(r, "html", opts), /<section id="preflight" class="s-fail" data-verdict="cannot-peer">/);
  const junit = render(r, "junit", opts);
  assert.match(junit, /<testsuite name="PREFLIGHT VERDICT" tests="1" failures="1"/);
  assert.match(
    render(withVerdict("can-peer"), "junit", opts),
    /<testsuite name="PREFLIGHT VERDICT" tests="1" failures="0"/,
  );
  assert.equal(JSON.parse(render(r, "json", opts)).preflight.verdict, "cannot-peer");
  assert.match(render(r, "yaml", opts), /preflight:\n\s+version: "1"/);
});
