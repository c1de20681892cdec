/**
 * TUNNEL layer (TUN-01…TUN-06): the WireGuard tunnel between the two gateways — the Connection
 * written by the gateway's pinger, live `wg show` state (handshake, counters, keys), latency and MTU.
 * Field paths follow FACTS §2.5, §2.6, §4.2, §8.3, §8.4.
 */
import type { CheckContext, CheckDef, ClusterView, Outcome } from "./types.ts";
import type { K8sObject } from "../kube/source.ts";
import type { WgEvidence, WgInterface, WgPeer } from "../probes/hub.ts";
import {
  activeGatewayPod,
  ageMs,
  formatAge,
  gatewayOf,
  type GatewayRef,
  liqoVersionOf,
  REMOTE_ID_LABEL,
} from "../liqo/lookups.ts";
import { handshakeAgeSeconds, rates, TUNNEL_PREFIX, tunnelInterfaces } from "../probes/wireguard.ts";
import { parseLatency } from "../probes/duration.ts";
import { containerArgs, pingDisabled } from "../liqo/args.ts";
import { endpointOf, formatEndpoint } from "../liqo/endpoints.ts";
import { gatewayDeployment, lookupGateway } from "./common/gateway.ts";

/** Connection latency timestamps older than this are stale (the pinger refreshes every ~10 s). */
export const CONNECTION_STALE_MS = 60_000;
/** A WireGuard handshake older than this means the tunnel is down (WireGuard rekeys every 2 min). */
export const HANDSHAKE_MAX_AGE_S = 180;
/** Label on PublicKeys and gateway Secrets. */
const GATEWAY_RESOURCE_LABEL = "networking.liqo.io/gateway-resource";
/** IPv4 + ICMP header bytes: largest don't-fragment ping payload = MTU − 28. */
const PING_OVERHEAD = 28;

function k(ns: string): string {
  return `kubectl -n ${ns}`;
}

function wgCommand(ns: string, pod: string): string {
  return `${k(ns)} exec ${pod} -c wireguard -- wg show all dump`;
}

/** The peer's Connection on a cluster: by label in the gateway namespace, preferring name gw-<name>. */
export function connectionOf(inv: ClusterView["inv"], gw: GatewayRef, peerId: string): K8sObject | undefined {
  const conns = inv.items("connections").filter((c) =>
    c.metadata.namespace === gw.namespace && c.metadata.labels?.[REMOTE_ID_LABEL] === peerId
  );
  return conns.find((c) => c.metadata.name === gw.workloadName) ?? conns[0];
}

function connectionText(c: K8sObject | undefined, now: Date, cluster: string): string {
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

/** The WireGuard evidence of the active gateway pod, or an outcome when there is no pod. */
async function liveWireguard(
  ctx: CheckContext,
  gw: GatewayRef,
): Promise<{ ev: WgEvidence; pod: K8sObject } | { none: string }> {
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { none: "no running gateway pod (see GW-01)" };
  const ev = await ctx.probes.wireguard(ctx.cluster.name, gw.namespace, pod.metadata.name);
  return { ev, pod };
}

function execUnknown(ev: Extract<WgEvidence, { ok: false }>, what: string): Outcome {
  return {
    status: "unknown",
    summary: `${what}: cannot run wg in ${ev.namespace}/${ev.pod} (${ev.reason}: ${ev.message})`,
    evidence: [`exec of wg show all dump in container wireguard: ${ev.message}`],
    remediation: `# run by hand (needs create on pods/exec):\n${wgCommand(ev.namespace, ev.pod)}`,
  };
}

/** Tunnel interfaces of a sample, or an outcome when the output was unusable. */
function tunnelsOrOutcome(ev: Extract<WgEvidence, { ok: true }>, what: string): WgInterface[] | Outcome {
  const tunnels = tunnelInterfaces(ev.first);
  if (tunnels.length > 0) return tunnels;
  const skipped = ev.notes.filter((n) => n.includes("skipped"));
  if (skipped.length > 0) {
    return {
      status: "unknown",
      summary: `${what}: could not read the WireGuard state of ${ev.pod} (unparsable wg output)`,
      evidence: ev.notes.slice(0, 6),
      remediation: `# inspect by hand:\n${wgCommand(ev.namespace, ev.pod)}`,
    };
  }
  return {
    status: "fail",
    summary: `no ${TUNNEL_PREFIX} interface in ${ev.pod}: the wireguard container has not created the tunnel`,
    evidence: [
      `interfaces: ${ev.first.interfaces.map((i) => i.name).join(", ") || "(none)"}`,
      ...ev.notes.slice(0, 4),
    ],
    remediation: `${k(ev.namespace)} logs ${ev.pod} -c wireguard`,
  };
}

function shortKey(key: string): string {
  return key.length > 12 ? `${key.slice(0, 10)}…` : key;
}

// ---------------------------------------------------------------------------------------------
// TUN-01 Connection status

function tun01(ctx: CheckContext): Outcome {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw, peerId } = l;
  const conn = connectionOf(ctx.cluster.inv, gw, peerId);
  const remoteLine = remoteConnectionLine(ctx);
  const logs = `${k(gw.namespace)} logs deploy/${gw.workloadName} -c wireguard\n` +
    `${k(gw.namespace)} logs deploy/${gw.workloadName} -c gateway`;
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
      return {
        status: "fail",
        summary: `Connected status is stale: last pinger update ${
          formatAge(age)
        } ago — gateway not updating it`,
        evidence,
        remediation: `${k(gw.namespace)} get pods -o wide\n${logs}`,
      };
    }
    return {
      status: "pass",
      summary: `Connection Connected (latency ${conn.status?.latency?.value ?? "?"})`,
      evidence,
    };
  }
  if (value === "Connecting") {
    return {
      status: "fail",
      summary: `Connection ${conn.metadata.name} stuck Connecting (created ${
        formatAge(ageMs(ctx.cluster.now, conn.metadata.creationTimestamp))
      } ago): the tunnel never came up`,
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
      remediation: `${logs}\n${
        wgCommand(
          gw.namespace,
          activeGatewayPod(ctx.cluster.inv, gw)?.metadata.name ?? `deploy/${gw.workloadName}`,
        )
      }`,
    };
  }
  return {
    status: "fail",
    summary: `Connection ${conn.metadata.name} is ${
      value ?? "without status"
    }: the in-tunnel pinger lost the peer`,
    evidence: [...evidence, "the pinger declares the peer lost after 5 missed pings (10 s)"],
    remediation: logs,
  };
}

function noConnection(
  ctx: CheckContext,
  gw: GatewayRef,
  peerId: string,
  remoteLine: string | null,
  logs: string,
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
  if (gw.role === "client") {
    const ep = gw.object.spec?.endpoint?.addresses?.[0];
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
    remediation: `${k(gw.namespace)} get publickeies --show-labels\n${logs}`,
  };
}

/** The live WireGuard evidence of the peer's active gateway and its tunnel interfaces, or the outcome
 * that replaces a judgement (no gateway, exec impossible, no tunnel interface). */
async function liveTunnels(
  ctx: CheckContext,
  what: string,
): Promise<
  { gw: GatewayRef; ev: Extract<WgEvidence, { ok: true }>; tunnels: WgInterface[] } | { outcome: Outcome }
> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return { outcome: l.outcome };
  const live = await liveWireguard(ctx, l.gw);
  if ("none" in live) return { outcome: { status: "skip", summary: live.none } };
  const { ev } = live;
  if (!ev.ok) return { outcome: execUnknown(ev, what) };
  const tunnels = tunnelsOrOutcome(ev, what);
  return Array.isArray(tunnels) ? { gw: l.gw, ev, tunnels } : { outcome: tunnels };
}

// ---------------------------------------------------------------------------------------------
// TUN-02 handshake freshness

async function tun02(ctx: CheckContext): Promise<Outcome> {
  const live = await liveTunnels(ctx, "handshake unknown");
  if ("outcome" in live) return live.outcome;
  const { ev, tunnels } = live;
  const evidence: string[] = [];
  const bad: string[] = [];
  const nowMs = ev.first.takenAt;
  for (const itf of tunnels) {
    if (itf.peers.length === 0) {
      evidence.push(`${itf.name}: no peer configured`);
      bad.push(`${itf.name} has no peer (no PublicKey accepted)`);
    }
    for (const p of itf.peers) {
      const age = handshakeAgeSeconds(p, nowMs);
      evidence.push(
        `${itf.name} peer ${shortKey(p.publicKey)} endpoint ${p.endpoint ?? "(none)"}: latest handshake ${
          age === null ? "never" : `${age}s ago`
        }`,
      );
      if (age === null) bad.push(`${itf.name}: no handshake ever with ${shortKey(p.publicKey)}`);
      else if (age > HANDSHAKE_MAX_AGE_S) {
        bad.push(`${itf.name}: last handshake ${formatAge(age * 1000)} ago`);
      }
    }
  }
  evidence.push(`via ${ev.via}: ${wgCommand(ev.namespace, ev.pod)}`);
  if (bad.length > 0) {
    return {
      status: "fail",
      summary: `WireGuard handshake stale or missing: ${bad.join("; ")}`,
      evidence,
      remediation: `${k(ev.namespace)} logs ${ev.pod} -c wireguard\n` +
        `# no handshake: UDP toward the server endpoint blocked (GW-05) or keys do not match (TUN-04)`,
    };
  }
  const ages = tunnels.flatMap((i) => i.peers.map((p) => handshakeAgeSeconds(p, nowMs) ?? 0));
  return { status: "pass", summary: `latest handshake ${Math.max(...ages)}s ago`, evidence };
}

// ---------------------------------------------------------------------------------------------
// TUN-03 traffic counters move

function rateText(n: number | null): string {
  return n === null ? "?" : `${n.toFixed(n < 10 ? 1 : 0)} B/s`;
}

async function tun03(ctx: CheckContext): Promise<Outcome> {
  const live = await liveTunnels(ctx, "traffic unknown");
  // No tunnel interface is TUN-02's finding; here it only means the rates cannot be known.
  if ("outcome" in live) {
    return live.outcome.status === "fail" ? { ...live.outcome, status: "unknown" } : live.outcome;
  }
  const { ev, gw } = live;
  if (!ev.second) {
    return {
      status: "unknown",
      summary: "only one wg sample: counter movement unknown",
      evidence: ev.notes.filter((n) => /sample/.test(n)),
    };
  }
  const rs = rates(ev.first, ev.second).filter((r) => r.interface.startsWith(TUNNEL_PREFIX));
  if (rs.length === 0) {
    return { status: "unknown", summary: "no tunnel peer present in both samples", evidence: ev.notes };
  }
  const evidence = rs.map((r) =>
    `${r.interface} peer ${shortKey(r.publicKey)}: rx +${r.rxDelta} B, tx +${r.txDelta} B in ${
      r.seconds.toFixed(1)
    }s (rx ${rateText(r.rxPerSec)}, tx ${rateText(r.txPerSec)})`
  );
  if (rs.some((r) => r.reset)) {
    return {
      status: "unknown",
      summary: "transfer counters went backwards between samples (interface recreated)",
      evidence,
    };
  }
  const dep = gatewayDeployment(ctx, gw);
  const pingOff = pingDisabled(dep?.spec?.template?.spec);
  const outbound = rs.find((r) => r.rxDelta === 0 && r.txDelta > 0);
  if (outbound) {
    return {
      status: "fail",
      summary:
        "outbound only: packets leave but nothing comes back (UDP blocked on the return path / peer cannot reply)",
      evidence,
      remediation:
        `# capture on the gateway while it sends:\n${k(ev.namespace)} exec ${ev.pod} -c wireguard -- ` +
        `tcpdump -ni any udp port ${
          gw.object.status?.endpoint?.port ?? gw.object.spec?.endpoint?.port ?? 51840
        } -c 20`,
    };
  }
  const flat = rs.find((r) => r.rxDelta === 0 && r.txDelta === 0);
  if (flat) {
    if (pingOff) {
      return {
        status: "unknown",
        summary: "no traffic between samples, and the pinger is disabled (--ping-enabled=false)",
        evidence,
      };
    }
    return {
      status: "fail",
      summary:
        "no traffic in either direction between samples: the in-tunnel pinger (every 2 s) is dead or the path is",
      evidence,
      remediation: `${k(ev.namespace)} logs ${ev.pod} -c gateway\n${wgCommand(ev.namespace, ev.pod)}`,
    };
  }
  return {
    status: "pass",
    summary: `counters move: rx ${rateText(rs[0].rxPerSec)}, tx ${rateText(rs[0].txPerSec)}`,
    evidence,
  };
}

// ---------------------------------------------------------------------------------------------
// TUN-04 key symmetry

interface KeyLookup {
  key: K8sObject | null;
  misplaced: string[];
}

/** The PublicKey CR for a peer in the gateway namespace, and near-misses explaining its absence. */
function publicKeyOf(inv: ClusterView["inv"], gw: GatewayRef, peerId: string): KeyLookup {
  const all = inv.items("publickeies");
  const key =
    all.find((p) =>
      p.metadata.namespace === gw.namespace && p.metadata.labels?.[REMOTE_ID_LABEL] === peerId
    ) ??
      null;
  const misplaced: string[] = [];
  for (const p of all) {
    if (p === key) continue;
    const label = p.metadata.labels?.[REMOTE_ID_LABEL];
    if (label === peerId) {
      misplaced.push(
        `PublicKey ${p.metadata.namespace}/${p.metadata.name} has the right label but lives in ${p.metadata.namespace}, not the gateway namespace ${gw.namespace}`,
      );
    } else if (p.metadata.namespace === gw.namespace) {
      misplaced.push(
        `PublicKey ${p.metadata.namespace}/${p.metadata.name} is labelled ${REMOTE_ID_LABEL}=${
          label ?? "(none)"
        }, expected ${peerId}`,
      );
    }
  }
  return { key, misplaced };
}

function peerKeys(tunnels: WgInterface[]): WgPeer[] {
  return tunnels.flatMap((i) => i.peers);
}

async function tun04(ctx: CheckContext): Promise<Outcome> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw, peerId } = l;
  const { key, misplaced } = publicKeyOf(ctx.cluster.inv, gw, peerId);
  const keyFix = keyExchangeFix(ctx, gw, peerId);
  const wrongLabel = ctx.cluster.inv.items("publickeies").filter((p) =>
    p.metadata.namespace === gw.namespace && p.metadata.labels?.[REMOTE_ID_LABEL] !== peerId
  );
  if (!key) {
    const what = misplaced.length > 0
      ? "not found where the gateway looks (mislabelled or wrong namespace)"
      : "missing";
    return {
      status: "fail",
      summary: `PublicKey of peer ${peerId} ${what}: the wireguard container has no peer to configure`,
      evidence: [
        `no PublicKey labelled ${REMOTE_ID_LABEL}=${peerId} in ${gw.namespace} on ${ctx.cluster.name}`,
        ...misplaced,
      ],
      remediation: `${k(gw.namespace)} get publickeies -A --show-labels\n` +
        (misplaced.length > 0
          ? `# fix the label/namespace, e.g.:\n${k(gw.namespace)} label publickey ${
            wrongLabel[0]?.metadata.name ?? "<name>"
          } ${REMOTE_ID_LABEL}=${peerId} --overwrite\n`
          : "") +
        keyFix,
    };
  }
  const cr = String(key.spec?.publicKey ?? "");
  const evidence = [`PublicKey ${gw.namespace}/${key.metadata.name}: ${cr}`, ...misplaced];
  const live = await liveWireguard(ctx, gw);
  let liveNote: string | null = null;
  if ("none" in live) liveNote = live.none;
  else if (!live.ev.ok) liveNote = `wg not readable (${live.ev.message})`;
  else {
    const tunnels = tunnelInterfaces(live.ev.first);
    if (tunnels.length === 0) liveNote = "no liqo-tunnel interface in wg output";
    else {
      const peers = peerKeys(tunnels);
      evidence.push(
        `live ${tunnels.map((t) => t.name).join(",")} peers: ${
          peers.map((p) => p.publicKey).join(", ") || "(none)"
        }`,
      );
      if (!peers.some((p) => p.publicKey === cr)) {
        return {
          status: "fail",
          summary: `PublicKey CR not configured on the tunnel: wg peers do not include ${shortKey(cr)}`,
          evidence,
          remediation:
            `${k(gw.namespace)} logs ${live.ev.pod} -c wireguard   # PublicKey reconcile errors\n` +
            `${k(gw.namespace)} delete pod ${live.ev.pod}   # the gateway reconfigures the peer on start`,
        };
      }
    }
  }
  const dual = remoteKeyCheck(ctx, cr);
  const dualResult = dual ? await dual : null;
  if (dualResult) {
    evidence.push(...dualResult.evidence);
    if (dualResult.mismatch) {
      return {
        status: "fail",
        summary:
          `stale PublicKey after a gateway was recreated: ${ctx.cluster.name} holds ${
            shortKey(cr)
          } for ${peerId}, ` +
          `but ${ctx.remote?.name} now uses ${shortKey(dualResult.mismatch)}`,
        evidence,
        remediation:
          `# the peer's gateway key changed; replace ${gw.namespace}/${key.metadata.name} with it:\n` +
          keyFix,
      };
    }
  }
  if (liveNote) {
    return {
      status: "unknown",
      summary: `PublicKey present; live comparison with wg not possible: ${liveNote}`,
      evidence,
      remediation: live && "ev" in live && !live.ev.ok
        ? `# run by hand:\n${wgCommand(gw.namespace, live.ev.pod)}`
        : undefined,
    };
  }
  return {
    status: "pass",
    summary: `PublicKey ${shortKey(cr)} configured on the tunnel${
      dualResult ? " and matches the peer's gateway" : ""
    }`,
    evidence,
  };
}

/** How to put the peer gateway's current key into the local PublicKey (names filled in where known). */
function keyExchangeFix(ctx: CheckContext, gw: GatewayRef, peerId: string): string {
  const rgw = ctx.remote && ctx.remotePeer ? gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId) : null;
  const remoteNs = rgw?.namespace ?? ctx.peer?.foreignCluster?.status?.tenantNamespace?.remote ??
    `liqo-tenant-${ctx.cluster.clusterId ?? "<this cluster ID>"}`;
  const remoteSecret = rgw?.workloadName ?? `gw-${ctx.cluster.clusterId ?? "<this cluster ID>"}`;
  return `# on ${ctx.remote?.name ?? peerId}, read its gateway public key:\n` +
    `kubectl -n ${remoteNs} get secret ${remoteSecret} -o jsonpath='{.data.publicKey}'\n` +
    `# here, that value must be spec.publicKey of a PublicKey in ${gw.namespace} labelled ` +
    `${REMOTE_ID_LABEL}=${peerId} and ${GATEWAY_RESOURCE_LABEL}=true\n` +
    `# (liqoctl generate publickey on the peer prints such an object; re-running liqoctl network connect re-exchanges keys)`;
}

/** Dual mode: compares the local PublicKey with the peer gateway's Secret and live interface key. */
async function remoteKeyCheck(
  ctx: CheckContext,
  cr: string,
): Promise<{ evidence: string[]; mismatch: string | null; remoteName: string } | null> {
  if (!ctx.remote || !ctx.remotePeer) return null;
  const rgw = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
  if (!rgw) return null;
  const evidence: string[] = [];
  let mismatch: string | null = null;
  const secrets = ctx.remote.inv.tryItems("secrets");
  const secret = secrets?.find((s) =>
    s.metadata.namespace === rgw.namespace &&
    (s.metadata.name === rgw.workloadName ||
      (s.metadata.labels?.[GATEWAY_RESOURCE_LABEL] === "true" &&
        s.metadata.labels?.[REMOTE_ID_LABEL] === ctx.remotePeer?.clusterId))
  );
  const secretKey = secret?.data?.publicKey ? decodeKey(String(secret.data.publicKey)) : null;
  if (secretKey) {
    evidence.push(
      `${ctx.remote.name} Secret ${rgw.namespace}/${secret!.metadata.name} publicKey: ${secretKey}`,
    );
    if (secretKey !== cr) mismatch = secretKey;
  } else {evidence.push(
      `${ctx.remote.name} Secret ${rgw.namespace}/${rgw.workloadName}: ${
        secrets ? "not found" : "not readable"
      }`,
    );}
  const pod = activeGatewayPod(ctx.remote.inv, rgw);
  if (pod) {
    const ev = await ctx.probes.wireguard(ctx.remote.name, rgw.namespace, pod.metadata.name);
    if (ev.ok) {
      const itf = tunnelInterfaces(ev.first)[0];
      if (itf?.publicKey) {
        evidence.push(`${ctx.remote.name} ${itf.name} public-key: ${itf.publicKey}`);
        if (itf.publicKey !== cr) mismatch = itf.publicKey;
      }
    } else evidence.push(`${ctx.remote.name} wg not readable: ${ev.message}`);
  }
  return { evidence, mismatch, remoteName: rgw.name };
}

/**
 * Secret data is base64 of the base64 key text in a raw Secret, but the inventory may already hold the
 * decoded text; accept both (a WireGuard key is 44 characters of base64 ending in "=").
 */
function decodeKey(v: string): string {
  if (/^[A-Za-z0-9+/]{43}=$/.test(v)) return v;
  try {
    const text = atob(v);
    if (/^[A-Za-z0-9+/]{43}=$/.test(text)) return text;
  } catch {
    // not base64: keep as is
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// TUN-05 latency

function tun05(ctx: CheckContext): Outcome {
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
      remediation:
        "# high latency slows API reflection and cross-cluster traffic; check the path between the " +
        "gateway endpoints (traceroute from the nodes) and whether the gateway nodes are overloaded",
    };
  }
  return { status: "pass", summary: `tunnel latency ${raw}`, evidence };
}

// ---------------------------------------------------------------------------------------------
// TUN-06 MTU

interface MtuView {
  values: { source: string; mtu: number }[];
  notes: string[];
}

async function localMtus(ctx: CheckContext, gw: GatewayRef, peerId: string): Promise<MtuView> {
  const values: { source: string; mtu: number }[] = [];
  const notes: string[] = [];
  const add = (source: string, v: unknown) => {
    const n = typeof v === "number" ? v : typeof v === "string" && /^[0-9]+$/.test(v) ? Number(v) : null;
    if (n !== null) values.push({ source, mtu: n });
  };
  add(`${gw.role === "server" ? "GatewayServer" : "GatewayClient"} ${gw.name} spec.mtu`, gw.object.spec?.mtu);
  const fabric =
    ctx.cluster.inv.items("internalfabrics").find((f) =>
      f.metadata.namespace === gw.namespace && f.metadata.labels?.[REMOTE_ID_LABEL] === peerId
    ) ?? ctx.cluster.inv.items("internalfabrics").find((f) =>
      f.metadata.labels?.[REMOTE_ID_LABEL] === peerId
    );
  if (fabric) add(`InternalFabric ${fabric.metadata.name} spec.mtu`, fabric.spec?.mtu);
  else notes.push(`no InternalFabric for ${peerId}`);
  const dep = gatewayDeployment(ctx, gw);
  add(
    `Deployment ${gw.workloadName} wireguard --mtu`,
    containerArgs(dep?.spec?.template?.spec, "wireguard").get("mtu"),
  );
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (pod) {
    const ev = await ctx.probes.wireguard(ctx.cluster.name, gw.namespace, pod.metadata.name);
    if (ev.ok) {
      const live = Object.entries(ev.mtu).filter(([n]) => n.startsWith(TUNNEL_PREFIX));
      for (const [name, mtu] of live) add(`live ${name} MTU (${pod.metadata.name})`, mtu);
      if (live.length === 0) notes.push("live tunnel MTU not read");
    } else notes.push(`live tunnel MTU not read: ${ev.message}`);
  } else notes.push("no running gateway pod: live MTU not read");
  return { values, notes };
}

function versionAtLeast(v: string | null, major: number, minor: number): boolean | null {
  const m = v?.match(/^v?(\d+)\.(\d+)/);
  if (!m) return null;
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
}

/** The gw-mss-clamping FirewallConfiguration state for the active gateway pod (v1.1+). */
function mssClamp(ctx: CheckContext, gw: GatewayRef): { line: string; problem: string | null } {
  const version = liqoVersionOf(ctx.cluster.inv);
  const ns = ctx.cluster.liqoNamespace ?? "liqo";
  const fwcs = ctx.cluster.inv.tryItems("firewallconfigurations");
  if (!fwcs) return { line: "FirewallConfigurations not readable: MSS clamping not verified", problem: null };
  const fw = fwcs.find((f) => f.metadata.name === "gw-mss-clamping" && f.metadata.namespace === ns) ??
    fwcs.find((f) => f.metadata.name === "gw-mss-clamping");
  if (!fw) {
    if (versionAtLeast(version, 1, 1) === false) {
      return { line: `Liqo ${version}: no MSS clamping before v1.1`, problem: null };
    }
    return {
      line: `no FirewallConfiguration ${ns}/gw-mss-clamping`,
      problem:
        "TCP MSS clamping missing (Helm networking.gateway.mssclamp.enabled=false?): large TCP segments may be dropped",
    };
  }
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { line: `FirewallConfiguration ${ns}/gw-mss-clamping present`, problem: null };
  // deno-lint-ignore no-explicit-any
  const entry = ((fw.status?.conditions ?? []) as any[]).find((c) =>
    c?.host === pod.metadata.name && c?.type === "Applied"
  );
  if (entry?.status === "True") {
    return { line: `gw-mss-clamping Applied=True on ${pod.metadata.name}`, problem: null };
  }
  return {
    line: `gw-mss-clamping on ${pod.metadata.name}: ${
      entry ? `Applied=${entry.status}` : "no Applied entry"
    }`,
    problem: `MSS clamping not applied by the gateway pod ${pod.metadata.name}`,
  };
}

async function tun06(ctx: CheckContext): Promise<Outcome> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw, peerId } = l;
  const local = await localMtus(ctx, gw, peerId);
  if (local.values.length === 0) {
    return { status: "unknown", summary: "no MTU found for this gateway", evidence: local.notes };
  }
  const evidence = local.values.map((v) => `${ctx.cluster.name} ${v.source}: ${v.mtu}`);
  evidence.push(...local.notes);
  const tunnelMtu = local.values[0].mtu;
  const distinct = [...new Set(local.values.map((v) => v.mtu))];
  const minMtu = Math.min(...distinct);
  evidence.push(
    `largest don't-fragment ping payload through the tunnel: ${
      minMtu - PING_OVERHEAD
    } bytes (MTU ${minMtu} − 28)`,
  );
  const clamp = mssClamp(ctx, gw);
  evidence.push(clamp.line);
  if (ctx.remote && ctx.remotePeer) {
    const rgw = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
    const rmtu = rgw?.object.spec?.mtu;
    if (rgw && typeof rmtu === "number") {
      evidence.unshift(
        `${ctx.cluster.name} ${gw.role} MTU ${tunnelMtu} | ${ctx.remote.name} ${rgw.role} MTU ${rmtu}`,
      );
      if (rmtu !== tunnelMtu) {
        return {
          status: "fail",
          summary:
            `tunnel MTU differs across the clusters: ${ctx.cluster.name} ${tunnelMtu}, ${ctx.remote.name} ${rmtu}`,
          evidence,
          remediation:
            "# both sides must use the same MTU (link MTU − 60 for IPv4); re-run the network setup with it:\n" +
            `liqoctl network connect --remote-kubeconfig <kubeconfig> --mtu ${Math.min(tunnelMtu, rmtu)}`,
        };
      }
    }
  }
  const problems: string[] = [];
  if (distinct.length > 1) problems.push(`local MTU values disagree (${distinct.join(" vs ")})`);
  if (clamp.problem) problems.push(clamp.problem);
  if (problems.length > 0) {
    return {
      status: "warn",
      summary: problems.join("; "),
      evidence,
      remediation: `${k(gw.namespace)} get gateway${gw.role} ${gw.name} -o jsonpath='{.spec.mtu}'\n` +
        `${k(gw.namespace)} get internalfabrics -o custom-columns=NAME:.metadata.name,MTU:.spec.mtu\n` +
        "# align them by re-running liqoctl network connect with one --mtu value",
    };
  }
  return { status: "pass", summary: `tunnel MTU ${tunnelMtu} consistent`, evidence };
}

// ---------------------------------------------------------------------------------------------

const GW_KINDS = ["gatewayservers", "gatewayclients"] as const;

/** The TUNNEL layer checks, in catalog order (key symmetry first: it explains a missing Connection). */
export const TUNNEL_CHECKS: readonly CheckDef[] = [
  {
    id: "TUN-04",
    title: "WireGuard keys symmetric",
    layer: "tunnel",
    // Without a running gateway there is no live key to compare: GW-01 is the finding then.
    needs: ["GW-01"],
    scope: "single",
    perPeer: true,
    reads: [...GW_KINDS, "publickeies", "pods"],
    optionalReads: ["secrets"],
    explain: {
      reads:
        "The PublicKey labelled liqo.io/remote-cluster-id=<peer> in the gateway namespace (spec.publicKey), " +
        "`wg show all dump` in container wireguard of the active gateway pod; in dual mode the peer's gateway " +
        "Secret gw-<name> data.publicKey and its live liqo-tunnel public key.",
      decides:
        "fail: PublicKey missing, mislabelled or in another namespace (the wireguard container then never " +
        "configures a peer nor creates the Connection); its key is not among the live wg peers; dual: it differs " +
        "from the peer gateway's Secret or live key (stale after the peer's gateway was recreated). unknown: the " +
        "PublicKey exists but wg could not be read.",
      fixes:
        "Re-exchange keys: `liqoctl generate publickey` on the peer and apply it here, or re-run liqoctl " +
        "network connect.",
    },
    run: tun04,
  },
  {
    id: "TUN-01",
    title: "Connection established",
    layer: "tunnel",
    needs: ["GW-01", "GW-03", "TUN-04"],
    scope: "single",
    perPeer: true,
    reads: [...GW_KINDS, "connections", "publickeies", "deployments"],
    explain: {
      reads:
        "Connection gw-<name> (label liqo.io/remote-cluster-id) in the gateway namespace: status.value and " +
        "status.latency.timestamp; in dual mode the other side's Connection as evidence.",
      decides:
        `pass: Connected with a pinger update younger than ${
          CONNECTION_STALE_MS / 1000
        } s. fail: Connected ` +
        "but stale (the gateway stopped updating it), Connecting (tunnel never came up), Error (peer lost), or no " +
        "Connection at all (no PublicKey accepted, or the endpoint hostname never resolved).",
      fixes: "Read the wireguard and gateway container logs; follow GW-05 (UDP path) and TUN-04 (keys).",
    },
    run: tun01,
  },
  {
    id: "TUN-02",
    title: "WireGuard handshake fresh",
    layer: "tunnel",
    needs: ["GW-01", "GW-03", "TUN-04"],
    scope: "single",
    perPeer: true,
    reads: [...GW_KINDS, "pods"],
    explain: {
      reads:
        "`wg show all dump` exec'd in container wireguard of the active gateway pod (liqo-tunnel* interfaces).",
      decides:
        `fail: a peer without any handshake, or a latest handshake older than ${HANDSHAKE_MAX_AGE_S} s, or no ` +
        "tunnel interface. unknown: exec not allowed or wg output unusable (the command to run by hand is given).",
      fixes: "No handshake: UDP blocked toward the server endpoint or mismatched keys.",
    },
    run: tun02,
  },
  {
    id: "TUN-03",
    title: "Tunnel traffic flows both ways",
    layer: "tunnel",
    needs: ["TUN-02"],
    scope: "single",
    perPeer: true,
    reads: [...GW_KINDS, "pods", "deployments"],
    explain: {
      reads:
        "Two `wg show all dump` samples --sample-interval apart: rx/tx transfer counters of each tunnel peer.",
      decides:
        "fail: rx flat while tx rises (outbound only), or both flat (the 2 s in-tunnel pinger should always " +
        "move them); pass with the rates. unknown: only one sample, counters reset, or exec impossible.",
      fixes:
        "Outbound only: the return path drops UDP (firewall/NAT on the peer side); capture with tcpdump in the " +
        "gateway pod.",
    },
    run: tun03,
  },
  {
    id: "TUN-05",
    title: "Tunnel latency",
    layer: "tunnel",
    needs: ["TUN-01"],
    scope: "single",
    perPeer: true,
    reads: [...GW_KINDS, "connections", "deployments"],
    explain: {
      reads: 'Connection status.latency.value ("8ms", "850μs", "N/A").',
      decides:
        "warn above --latency-threshold (200 ms). N/A: pass when the pinger is disabled, else unknown.",
      fixes: "Investigate the path between the gateway endpoints and the gateway nodes' load.",
    },
    run: tun05,
  },
  {
    id: "TUN-06",
    title: "Tunnel MTU consistent",
    layer: "tunnel",
    needs: [],
    scope: "single",
    perPeer: true,
    reads: [...GW_KINDS, "internalfabrics", "deployments", "pods"],
    optionalReads: ["firewallconfigurations"],
    explain: {
      reads:
        "GatewayServer/Client spec.mtu, InternalFabric spec.mtu, the wireguard container's --mtu, the live " +
        "liqo-tunnel MTU, FirewallConfiguration gw-mss-clamping (Applied=True for the active gateway pod, v1.1+); " +
        "in dual mode the peer's gateway spec.mtu.",
      decides:
        "fail: the two clusters use different tunnel MTUs. warn: local values disagree, or MSS clamping is " +
        "missing or not applied. Evidence includes the largest safe ping payload (MTU − 28).",
      fixes: "Use one MTU (link MTU − 60) on both sides: liqoctl network connect --mtu <n>.",
    },
    run: tun06,
  },
];
