import assert from "node:assert/strict";
import { commandLineOf, hostName, invocationOf, redactArgs, REDACTED } from "./invocation.ts";

Deno.test("redactArgs: secret flag values and URL credentials are redacted, the rest kept", () => {
  assert.deepEqual(
    redactArgs([
      "check",
      "--kubeconfig",
      "rome.yaml",
      "--token",
      "s3cr3t",
      "--password=hunter2",
      "--client-key",
      "/k.pem",
      "--proxy",
      "https://user:pw@proxy.example:3128",
      "--token",
      "--verbose",
    ]),
    [
      "check",
      "--kubeconfig",
      "rome.yaml",
      "--token",
      REDACTED,
      `--password=${REDACTED}`,
      "--client-key",
      REDACTED,
      "--proxy",
      `https://${REDACTED}@proxy.example:3128`,
      "--token",
      "--verbose",
    ],
  );
});

Deno.test("commandLineOf quotes what a shell needs quoted", () => {
  assert.equal(
    commandLineOf("flyingfish", ["check", "--kubeconfig", "my kube.yaml", "--token", "x", "-o", "json"]),
    `flyingfish check --kubeconfig 'my kube.yaml' --token ${REDACTED} -o json`,
  );
});

Deno.test("invocationOf: the remote cluster uses the local kubeconfig unless it has its own", () => {
  const one = invocationOf({ program: "flyingfish", args: ["check"], kubeconfig: "a.yaml", host: "h" });
  assert.deepEqual(one, {
    commandLine: "flyingfish check",
    host: "h",
    kubeconfig: { local: "a.yaml", remote: null },
  });
  const ctx = invocationOf({
    program: "f",
    args: [],
    kubeconfig: "a.yaml",
    remoteContext: "milan",
    host: null,
  });
  assert.deepEqual(ctx.kubeconfig, { local: "a.yaml", remote: "a.yaml" });
  const two = invocationOf({
    program: "f",
    args: [],
    kubeconfig: "a.yaml",
    remoteKubeconfig: "b.yaml",
    host: null,
  });
  assert.deepEqual(two.kubeconfig, { local: "a.yaml", remote: "b.yaml" });
  assert.deepEqual(invocationOf({ program: "f", args: [], host: null }).kubeconfig, {
    local: null,
    remote: null,
  });
});

Deno.test({
  name: "hostName: null without --allow-sys, never a prompt",
  permissions: { sys: false },
  fn: () => assert.equal(hostName(), null),
});

Deno.test({
  name: "hostName: the host name with --allow-sys=hostname",
  permissions: { sys: ["hostname"] },
  fn: () => assert.equal(hostName(), Deno.hostname()),
});
