/**
 * PF-CLK: the nodes' clocks on both sides agree with this host's: the Identity and Tenant
 * certificates `liqoctl peer` exchanges carry validity times, so a clock off by minutes refuses
 * them. Read from each Ready node's last heartbeat (the time its kubelet wrote, by its own clock),
 * as linkerd's `check --pre` does. The kubelet refreshes that heartbeat at least every 5 minutes
 * (nodeStatusReportFrequency), so a heartbeat in the future measures a clock ahead exactly, while
 * an old one can only say "behind, or not posting".
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { conditionOf, isVirtualNode } from "../../liqo/lookups.ts";
import { fix } from "../remediation.ts";
import { named, noProvider, sidesOf } from "./_shared.ts";

/** Above this a node's clock is worth a warning, above {@link FAIL_MS} a failure. */
export const WARN_MS = 30_000;
export const FAIL_MS = 5 * 60_000;
/** The longest a healthy kubelet leaves its heartbeat (nodeStatusReportFrequency 5m) plus slack. */
const STALE_MS = 5 * 60_000 + 40_000;

function secs(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  return s >= 120 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}

function run(ctx: CheckContext): Outcome {
  const sides = sidesOf(ctx);
  if (typeof sides === "string") return noProvider(sides);
  const fails: string[] = [];
  const warns: string[] = [];
  const evidence: string[] = [];
  let judged = 0;
  for (const side of sides) {
    const now = side.view.now.getTime();
    for (const n of side.view.inv.items("nodes").filter((x) => !isVirtualNode(x))) {
      const ready = conditionOf(n, "Ready");
      const beat = Date.parse(String(ready?.lastHeartbeatTime ?? ""));
      const where = `${named(side)} node ${n.metadata.name}`;
      if (ready?.status !== "True" || Number.isNaN(beat)) {
        evidence.push(`${where}: not Ready or no heartbeat, not judged`);
        continue;
      }
      judged++;
      const ahead = beat - now;
      if (ahead > FAIL_MS) {
        fails.push(`${where}: clock ${secs(ahead)} ahead of this host (heartbeat in the future)`);
      } else if (ahead > WARN_MS) warns.push(`${where}: clock ${secs(ahead)} ahead of this host`);
      else if (-ahead > STALE_MS) {
        warns.push(
          `${where}: last heartbeat ${secs(ahead)} old — its clock is behind by at least ${
            secs(-ahead - 5 * 60_000)
          }, or its kubelet stopped posting status`,
        );
      } else {evidence.push(
          `${where}: heartbeat ${ahead >= 0 ? `${secs(ahead)} ahead` : `${secs(ahead)} ago`}`,
        );}
    }
  }
  const remediation = fix("Synchronise the node clocks (NTP/chrony) on the nodes named, and this host's.");
  if (fails.length) {
    return {
      status: "fail",
      summary: fails.join("; "),
      evidence: [...fails, ...warns, ...evidence],
      remediation,
    };
  }
  if (judged === 0) {
    return { status: "unknown", summary: "no Ready node with a heartbeat on either side", evidence };
  }
  if (warns.length) {
    return { status: "warn", summary: warns.join("; "), evidence: [...warns, ...evidence], remediation };
  }
  return { status: "pass", summary: `${judged} node clock(s) within 30s of this host`, evidence };
}

export const PF_CLK: CheckDef = {
  id: "PF-CLK",
  title: "Node clocks agree (certificates depend on it)",
  layer: "preflight",
  needs: ["PF-ID"],
  runsIfUnknown: ["PF-ID"],
  scope: "dual",
  perPeer: false,
  reads: ["nodes"],
  explain: {
    reads:
      "The Ready condition's lastHeartbeatTime of every non-virtual node of both clusters, against this host's clock.",
    decides:
      "warn when a node's clock is more than 30s ahead, fail above 5 min; a heartbeat older than 5m40s (the " +
      "kubelet refreshes it at least every 5 min) warns: behind, or not posting; unknown when no node can be judged.",
    fixes: "Synchronise the clocks (NTP, chrony) of the nodes named and of this host.",
  },
  hops: [],
  run,
};
