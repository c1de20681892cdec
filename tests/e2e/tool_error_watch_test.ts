/**
 * Tool errors through the CLI (issue 21): `watch` × {401, 401 on the lists, 403 on discovery, TLS,
 * hang}: an error event per round, and the rounds go on.
 * The fixtures (fake servers, one kubeconfig per fault): tool_errors.ts.
 */
import assert from "node:assert/strict";
import { runCli } from "./harness.ts";
import { FAULTS, PASSIVE, PERMISSIONS, pool, REASON, withFaults } from "./tool_errors.ts";

Deno.test({
  name:
    "tool errors: watch × {401, 401 on the lists, 403 on discovery, TLS, hang}: an error event per round, the rounds go on, no crash",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      const runs = await pool(
        FAULTS.map((fault) => async () => ({
          fault,
          r: await runCli([
            "watch",
            "-o",
            "jsonl",
            ...PASSIVE,
            "--interval",
            "1100ms",
            "--request-timeout",
            fault === "hang" ? "3s" : "10s",
            // Watch this long, then stop (`--timeout` past its bound is exit 3 in every command).
            "--wait",
            "12s",
            "--kubeconfig",
            k.path[fault],
          ], { permissions: PERMISSIONS }),
          // All at once: each run mostly waits for its rounds (--wait 12s).
        })),
        FAULTS.length,
      );
      for (const { fault, r } of runs) {
        const ctx = `watch × ${fault}`;
        assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace\n${r.stderr}`);
        const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
        const errors = events.filter((e) => e.type === "error");
        assert.ok(errors.length >= 2, `${ctx}: an error event per round, and it goes on:\n${r.stdout}`);
        for (const e of errors) assert.match(e.message, REASON[fault], ctx);
        assert.equal(events.at(-1).type, "end", `${ctx}: ends at --wait`);
        assert.notEqual(r.code, 3, `${ctx}: a failed round is not the end of the watch`);
      }
    });
  },
});
