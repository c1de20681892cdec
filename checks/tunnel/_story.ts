/**
 * The tunnel story model, private to the TUNNEL layer (not a check): what the live `wg show` state
 * of the active gateway pod says about each peer (a {@link PeerStory}: never worked, stopped,
 * silent, stale, one way only, idle, flowing) and how the checks tell it — evidence, the fix, the
 * logs — plus the kinds every tunnel check reads and the kubectl commands they print.
 */
import type { CheckContext, ClusterView, Outcome } from "../types.ts";
import type { Pod } from "../../liqo/views/core.ts";
import type { WgEvidence, WgInterface, WgPeer } from "../../probes/hub.ts";
import {
  activeGatewayPod,
  formatAge,
  type GatewayRef,
  nodeDownText,
  podNodeDown,
} from "../../liqo/lookups.ts";
import {
  handshakeAgeSeconds,
  type PeerRate,
  rates,
  TUNNEL_PREFIX,
  tunnelInterfaces,
  unreadableCounters,
  unreadableField,
} from "../../probes/wireguard.ts";
import { PEER_FIELDS } from "../../probes/wireguard_dump.ts";
import { pingDisabled } from "../../liqo/args.ts";
import { endpointOf, formatEndpoint, isHostname } from "../../liqo/endpoints.ts";
import { gatewayDeployment, lookupGateway } from "../common/gateway.ts";
import {
  fix,
  kubectlIn,
  preciseUdpStep,
  type RemediationCommand,
  type RemediationStep,
  step,
} from "../remediation.ts";
import { HANDSHAKE_MAX_AGE_S } from "../common/tunnel_state.ts";
import { hostnameLine, resolveFromHere } from "../common/endpoint_names.ts";
import { containerLog } from "../common/logs.ts";

/** The gateway kinds every tunnel check reads. */
export const GW_KINDS = ["gatewayservers", "gatewayclients"] as const;

/** `kubectl exec … wg show all dump` in the gateway pod `pod` (on the observed cluster). */
export function wgCommand(ns: string, pod: string): RemediationCommand {
  return kubectlIn("local", ns, "exec", pod, "-c", "wireguard", "--", "wg", "show", "all", "dump");
}

/** The WireGuard evidence of the active gateway pod, or an outcome when there is no pod. */
export async function liveWireguard(
  ctx: CheckContext,
  gw: GatewayRef,
): Promise<{ ev: WgEvidence; pod: Pod } | { none: string }> {
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { none: "no running gateway pod (see GW-01)" };
  const ev = await ctx.probes.wireguard(ctx.cluster.name, gw.namespace, pod.metadata.name);
  return { ev, pod };
}

function execUnknown(
  ev: Extract<WgEvidence, { ok: false }>,
  what: string,
  pod?: Pod,
  view?: ClusterView,
): Outcome {
  // "error dialing backend": the API server cannot reach the kubelet — name the node when it is lost.
  const down = pod && view ? podNodeDown(view.inv, pod) : null;
  const onNode = down
    ? ` — the pod is on NotReady node ${down.name} (${nodeDownText(down, view!.now)}, see ENV-07)`
    : "";
  return {
    status: "unknown",
    summary: `${what}: cannot run wg in ${ev.namespace}/${ev.pod} (${ev.reason}: ${ev.message})${onNode}`,
    evidence: [`exec of wg show all dump in container wireguard: ${ev.message}${onNode}`],
    remediation: execFix(ev),
  };
}

/**
 * What to do when `wg show` could not run in a gateway pod. Forbidden: running the same exec by hand
 * fails the same way, so the fix names the missing RBAC verb and how to confirm it; otherwise, the
 * command to run by hand.
 */
export function execFix(ev: Extract<WgEvidence, { ok: false }>): RemediationStep[] {
  if (ev.reason === "forbidden") {
    return fix(
      step(
        kubectlIn("local", ev.namespace, "auth", "can-i", "create", "pods/exec"),
        "answers no: your credentials lack create on pods/exec here",
      ),
      `ask for create (and get) on pods/exec in ${ev.namespace} (deploy/clusterrole.yaml grants the read-only ` +
        "execs FlyingFish runs), then re-run; without it the live tunnel checks stay unknown",
    );
  }
  return fix("run by hand (needs create on pods/exec):", wgCommand(ev.namespace, ev.pod));
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
      remediation: fix("inspect by hand:", wgCommand(ev.namespace, ev.pod)),
    };
  }
  return {
    status: "fail",
    summary: `no ${TUNNEL_PREFIX} interface in ${ev.pod}: the wireguard container has not created the tunnel`,
    evidence: [
      `interfaces: ${ev.first.interfaces.map((i) => i.name).join(", ") || "(none)"}`,
      ...ev.notes.slice(0, 4),
    ],
    remediation: fix(kubectlIn("local", ev.namespace, "logs", ev.pod, "-c", "wireguard")),
  };
}

export function shortKey(key: string): string {
  return key.length > 12 ? `${key.slice(0, 10)}…` : key;
}

/** The live reading a tunnel check judges: the latest handshake (TUN-02) or the transfer counters (TUN-03). */
export type TunnelReading = "handshake" | "counters";

/**
 * The outcome that replaces a judgement when the wg output could not be read where the check looks:
 * a tunnel interface whose peer lines could not be read at all (no readable peer left), or a peer whose
 * handshake / counters are unreadable. Null when everything the check needs was read.
 */
export function unreadableOutcome(
  ev: Extract<WgEvidence, { ok: true }>,
  tunnels: WgInterface[],
  reading: TunnelReading | null,
  what: string,
): Outcome | null {
  const problems: string[] = [];
  for (const itf of tunnels) {
    if (itf.peers.length === 0 && itf.unreadableLines?.length) {
      problems.push(...itf.unreadableLines.map((l) => `${itf.name}: ${l}`));
    }
  }
  if (reading === "handshake") {
    for (const itf of tunnels) {
      for (const p of itf.peers) {
        for (const u of unreadableField(p, PEER_FIELDS.handshake)) {
          problems.push(`${itf.name} peer ${shortKey(p.publicKey)}: unreadable ${u}`);
        }
      }
    }
  } else if (reading === "counters") {
    const second = ev.second ?? ev.first;
    for (const u of unreadableCounters(ev.first, second)) {
      if (!u.interface.startsWith(TUNNEL_PREFIX)) continue;
      problems.push(
        ...u.problems.map((x) => `${u.interface} peer ${shortKey(u.publicKey)}: unreadable ${x}`),
      );
    }
  }
  if (problems.length === 0) return null;
  return {
    status: "unknown",
    summary: `${what}: unreadable wg output in ${ev.pod} (${problems[0]})`,
    evidence: problems.slice(0, 6),
    remediation: fix("inspect by hand:", wgCommand(ev.namespace, ev.pod)),
  };
}

/** The live WireGuard evidence of the peer's active gateway and its tunnel interfaces, or the outcome
 * that replaces a judgement (no gateway, exec impossible, no tunnel interface, or the field the check
 * reads — `reading`, by default inferred from `what` — unreadable in the wg output). */
export async function liveTunnels(
  ctx: CheckContext,
  what: string,
  reading: TunnelReading | null,
): Promise<
  { gw: GatewayRef; ev: Extract<WgEvidence, { ok: true }>; tunnels: WgInterface[] } | { outcome: Outcome }
> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return { outcome: l.outcome };
  const live = await liveWireguard(ctx, l.gw);
  if ("none" in live) return { outcome: { status: "skip", summary: live.none } };
  const { ev } = live;
  if (!ev.ok) return { outcome: execUnknown(ev, what, live.pod, ctx.cluster) };
  const tunnels = tunnelsOrOutcome(ev, what);
  if (!Array.isArray(tunnels)) return { outcome: tunnels };
  const unreadable = unreadableOutcome(ev, tunnels, reading, what);
  return unreadable ? { outcome: unreadable } : { gw: l.gw, ev, tunnels };
}

/**
 * What the handshake age and the two counter samples say about one WireGuard peer:
 * - `never`: no handshake ever (the endpoint, the UDP path or the keys);
 * - `stopped`: the handshake is stale, rx frozen while tx still rises (the return path — a NAT mapping
 *   or a stateful firewall — expired);
 * - `silent`: the handshake is stale and nothing moves either way;
 * - `stale`: the handshake is stale, counter movement unknown (one sample) or inconclusive;
 * - `outbound-only` / `inbound-only`: a fresh handshake, traffic in one direction only;
 * - `idle`: a fresh handshake, nothing moves; `flowing`: both directions move.
 * TUN-02 tells the handshake stories (never, stopped, silent, stale), TUN-03 the direction of the
 * traffic under a fresh handshake; TUN-01 borrows the headline when its Connection is down.
 */
export type WgStoryKind =
  | "never"
  | "stopped"
  | "silent"
  | "stale"
  | "outbound-only"
  | "inbound-only"
  | "idle"
  | "flowing";

/** The story of one tunnel peer, with a headline a user understands at 2 a.m. */
export interface PeerStory {
  kind: WgStoryKind;
  interface: string;
  publicKey: string;
  /** Seconds since the latest handshake; null = never. */
  ageSeconds: number | null;
  /** Counter movement between the two samples; null with one sample or unreadable counters. */
  rate: PeerRate | null;
  /** One sentence: what happened, since when, and where to look. Empty for `flowing`/`idle`. */
  headline: string;
}

/** True for the stories in which the tunnel carries no traffic back (TUN-02's failures). */
export function handshakeFailure(k: WgStoryKind): boolean {
  return k === "never" || k === "stopped" || k === "silent" || k === "stale";
}

function bytes(n: number | bigint | null): string {
  return n === null ? "?" : `${n} B`;
}

function movement(r: PeerRate): string {
  return `rx +${r.rxDelta} B, tx +${r.txDelta} B in ${r.seconds.toFixed(1)}s`;
}

/** Where this gateway meets the peer, in words: the endpoint it dials (client) or advertises (server). */
export function endpointPhrase(gw: GatewayRef): string {
  if (gw.role === "client") {
    return `the server at ${
      formatEndpoint(endpointOf(gw.object.spec?.endpoint))
    } (GatewayClient spec.endpoint)`;
  }
  return `the client, which should reach ${
    formatEndpoint(endpointOf(gw.object.status?.endpoint))
  } (GatewayServer status.endpoint)`;
}

/** Classifies one peer from its latest handshake and (when known) its counter movement. */
export function classifyPeer(
  itf: string,
  p: WgPeer,
  rate: PeerRate | null,
  nowMs: number,
  gw: GatewayRef,
): PeerStory {
  const age = handshakeAgeSeconds(p, nowMs);
  const base = { interface: itf, publicKey: p.publicKey, ageSeconds: age, rate };
  const r = rate && !rate.reset ? rate : null;
  const towards = p.endpoint ? ` toward ${p.endpoint}` : "";
  if (age === null) {
    const nothing = gw.role === "client" ? "nothing has ever come back" : "nothing has ever arrived from it";
    const back = p.rxBytes === 0 || p.rxBytes === 0n ? `${nothing} (rx 0 B)` : `rx ${bytes(p.rxBytes)}`;
    const out = r && r.txDelta > 0
      ? `, handshake attempts still go out (tx +${r.txDelta} B in ${r.seconds.toFixed(1)}s)`
      : "";
    return {
      ...base,
      kind: "never",
      headline: `WireGuard never completed a handshake with ${endpointPhrase(gw)}: ${back}${out} — ` +
        "the endpoint, the UDP path or the keys",
    };
  }
  const ago = formatAge(age * 1000);
  if (age > HANDSHAKE_MAX_AGE_S) {
    if (r && r.rxDelta === 0 && r.txDelta > 0) {
      return {
        ...base,
        kind: "stopped",
        headline:
          `the tunnel worked, then stopped receiving ${ago} ago (last handshake): rx frozen at ${
            bytes(p.rxBytes)
          } while tx still rises${towards} (+${r.txDelta} B in ${r.seconds.toFixed(1)}s) — the return path ` +
          "expired (a NAT mapping or a stateful firewall dropped the flow)",
      };
    }
    if (r && r.rxDelta === 0 && r.txDelta === 0) {
      return {
        ...base,
        kind: "silent",
        headline:
          `the tunnel worked, then went silent: last handshake ${ago} ago, no traffic either way now ` +
          `(rx ${bytes(p.rxBytes)}, tx ${bytes(p.txBytes)} frozen) — nothing is sent through it any more`,
      };
    }
    return {
      ...base,
      kind: "stale",
      headline: `last handshake ${ago} ago: the tunnel stopped working about ${ago} ago${
        r ? ` (${movement(r)})` : ""
      }`,
    };
  }
  if (r && r.rxDelta === 0 && r.txDelta > 0) {
    return {
      ...base,
      kind: "outbound-only",
      headline:
        `one-way traffic, outbound only: packets leave${towards} (tx +${r.txDelta} B in ${
          r.seconds.toFixed(1)
        }s) but nothing comes back (rx +0 B) — the return path drops UDP; the last handshake was ${ago} ago, ` +
        `so it broke less than ${ago} ago`,
    };
  }
  if (r && r.txDelta === 0 && r.rxDelta > 0) {
    return {
      ...base,
      kind: "inbound-only",
      headline:
        `one-way traffic, inbound only: packets arrive (rx +${r.rxDelta} B in ${
          r.seconds.toFixed(1)
        }s) but none leave (tx +0 B) — this gateway receives and does not answer (routing or firewall in the ` +
        "gateway pod, or its pinger is off)",
    };
  }
  if (r && r.rxDelta === 0 && r.txDelta === 0) return { ...base, kind: "idle", headline: "" };
  return { ...base, kind: "flowing", headline: "" };
}

/** The stories of every peer of the tunnel interfaces (counter movement from the two samples when both exist). */
export function peerStories(
  ev: Extract<WgEvidence, { ok: true }>,
  tunnels: WgInterface[],
  gw: GatewayRef,
): PeerStory[] {
  // Ages are read at the first sample (as TUN-02's evidence prints them); movement spans both samples.
  const rs = ev.second ? rates(ev.first, ev.second) : [];
  const out: PeerStory[] = [];
  for (const itf of tunnels) {
    for (const p of itf.peers) {
      const rate = rs.find((r) => r.interface === itf.name && r.publicKey === p.publicKey) ?? null;
      out.push(classifyPeer(itf.name, p, rate, ev.first.takenAt, gw));
    }
  }
  return out;
}

/** Evidence about the endpoint when the tunnel never came up: hostname resolution, a missing wg endpoint. */
export async function neverWorkedEvidence(
  ctx: CheckContext,
  gw: GatewayRef,
  peers: WgPeer[],
): Promise<string[]> {
  const out: string[] = [];
  if (gw.role !== "client") {
    out.push(
      "server side: the client initiates the handshake; nothing valid reached this gateway (compare GW-03/GW-04 " +
        "and the client's own TUN-02)",
    );
    return out;
  }
  const host = endpointOf(gw.object.spec?.endpoint)?.addresses[0];
  if (host && isHostname(host)) {
    out.push(hostnameLine("the dialled address", host, await resolveFromHere(ctx, host)));
    if (peers.some((p) => !p.endpoint)) {
      out.push(`wg has no endpoint for the peer: the gateway never resolved ${host} in its pod`);
    }
  }
  return out;
}

/** Remediation of a tunnel that never completed a handshake. */
export function neverWorkedFix(gw: GatewayRef, ns: string, pod: string): RemediationStep[] {
  const ep = endpointOf(gw.role === "client" ? gw.object.spec?.endpoint : gw.object.status?.endpoint);
  const host = ep?.addresses[0] ?? "<endpoint>";
  const port = ep?.port ?? 51840;
  return fix(
    "never worked: check, in order, the endpoint, the UDP path and the keys",
    "1. endpoint: the client dials what the server advertises (GW-03, GW-04); a hostname must resolve in the pod",
    `2. UDP path: UDP ${port} open end to end toward ${host} (security groups, firewalls, LB UDP support); ` +
      'nc -u cannot tell (WireGuard answers no stranger: it "succeeds" against anything)',
    preciseUdpStep("from the client's network: an ICMP refusal on the way shows"),
    "3. keys: each side's PublicKey is the other gateway's key (TUN-04)",
    kubectlIn("local", ns, "logs", pod, "-c", "wireguard"),
  );
}

/** Remediation of a tunnel that worked and then stopped receiving (the return path expired). */
export function stoppedFix(
  ctx: CheckContext,
  gw: GatewayRef,
  ns: string,
  pod: string,
  story: PeerStory,
): RemediationStep[] {
  let pingOff = false;
  try {
    pingOff = pingDisabled(gatewayDeployment(ctx, gw)?.spec?.template?.spec);
  } catch {
    // deployments unreadable: say both
  }
  const keepalive = pingOff
    ? [
      "keepalive: Liqo sets no WireGuard persistent-keepalive and this gateway's pinger is off (--ping-enabled=false),",
      "so nothing keeps the NAT mapping alive while idle: re-enable the pinger, or set a keepalive (lost on restart):",
    ]
    : [
      "keepalive: Liqo sets no WireGuard persistent-keepalive; its 2 s in-tunnel pinger normally keeps NAT state alive,",
      "so the mapping was dropped or changed (NAT/firewall restart, new public address); a keepalive (lost on restart):",
    ];
  const wgSet = ["wg", "set", story.interface, "peer", story.publicKey, "persistent-keepalive", "25"];
  return fix(
    "the return path expired: a NAT mapping or a stateful firewall no longer forwards the replies",
    ...keepalive,
    kubectlIn("local", ns, "exec", pod, "-c", "wireguard", "--", ...wgSet),
    "NAT/firewall: check the UDP idle timeout (conntrack) and whether the client's public address/port changed;",
    "restarting the client gateway re-handshakes from a fresh mapping:",
    gw.role === "client"
      ? kubectlIn("local", gw.namespace, "rollout", "restart", `deploy/${gw.workloadName}`)
      : "on the client cluster:",
    gw.role !== "client" &&
      kubectlIn("remote", "<tenant namespace>", "rollout", "restart", "deploy/gw-<name>"),
  );
}

/**
 * The WireGuard story behind a Connection that is not Connected (TUN-01): the first peer whose
 * handshake never completed, went stale or stopped receiving; null when the live state is unreadable
 * or tells nothing more. Never throws.
 */
export async function downStory(
  ctx: CheckContext,
  gw: GatewayRef,
): Promise<{ story: PeerStory; fix: RemediationStep[] } | null> {
  try {
    const live = await liveWireguard(ctx, gw);
    if ("none" in live || !live.ev.ok) return null;
    const ev = live.ev;
    const tunnels = tunnelInterfaces(ev.first);
    if (tunnels.length === 0 || unreadableOutcome(ev, tunnels, "handshake", "")) return null;
    const story = peerStories(ev, tunnels, gw).find((st) => handshakeFailure(st.kind));
    if (!story) return null;
    const fix = story.kind === "never"
      ? neverWorkedFix(gw, ev.namespace, ev.pod)
      : story.kind === "stopped"
      ? stoppedFix(ctx, gw, ev.namespace, ev.pod, story)
      : [];
    return { story, fix };
  } catch {
    return null;
  }
}

/** The containers whose recent log explains a tunnel that is down (the gateway templates' containers). */
const TUNNEL_LOG_CONTAINERS = ["wireguard", "gateway"] as const;

/**
 * A failed tunnel finding with the recent log lines of the active gateway pod's `wireguard` and
 * `gateway` containers that explain it (endpoint resolution, handshake, key and permission errors):
 * the first error line is cited in the summary, the lines go to the evidence. Only for failures; a
 * log without error lines adds nothing, a refused read says which permission is missing. Never throws.
 */
export async function withTunnelLogs(ctx: CheckContext, o: Outcome): Promise<Outcome> {
  if (o.status !== "fail") return o;
  try {
    const l = lookupGateway(ctx);
    if ("outcome" in l) return o;
    const pod = activeGatewayPod(ctx.cluster.inv, l.gw);
    if (!pod) return o;
    const logs = await Promise.all(TUNNEL_LOG_CONTAINERS.map((c) => containerLog(ctx, pod, c, "  ")));
    // Only what explains: error lines, or the refused read (which permission is missing).
    const evidence = logs.flatMap((g) =>
      g.cite !== null || g.evidence.some((e) => /not readable/.test(e)) ? g.evidence : []
    );
    const cited = logs.map((g, i) => g.cite ? `${TUNNEL_LOG_CONTAINERS[i]} log: "${g.cite}"` : null)
      .find((x) => x !== null);
    if (evidence.length === 0) return o;
    return {
      ...o,
      summary: cited ? `${o.summary} (${cited})` : o.summary,
      evidence: [...(o.evidence ?? []), ...evidence],
    };
  } catch {
    return o;
  }
}
