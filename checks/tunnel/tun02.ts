/**
 * TUN-02: every WireGuard peer of the liqo-tunnel interface has a recent handshake (live
 * `wg show all dump` in the active gateway pod).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { formatAge } from "../../liqo/lookups.ts";
import { handshakeAgeSeconds } from "../../probes/wireguard.ts";
import { GW_KINDS, liveTunnels, shortKey, wgCommand } from "./shared.ts";
import { kubectlIn } from "../common/commands.ts";

/** A WireGuard handshake older than this means the tunnel is down (WireGuard rekeys every 2 min). */
const HANDSHAKE_MAX_AGE_S = 180;

async function run(ctx: CheckContext): Promise<Outcome> {
  const live = await liveTunnels(ctx, "handshake unknown", "handshake");
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
      remediation: `${kubectlIn(ev.namespace)} logs ${ev.pod} -c wireguard\n` +
        `# no handshake: UDP toward the server endpoint blocked (GW-05) or keys do not match (TUN-04)`,
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
  explain: {
    reads:
      "`wg show all dump` exec'd in container wireguard of the active gateway pod (liqo-tunnel* interfaces).",
    decides:
      `fail: a peer without any handshake, or a latest handshake older than ${HANDSHAKE_MAX_AGE_S} s, or no ` +
      "tunnel interface. unknown: exec not allowed or wg output unusable (the command to run by hand is given).",
    fixes: "No handshake: UDP blocked toward the server endpoint or mismatched keys.",
  },
  hops: ["wireguard"],
  run,
};
