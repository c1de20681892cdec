/**
 * GW-04 (dual): the client gateway dials the endpoint the server advertises — GatewayClient
 * spec.endpoint and the client Deployment's --endpoint-address/--endpoint-port against the peer's
 * GatewayServer status.endpoint; a private server endpoint with another dialled address is a NAT override.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { gatewayOf, type GatewayRef, liqoNamespaceOf, liqoVersionOf } from "../../liqo/lookups.ts";
import { isPrivate, parseIPv4 } from "../../probes/cidr.ts";
import { containerArgs } from "../../liqo/args.ts";
import { endpointOf, formatEndpoint } from "../../liqo/endpoints.ts";
import { fix, kubectlIn, liqoctl, pipe, remoteKubeconfig, shell } from "../remediation.ts";
import { hostnameFirstRisk, hostnameLines } from "../common/endpoint_names.ts";
import { peerReachProof } from "../common/reach.ts";

interface Side {
  cluster: string;
  inv: CheckContext["cluster"]["inv"];
  gw: GatewayRef;
}

/** Server and client side of a peering in dual mode, or an outcome. */
function dualSides(ctx: CheckContext): { server: Side; client: Side } | { outcome: Outcome } {
  if (!ctx.peer || !ctx.remote || !ctx.remotePeer) {
    return { outcome: { status: "skip", summary: "needs --remote-kubeconfig" } };
  }
  const local = gatewayOf(ctx.cluster.inv, ctx.peer.clusterId);
  const remote = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
  if (!local || !remote) {
    const where = !local ? ctx.cluster.name : ctx.remote.name;
    return { outcome: { status: "skip", summary: `no gateway for this peering on ${where} (see GW-01)` } };
  }
  if (local.role === remote.role) {
    return {
      outcome: {
        status: "fail",
        summary: `both clusters host a Gateway${
          local.role === "server" ? "Server" : "Client"
        } for this peering`,
        evidence: [
          `${ctx.cluster.name}: ${local.role} ${local.namespace}/${local.name}`,
          `${ctx.remote.name}: ${remote.role} ${remote.namespace}/${remote.name}`,
        ],
        remediation: fix(
          liqoctl("local", "network", "reset", remoteKubeconfig("remote")),
          liqoctl("local", "network", "connect", remoteKubeconfig("remote")),
        ),
      },
    };
  }
  const a: Side = { cluster: ctx.cluster.name, inv: ctx.cluster.inv, gw: local };
  const b: Side = { cluster: ctx.remote.name, inv: ctx.remote.inv, gw: remote };
  return local.role === "server" ? { server: a, client: b } : { server: b, client: a };
}

function allPrivate(addresses: string[]): boolean {
  return addresses.length > 0 && addresses.every((a) => parseIPv4(a) !== null && isPrivate(a));
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const s = dualSides(ctx);
  if ("outcome" in s) return s.outcome;
  const { server, client } = s;
  const srv = endpointOf(server.gw.object.status?.endpoint);
  if (!srv || srv.addresses.length === 0) {
    return { status: "skip", summary: "the server advertises no endpoint (see GW-03)" };
  }
  const spec = endpointOf(client.gw.object.spec?.endpoint);
  const dep = client.inv.get("deployments", client.gw.namespace, client.gw.workloadName);
  const args = containerArgs(dep?.spec?.template?.spec, "wireguard");
  const argAddr = args.get("endpoint-address") ?? null;
  const argPort = args.has("endpoint-port") ? Number(args.get("endpoint-port")) : null;
  const specAddr = spec?.addresses[0] ?? null;
  const specPort = spec?.port ?? null;
  const evidence = [
    `${client.cluster} GatewayClient → ${formatEndpoint(spec)} | ${server.cluster} GatewayServer ← ${
      formatEndpoint(srv)
    }`,
    `${client.cluster} Deployment ${client.gw.workloadName} wireguard args: --endpoint-address=${
      argAddr ?? "(absent)"
    } --endpoint-port=${argPort ?? "(absent)"}`,
  ];
  if (spec && spec.addresses.length > 1) evidence.push(`only addresses[0] (${specAddr}) is dialled`);
  evidence.push(...await hostnameLines(ctx, `${client.cluster} dials`, spec));
  // A hostname before an IP: a client before v1.2 dials only the name (judged with the client's version).
  const clientOn = client.cluster === ctx.cluster.name ? "local" : "remote";
  const risk = hostnameFirstRisk(
    spec,
    liqoVersionOf(client.inv),
    `${client.cluster}'s controller-manager image`,
    { namespace: client.gw.namespace, on: clientOn },
  );
  if (risk) evidence.push(risk.line);
  const endpoint = { spec: { endpoint: { addresses: [srv.addresses[0]], port: srv.port } } };
  const fixClient = fix(
    `on ${client.cluster} (the client), point the GatewayClient at the server's endpoint:`,
    kubectlIn(
      clientOn,
      client.gw.namespace,
      "patch",
      "gatewayclient",
      client.gw.name,
      "--type",
      "merge",
      "-p",
      JSON.stringify(endpoint),
    ),
    "or re-run the peering: liqoctl network connect --remote-kubeconfig <kubeconfig> (or liqoctl peer)",
  );
  if (!spec || specAddr === null) {
    return {
      status: "fail",
      summary: `GatewayClient ${client.gw.name} has no endpoint`,
      evidence,
      remediation: fixClient,
    };
  }
  if (dep && (argAddr !== specAddr || (argPort !== null && argPort !== specPort))) {
    return {
      status: "fail",
      summary: `the running client gateway dials ${argAddr ?? "?"}:${
        argPort ?? "?"
      }, its GatewayClient says ${specAddr}:${specPort}`,
      evidence,
      remediation: fix(
        `on ${client.cluster}: the gateway Deployment was not re-rendered from the GatewayClient`,
        kubectlIn(clientOn, client.gw.namespace, "get", "wggatewayclient", client.gw.name, "-o", "yaml"),
        pipe(
          kubectlIn(
            clientOn,
            liqoNamespaceOf(client.inv) ?? "liqo",
            "logs",
            "deploy/liqo-controller-manager",
          ),
          shell("grep", client.gw.name),
        ),
      ),
    };
  }
  if (srv.addresses.includes(specAddr) && specPort === srv.port) {
    if (risk?.certain) {
      return {
        status: "warn",
        summary: `client dials ${specAddr}:${specPort}, which the server advertises, but ${risk.summary}`,
        evidence,
        remediation: risk.remediation,
      };
    }
    return {
      status: "pass",
      summary: `client dials ${specAddr}:${specPort}, which the server advertises`,
      evidence,
    };
  }
  if (allPrivate(srv.addresses) && !srv.addresses.includes(specAddr)) {
    const mapping = `UDP ${specAddr}:${specPort} → ${srv.addresses[0]}:${srv.port}`;
    evidence.push(
      `server endpoint is private (${
        srv.addresses.join(", ")
      }): a client address override is expected behind NAT`,
      `NAT mapping: ${mapping}`,
    );
    // The documented override (advanced/nat.md) is healthy once the tunnel proves the mapping works.
    const localGw = server.cluster === ctx.cluster.name ? server.gw : client.gw;
    const proof = ctx.peer ? await peerReachProof(ctx, localGw, ctx.peer.clusterId) : null;
    if (proof) {
      evidence.push(`tunnel up: ${proof}`);
      return {
        status: "pass",
        summary:
          `client dials ${specAddr}:${specPort} through a deliberate NAT override (${mapping}); the tunnel is up`,
        evidence,
      };
    }
    return {
      status: "warn",
      summary:
        `client dials ${specAddr}:${specPort}, not the server's ${
          formatEndpoint(srv)
        }: looks like a deliberate NAT ` +
        `override (--gw-client-address/--gw-client-port), and nothing shows the tunnel up — make sure the NAT forwards it to the server`,
      evidence,
      remediation: fix(
        `verify the NAT maps ${mapping} (docs: advanced/nat.md)`,
        `GW-05 probes ${specAddr}:${specPort} from this host; TUN-01/TUN-02 show whether the tunnel comes up`,
      ),
    };
  }
  return {
    status: "fail",
    summary: `client dials ${specAddr}:${specPort}, but the server advertises ${
      formatEndpoint(srv)
    }: stale client endpoint`,
    evidence,
    remediation: fixClient,
  };
}

export const GW_04: CheckDef = {
  id: "GW-04",
  title: "Client dials the server's endpoint",
  layer: "gateway",
  needs: ["GW-03"],
  scope: "dual",
  perPeer: true,
  reads: ["gatewayservers", "gatewayclients", "deployments"],
  optionalReads: ["connections", "pods"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads: "On the client cluster: GatewayClient spec.endpoint and the gateway Deployment's wireguard args " +
      "--endpoint-address/--endpoint-port; on the server cluster: GatewayServer status.endpoint. Only " +
      "addresses[0] is dialled.",
    decides:
      "pass: the dialled address is one of the server's addresses and the ports match. fail: the Deployment " +
      "args disagree with the GatewayClient, or the client dials something else while the server advertises a " +
      "public address (stale endpoint after the server's address changed). warn (deliberate NAT): the server " +
      "advertises only private addresses and the client, consistently configured, dials another address — " +
      "the documented --gw-client-address/--gw-client-port override (advanced/nat.md) — and nothing shows the " +
      "tunnel up; the same override passes, the mapping in the evidence, when a fresh Connected status or " +
      "WireGuard handshake on either cluster proves it works; a hostname listed " +
      "before an IP in the client's endpoint on a client running Liqo before v1.2 (controller-manager image " +
      "tag), which dials only addresses[0] and never tries the IPs when the name does not resolve. Hostnames " +
      "are resolved from this host as evidence (network probes on only; no --allow-net permission is an " +
      "evidence line, never an error).",
    fixes:
      "Patch the GatewayClient endpoint to the server's status.endpoint or re-run liqoctl network connect / " +
      "liqoctl peer; for NAT, verify the port mapping; for a hostname first, make sure it resolves in the " +
      "client cluster or dial the IP (--gw-client-address).",
  },
  hops: ["gateway"],
  hubReads: ["resolve", "wireguard"],
  run,
};
