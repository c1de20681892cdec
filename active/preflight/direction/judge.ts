/**
 * PF-DIR's judge: from PF-UDP's directions, where the gateway server should live and how it is
 * exposed — the facts the verdict's `liqoctl peer` line is built from (checks/facts.ts
 * PreflightPathFacts). Liqo's default (the server on the provider, a LoadBalancer) wins when it
 * works; then the server on the consumer (`--gw-server-service-location Consumer`, Liqo's
 * docs/advanced/nat.md option A); then a NodePort; then a port mapping the user named
 * (`--gw-client-address/--gw-client-port`, option B). No direction: fail, saying what to open where.
 */
import type { Outcome } from "../../../checks/types.ts";
import type { PreflightPathFacts } from "../../../checks/facts.ts";
import { fix, note } from "../../../checks/remediation.ts";
import { type CandidateEcho, type Direction, inconclusive, type PfSide } from "../model.ts";
import { candidateText } from "../model.ts";

/** The order candidates are preferred in, within one direction. */
const VIA_ORDER = ["LoadBalancer", "NodePort", "PortMapping"] as const;

function pickCandidate(d: Direction): CandidateEcho | null {
  for (const via of VIA_ORDER) {
    const e = d.candidates.find((c) => c.outcome === "reply" && c.candidate.via === via);
    if (e) return e;
  }
  return null;
}

/** The recommended path, or null when no direction carried the echo. */
export function recommend(
  directions: readonly Direction[],
  fixedServer: PfSide | null,
): { direction: Direction; echo: CandidateEcho; facts: PreflightPathFacts } | null {
  const order: PfSide[] = fixedServer ? [fixedServer] : ["provider", "consumer"];
  for (const server of order) {
    const d = directions.find((x) => x.server === server && x.outcome === "reply");
    const echo = d ? pickCandidate(d) : null;
    if (!d || !echo) continue;
    const c = echo.candidate;
    const facts: PreflightPathFacts = c.via === "PortMapping"
      ? {
        serverSide: server,
        serviceType: "NodePort",
        port: c.forwardsTo ?? null,
        clientAddress: c.address,
        clientPort: c.port,
      }
      : { serverSide: server, serviceType: c.via, port: c.port };
    return { direction: d, echo, facts };
  }
  return null;
}

/** What to open, per direction and candidate, when nothing worked. */
function openLines(directions: readonly Direction[]): string[] {
  return directions.flatMap((d) =>
    d.candidates.filter((e) => e.outcome === "timeout" || e.outcome === "icmp-refused").map((e) =>
      `open ${
        candidateText(e.candidate)
      } in ${d.server} ${d.serverCluster} to ${d.client} ${d.clientCluster}` +
      `'s egress${e.seenSource ? ` (${e.seenSource})` : ""}${
        e.outcome === "icmp-refused" ? " — something answered ICMP port unreachable on the way" : ""
      }`
    )
  );
}

/** PF-DIR's verdict, with the path facts for the verdict line. */
export function judgeDirection(directions: readonly Direction[], fixedServer: PfSide | null): Outcome {
  const rec = recommend(directions, fixedServer);
  if (rec) {
    const f = rec.facts;
    const where = f.serverSide === "provider"
      ? "the gateway server on the provider (Liqo's default)"
      : "the gateway server on the consumer (--gw-server-service-location Consumer)";
    const how = f.clientAddress
      ? `exposed as a NodePort behind the port mapping ${f.clientAddress}:${f.clientPort} (--gw-client-address ${f.clientAddress} --gw-client-port ${f.clientPort})`
      : f.serviceType === "NodePort"
      ? `exposed as a NodePort (--gw-server-service-type NodePort; the echo crossed on ${
        candidateText(rec.echo.candidate)
      })`
      : `exposed as a LoadBalancer (${candidateText(rec.echo.candidate)})`;
    return {
      status: "pass",
      summary: `${where}, ${how}`,
      evidence: [
        `${rec.direction.client} ${rec.direction.clientCluster} → ${rec.direction.server} ${rec.direction.serverCluster}: ${
          candidateText(rec.echo.candidate)
        } echoed ${rec.echo.replies}/${rec.echo.sent}`,
      ],
      facts: { preflightPath: f },
    };
  }
  const none: PreflightPathFacts = { serverSide: null, serviceType: null, port: null };
  const unsure = directions.filter((d) => inconclusive(d.outcome));
  const lines = openLines(directions);
  if (unsure.length > 0 || directions.length === 0) {
    return {
      status: "unknown",
      summary: `no direction to recommend: ${
        unsure.length > 0
          ? unsure.map((d) => `${d.client} → ${d.server} not probed${d.reason ? ` (${d.reason})` : ""}`).join(
            "; ",
          )
          : "nothing was probed"
      }`,
      evidence: lines,
      facts: { preflightPath: none },
    };
  }
  return {
    status: "fail",
    summary: `no direction carried UDP: ${
      lines.length > 0 ? lines.join("; ") : "neither side got an address to dial (PF-EXP)"
    }`,
    evidence: lines,
    facts: { preflightPath: none },
    remediation: fix(
      lines.length > 0 ? note(`open one of: ${lines.join("; ")}`) : null,
      "or forward a public UDP port to a node's NodePort on the provider and re-run with that address " +
        "(liqoctl peer --gw-client-address/--gw-client-port, Liqo docs/advanced/nat.md option B)",
    ),
  };
}
