import assert from "node:assert/strict";
import {
  andThen,
  fix,
  flyingfish,
  helm,
  kubectl,
  kubectlIn,
  liqoctl,
  note,
  pipe,
  remoteKubeconfig,
  shell,
  step,
  unique,
} from "./remediation.ts";

Deno.test("builders: each program with its cluster; flyingfish and shell tools run on none", () => {
  assert.deepEqual(kubectl("local", "get", "pods"), { argv: ["kubectl", "get", "pods"], on: "local" });
  assert.deepEqual(kubectlIn("remote", "liqo", "get", "ip"), {
    argv: ["kubectl", "-n", "liqo", "get", "ip"],
    on: "remote",
  });
  assert.deepEqual(helm("local", "status", "liqo"), { argv: ["helm", "status", "liqo"], on: "local" });
  assert.deepEqual(liqoctl("consumer", "peer", remoteKubeconfig("provider")), {
    argv: ["liqoctl", "peer", { remoteKubeconfig: "provider" }],
    on: "consumer",
  });
  assert.deepEqual(flyingfish("probe", "trace"), { argv: ["flyingfish", "probe", "trace"], on: "none" });
  assert.deepEqual(shell("nc", "-u", "-v", "203.0.113.50", "51840").on, "none");
});

Deno.test("builders: pipe and andThen chain commands on one line, each keeping its cluster", () => {
  const grep = shell("grep", "-i", "tenant");
  const logs = kubectl("local", "logs", "deploy/cm");
  assert.deepEqual(pipe(logs, grep), { ...logs, then: [{ op: "|", command: grep }] });
  const reset = liqoctl("local", "network", "reset");
  const connect = liqoctl("local", "network", "connect");
  assert.deepEqual(andThen(reset, connect).then, [{ op: "&&", command: connect }]);
  // Chaining twice appends.
  assert.equal(pipe(pipe(logs, grep), grep).then?.length, 2);
});

Deno.test("fix: remarks, commands and steps in order; a remark ending ':' introduces a bare command", () => {
  const get = kubectl("local", "get", "ns");
  assert.deepEqual(fix("look:", get, "done", false, null, undefined, step(get, "again")), [
    { command: get, comment: "look:" },
    note("done"),
    { command: get, comment: "again" },
  ]);
  // A remark not ending ':' stays on its own; a command with its own comment is not merged.
  assert.deepEqual(fix("note", get), [note("note"), step(get)]);
  assert.deepEqual(fix("look:", step(get, "own")), [note("look:"), step(get, "own")]);
  assert.deepEqual(fix(), []);
});

Deno.test("unique: repeats dropped, order kept", () => {
  const a = step(kubectl("local", "get", "ns")), b = note("b");
  assert.deepEqual(unique([a, b, a, b]), [a, b]);
});
