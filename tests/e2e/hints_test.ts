/**
 * Hints that work where they are printed, through the CLI: after a forbidden `pods/exec` no fix says
 * "run the same exec by hand" (it would be refused the same way) but names the missing verb; no fix
 * or cheat-sheet line offers `nc -u` against a WireGuard endpoint (it "succeeds" against anything);
 * a `--udp-precise` step says it needs `--allow-ffi` (no entry point grants it);
 * and no cheat-sheet pod is unpinned or refused by Pod Security `restricted`.
 */
import assert from "node:assert/strict";
import { runScenarioCommand } from "./scenario_cli.ts";

interface Step {
  command: string | null;
  comment: string | null;
}
// deno-lint-ignore no-explicit-any
type Json = any;

async function reportOf(scenario: string, args: string[] = []): Promise<Json> {
  const run = await runScenarioCommand(scenario, "check", { args: ["-o", "json", "-v", ...args] });
  assert.ok(run.stdout.trim().startsWith("{"), run.stderr);
  return JSON.parse(run.stdout);
}

Deno.test("pods/exec forbidden: the fix names the missing verb (kubectl auth can-i), never the same exec by hand", async () => {
  const report = await reportOf("tun-exec-forbidden");
  const forbidden = report.results.filter((r: Json) => r.status === "unknown" && /forbidden/.test(r.summary));
  assert.ok(forbidden.some((r: Json) => r.id === "TUN-04"), JSON.stringify(forbidden.map((r: Json) => r.id)));
  for (const r of forbidden) {
    const steps: Step[] = r.remediation ?? [];
    const commands = steps.map((s) => s.command).filter((c): c is string => c !== null);
    assert.ok(
      !commands.some((c) => / exec /.test(c)),
      `${r.id} suggests an exec that is forbidden: ${commands}`,
    );
    assert.ok(
      commands.some((c) => /auth can-i create pods\/exec/.test(c)),
      `${r.id}: no kubectl auth can-i create pods/exec in ${JSON.stringify(steps)}`,
    );
    assert.ok(steps.some((s) => /create \(and get\) on pods\/exec/.test(s.comment ?? "")), r.id);
  }
});

Deno.test("no hint offers nc -u to a WireGuard endpoint, and the cheat sheet's pods are pinned and restricted-admissible", async () => {
  for (const scenario of ["gw-lb-pending", "healthy-consumer", "wg-never-worked", "two-peers-one-broken"]) {
    const report = await reportOf(scenario);
    const fixes = report.results.flatMap((r: Json) =>
      (r.remediation ?? []).map((s: Step) => s.command ?? "")
    );
    const sheet: string[] = report.cheatSheet.map((e: Json) => e.command);
    for (const c of [...fixes, ...sheet]) {
      assert.ok(!/(^|[|&;]\s*)nc -u/.test(c), `${scenario}: ${c}`);
      assert.ok(!/netshoot|curlimages/.test(c), `${scenario}: unpinned image in ${c}`);
      for (const image of c.matchAll(/--image=(\S+)/g)) {
        assert.match(image[1], /@sha256:[0-9a-f]{64}$/, `${scenario}: image not pinned by digest: ${c}`);
      }
      if (/ run /.test(c) && /^kubectl/.test(c)) {
        // Pod Security restricted: non-root, seccomp RuntimeDefault, no privilege escalation, no capabilities.
        const overrides = /--overrides='([^']+)'/.exec(c);
        assert.ok(overrides && /--override-type=strategic/.test(c), `${scenario}: ${c}`);
        const spec = JSON.parse(overrides[1]).spec;
        assert.equal(spec.securityContext.runAsNonRoot, true);
        assert.equal(spec.securityContext.seccompProfile.type, "RuntimeDefault");
        assert.equal(spec.containers[0].securityContext.allowPrivilegeEscalation, false);
        assert.deepEqual(spec.containers[0].securityContext.capabilities.drop, ["ALL"]);
        assert.ok(
          c.includes(`run ${spec.containers[0].name} `),
          `the override names the run's container: ${c}`,
        );
      }
    }
    // --udp-precise needs FFI, which no entry point grants: every step that prints it says so.
    for (const r of report.results) {
      for (const s of (r.remediation ?? []) as Step[]) {
        if (!/--udp-precise/.test(s.command ?? "")) continue;
        assert.match(s.comment ?? "", /needs --allow-ffi/, `${scenario} ${r.id}: ${JSON.stringify(s)}`);
      }
    }
    if (scenario === "wg-never-worked") {
      // The UDP path is tested with the tool, on the cluster the user named (flags after the subcommand).
      assert.ok(
        fixes.some((c: string) =>
          /^flyingfish check --kubeconfig \S+ --context \S+ --only GW-05 --udp-precise$/.test(c)
        ),
        fixes.join("\n"),
      );
    }
    if (sheet.length) {
      assert.ok(sheet.some((c) => /^flyingfish probe (udp|mtu|matrix) /.test(c)), `${scenario}: ${sheet}`);
    }
  }
});
