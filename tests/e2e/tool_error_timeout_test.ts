/**
 * Tool errors through the CLI (issue 21): a hang bounded by `--timeout` alone ends within it, exit 3,
 * one line (check, report, collect, probe).
 * The fixtures (fake servers, one kubeconfig per fault): tool_errors.ts.
 */
import assert from "node:assert/strict";
import { runCli } from "./harness.ts";
import { assertErrorDocument, assertOneLine, PASSIVE, PERMISSIONS, pool, withFaults } from "./tool_errors.ts";

Deno.test({
  name:
    "tool errors: a hang bounded by --timeout alone (no --request-timeout) ends within it, exit 3 (check, report, collect, probe)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      const bound = ["--request-timeout", "0", "--timeout", "2s"];
      const cmds: [string, string[], boolean][] = [
        ["check", ["check", "-o", "json", ...PASSIVE], true],
        ["report", ["report", ...PASSIVE], false],
        ["collect", ["collect", "-q", "-f", `${k.dir}/b.tar.gz`], false],
        // probe used to wait its cleanup budget (30 s) on top, though no probe could have started.
        ["probe", ["probe", "-o", "json", "--no-network-probes"], true],
      ];
      const runs = await pool(cmds.map(([name, args, json]) => async () => {
        const t0 = performance.now();
        const r = await runCli([...args, ...bound, "--kubeconfig", k.path.hang], {
          permissions: PERMISSIONS,
        });
        return { name, json, r, ms: performance.now() - t0 };
      }));
      for (const { name, json, r, ms } of runs) {
        const message = assertOneLine(r, "hang", name);
        assert.match(message, /did not finish within --timeout 2s/, name);
        assert.ok(ms < 12_000, `${name}: ended ${Math.round(ms)} ms after start, --timeout was 2s`);
        if (json) assertErrorDocument(r, message, name);
      }
    });
  },
});
