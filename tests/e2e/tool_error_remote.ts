/**
 * Tool errors through the CLI (issue 21): the same faults on the `--remote-kubeconfig` degrade a dual
 * run exactly like a refused remote — "… — checking rome alone", the same exit code and summary.
 * Registered in shares by tool_error_remote_{a,b,c}_test.ts (check, report, collect | watch | probe);
 * serve: tool_error_remote_serve_test.ts. The fixtures: tool_errors.ts.
 */
import assert from "node:assert/strict";
import { runCli } from "./harness.ts";
import {
  BOUND,
  bounded,
  type Fault,
  FAULTS,
  PASSIVE,
  PERMISSIONS,
  pool,
  REASON,
  withFaults,
} from "./tool_errors.ts";

/**
 * How long each watch runs: its first round needs the remote's failure, which is at once but for
 * a hang, which takes the 3 s --request-timeout of {@link bounded} before the round starts.
 */
const watchBound = (f: Fault | "refused"): string => f === "hang" ? "7s" : "4s";

/**
 * Registers the remote-degrades test for the commands `names` (each share in its own file, so that
 * they run side by side: tool_error_remote_{a,b,c}_test.ts).
 */
export function registerRemoteFaultTest(names: readonly string[]): void {
  Deno.test({
    name:
      `tool errors: a remote that answers 401 (on /version or on the lists), 403 on discovery, a TLS error or nothing degrades the dual run like a refused one (${
        names.join(", ")
      })`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      await withFaults("dual-healthy", "remote", async (k, local) => {
        const remotes: (Fault | "refused")[] = ["refused", ...FAULTS];
        const kc = (f: Fault | "refused") => ["--kubeconfig", local!, "--remote-kubeconfig", k.path[f]];
        /** Each command's arguments for a remote with fault `f` (before the kubeconfigs). */
        const cmds: { name: string; args: (f: Fault | "refused") => string[]; alone: string }[] = [
          {
            name: "check",
            args: () => ["check", "-o", "json", ...PASSIVE, ...BOUND],
            alone: "checking rome alone",
          },
          { name: "report", args: () => ["report", ...PASSIVE, ...BOUND], alone: "checking rome alone" },
          {
            name: "collect",
            args: (
              f,
            ) => ["collect", "-q", "--sample-interval", "100ms", ...BOUND, "-f", `${k.dir}/${f}.tar.gz`],
            alone: "collecting rome alone",
          },
          {
            name: "watch",
            args: (f) => [
              "watch",
              "-o",
              "jsonl",
              ...PASSIVE,
              "--interval",
              "2s",
              "--request-timeout",
              "10s",
              "--timeout",
              watchBound(f),
            ],
            alone: "checking rome alone",
          },
          {
            name: "probe",
            args: () => ["probe", "-o", "json", "--no-network-probes", "--mode", "direct", ...BOUND],
            alone: "checking rome alone",
          },
        ];
        const mine = cmds.filter((c) => names.includes(c.name));
        assert.equal(mine.length, names.length, `unknown command in ${names}`);
        const jobs = mine.flatMap((cmd) =>
          remotes.map((f) => async () => {
            const args = bounded([...cmd.args(f), ...kc(f)], f);
            return { cmd, f, r: await runCli(args, { permissions: PERMISSIONS }) };
          })
        );
        // Three at a time: the runs mostly wait (the watches' bounds, the hangs' --request-timeout).
        const runs = await pool(jobs, 3);
        for (const cmd of mine) {
          const ofCmd = runs.filter((x) => x.cmd === cmd);
          const refused = ofCmd.find((x) => x.f === "refused")!.r;
          for (const { f, r } of ofCmd) {
            const ctx = `${cmd.name} with a remote × ${f}`;
            assert.doesNotMatch(r.stderr, /^\s+at |Uncaught|error: /m, `${ctx}: no stack trace\n${r.stderr}`);
            assert.match(
              r.stderr,
              new RegExp(`remote cluster unavailable: .* — ${cmd.alone}`),
              `${ctx}\n${r.stderr}`,
            );
            if (f !== "refused") assert.match(r.stderr, REASON[f], ctx);
            if (cmd.name === "watch") {
              // A round with the local cluster alone (its verdict depends on timing under load: not compared).
              const first = JSON.parse(r.stdout.split("\n")[0]);
              assert.equal(first.type, "snapshot", `${ctx}\n${r.stdout}`);
              assert.equal(
                first.clusters.find((c: { role: string }) => c.role === "remote")?.name,
                "remote",
                ctx,
              );
            } else {
              assert.equal(r.code, refused.code, `${ctx}: the exit code of a refused remote\n${r.stderr}`);
            }
            if (cmd.name === "check" || cmd.name === "probe") {
              const doc = JSON.parse(r.stdout);
              assert.deepEqual(
                doc.summary,
                JSON.parse(refused.stdout).summary,
                `${ctx}: the refused remote's summary`,
              );
            }
            if (cmd.name === "collect") assert.ok(Deno.statSync(`${k.dir}/${f}.tar.gz`).isFile, ctx);
          }
        }
      });
    },
  });
}
