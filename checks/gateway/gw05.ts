/**
 * GW-05: the endpoint the client dials answers one UDP datagram sent from the tool's host (a reply,
 * an ICMP refusal, or WireGuard's normal silence). The probe only decides from where the tool runs:
 * when the cluster proves the tunnel is up (fresh Connected status, recent WireGuard handshake), an
 * undecided probe (silence, no route, no permission) passes — the endpoint demonstrably answers the
 * peer — and it is `unknown` only when the tunnel is down and the answer would matter.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { PRECISE_UDP_UNAVAILABLE } from "../../probes/udp.ts";
import { endpointOf, formatEndpoint } from "../../liqo/endpoints.ts";
import { lookupGateway } from "../common/gateway.ts";
import { tunnelUpProof } from "../common/tunnel_state.ts";
import { hostnameLine, resolveFromHere } from "../common/endpoint_names.ts";
import { isHostname } from "../../liqo/endpoints.ts";
import { fix, preciseUdpStep } from "../remediation.ts";

function run(ctx: CheckContext): Promise<Outcome> | Outcome {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const ep = gw.role === "server"
    ? endpointOf(gw.object.status?.endpoint)
    : endpointOf(gw.object.spec?.endpoint);
  const field = gw.role === "server" ? "GatewayServer status.endpoint" : "GatewayClient spec.endpoint";
  if (!ep || !ep.addresses[0] || ep.port === null) {
    return { status: "skip", summary: `no endpoint to probe (${field}: ${formatEndpoint(ep)})` };
  }
  if (!ctx.options.networkProbes) {
    return { status: "skip", skipKind: "disabled", summary: "network probes disabled (--no-network-probes)" };
  }
  if (ctx.cluster.isSnapshot) {
    return {
      status: "skip",
      skipKind: "disabled",
      summary: "not probed: snapshot (host-side probes are not replayed)",
    };
  }
  return probeUdp(ctx, ep.addresses[0], ep.port, field, l.peerId, gw);
}

async function probeUdp(
  ctx: CheckContext,
  host: string,
  port: number,
  field: string,
  peerId: string,
  gw: Parameters<typeof tunnelUpProof>[1],
): Promise<Outcome> {
  const [r, proof, dns] = await Promise.all([
    ctx.probes.udp(host, port),
    tunnelUpProof(ctx, gw, peerId),
    isHostname(host) ? resolveFromHere(ctx, host) : Promise.resolve(null),
  ]);
  const evidence = [`${field}: ${host}:${port}`, `from this host: ${r.outcome} — ${r.detail}`];
  if (dns) evidence.push(hostnameLine("the endpoint", host, dns));
  if (proof) evidence.push(`tunnel up: ${proof}`);
  // Not `nc -u`: it "succeeds" against anything, WireGuard answering no unauthenticated packet.
  const precise = preciseUdpStep("sees an ICMP refusal on the way");
  if (r.outcome === "reply") {
    return { status: "pass", summary: `UDP ${host}:${port} answered from here`, evidence };
  }
  if (proof && r.outcome === "refused") {
    return {
      status: "warn",
      summary: `UDP ${host}:${port} refused from this host although the tunnel is up: ` +
        "something between here and the endpoint rejects UDP (the peer's path works)",
      evidence,
      remediation: fix(
        "only matters for clients on this host's network; compare the firewall rules on the way",
        precise,
      ),
    };
  }
  if (proof) {
    return {
      status: "pass",
      summary: `the tunnel is up, so ${host}:${port} answers the peer; ${
        r.outcome === "silence" ? "no reply to this host is normal for WireGuard" : "not probed from here"
      }`,
      evidence,
    };
  }
  switch (r.outcome) {
    case "refused":
      return {
        status: "fail",
        summary:
          `UDP ${host}:${port} refused (ICMP port unreachable): nothing listens there or a firewall rejects`,
        evidence,
        remediation: fix(`check the Service/port mapping and any firewall between here and ${host}`, precise),
      };
    case "silence": {
      // --udp-precise may have fallen back to the default probe (no --allow-ffi): then ICMP was not watched.
      const precise = ctx.options.preciseUdp && !r.detail.includes(PRECISE_UDP_UNAVAILABLE);
      return {
        status: "unknown",
        summary: precise
          ? `no reply and no ICMP refusal from ${host}:${port} — WireGuard ignores unauthenticated packets, or a firewall drops silently`
          : `no reply from ${host}:${port} — normal for WireGuard, which ignores unauthenticated packets; ` +
            (ctx.options.preciseUdp
              ? "--udp-precise could not run (see evidence), so ICMP refusals were not seen"
              : "run with --udp-precise (needs --allow-ffi) to detect ICMP refusals"),
        evidence,
      };
    }
    default:
      return { status: "unknown", summary: `UDP probe not possible: ${r.detail}`, evidence };
  }
}

export const GW_05: CheckDef = {
  id: "GW-05",
  title: "Gateway endpoint answers UDP from here",
  layer: "gateway",
  needs: ["GW-03"],
  scope: "single",
  perPeer: true,
  reads: ["gatewayservers", "gatewayclients"],
  optionalReads: ["connections", "deployments", "pods"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads:
      "The endpoint the client dials (GatewayClient spec.endpoint addresses[0]:port on the client side, " +
      "GatewayServer status.endpoint on the server side); sends one UDP datagram from the tool's host. To " +
      "interpret an undecided probe: the peer's Connection status and the gateway's `wg show` handshake.",
    decides:
      "pass on a reply. When the cluster proves the tunnel is up (Connection Connected with a pinger update " +
      "younger than 60 s, or a WireGuard handshake younger than 3 min), an undecided probe (silence, no route, " +
      "no permission) passes and a refusal warns (this host's path is blocked, the peer's works). Otherwise: " +
      "fail on an ICMP port-unreachable (refused); unknown on silence (WireGuard ignores unauthenticated " +
      "packets — ICMP refusals are only visible with --udp-precise) or when the probe cannot run. skip with " +
      "--no-network-probes and on snapshots. A hostname endpoint is also resolved from here, as evidence.",
    fixes:
      "On a refusal check the Service/NodePort mapping and firewalls on the path to the endpoint; test by " +
      'hand with `flyingfish check --only GW-05 --udp-precise` (not nc -u: it "succeeds" against anything, ' +
      "WireGuard never answering an unauthenticated packet).",
  },
  hops: ["gateway"],
  hubReads: ["wireguard", "udp", "resolve"],
  run,
};
