/**
 * TUN-05: the tunnel latency the pinger records in the Connection is below --latency-threshold.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { parseLatency } from "../../probes/duration.ts";
import { pingDisabled } from "../../liqo/args.ts";
import { gatewayDeployment, lookupGateway } from "../common/gateway.ts";
import { GW_KINDS } from "./_story.ts";
import { connectionOf } from "../../liqo/lookups.ts";
import { fix } from "../remediation.ts";

function run(ctx: CheckContext): Outcome {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const conn = connectionOf(ctx.cluster.inv, l.gw, l.peerId);
  if (!conn) return { status: "skip", summary: "no Connection (see TUN-01)" };
  const raw = conn.status?.latency?.value;
  const ms = parseLatency(raw);
  const evidence = [`Connection ${conn.metadata.name} status.latency.value: ${raw ?? "(absent)"}`];
  if (ms === null) {
    if (pingDisabled(gatewayDeployment(ctx, l.gw)?.spec?.template?.spec)) {
      return {
        status: "pass",
        summary: "latency N/A: the pinger is disabled (--ping-enabled=false)",
        evidence,
      };
    }
    return { status: "unknown", summary: `latency not measured (${raw ?? "absent"})`, evidence };
  }
  const threshold = ctx.options.latencyThresholdMs;
  if (ms > threshold) {
    return {
      status: "warn",
      summary: `tunnel latency ${raw} above the ${threshold} ms threshold`,
      evidence: [...evidence, `threshold --latency-threshold ${threshold}ms`],
      remediation: fix(
        "high latency slows API reflection and cross-cluster traffic; check the path between the " +
          "gateway endpoints (traceroute from the nodes) and whether the gateway nodes are overloaded",
      ),
    };
  }
  return { status: "pass", summary: `tunnel latency ${raw}`, evidence };
}

export const TUN_05: CheckDef = {
  id: "TUN-05",
  title: "Tunnel latency",
  layer: "tunnel",
  needs: ["TUN-01"],
  scope: "single",
  perPeer: true,
  reads: [...GW_KINDS, "connections", "deployments"],
  explain: {
    reads: 'Connection status.latency.value ("8ms", "850μs", "N/A").',
    decides: "warn above --latency-threshold (200 ms). N/A: pass when the pinger is disabled, else unknown.",
    fixes: "Investigate the path between the gateway endpoints and the gateway nodes' load.",
  },
  hops: ["wireguard"],
  hubReads: ["wireguard", "logs", "resolve"],
  run,
};
