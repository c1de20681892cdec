/**
 * TUN-03: traffic flows both ways through the tunnel — the rx/tx counters of two `wg show` samples
 * move in both directions.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { rates, TUNNEL_PREFIX } from "../../probes/wireguard.ts";
import { pingDisabled } from "../../liqo/args.ts";
import { gatewayDeployment, serverOf } from "../common/gateway.ts";
import { GW_KINDS, liveTunnels, peerStories, shortKey, wgCommand } from "./_story.ts";
import { fix, kubectlIn } from "../remediation.ts";

function rateText(n: number | null): string {
  return n === null ? "?" : `${n.toFixed(n < 10 ? 1 : 0)} B/s`;
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const live = await liveTunnels(ctx, "traffic unknown", "counters");
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
  // Under a fresh handshake (TUN-02 passed) the direction of the traffic is this check's story.
  const stories = peerStories(ev, live.tunnels, gw);
  const oneWay = stories.find((st) => st.kind === "outbound-only" || st.kind === "inbound-only") ??
    // A stale handshake is TUN-02's story (and blocks this check in a run); judged alone, still one-way.
    stories.find((st) => st.rate && !st.rate.reset && st.rate.rxDelta === 0 && st.rate.txDelta > 0);
  if (oneWay && oneWay.kind !== "inbound-only") {
    return {
      status: "fail",
      summary: oneWay.kind === "outbound-only"
        ? oneWay.headline
        : "one-way traffic, outbound only: packets leave but nothing comes back (the return path drops UDP)",
      evidence,
      remediation: fix(
        "the peer's replies do not come back: capture on this gateway while it sends",
        kubectlIn(
          "local",
          ev.namespace,
          ...["exec", ev.pod, "-c", "wireguard", "--", "tcpdump", "-ni", "any", "udp", "port"],
          String(serverOf(gw)?.status?.endpoint?.port ?? gw.object.spec?.endpoint?.port ?? 51840),
          ...["-c", "20"],
        ),
        "then on the peer's gateway: do its replies leave? A stateful firewall or NAT on the way drops them",
      ),
    };
  }
  if (oneWay?.kind === "inbound-only") {
    return {
      status: "fail",
      summary: oneWay.headline,
      evidence,
      remediation: fix(
        kubectlIn("local", ev.namespace, "logs", ev.pod, "-c", "gateway"),
        wgCommand(ev.namespace, ev.pod),
        pingOff
          ? "the pinger is off (--ping-enabled=false): only application traffic would make tx move"
          : "the pinger sends every 2 s: tx frozen means this gateway does not send into the tunnel",
      ),
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
      remediation: fix(
        kubectlIn("local", ev.namespace, "logs", ev.pod, "-c", "gateway"),
        wgCommand(ev.namespace, ev.pod),
      ),
    };
  }
  return {
    status: "pass",
    summary: `counters move: rx ${rateText(rs[0].rxPerSec)}, tx ${rateText(rs[0].txPerSec)}`,
    evidence,
  };
}

export const TUN_03: CheckDef = {
  id: "TUN-03",
  title: "Tunnel traffic flows both ways",
  layer: "tunnel",
  needs: ["TUN-02"],
  scope: "single",
  perPeer: true,
  reads: [...GW_KINDS, "pods", "deployments"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads:
      "Two `wg show all dump` samples --sample-interval apart: rx/tx transfer counters of each tunnel peer.",
    decides:
      "Runs under a fresh handshake (needs TUN-02, which tells the never-worked and stopped-receiving " +
      "stories). fail: one-way traffic — outbound only (tx rises, rx frozen: the replies do not come back, and " +
      "the handshake age bounds when it broke) or inbound only (rx rises, tx frozen: this gateway does not " +
      "answer) — or both flat (the 2 s in-tunnel pinger should always move them); pass with the rates. " +
      "unknown: only one sample, counters reset, both flat with the pinger off, or exec impossible.",
    fixes:
      "Outbound only: the return path drops UDP (firewall/NAT on the peer side); capture with tcpdump in the " +
      "gateway pod. Inbound only: the gateway's routing/firewall or its pinger; read the gateway container logs.",
  },
  hops: ["wireguard"],
  hubReads: ["wireguard", "logs", "resolve"],
  run,
};
