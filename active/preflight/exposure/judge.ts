/**
 * PF-EXP's judge: did the throwaway UDP Service of the would-be server side get an address a peer
 * can dial? LoadBalancer: an ingress address within the bounded wait (pending → fail naming the
 * Service and the wait). NodePort: the nodes that can host the gateway, with the address Liqo
 * would advertise (ExternalDNS > ExternalIP > InternalDNS > InternalIP > Hostname, FACTS §2.3);
 * only private addresses are a warning (routable only inside a shared network, PF-UDP tells).
 */
import type { Outcome } from "../../../checks/types.ts";
import { fix, kubectl } from "../../../checks/remediation.ts";
import { isIPv6, isPrivate as isPrivateV4 } from "../../../probes/cidr.ts";
import type { Candidate, Exposure, NodeAddresses, PfSide } from "../model.ts";

/** Liqo's order of preference for a NodePort gateway's advertised address (`pkg/utils/nodeUtils.go`). */
const ADDRESS_ORDER = ["ExternalDNS", "ExternalIP", "InternalDNS", "InternalIP", "Hostname"];

/** The address Liqo would advertise for a node, or null. */
export function advertisedAddress(n: NodeAddresses): { type: string; address: string } | null {
  for (const type of ADDRESS_ORDER) {
    const a = n.addresses.find((x) => x.type === type && x.address !== "");
    if (a) return a;
  }
  return null;
}

/** True for RFC 1918 / CGNAT / link-local addresses and IPv6 ULA / link-local (routable only inside their network). */
export function isPrivate(address: string): boolean {
  if (isIPv6(address)) return /^f[cd]|^fe[89ab]/i.test(address);
  return isPrivateV4(address);
}

/** The addresses a client could dial for one exposure, LoadBalancer first, then one per gateway node. */
export function candidatesOf(e: Exposure, maxNodes = 3): Candidate[] {
  const out: Candidate[] = [];
  for (const a of e.loadBalancer?.addresses ?? []) {
    out.push({ via: "LoadBalancer", address: a, port: e.port });
  }
  if (e.nodePort !== null) {
    for (const n of e.nodes.filter((n) => n.hostsGateway && n.ready).slice(0, maxNodes)) {
      const a = advertisedAddress(n);
      if (a) {
        out.push({
          via: "NodePort",
          address: a.address,
          port: e.nodePort,
          node: n.name,
          addressType: a.type,
        });
      }
    }
  }
  return out;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** One side's verdict: ok (an address a peer can route to), doubtful (private only) or none. */
function sideVerdict(e: Exposure): { level: "ok" | "private" | "none"; line: string } {
  const where = `${e.side} ${e.cluster}: Service ${e.service} (${e.serviceType}, UDP ${e.port})`;
  if (e.error) return { level: "none", line: `${where}: ${e.error}` };
  const hosts = e.nodes.filter((n) => n.hostsGateway && n.ready);
  const nodeText = hosts.map((n) => {
    const a = advertisedAddress(n);
    return `${n.name} ${a ? `${a.address} (${a.type})` : "(no address)"}`;
  }).join(", ");
  const nodePortLine = e.nodePort === null
    ? "no NodePort allocated"
    : hosts.length === 0
    ? `NodePort ${e.nodePort}: no Ready node can host the gateway`
    : `NodePort ${e.nodePort} on ${nodeText}`;
  if (e.serviceType === "LoadBalancer") {
    const lb = e.loadBalancer;
    if (lb && lb.addresses.length > 0) {
      const priv = lb.addresses.every(isPrivate);
      return {
        level: priv ? "private" : "ok",
        line: `${where}: LoadBalancer address ${lb.addresses.join(", ")} after ${seconds(lb.waitedMs)}${
          priv ? " (private: routable only inside its network)" : ""
        }; ${nodePortLine}`,
      };
    }
    return {
      level: "none",
      line: `${where}: no LoadBalancer address within ${
        seconds(lb?.boundMs ?? 0)
      } (pending); ${nodePortLine}`,
    };
  }
  const addresses = hosts.map(advertisedAddress).filter((a) => a !== null);
  if (e.nodePort === null || addresses.length === 0) {
    return { level: "none", line: `${where}: ${nodePortLine}` };
  }
  const routable = addresses.some((a) => !isPrivate(a.address));
  return {
    level: routable ? "ok" : "private",
    line: `${where}: ${nodePortLine}${
      routable ? "" : " (private addresses only: routable only inside a shared network)"
    }`,
  };
}

/** PF-EXP's verdict over the sides tried (`preferred`: the side the user fixed, or Liqo's default, the provider). */
export function judgeExposure(exposures: readonly Exposure[], preferred: PfSide): Outcome {
  if (exposures.length === 0) return { status: "unknown", summary: "no Service was created" };
  const judged = exposures.map((e) => ({ e, v: sideVerdict(e) }));
  const evidence = judged.map((j) => j.v.line);
  const main = judged.find((j) => j.e.side === preferred) ?? judged[0];
  const other = judged.find((j) => j !== main);
  const pending = judged.filter((j) => j.v.level === "none" && j.e.serviceType === "LoadBalancer");
  const remediation = pending.length > 0
    ? fix(
      "no LoadBalancer controller answered for a UDP Service: install one (MetalLB, the cloud's), " +
        "or expose the gateway as a NodePort (liqoctl peer --gw-server-service-type NodePort)",
      ...pending.map((j) =>
        kubectl(
          j.e.side === "consumer" ? "local" : "remote",
          "get",
          "events",
          "-A",
          "--field-selector",
          "involvedObject.kind=Service",
        )
      ),
    )
    : undefined;
  if (main.v.level === "ok") {
    return { status: "pass", summary: main.v.line, evidence };
  }
  if (main.v.level === "private") {
    return {
      status: "warn",
      summary: `${main.v.line}: a peer outside that network cannot reach it (PF-UDP tells)`,
      evidence,
    };
  }
  if (other && other.v.level !== "none") {
    const lb = other.e.loadBalancer?.addresses ?? [];
    const can = lb.length
      ? `a LoadBalancer address (${lb.join(", ")})`
      : `NodePort ${other.e.nodePort} on its nodes`;
    return {
      status: "warn",
      summary: `${main.v.line}; the ${other.e.side} side gets ${can} (PF-DIR)`,
      evidence,
      ...(remediation ? { remediation } : {}),
    };
  }
  return { status: "fail", summary: main.v.line, evidence, ...(remediation ? { remediation } : {}) };
}
