/**
 * Tool errors through the CLI (issue 21): `check`, `report`, `collect`, `version --kubeconfig` and
 * `probe` × {401, 401 on the lists, 403 on discovery, TLS, hang}: exit 3, one error line, the error
 * document with `-o json`, nothing partial on stdout or on disk.
 * The fixtures (fake servers, one kubeconfig per fault): tool_errors.ts.
 */
import assert from "node:assert/strict";
import { runCli } from "./harness.ts";
import {
  assertErrorDocument,
  assertOneLine,
  BOUND,
  bounded,
  FAULTS,
  PASSIVE,
  PERMISSIONS,
  pool,
  withFaults,
} from "./tool_errors.ts";

/** One-shot commands, each with its flags: `json` when `-o json` gives the error document. */
const ONE_SHOT: { name: string; args: (dir: string) => string[]; json: boolean }[] = [
  { name: "check", args: () => ["check", "-o", "json", ...PASSIVE, ...BOUND], json: true },
  { name: "report", args: () => ["report", ...PASSIVE, ...BOUND], json: false },
  {
    name: "collect",
    args: (dir) => ["collect", "-q", "--sample-interval", "100ms", "-f", `${dir}/bundle.tar.gz`, ...BOUND],
    json: false,
  },
  { name: "version", args: () => ["version", "--request-timeout", "10s"], json: false },
  { name: "probe", args: () => ["probe", "-o", "json", "--no-network-probes", ...BOUND], json: true },
];

Deno.test({
  name:
    "tool errors: check, report, collect, version and probe × {401, 401 on the lists, 403 on discovery, TLS, hang}: exit 3, one line, the error document",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withFaults("healthy-consumer", "local", async (k) => {
      const jobs = ONE_SHOT.flatMap((cmd) =>
        FAULTS.map((fault) => async () => {
          const args = bounded([...cmd.args(k.dir), "--kubeconfig", k.path[fault]], fault);
          const r = await runCli(args, { permissions: PERMISSIONS });
          return { cmd, fault, r };
        })
      );
      // Four at a time: most runs answer at once, the hangs wait out their --request-timeout.
      for (const { cmd, fault, r } of await pool(jobs, 4)) {
        const ctx = `${cmd.name} × ${fault}`;
        const message = assertOneLine(r, fault, ctx);
        if (cmd.json) assertErrorDocument(r, message, ctx);
        if (cmd.name === "report") assert.equal(r.stdout, "", `${ctx}: no partial report`);
        if (cmd.name === "version") {
          assert.match(r.stdout, /^flyingfish /, `${ctx}: its own version still shown`);
        }
      }
      const bundles = [...Deno.readDirSync(k.dir)].filter((e) => e.name.endsWith(".tar.gz"));
      assert.deepEqual(bundles, [], "collect wrote no bundle");
    });
  },
});
