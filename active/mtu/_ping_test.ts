import assert from "node:assert/strict";
import { describePing, parsePing } from "./_ping.ts";
import type { ExecOutcome } from "../../kube/source.ts";

function run(stdout: string, stderr = "", exitCode = 0): ExecOutcome {
  return { ok: true, stdout, stderr, exitCode, via: "api" };
}

const PASS = `PING 169.254.18.1 (169.254.18.1) 1312(1340) bytes of data.
1320 bytes from 169.254.18.1: icmp_seq=1 ttl=64 time=0.873 ms

--- 169.254.18.1 ping statistics ---
1 packets transmitted, 1 received, 0% packet loss, time 0ms
rtt min/avg/max/mdev = 0.873/0.873/0.873/0.000 ms
`;

const LOCAL_STATS = `PING 169.254.18.1 (169.254.18.1) 1472(1500) bytes of data.

--- 169.254.18.1 ping statistics ---
1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms
`;

const FRAG = `PING 203.0.113.10 (203.0.113.10) 1472(1500) bytes of data.
From 198.51.100.1 icmp_seq=1 Frag needed and DF set (mtu = 1400)

--- 203.0.113.10 ping statistics ---
1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms
`;

const LOST = `PING 169.254.18.1 (169.254.18.1) 1372(1400) bytes of data.

--- 169.254.18.1 ping statistics ---
1 packets transmitted, 0 received, 100% packet loss, time 0ms
`;

Deno.test("parsePing: a reply is a pass", () => {
  assert.deepEqual(parsePing(run(PASS)), { kind: "pass" });
  assert.equal(describePing(parsePing(run(PASS))), "passed");
});

Deno.test("parsePing: iputils local error (recent: on stderr) is the local interface limit", () => {
  const r = parsePing(run(LOCAL_STATS, "ping: local error: message too long, mtu=1340\n", 1));
  assert.deepEqual(r, {
    kind: "local-limit",
    mtu: 1340,
    line: "ping: local error: message too long, mtu=1340",
  });
  assert.equal(describePing(r), "refused locally (message too long, mtu=1340)");
});

Deno.test("parsePing: older iputils print the local error on stdout with a capital M", () => {
  const out = LOCAL_STATS.replace("\n\n", "\nping: local error: Message too long, mtu=1500\n\n");
  const r = parsePing(run(out, "", 1));
  assert.equal(r.kind, "local-limit");
  assert.equal(r.kind === "local-limit" && r.mtu, 1500);
});

Deno.test("parsePing: sendmsg without an mtu is still a local limit", () => {
  const r = parsePing(run(LOCAL_STATS, "ping: sendmsg: Message too long\n", 1));
  assert.deepEqual(r, { kind: "local-limit", mtu: null, line: "ping: sendmsg: Message too long" });
});

Deno.test("parsePing: Frag needed and DF set names the router and the mtu", () => {
  const r = parsePing(run(FRAG, "", 1));
  assert.deepEqual(r, {
    kind: "frag-needed",
    mtu: 1400,
    from: "198.51.100.1",
    line: "From 198.51.100.1 icmp_seq=1 Frag needed and DF set (mtu = 1400)",
  });
  assert.equal(describePing(r), "frag needed from 198.51.100.1 (mtu = 1400)");
});

Deno.test("parsePing: 100% loss without an error is lost (black hole or ICMP filtered)", () => {
  assert.deepEqual(parsePing(run(LOST, "", 1)), { kind: "lost" });
  assert.equal(describePing({ kind: "lost" }), "no answer");
});

Deno.test("parsePing: BusyBox ping (no -M) is unsupported, naming the reason", () => {
  const r = parsePing(run(
    "",
    "ping: invalid option -- 'M'\nBusyBox v1.36.1 (2023-11-07 18:53:09 UTC) multi-call binary.\n\nUsage: ping [OPTIONS] HOST\n",
    1,
  ));
  assert.equal(r.kind, "unsupported");
  assert.match(r.kind === "unsupported" ? r.reason : "", /not iputils.*invalid option -- 'M'/);
});

Deno.test("parsePing: ping missing from the image is unsupported", () => {
  const r = parsePing(run(
    "",
    'OCI runtime exec failed: exec failed: unable to start container process: exec: "ping": executable file not found in $PATH: unknown',
    127,
  ));
  assert.equal(r.kind, "unsupported");
  assert.match(r.kind === "unsupported" ? r.reason : "", /not available/);
});

Deno.test("parsePing: size-independent failures are errors, not losses", () => {
  const unknownHost = parsePing(run("", "ping: gw.example.invalid: Name or service not known\n", 2));
  assert.equal(unknownHost.kind, "error");
  const unreachable = parsePing(run(
    "PING 10.9.0.1 (10.9.0.1) 40(68) bytes of data.\nFrom 10.0.0.1 icmp_seq=1 Destination Host Unreachable\n\n--- 10.9.0.1 ping statistics ---\n1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms\n",
    "",
    1,
  ));
  assert.deepEqual(unreachable, {
    kind: "error",
    reason: "From 10.0.0.1 icmp_seq=1 Destination Host Unreachable",
  });
  const noRoute = parsePing(run("", "ping: connect: Network is unreachable\n", 2));
  assert.equal(noRoute.kind, "error");
});

Deno.test("parsePing: an exec failure and garbage are errors", () => {
  assert.deepEqual(parsePing({ ok: false, reason: "forbidden", message: "pods/exec forbidden" }), {
    kind: "error",
    reason: "exec failed: pods/exec forbidden",
  });
  const r = parsePing(run("garbage", "", 3));
  assert.equal(r.kind, "error");
  assert.match(r.kind === "error" ? r.reason : "", /unreadable ping output \(exit 3\): garbage/);
});
