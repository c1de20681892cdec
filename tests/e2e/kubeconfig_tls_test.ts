/**
 * First-run kubeconfig troubles, through the real CLI: a `certificate-authority-data` that is no
 * certificate is one line naming the kubeconfig and cluster entry (exit 3, no TLS noise, no blame on
 * the server); an `http://` server (what `kubectl proxy` serves) is talked to in plain HTTP, as
 * kubectl does, without `insecure-skip-tls-verify`.
 */
import assert from "node:assert/strict";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, runCli } from "./harness.ts";
import { checkArgs, opts, withTmp } from "./snapshot_matrix.ts";

const GARBAGE_CAS = {
  "a PEM block that is no certificate": btoa(
    "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGUgYXQgYWxs\n-----END CERTIFICATE-----\n",
  ),
  "text without a PEM block": btoa("hello, I am not a CA\n"),
} as const;

for (const [what, caData] of Object.entries(GARBAGE_CAS)) {
  Deno.test({
    name: `kubeconfig: a CA that is ${what} is one line naming kubeconfig and cluster, exit 3`,
    ...opts,
    fn: () =>
      withTmp("ff-ca-", async (dir) => {
        const s = await loadScenario("healthy-consumer");
        const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
        try {
          const kc = `${dir}/garbage-ca.kubeconfig`;
          const yaml = served.kubeconfigYaml(s.run.local);
          assert.match(yaml, /certificate-authority-data: /);
          await Deno.writeTextFile(
            kc,
            yaml.replace(/certificate-authority-data: .*/, `certificate-authority-data: ${caData}`),
          );
          const r = await runCli(["check", "--kubeconfig", kc, "-o", "json", ...checkArgs(s)]);
          assert.equal(r.code, 3, r.stderr);
          const lines = r.stderr.trimEnd().split("\n").filter((l) => !l.startsWith("connecting to "));
          assert.equal(lines.length, 1, r.stderr);
          assert.match(
            lines[0],
            /^flyingfish: the CA cannot be parsed: certificate-authority-data of cluster "rome"/,
          );
          assert.ok(lines[0].includes(kc), lines[0]);
          assert.doesNotMatch(r.stderr, /TLSWrap|unable to verify|cannot reach/);
          assert.equal(served.clusters[s.run.local]!.requests.length, 0, "nothing is sent");
        } finally {
          await served.close();
        }
      }),
  });
}

Deno.test({
  name:
    "kubeconfig: an http:// server (kubectl proxy) is read in plain HTTP without insecure-skip-tls-verify",
  ...opts,
  fn: () =>
    withTmp("ff-http-", async (dir) => {
      const s = await loadScenario("healthy-consumer");
      const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
      try {
        const kc = `${dir}/proxy.kubeconfig`;
        const yaml = served.kubeconfigYaml(s.run.local);
        assert.match(yaml, /server: http:\/\//);
        await Deno.writeTextFile(kc, yaml.replace(/^\s*insecure-skip-tls-verify: true\n/m, ""));
        assert.doesNotMatch(await Deno.readTextFile(kc), /insecure-skip-tls-verify/);
        const r = await runCli(["check", "--kubeconfig", kc, "-o", "json", ...checkArgs(s)]);
        assert.equal(r.code, s.expect.exitCode, r.stderr);
        assert.ok(served.clusters[s.run.local]!.requests.length > 0);
        assert.match(JSON.parse(r.stdout).clusters[0].server, /^http:\/\/127\.0\.0\.1:/);
      } finally {
        await served.close();
      }
    }),
});
