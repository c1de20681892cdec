import assert from "node:assert/strict";
import { parseCapture } from "./_capture.ts";
import type { ExecOutcome } from "../../kube/source.ts";

const NONCE = "ff-trace-k3x9q2m7ab";
const LISTENING = "tcpdump: verbose output suppressed, use -v[v]... for full protocol decode\n" +
  "listening on liqo.bd4fk7xz2q, link-type EN10MB (Ethernet), snapshot length 256 bytes\n";
const ENDED = "2 packets captured\n2 packets received by filter\n0 packets dropped by kernel\n";

function run(stdout: string, stderr = LISTENING + ENDED, exitCode = 124): ExecOutcome {
  return { ok: true, stdout, stderr, exitCode, via: "api" };
}

const REQUEST = `13:20:01.123456 IP 10.71.0.5.43210 > 10.81.1.7.8081: UDP, length 29
E..9..@.?..Z
G...Q....Q..echo ${NONCE}
`;
const REPLY = `13:20:01.124001 IP 10.81.1.7.8081 > 10.71.0.5.43210: UDP, length 24
E..4..@.?...
Q...G....Q..${NONCE}
`;
const OTHER = `13:20:01.200000 IP 10.71.0.9.40000 > 10.81.1.8.8081: UDP, length 29
E..9..@.?..Z
G...Q....Q..echo ff-trace-someoneelse
`;

Deno.test("parseCapture: request and echo told apart by the probe port, found by nonce", () => {
  assert.deepEqual(parseCapture(run(REQUEST + REPLY), NONCE), {
    kind: "captured",
    request: true,
    reply: true,
    packets: 2,
  });
  assert.deepEqual(parseCapture(run(REQUEST), NONCE), {
    kind: "captured",
    request: true,
    reply: false,
    packets: 1,
  });
  assert.deepEqual(parseCapture(run(REPLY), NONCE), {
    kind: "captured",
    request: false,
    reply: true,
    packets: 1,
  });
});

Deno.test("parseCapture: other traffic on the port, or nothing, is not the nonce", () => {
  assert.deepEqual(parseCapture(run(OTHER), NONCE), {
    kind: "captured",
    request: false,
    reply: false,
    packets: 1,
  });
  assert.deepEqual(parseCapture(run("", LISTENING + "0 packets captured\n"), NONCE), {
    kind: "captured",
    request: false,
    reply: false,
    packets: 0,
  });
  // Exit 0 (tcpdump ended by itself) is read the same way; CRLF is tolerated.
  assert.equal(parseCapture(run(REQUEST.replaceAll("\n", "\r\n"), LISTENING, 0), NONCE).kind, "captured");
});

Deno.test("parseCapture: a capture that could not run is unavailable, with tcpdump's reason", () => {
  const noDevice = parseCapture(
    run("", "tcpdump: liqo.bd4fk7xz2q: No such device exists\n(No such device exists)\n", 1),
    NONCE,
  );
  assert.deepEqual(noDevice, {
    kind: "unavailable",
    reason: "tcpdump failed (exit 1): tcpdump: liqo.bd4fk7xz2q: No such device exists",
  });
  const perm = parseCapture(
    run("", "tcpdump: liqo-tunnel: You don't have permission to perform this capture on that device\n", 1),
    NONCE,
  );
  assert.equal(perm.kind, "unavailable");
  assert.match(perm.kind === "unavailable" ? perm.reason : "", /permission/);
  const missing = parseCapture(
    run("", "timeout: failed to run command 'tcpdump': No such file or directory\n", 127),
    NONCE,
  );
  assert.deepEqual(missing, {
    kind: "unavailable",
    reason:
      "tcpdump could not run (exit 127): timeout: failed to run command 'tcpdump': No such file or directory",
  });
  assert.deepEqual(
    parseCapture({ ok: false, reason: "forbidden", message: "pods/exec is forbidden" }, NONCE),
    {
      kind: "unavailable",
      reason: "exec failed: pods/exec is forbidden",
    },
  );
});
