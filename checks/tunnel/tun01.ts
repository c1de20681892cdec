/**
 * TUN-01: the peer's Connection (written by the gateway's in-tunnel pinger) is Connected and fresh;
 * when it is missing, the PublicKeys explain why (Liqo's `pkg/gateway/tunnel/wireguard/publickeys_controller.go`,
 * `pkg/gateway/connection/`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Connection } from "../../liqo/views/networking.ts";
import {
  activeGatewayPod,
  ageMs,
  connectionOf,
  formatAge,
  gatewayOf,
  type GatewayRef,
  nodeDownText,
  podNodeDown,
  REMOTE_ID_LABEL,
} from "../../liqo/lookups.ts";
import { pingDisabled } from "../../liqo/args.ts";
import { endpointOf, formatEndpoint } from "../../liqo/endpoints.ts";
import { clientOf, gatewayDeployment, lookupGateway } from "../common/gateway.ts";
import { downStory, GW_KINDS, wgCommand, withTunnelLogs } from "./_story.ts";
import { fix, kubectlIn, type RemediationStep } from "../remediation.ts";
import { CONNECTION_STALE_MS } from "../common/tunnel_state.ts";
import { GATEWAY_RESOURCE_LABEL } from "../../liqo/names.ts";

function connectionText(c: Connection | undefined, now: Date, cluster: string): string {
  if (!c) return `${cluster}: no Connection`;
  const ts = c.status?.latency?.timestamp;
  const age = ageMs(now, ts);
  return `${cluster}: Connection ${c.metadata.namespace}/${c.metadata.name} ${
    c.status?.value ?? "(no status)"
  }, latency ${c.status?.latency?.value ?? "?"}, last pinger update ${
    ts ? `${formatAge(age)} ago` : "never"
  }`;
}

/** The other side's Connection line for evidence in dual mode, if available. */
function remoteConnectionLine(ctx: CheckContext): string | null {
  if (!ctx.remote || !ctx.remotePeer) return null;
  try {
    const rgw = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
    if (!rgw) return `${ctx.remote.name}: no gateway for ${ctx.remotePeer.clusterId}`;
    return connectionText(
      connectionOf(ctx.remote.inv, rgw, ctx.remotePeer.clusterId),
      ctx.remote.now,
      ctx.remote.name,
    );
  } catch {
    return null;
  }
}

async function run(ctx: CheckContext): Promise<Outcome> {
  return withTunnelLogs(ctx, await judge(ctx));
}

async function judge(ctx: CheckContext): Promise<Outcome> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw, peerId } = l;
  const conn = connectionOf(ctx.cluster.inv, gw, peerId);
  const remoteLine = remoteConnectionLine(ctx);
  const logs = fix(
    kubectlIn("local", gw.namespace, "logs", `deploy/${gw.workloadName}`, "-c", "wireguard"),
    kubectlIn("local", gw.namespace, "logs", `deploy/${gw.workloadName}`, "-c", "gateway"),
  );
  if (!conn) return noConnection(ctx, gw, peerId, remoteLine, logs);
  const evidence = [connectionText(conn, ctx.cluster.now, ctx.cluster.name)];
  if (remoteLine) evidence.push(remoteLine);
  const value = conn.status?.value;
  const dep = gatewayDeployment(ctx, gw);
  const pingOff = pingDisabled(dep?.spec?.template?.spec);
  if (value === "Connected") {
    if (pingOff) {
      evidence.push(
        "gateway runs with --ping-enabled=false: the Connection is always Connected (not a health signal)",
      );
      return {
        status: "pass",
        summary: "Connection Connected (pinger disabled: status not verified)",
        evidence,
      };
    }
    const age = ageMs(ctx.cluster.now, conn.status?.latency?.timestamp);
    if (age === null) {
      return {
        status: "warn",
        summary: "Connection Connected but the pinger never recorded a latency timestamp",
        evidence,
        remediation: logs,
      };
    }
    if (age > CONNECTION_STALE_MS) {
      // A gateway pod bound to a lost node cannot update it: say it is that node's (ENV-07).
      const gwPod = activeGatewayPod(ctx.cluster.inv, gw);
      const down = gwPod ? podNodeDown(ctx.cluster.inv, gwPod) : null;
      return {
        status: "fail",
        summary: `Connected status is stale: last pinger update ${
          formatAge(age)
        } ago — gateway not updating it${
          down ? ` (its pod is on NotReady node ${down.name}, see ENV-07)` : ""
        }`,
        evidence: down
          ? [
            ...evidence,
            `gateway pod ${gwPod!.metadata.name} on node ${down.name}: ${
              nodeDownText(down, ctx.cluster.now)
            }`,
          ]
          : evidence,
        remediation: fix(kubectlIn("local", gw.namespace, "get", "pods", "-o", "wide"), ...logs),
      };
    }
    return {
      status: "pass",
      summary: `Connection Connected (latency ${conn.status?.latency?.value ?? "?"})`,
      evidence,
    };
  }
  // The live WireGuard state says why a Connection is down (never worked, stopped receiving): the
  // diagnosis then tells the story a user needs, TUN-02 gives the detail.
  const wg = value === "Connected" ? null : await downStory(ctx, gw);
  const why = wg ? `: ${wg.story.headline}` : "";
  if (value === "Connecting") {
    return {
      status: "fail",
      summary: `Connection ${conn.metadata.name} stuck Connecting (created ${
        formatAge(ageMs(ctx.cluster.now, conn.metadata.creationTimestamp))
      } ago)${wg ? why : ": the tunnel never came up"}`,
      evidence: [
        ...evidence,
        ...(gw.role === "client"
          ? [
            `this gateway dials ${
              formatEndpoint(endpointOf(gw.object.spec?.endpoint))
            } (GatewayClient spec.endpoint)`,
          ]
          : [
            `this gateway listens on ${
              formatEndpoint(endpointOf(gw.object.status?.endpoint))
            } (GatewayServer status.endpoint)`,
          ]),
        "likely causes: endpoint unreachable or UDP blocked on the path (GW-05), WireGuard key mismatch (TUN-04), " +
        "the peer's gateway down",
      ],
      remediation: fix(
        ...(wg?.fix ?? []),
        ...logs,
        wgCommand(
          gw.namespace,
          activeGatewayPod(ctx.cluster.inv, gw)?.metadata.name ?? `deploy/${gw.workloadName}`,
        ),
      ),
    };
  }
  return {
    status: "fail",
    summary: `Connection ${conn.metadata.name} is ${
      value ?? "without status"
    }: the in-tunnel pinger lost the peer${why}`,
    evidence: [...evidence, "the pinger declares the peer lost after 5 missed pings (10 s)"],
    remediation: fix(...(wg?.fix ?? []), ...logs),
  };
}

function noConnection(
  ctx: CheckContext,
  gw: GatewayRef,
  peerId: string,
  remoteLine: string | null,
  logs: RemediationStep[],
): Outcome {
  const evidence = [`no Connection labelled ${REMOTE_ID_LABEL}=${peerId} in ${gw.namespace}`];
  for (const pk of ctx.cluster.inv.items("publickeies")) {
    evidence.push(
      `PublicKey ${pk.metadata.namespace}/${pk.metadata.name}: ${REMOTE_ID_LABEL}=${
        pk.metadata.labels?.[REMOTE_ID_LABEL] ?? "(none)"
      }, ${GATEWAY_RESOURCE_LABEL}=${pk.metadata.labels?.[GATEWAY_RESOURCE_LABEL] ?? "(none)"}`,
    );
  }
  if (ctx.cluster.inv.items("publickeies").length === 0) {
    evidence.push("no PublicKey objects on this cluster");
  }
  const client = clientOf(gw);
  if (client) {
    const ep = client.spec?.endpoint?.addresses?.[0];
    if (ep) {
      evidence.push(
        `GatewayClient dials ${ep}${/[a-z]/i.test(ep) ? " (hostname: must resolve in the pod)" : ""}`,
      );
    }
  }
  if (remoteLine) evidence.push(remoteLine);
  return {
    status: "fail",
    summary:
      "no Connection: the wireguard container never accepted a PublicKey (missing, mislabelled, wrong " +
      "namespace) or the endpoint hostname never resolved",
    evidence,
    remediation: fix(kubectlIn("local", gw.namespace, "get", "publickeies", "--show-labels"), ...logs),
  };
}

export const TUN_01: CheckDef = {
  id: "TUN-01",
  title: "Connection established",
  layer: "tunnel",
  needs: ["GW-01", "GW-03", "TUN-04"],
  // The Connection status decides on its own when TUN-04 could not read the live keys.
  runsIfUnknown: ["TUN-04"],
  scope: "single",
  perPeer: true,
  reads: [...GW_KINDS, "connections", "publickeies", "deployments"],
  // The live wg state (active gateway pod) explains a Connection that is down, when readable; the
  // gateway pod's Node says whether a stale status is a lost node's.
  optionalReads: ["pods", "nodes"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads:
      "On a failure, the recent log of the active gateway pod's wireguard and gateway containers (bounded " +
      "GET pods/log, the previous instance after a restart): the error lines (endpoint resolution, handshake, " +
      "key and permission errors) are cited in the summary and listed as evidence. " +
      "Connection gw-<name> (label liqo.io/remote-cluster-id) in the gateway namespace: status.value and " +
      "status.latency.timestamp; in dual mode the other side's Connection as evidence; when it is not " +
      "Connected, the live `wg show` of the active gateway pod (handshake age, counters) to say why.",
    decides:
      `pass: Connected with a pinger update younger than ${CONNECTION_STALE_MS / 1000} s. fail: Connected ` +
      "but stale (the gateway stopped updating it; when the gateway pod sits on a NotReady node, that node is " +
      "named — see ENV-07), Connecting (tunnel never came up), Error (peer lost), or no " +
      "Connection at all (no PublicKey accepted, or the endpoint hostname never resolved).",
    fixes: "Read the wireguard and gateway container logs; follow GW-05 (UDP path) and TUN-04 (keys). A " +
      "Connection that is down borrows TUN-02's WireGuard story (never completed a handshake: endpoint, UDP " +
      "path, keys; stopped receiving N ago: the return path — NAT mapping or stateful firewall — expired).",
  },
  hops: ["wireguard"],
  hubReads: ["wireguard", "logs", "resolve"],
  run,
};
