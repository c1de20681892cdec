/**
 * Tool errors through the CLI (issue 21): `serve` × {401, 401 on the lists, 403 on discovery, TLS,
 * hang} keeps running; /metrics counts the failed rounds, /readyz says why it is not ready.
 * The fixtures (fake servers, one kubeconfig per fault): tool_errors.ts.
 */
import assert from "node:assert/strict";
import { FAULTS, get, PASSIVE, pool, REASON, roundsTotal, startServe, withFaults } from "./tool_errors.ts";

Deno.test({
  name:
    "tool errors: serve × {401, 401 on the lists, 403 on discovery, TLS, hang} keeps running, counts the failed rounds in /metrics, /readyz says why",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      await pool(
        FAULTS.map((fault) => async () => {
          const ctx = `serve × ${fault}`;
          const serve = await startServe([
            ...PASSIVE,
            "--interval",
            "1100ms",
            "--request-timeout",
            fault === "hang" ? "3s" : "10s",
            "--kubeconfig",
            k.path[fault],
          ]);
          let metrics = "";
          const end = Date.now() + 20_000;
          while (Date.now() < end) {
            metrics = (await get(`${serve.base}/metrics`)).body;
            if (roundsTotal(metrics, "error") >= 2) break;
            await new Promise((r) => setTimeout(r, 200));
          }
          const ready = await get(`${serve.base}/readyz`);
          const health = await get(`${serve.base}/healthz`);
          const r = await serve.stop();
          assert.ok(
            roundsTotal(metrics, "error") >= 2,
            `${ctx}: failed rounds counted, still serving:\n${metrics}`,
          );
          assert.equal(roundsTotal(metrics, "success"), 0, ctx);
          assert.equal(ready.status, 503, ctx);
          assert.match(ready.body, REASON[fault], `${ctx}: /readyz says why`);
          assert.equal(health.status, 200, `${ctx}: alive`);
          assert.equal(r.code, 0, `${ctx}: SIGTERM stops it cleanly\n${r.stderr}`);
          assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace`);
          assert.match(r.stderr, /round failed: /, ctx);
        }),
        FAULTS.length,
      ); // all at once: each serve mostly waits for its rounds
    });
  },
});
