/**
 * End-to-end host-side network probes: GW-05 (UDP probe of the gateway endpoint) and API-01
 * (TCP+TLS dial of the provider API server) through the real CLI, with network probes ON, against
 * the healthy-consumer scenario (rome, client side) whose GatewayClient endpoint / ForeignCluster
 * apiServerUrl are rewritten to loopback listeners. The CLI runs with --allow-net=127.0.0.1, so
 * nothing ever leaves 127.0.0.0/8; the last test keeps the default TEST-NET addresses and checks the
 * sandbox refusal comes out as `unknown`.
 *
 * (API-01 and the permission cases.)
 */
import assert from "node:assert/strict";
import { startFakeCluster } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS } from "./harness.ts";
import {
  assertNoOtherFailures,
  assertResult,
  check,
  closedTcpPort,
  result,
  setApiServer,
  tunnelDown,
} from "./network_probes_support.ts";

Deno.test("e2e API-01: provider API server at a loopback TLS listener → pass, dialled from here", async () => {
  const provider = await startFakeCluster({ name: "milan", objects: [], wireguard: {}, tls: true });
  try {
    const run = await check([setApiServer(provider.url)]);
    assertResult(result(run, "API-01"), "pass", [
      `provider API server ${provider.url} reachable from the cluster`,
      `apiServerUrl ${provider.url}`,
      `from here: TLS handshake with ${provider.url} in `,
    ]);
    assertNoOtherFailures(run);
  } finally {
    await provider.close();
  }
});

Deno.test("e2e API-01: closed loopback port while the cluster reaches it → pass, not reachable from here", async () => {
  const url = `https://127.0.0.1:${closedTcpPort()}`;
  const run = await check([setApiServer(url)]);
  assertResult(result(run, "API-01"), "pass", [
    "reachable from the cluster but not from here",
    // (Usually "TCP connection … refused"; with tests in parallel another server may grab the freed
    // port, and then it is a failed TLS handshake: unreachable from here either way.)
    `from here: ${url} not reachable: TCP `,
  ]);
  assertNoOtherFailures(run);
});

Deno.test("e2e API-01: APIServerStatus=Error → fail, saying whether it is reachable from here", async () => {
  const provider = await startFakeCluster({ name: "milan", objects: [], wireguard: {}, tls: true });
  try {
    const open = await check([setApiServer(provider.url, "Error")]);
    assertResult(result(open, "API-01"), "fail", [
      `provider API server ${provider.url} reachable from here but not from the cluster (APIServerStatus=Error)`,
      `from here: TLS handshake with ${provider.url} in `,
    ]);
  } finally {
    await provider.close();
  }
  const url = `https://127.0.0.1:${closedTcpPort()}`;
  const closed = await check([setApiServer(url, "Error")]);
  assertResult(result(closed, "API-01"), "fail", [
    `provider API server ${url} not reachable from the cluster (APIServerStatus=Error)`,
    `from here: ${url} not reachable: TCP `,
  ]);
});

// ---------------------------------------------------------------------------------------------
// Sandbox: default TEST-NET addresses, probes ON, --allow-net=127.0.0.1

for (const precise of [false, true]) {
  const mode = precise ? "--udp-precise with --allow-ffi (FFI bypasses --allow-net)" : "default UDP probe";
  Deno.test(`e2e GW-05/API-01: TEST-NET targets outside --allow-net, tunnel down → unknown naming the permission (${mode})`, async () => {
    const run = await check([tunnelDown], {
      extraArgs: precise ? ["--udp-precise"] : [],
      permissions: precise ? [...CLI_PERMISSIONS, "--allow-ffi"] : CLI_PERMISSIONS,
    });
    assert.ok(!/NotCapable|Requires net access|Uncaught/.test(run.stderr), run.stderr);
    // The permission is checked before any socket is opened (precise mode included): nothing is sent.
    assertResult(result(run, "GW-05"), "unknown", [
      "UDP probe not possible: no net permission for 203.0.113.50:51840 (--allow-net)",
      "from this host: unavailable — no net permission for 203.0.113.50:51840 (--allow-net)",
    ]);
    // API-01's status follows the cluster's own APIServerStatus (Established): the dial from here is
    // evidence only, and here it was not attempted.
    assertResult(result(run, "API-01"), "pass", [
      "provider API server https://203.0.113.20:6443 reachable from the cluster",
      "not dialled from here: no net permission for 203.0.113.20:6443 (--allow-net)",
    ]);
    assertNoOtherFailures(run, ["TUN-01", "TUN-02", "TUN-03", "TUN-05", "REF-01", "REF-02"]);
    assert.equal(run.code, 2);
  });
}
