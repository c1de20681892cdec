/**
 * End-to-end host-side network probes: GW-05 (UDP probe of the gateway endpoint) and API-01
 * (TCP+TLS dial of the provider API server) through the real CLI, with network probes ON, against
 * the healthy-consumer scenario (rome, client side) whose GatewayClient endpoint / ForeignCluster
 * apiServerUrl are rewritten to loopback listeners. The CLI runs with --allow-net=127.0.0.1, so
 * nothing ever leaves 127.0.0.0/8; the last test keeps the default TEST-NET addresses and checks the
 * sandbox refusal comes out as `unknown`.
 *
 * (GW-05: the UDP probe from this host.)
 */
import assert from "node:assert/strict";
import { CLI_PERMISSIONS } from "./harness.ts";
import {
  assertNoOtherFailures,
  assertResult,
  check,
  closedUdpPort,
  result,
  setGatewayEndpoint,
  tunnelDown,
  udpListener,
} from "./network_probes_support.ts";

Deno.test("e2e GW-05: a loopback UDP echo answers → pass", async () => {
  const echo = udpListener(true);
  try {
    const run = await check([setGatewayEndpoint("127.0.0.1", echo.port)]);
    assertResult(result(run, "GW-05"), "pass", [
      `UDP 127.0.0.1:${echo.port} answered from here`,
      `GatewayClient spec.endpoint: 127.0.0.1:${echo.port}`,
      `from this host: reply — 148-byte reply from 127.0.0.1:${echo.port}`,
    ]);
    assert.ok(echo.received() >= 1, "the echo listener got no datagram");
    assertNoOtherFailures(run);
  } finally {
    await echo.close();
  }
});

Deno.test("e2e GW-05: silence while the tunnel is up → pass, no exit 1 from a host that gets no reply", async () => {
  const sink = udpListener(false);
  try {
    const run = await check([setGatewayEndpoint("127.0.0.1", sink.port)]);
    assertResult(result(run, "GW-05"), "pass", [
      `the tunnel is up, so 127.0.0.1:${sink.port} answers the peer; no reply to this host is normal for WireGuard`,
      "from this host: silence",
      "tunnel up: Connection gw-milan-8d1f03 Connected",
    ]);
    assert.ok(sink.received() >= 1, "the silent listener got no datagram");
    assertNoOtherFailures(run);
    assert.equal(run.code, 0, JSON.stringify(run.report.summary));
    assert.equal(run.report.summary.warn + run.report.summary.unknown, 0);
  } finally {
    await sink.close();
  }
});

Deno.test("e2e GW-05: a listener that never answers while the tunnel is down → unknown", async () => {
  const sink = udpListener(false);
  try {
    const run = await check([setGatewayEndpoint("127.0.0.1", sink.port), tunnelDown]);
    assertResult(result(run, "GW-05"), "unknown", [
      `no reply from 127.0.0.1:${sink.port} — normal for WireGuard`,
      "--udp-precise",
      "from this host: silence",
    ]);
    assert.ok(sink.received() >= 1, "the silent listener got no datagram");
    // The tunnel checks fail (it is down); GW-05 stays unknown: silence decides nothing.
    assertNoOtherFailures(run, ["TUN-01", "TUN-02", "TUN-03", "TUN-05", "REF-01", "REF-02"]);
    assert.equal(run.code, 2);
  } finally {
    await sink.close();
  }
});

Deno.test("e2e GW-05: closed port with --udp-precise and --allow-ffi, tunnel down → fail (ICMP port unreachable)", async () => {
  const port = closedUdpPort();
  const run = await check([setGatewayEndpoint("127.0.0.1", port), tunnelDown], {
    extraArgs: ["--udp-precise"],
    permissions: [...CLI_PERMISSIONS, "--allow-ffi"],
  });
  assertResult(result(run, "GW-05"), "fail", [
    `UDP 127.0.0.1:${port} refused (ICMP port unreachable)`,
    "from this host: refused — ICMP port unreachable",
    "--only GW-05 --udp-precise",
  ]);
  assertNoOtherFailures(run, ["GW-05", "TUN-01", "TUN-02", "TUN-03", "TUN-05", "REF-01", "REF-02"]);
  assert.equal(run.code, 2);
  assert.equal(run.report.diagnosis?.id, "GW-05", "the refused endpoint explains the tunnel that is down");
});

Deno.test("e2e GW-05: refused from here while the tunnel is up → warn (this host's path), not fail", async () => {
  const port = closedUdpPort();
  const run = await check([setGatewayEndpoint("127.0.0.1", port)], {
    extraArgs: ["--udp-precise"],
    permissions: [...CLI_PERMISSIONS, "--allow-ffi"],
  });
  assertResult(result(run, "GW-05"), "warn", [
    `UDP 127.0.0.1:${port} refused from this host although the tunnel is up`,
    "tunnel up: Connection gw-milan-8d1f03 Connected",
  ]);
  assertNoOtherFailures(run);
  assert.equal(run.code, 1);
});

Deno.test("e2e GW-05: --udp-precise without --allow-ffi is exit 3 naming the flag, never a silent unknown", async () => {
  const port = closedUdpPort();
  // The documented entry points grant no FFI: the flag cannot work, so the run says so before it starts.
  const run = await check([setGatewayEndpoint("127.0.0.1", port), tunnelDown], {
    extraArgs: ["--udp-precise"],
  });
  assert.equal(run.code, 3);
  assert.equal(run.report.exitCode, 3, "the error document carries the process's exit code");
  assert.match(run.report.error.message, /--allow-ffi.*--udp-precise/);
  const lines = run.stderr.trim().split("\n").filter((l) => !/^connecting to /.test(l));
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /missing Deno permission --allow-ffi \(needed to use --udp-precise/);
  assert.ok(!/deno task flyingfish/.test(lines[0]), "the task grants no FFI: it is not suggested");
});

// ---------------------------------------------------------------------------------------------
// API-01
