/**
 * TUN-02: every WireGuard peer of the liqo-tunnel interface has a recent handshake (live
 * `wg show all dump` in the active gateway pod).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { handshakeAgeSeconds } from "../../probes/wireguard.ts";
import {
  GW_KINDS,
  handshakeFailure,
  liveTunnels,
  neverWorkedEvidence,
  neverWorkedFix,
  peerStories,
  shortKey,
  stoppedFix,
  withTunnelLogs,
} from "./_story.ts";
import { fix, kubectlIn } from "../remediation.ts";
import { HANDSHAKE_MAX_AGE_S } from "../common/tunnel_state.ts";

async function run(ctx: CheckContext): Promise<Outcome> {
  return withTunnelLogs(ctx, await judge(ctx));
}

async function judge(ctx: CheckContext): Promise<Outcome> {
  const live = await liveTunnels(ctx, "handshake unknown", "handshake");
  if ("outcome" in live) return live.outcome;
  const { ev, tunnels, gw } = live;
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
        }, rx ${p.rxBytes ?? "?"} B, tx ${p.txBytes ?? "?"} B`,
      );
    }
  }
  const stories = peerStories(ev, tunnels, gw);
  for (const st of stories) {
    if (st.rate) {
      evidence.push(
        `${st.interface} peer ${
          shortKey(st.publicKey)
        }: rx +${st.rate.rxDelta} B, tx +${st.rate.txDelta} B in ${
          st.rate.seconds.toFixed(1)
        }s between the two samples`,
      );
    }
  }
  const failing = stories.filter((st) => handshakeFailure(st.kind));
  bad.push(...failing.map((st) => (tunnels.length > 1 ? `${st.interface}: ${st.headline}` : st.headline)));
  evidence.push(`via ${ev.via}: kubectl -n ${ev.namespace} exec ${ev.pod} -c wireguard -- wg show all dump`);
  if (bad.length > 0) {
    const never = failing.find((st) => st.kind === "never");
    const stopped = failing.find((st) => st.kind !== "never");
    if (never) {
      const peers = tunnels.flatMap((i) => i.peers.filter((p) => p.publicKey === never.publicKey));
      evidence.push(...await neverWorkedEvidence(ctx, gw, peers));
    }
    const fixes = [
      ...(never ? neverWorkedFix(gw, ev.namespace, ev.pod) : []),
      ...(stopped?.kind === "stopped" ? stoppedFix(ctx, gw, ev.namespace, ev.pod, stopped) : []),
      ...(stopped && stopped.kind !== "stopped"
        ? fix(
          kubectlIn("local", ev.namespace, "logs", ev.pod, "-c", "wireguard"),
          kubectlIn("local", ev.namespace, "logs", ev.pod, "-c", "gateway"),
          "a stale handshake: the peer's gateway is down, its endpoint changed (GW-03/GW-04) or UDP is now blocked",
        )
        : []),
    ];
    return {
      status: "fail",
      summary: bad.length === 1 ? bad[0] : `WireGuard handshake stale or missing: ${bad.join("; ")}`,
      evidence,
      remediation: fixes.length > 0 ? fixes : fix(
        kubectlIn("local", ev.namespace, "logs", ev.pod, "-c", "wireguard"),
        "no handshake: UDP toward the server endpoint blocked (GW-05) or keys do not match (TUN-04)",
      ),
    };
  }
  const ages = tunnels.flatMap((i) => i.peers.map((p) => handshakeAgeSeconds(p, nowMs) ?? 0));
  return { status: "pass", summary: `latest handshake ${Math.max(...ages)}s ago`, evidence };
}

export const TUN_02: CheckDef = {
  id: "TUN-02",
  title: "WireGuard handshake fresh",
  layer: "tunnel",
  needs: ["GW-01", "GW-03", "TUN-04"],
  scope: "single",
  perPeer: true,
  reads: [...GW_KINDS, "pods"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads:
      "On a failure, the recent log of the active gateway pod's wireguard and gateway containers (bounded " +
      "GET pods/log, the previous instance after a restart): the error lines (endpoint resolution, handshake, " +
      "key and permission errors) are cited in the summary and listed as evidence. " +
      "`wg show all dump` exec'd in container wireguard of the active gateway pod (liqo-tunnel* interfaces), " +
      "twice --sample-interval apart: each peer's latest handshake and rx/tx counters; the endpoint the " +
      "gateway dials (GatewayClient) or advertises (GatewayServer), resolved from here when it is a hostname " +
      "(network probes on only).",
    decides:
      "fail, telling which story: never worked (no handshake ever, usually rx 0: the endpoint, the UDP path or " +
      `the keys); worked then stopped (latest handshake older than ${HANDSHAKE_MAX_AGE_S} s, rx frozen while ` +
      "tx still rises: the return path — a NAT mapping or a stateful firewall — expired; says how long ago from " +
      "the handshake age); went silent (stale handshake, nothing moves); a stale handshake with one sample; a " +
      "tunnel interface without a peer, or no tunnel interface. One-way traffic under a fresh handshake is " +
      "TUN-03's. unknown: exec not allowed (the missing pods/exec verb is named) or wg output unusable (the " +
      "command to run by hand is given).",
    fixes:
      "Never worked: endpoint (GW-03/GW-04, the hostname resolves in the pod), UDP path (GW-05 with --udp-precise, which needs --allow-ffi; nc -u proves nothing against WireGuard), keys (TUN-04). " +
      "Stopped receiving: a NAT/stateful firewall forgot the flow — Liqo sets no persistent keepalive and " +
      "relies on its 2 s pinger (keep it on, or `wg set … persistent-keepalive 25`), check UDP idle timeouts " +
      "and public address changes, restart the client gateway.",
  },
  hops: ["wireguard"],
  hubReads: ["wireguard", "logs", "resolve"],
  run,
};
