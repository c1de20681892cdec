/**
 * PROBE-TRACE, the judge: hop localisation by nonce. One datagram carrying `ff-trace-<nonce>` goes
 * from a probe pod to a pod across the peering while tcpdump listens on four interfaces along the
 * way, and the WireGuard transfer counters are read on both gateways before and after:
 *
 *   source pod → [1] source gateway's Geneve interface toward the source node
 *              → [2] source gateway's liqo-tunnel → (WireGuard over the underlay)
 *              → [3] destination gateway's liqo-tunnel
 *              → [4] destination gateway's Geneve interface toward the destination node
 *              → destination pod, whose echo comes back the same way.
 *
 * The first hop whose capture lacks the nonce names the fault: node→gateway Geneve, gateway
 * routing, WireGuard/underlay, remote gateway routing, remote node/CNI/policy (seen at [4], no
 * echo). When the request made it all the way and the echo did not, the echo is followed back the
 * same way. A hop whose capture could not run is unknown, and the fault then spans it. Pure:
 * measurement in, Outcome out (active/trace.ts measures).
 */
import {
  fix,
  flyingfish,
  kubectl,
  kubectlIn,
  type RemediationStep,
  type RunsOn,
  step,
  unique,
} from "../../checks/remediation.ts";
import type { Outcome } from "../../checks/types.ts";
import type { Side } from "../model.ts";
import type { CaptureReading } from "./_capture.ts";
import { REMOTE_ID_LABEL } from "../../liqo/names.ts";

/** The four capture points, in the order a request crosses them. */
export const TRACE_HOPS = ["src-geneve", "src-tunnel", "dst-tunnel", "dst-geneve"] as const;

/** One capture point. */
export type TraceHopId = typeof TRACE_HOPS[number];

/** One capture point and what it saw. */
export interface HopCapture {
  hop: TraceHopId;
  /** Cluster the interface lives on. */
  cluster: string;
  /** The gateway pod captured in ("ns/name"), null when none was found. */
  pod: string | null;
  /** The interface captured on, null when it could not be named. */
  iface: string | null;
  /** For Geneve hops: the node the interface leads to. */
  node?: string;
  capture: CaptureReading;
}

/** WireGuard transfer counters of one gateway's liqo-tunnel peer, before and after the datagram. */
export type WgDelta =
  | { ok: true; cluster: string; rx: number; tx: number }
  | { ok: false; cluster: string; reason: string };

/** What the source pod's netexec `/dial` answered. */
export type DialResult =
  | { ok: true; echoed: boolean; detail: string }
  | { ok: false; reason: string };

/** One direction of the trace. */
export interface TraceDirection {
  /** e.g. "rome → milan". */
  title: string;
  /** Source probe pod, its node and cluster (`side`: which cluster of the run; local when absent). */
  source: { pod: string; node: string; cluster: string; side?: Side };
  /** Destination probe pod, its node and cluster (`side`: remote when absent), and the address dialled. */
  destination: { pod: string; node: string; cluster: string; side?: Side; address: string | null };
  nonce: string;
  /** Why this direction could not run at all (no address, no gateway pod): unknown. */
  skipped: string | null;
  /** The captures in {@link TRACE_HOPS} order. */
  hops: HopCapture[];
  srcWg: WgDelta;
  dstWg: WgDelta;
  dial: DialResult;
  /**
   * The control: a TCP connect from the same source pod to the same address, sent with the
   * datagram. "crossed" means the pods, nodes, Geneve paths, gateways and tunnel all carry TCP, so
   * a datagram lost on the way is a filter on UDP, not keys, AllowedIPs or routes.
   */
  tcp?: "crossed" | "failed" | "unknown";
}

/** Everything PROBE-TRACE measured. */
export interface TraceMeasurement {
  peer: string;
  /** Why nothing could be traced (no probe pods, no gateway): unknown. */
  missing: string | null;
  directions: TraceDirection[];
  /** Run-level notes, e.g. "offload mode: only local → remote (no access to the remote gateway)". */
  notes: string[];
}

/** The fault positions, in path order (request, then the echo's way back). */
export type TraceFault =
  | "node-geneve"
  | "gateway-routing"
  | "wireguard"
  | "remote-gateway-routing"
  | "remote-node"
  | "reply-remote-gateway"
  | "reply-wireguard"
  | "reply-gateway-routing"
  | "reply-node-geneve";

/** What one direction's trace says. */
export interface TraceReading {
  status: "pass" | "fail" | "unknown";
  /** The fault positions the first missing hop points at (several when unknown hops precede it). */
  faults: TraceFault[];
  /** One sentence: where the datagram was last seen and what that means. */
  text: string;
}

type Seen = "seen" | "not-seen" | "unknown";

function seenAt(h: HopCapture, what: "request" | "reply"): Seen {
  if (h.capture.kind === "unavailable") return "unknown";
  return h.capture[what] ? "seen" : "not-seen";
}

function hopName(h: HopCapture): string {
  const where = h.hop.startsWith("src") ? "source" : "destination";
  const what = h.hop.endsWith("geneve")
    ? `gateway's Geneve interface${h.iface ? ` ${h.iface}` : ""}${h.node ? ` toward ${h.node}` : ""}`
    : `gateway's ${h.iface ?? "liqo-tunnel"}`;
  return `${h.cluster} ${where} ${what}`;
}

/** The fault a missing request at hop i names (the segment leading into it). */
const REQUEST_FAULT: Record<TraceHopId, TraceFault> = {
  "src-geneve": "node-geneve",
  "src-tunnel": "gateway-routing",
  "dst-tunnel": "wireguard",
  "dst-geneve": "remote-gateway-routing",
};

/** The echo's way back: capture points in the order it crosses them, and the fault each names. */
const REPLY_ORDER: readonly { hop: TraceHopId; fault: TraceFault }[] = [
  { hop: "dst-tunnel", fault: "reply-remote-gateway" },
  { hop: "src-tunnel", fault: "reply-wireguard" },
  { hop: "src-geneve", fault: "reply-gateway-routing" },
];

/** A phrase per fault for the summary. */
export const FAULT_TEXT: Readonly<Record<TraceFault, string>> = {
  "node-geneve": "node → gateway Geneve (the source node's fabric path to its gateway)",
  "gateway-routing": "gateway routing (the source gateway did not route it into the tunnel)",
  "wireguard": "WireGuard / underlay (it left one gateway encrypted and never came out of the other)",
  "remote-gateway-routing":
    "remote gateway routing (it came out of the tunnel and was not sent toward the node)",
  "remote-node":
    "remote node / CNI / NetworkPolicy (it reached the destination node's Geneve and got no answer)",
  "reply-remote-gateway":
    "the echo's way back: the destination gateway did not route the answer into the tunnel",
  "reply-wireguard": "the echo's way back: WireGuard / underlay toward the source cluster",
  "reply-gateway-routing":
    "the echo's way back: the source gateway did not send the answer toward the source node",
  "reply-node-geneve": "the echo's way back: the source node's Geneve / CNI path to the pod",
};

/**
 * Localises one direction. The echo is the ground truth: when it came back, the direction passes
 * (a capture that missed the nonce is then the capture's fault, noted). Otherwise the first hop
 * whose capture lacks the request names the fault; unknown hops before it widen the fault to every
 * segment since the last hop that saw it. Request seen everywhere → the echo is followed back.
 */
export function localise(d: TraceDirection): TraceReading {
  if (d.skipped) return { status: "unknown", faults: [], text: d.skipped };
  if (!d.dial.ok) {
    return { status: "unknown", faults: [], text: `the datagram could not be sent: ${d.dial.reason}` };
  }
  const byHop = new Map(d.hops.map((h) => [h.hop, h]));
  if (d.dial.echoed) {
    const missed = d.hops.filter((h) => seenAt(h, "request") === "not-seen").map(hopName);
    return {
      status: "pass",
      faults: [],
      text: `the echo came back${
        missed.length
          ? ` (the captures on ${missed.join(", ")} did not see it: wrong interface, or started late)`
          : ""
      }`,
    };
  }
  // The request's way.
  let pending: TraceFault[] = [];
  let lastSeen = "the source pod";
  for (const id of TRACE_HOPS) {
    const h = byHop.get(id);
    const s: Seen = h ? seenAt(h, "request") : "unknown";
    if (s === "seen") {
      pending = [];
      lastSeen = hopName(h!);
      continue;
    }
    pending.push(REQUEST_FAULT[id]);
    if (s === "not-seen") {
      const blind = pending.length > 1 ? ` (hops in between could not be captured)` : "";
      return {
        status: "fail",
        faults: pending,
        text: `last seen at ${lastSeen}, not at ${hopName(h!)}${blind}`,
      };
    }
  }
  if (pending.length > 0) {
    // No hop said "not seen", but the last ones could not be captured.
    return {
      status: "fail",
      faults: [...pending, "remote-node"],
      text: `no echo; last seen at ${lastSeen}, the hops after it could not be captured`,
    };
  }
  // The request reached the destination gateway's Geneve interface toward the destination node.
  const dstGeneve = byHop.get("dst-geneve")!;
  if (seenAt(dstGeneve, "reply") !== "seen") {
    return {
      status: "fail",
      faults: ["remote-node"],
      text: `reached ${hopName(dstGeneve)} and no echo came back from the destination node`,
    };
  }
  let replyPending: TraceFault[] = [];
  let replyLast = hopName(dstGeneve);
  for (const { hop, fault } of REPLY_ORDER) {
    const h = byHop.get(hop);
    const s: Seen = h ? seenAt(h, "reply") : "unknown";
    if (s === "seen") {
      replyPending = [];
      replyLast = hopName(h!);
      continue;
    }
    replyPending.push(fault);
    if (s === "not-seen") {
      return {
        status: "fail",
        faults: replyPending,
        text: `the echo left the destination node; last seen at ${replyLast}, not at ${hopName(h!)}`,
      };
    }
  }
  return {
    status: "fail",
    faults: [...replyPending, "reply-node-geneve"],
    text: `the echo came back as far as ${replyLast} and never reached the source pod`,
  };
}

function seenWord(s: Seen, reason?: string): string {
  return s === "seen" ? "seen" : s === "not-seen" ? "NOT seen" : `unknown (${reason ?? "not captured"})`;
}

function wgLine(w: WgDelta): string {
  return w.ok
    ? `${w.cluster} WireGuard liqo-tunnel counters during the trace (all tunnel traffic): tx +${w.tx} B, rx +${w.rx} B`
    : `${w.cluster} WireGuard counters: unknown (${w.reason})`;
}

/** "rome → milan (rome-worker-1 → milan-worker-2)": the direction and the pair of nodes. */
export function pairLabel(d: TraceDirection): string {
  return `${d.title} (${d.source.node} → ${d.destination.node})`;
}

/**
 * Evidence lines for one traced pair: each hop seen / not seen, the counters, the echo. A pair
 * whose echo came back gets one line (how many capture points saw it).
 */
export function directionEvidence(d: TraceDirection): string[] {
  const label = pairLabel(d);
  const head = `${label}: ${d.source.pod} → ${d.destination.pod} at ${
    d.destination.address ?? "?"
  }, nonce ff-trace-${d.nonce}`;
  if (d.skipped) return [head, `${label}: not traced — ${d.skipped}`];
  if (d.dial.ok && d.dial.echoed) {
    const seen = d.hops.filter((h) => seenAt(h, "request") === "seen").length;
    return [`${head}: echo received, seen at ${seen}/${d.hops.length} capture points`];
  }
  const lines = [head];
  for (const h of d.hops) {
    const reason = h.capture.kind === "unavailable" ? h.capture.reason : undefined;
    const req = seenWord(seenAt(h, "request"), reason);
    const rep = h.capture.kind === "captured" ? (h.capture.reply ? "; echo seen" : "") : "";
    lines.push(`${label}: ${hopName(h)}: ${req}${rep}${h.pod ? ` [${h.pod}]` : ""}`);
  }
  lines.push(`${label}: ${wgLine(d.srcWg)}`, `${label}: ${wgLine(d.dstWg)}`);
  lines.push(
    `${label}: ${
      d.dial.ok
        ? (d.dial.echoed ? "echo received" : `no echo (${d.dial.detail})`)
        : `not sent (${d.dial.reason})`
    }`,
  );
  return lines;
}

/** What the WireGuard counters add to a WireGuard fault. */
function wgHint(d: TraceDirection, reply: boolean): string {
  const [from, to] = reply ? [d.dstWg, d.srcWg] : [d.srcWg, d.dstWg];
  if (!from.ok || !to.ok) return "";
  if (from.tx > 0 && to.rx === 0) {
    return ` — during the trace ${from.cluster}'s WireGuard sent ${from.tx} B and ${to.cluster}'s received nothing: the underlay drops WireGuard's UDP, or the endpoint is wrong`;
  }
  if (to.rx > 0) {
    return ` — ${to.cluster} did receive encrypted traffic (${to.rx} B) but not this datagram: keys or AllowedIPs (TUN-04)`;
  }
  return "";
}

/** The probe pods' UDP port (active/commands.ts PROBE_PORTS.udp), for the filter's description. */
const UDP_PORT = 8081;

/** Where to look when TCP crossed the pair and UDP did not: what treats UDP differently. */
function udpFilterFix(d: TraceDirection): RemediationStep[] {
  const srcOn = d.source.side ?? "local";
  const dstOn = d.destination.side ?? "remote";
  return fix(
    `TCP crosses ${d.source.cluster} → ${d.destination.cluster} and UDP does not: NetworkPolicies, the gateways' firewall rules and NAT for UDP`,
    step(kubectl(dstOn, "get", "networkpolicies", "-A"), `on ${d.destination.cluster}`),
    step(
      kubectl(dstOn, "get", "firewallconfigurations.networking.liqo.io", "-A"),
      `on ${d.destination.cluster}`,
    ),
    step(kubectl(srcOn, "get", "firewallconfigurations.networking.liqo.io", "-A"), `on ${d.source.cluster}`),
  );
}

/** Remediation lines per fault. */
function remediationFor(f: TraceFault, d: TraceDirection): RemediationStep[] {
  const src = d.source.cluster;
  const dst = d.destination.cluster;
  const srcOn = d.source.side ?? "local";
  const dstOn = d.destination.side ?? "remote";
  const routes = (on: RunsOn) =>
    kubectl(on, "get", "routeconfigurations,firewallconfigurations", "-A", "-l", REMOTE_ID_LABEL);
  switch (f) {
    case "node-geneve":
    case "reply-node-geneve":
      return fix(
        `${src}: the Geneve path between node ${d.source.node} and the gateway (UDP 6091 on the pod network, liqo-fabric on the node)`,
        step(
          kubectl(srcOn, "get", "internalnode", d.source.node, "-o", "yaml"),
          "spec.interface, status.nodeIP",
        ),
        kubectlIn(
          srcOn,
          "liqo",
          ...["get", "pods", "-l", "app.kubernetes.io/name=fabric", "-o", "wide"],
          ...["--field-selector", `spec.nodeName=${d.source.node}`],
        ),
      );
    case "gateway-routing":
    case "reply-gateway-routing":
      return fix(`${src}: the gateway's routes and NAT toward the peer`, routes(srcOn));
    case "wireguard":
    case "reply-wireguard":
      return fix(
        `the WireGuard tunnel between ${src} and ${dst}: endpoint reachable over UDP, keys matching`,
        step(flyingfish("check", "--remote-kubeconfig", "<kubeconfig>"), "TUN-01..04, GW-05"),
      );
    case "remote-gateway-routing":
    case "reply-remote-gateway":
      return fix(
        `${dst}: the gateway's routes and NAT toward ${d.destination.node}`,
        step(routes(dstOn), `on ${dst}`),
      );
    case "remote-node":
      return fix(
        `${dst}: node ${d.destination.node}'s Geneve path from the gateway, its CNI, and NetworkPolicies in front of the pod`,
        step(kubectl(dstOn, "get", "internalnode", d.destination.node, "-o", "yaml"), `on ${dst}`),
        step(
          kubectl(dstOn, "get", "networkpolicies", "-A"),
          `on ${dst}: anything selecting ${d.destination.pod}'s namespace?`,
        ),
      );
  }
}

/**
 * Judges PROBE-TRACE: pass when every traced pair's echo came back; fail naming, per direction,
 * the first hop without the nonce and the pairs it concerns; unknown when nothing could be traced.
 */
export function judgeTrace(m: TraceMeasurement): Outcome {
  if (m.missing) return { status: "unknown", summary: m.missing, evidence: m.notes };
  if (m.directions.length === 0) {
    return { status: "unknown", summary: "nothing was traced", evidence: m.notes };
  }
  const evidence: string[] = [];
  const remediation: RemediationStep[] = [];
  // Failed pairs grouped by direction and fault: one finding per group.
  const groups = new Map<string, { title: string; faults: TraceFault[]; pairs: TraceDirection[] }>();
  let passed = 0;
  let failed = 0;
  for (const d of m.directions) {
    const r = localise(d);
    evidence.push(...directionEvidence(d));
    if (r.status === "pass") {
      passed++;
      if (r.text !== "the echo came back") evidence.push(`${pairLabel(d)}: ${r.text}`);
    } else if (r.status === "fail") {
      failed++;
      evidence.push(`${pairLabel(d)}: ${r.text}`);
      if (d.tcp) evidence.push(`${pairLabel(d)}: TCP control to ${d.destination.address}: ${d.tcp}`);
      const key = `${d.title}|${r.faults.join(",")}`;
      const g = groups.get(key) ?? { title: d.title, faults: r.faults, pairs: [] };
      g.pairs.push(d);
      groups.set(key, g);
      if (d.tcp === "crossed") remediation.push(...udpFilterFix(d));
      else for (const f of r.faults) remediation.push(...remediationFor(f, d));
    } else {
      evidence.push(`${pairLabel(d)}: not localised — ${r.text}`);
    }
  }
  evidence.push(...m.notes);
  if (failed > 0) {
    const findings = [...groups.values()].map((g) => {
      const inDirection = m.directions.filter((d) => d.title === g.title).length;
      const which = g.pairs.length === inDirection && inDirection > 1
        ? `all ${inDirection} pairs`
        : g.pairs.map((d) => `${d.source.node} → ${d.destination.node}`).join(", ");
      const d = g.pairs[0];
      if (g.pairs.every((p) => p.tcp === "crossed")) {
        return `${g.title} (${which}): the UDP datagram stopped at ${
          g.faults.map((f) => FAULT_TEXT[f]).join(" or ")
        } while TCP crossed the same pair: a filter on UDP there (a NetworkPolicy, a firewall or NAT rule matching UDP ${UDP_PORT}), not the tunnel's keys, AllowedIPs or routes`;
      }
      const wg = g.faults.includes("wireguard")
        ? wgHint(d, false)
        : g.faults.includes("reply-wireguard")
        ? wgHint(d, true)
        : "";
      return `${g.title} (${which}): ${g.faults.map((f) => FAULT_TEXT[f]).join(" or ")}${wg}`;
    });
    return {
      status: "fail",
      summary: findings.join("; "),
      evidence,
      remediation: unique(remediation),
    };
  }
  const total = m.directions.length;
  const headings = new Set(m.directions.map((d) => d.title)).size;
  if (passed === total) {
    return {
      status: "pass",
      summary: `the nonce'd datagram came back for ${total === 1 ? "the pair" : `all ${total} pairs`} traced${
        headings > 1 ? ", both directions" : m.notes.length ? ` (${m.notes[0]})` : ""
      }`,
      evidence,
    };
  }
  return {
    status: "unknown",
    summary: `not every pair could be traced${passed ? ` (${passed} of ${total} passed)` : ""}`,
    evidence,
  };
}
