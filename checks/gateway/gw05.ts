/**
 * GW-05: the endpoint the client dials answers one UDP datagram sent from the tool's host (a reply,
 * an ICMP refusal, or WireGuard's normal silence).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { PRECISE_UDP_UNAVAILABLE } from "../../probes/udp.ts";
import { endpointOf, formatEndpoint } from "../../liqo/endpoints.ts";
import { lookupGateway } from "../common/gateway.ts";

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
  return probeUdp(ctx, ep.addresses[0], ep.port, field);
}

async function probeUdp(ctx: CheckContext, host: string, port: number, field: string): Promise<Outcome> {
  const r = await ctx.probes.udp(host, port);
  const evidence = [`${field}: ${host}:${port}`, `from this host: ${r.outcome} — ${r.detail}`];
  const nc = `nc -u -v ${host} ${port}`;
  switch (r.outcome) {
    case "reply":
      return { status: "pass", summary: `UDP ${host}:${port} answered from here`, evidence };
    case "refused":
      return {
        status: "fail",
        summary:
          `UDP ${host}:${port} refused (ICMP port unreachable): nothing listens there or a firewall rejects`,
        evidence,
        remediation: `# check the Service/port mapping and any firewall between here and ${host}\n${nc}`,
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
              : "run with --udp-precise to detect ICMP refusals"),
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
  explain: {
    reads:
      "The endpoint the client dials (GatewayClient spec.endpoint addresses[0]:port on the client side, " +
      "GatewayServer status.endpoint on the server side); sends one UDP datagram from the tool's host.",
    decides:
      "pass on a reply; fail on an ICMP port-unreachable (refused); unknown on silence (WireGuard ignores " +
      "unauthenticated packets — ICMP refusals are only visible with --udp-precise) or when the probe cannot " +
      "run. skip with --no-network-probes.",
    fixes:
      "On a refusal check the Service/NodePort mapping and firewalls on the path to the endpoint; test by " +
      "hand with nc -u.",
  },
  hops: ["gateway"],
  run,
};
