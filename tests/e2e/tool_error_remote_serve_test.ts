/**
 * Tool errors through the CLI (issue 21): `serve` with a faulting `--remote-kubeconfig` degrades like
 * a refused remote — ready with the local cluster, its report naming why the remote is missing.
 * The fixtures (fake servers, one kubeconfig per fault): tool_errors.ts.
 */
import assert from "node:assert/strict";
import {
  bounded,
  type Fault,
  FAULTS,
  get,
  PASSIVE,
  pool,
  REASON,
  startServe,
  withFaults,
} from "./tool_errors.ts";

Deno.test({
  name:
    "tool errors: serve with a remote that answers 401 (on /version or on the lists), 403 on discovery, a TLS error or nothing: ready with the local cluster, the report says why",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("dual-healthy", "remote", async (k, local) => {
      const kc = (f: Fault) => ["--kubeconfig", local!, "--remote-kubeconfig", k.path[f]];
      await pool(
        FAULTS.map((f) => async () => {
          const ctx = `serve with a remote × ${f}`;
          const serve = await startServe(
            bounded([...PASSIVE, "--interval", "30s", "--request-timeout", "10s", ...kc(f)], f),
          );
          let ready = await get(`${serve.base}/readyz`);
          const end = Date.now() + 20_000;
          while (ready.status !== 200 && Date.now() < end) {
            await new Promise((r) => setTimeout(r, 200));
            ready = await get(`${serve.base}/readyz`);
          }
          const report = await get(`${serve.base}/report`);
          const r = await serve.stop();
          assert.equal(ready.status, 200, `${ctx}: a round completed with the local cluster\n${r.stderr}`);
          assert.match(report.body, REASON[f], `${ctx}: the report says why the remote is missing`);
          assert.equal(r.code, 0, ctx);
        }),
        FAULTS.length,
      ); // all at once: each serve mostly waits for its rounds
    });
  },
});
