/**
 * PF-UDP's judge: reads the echo script's output (active/commands.ts preflightEcho) into a typed
 * outcome per candidate address, and the directions into one verdict. A reply is the echoed nonce
 * and nothing else; an inconclusive direction (admission refused a pod, the pods never ran) makes
 * the check `unknown`, never "blocked".
 */
import type { Outcome } from "../../../checks/types.ts";
import { fix, kubectlIn } from "../../../checks/remediation.ts";
import { preflightToken } from "../../commands.ts";
import {
  type Candidate,
  type CandidateEcho,
  candidateText,
  type Direction,
  type EchoOutcome,
  inconclusive,
  type PfSide,
} from "../model.ts";

/** netexec's JSON answer, loosely. */
function answer(text: string): { responses: string[]; errors: string[] } | null {
  const start = text.indexOf("{");
  if (start < 0) return null;
  try {
    const o = JSON.parse(text.slice(start)) as { responses?: unknown; errors?: unknown };
    const strs = (v: unknown) => Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
    return { responses: strs(o.responses), errors: strs(o.errors) };
  } catch {
    return null;
  }
}

/** One datagram's outcome from its output line (curl's or netexec's words). */
export function datagramOutcome(
  text: string,
  token: string,
): { outcome: "reply" | "timeout" | "icmp-refused" | "error"; detail: string | null } {
  const a = answer(text);
  if (a) {
    if (a.responses.some((r) => r.trim() === token)) return { outcome: "reply", detail: null };
    if (a.responses.length > 0) return { outcome: "error", detail: `unexpected answer ${a.responses[0]}` };
    const err = a.errors[0] ?? "";
    if (/connection refused/i.test(err)) return { outcome: "icmp-refused", detail: err };
    if (/i\/o timeout/i.test(err)) return { outcome: "timeout", detail: err };
    return { outcome: "error", detail: err || "empty answer" };
  }
  // curl's own failure: 28 is its --max-time (no answer in time); anything else is the pod's side.
  if (/\(28\)|timed out/i.test(text)) return { outcome: "timeout", detail: text.trim() };
  return { outcome: "error", detail: text.trim() || "no output" };
}

/** The echo of every candidate from the script's stdout (candidates in the order sent). */
export function parseEcho(
  stdout: string,
  candidates: readonly Candidate[],
  nonce: string,
  count: number,
): CandidateEcho[] {
  const lines = stdout.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  return candidates.map((candidate, k) => {
    let replies = 0;
    let sent = 0;
    const seen = new Map<string, number>();
    let detail: string | null = null;
    let seenSource: string | undefined;
    for (const line of lines) {
      const m = /^(\d+) (\d+|ip) ?(.*)$/.exec(line);
      if (!m || Number(m[1]) !== k) continue;
      if (m[2] === "ip") {
        const a = answer(m[3]);
        const ip = a?.responses[0]?.trim();
        if (ip) seenSource = ip;
        continue;
      }
      sent++;
      const d = datagramOutcome(m[3], preflightToken(nonce, k, Number(m[2])));
      if (d.outcome === "reply") replies++;
      else {
        seen.set(d.outcome, (seen.get(d.outcome) ?? 0) + 1);
        detail ??= d.detail;
      }
    }
    let outcome: EchoOutcome;
    if (replies > 0) outcome = "reply";
    else if (sent < count && sent === 0) {
      outcome = "not-run";
      detail ??= "no datagram was reported sent";
    } else if ((seen.get("icmp-refused") ?? 0) > 0) outcome = "icmp-refused";
    else if ((seen.get("timeout") ?? 0) > 0) outcome = "timeout";
    else outcome = "not-run";
    return { candidate, outcome, sent, replies, detail, ...(seenSource ? { seenSource } : {}) };
  });
}

/** The outcome of a direction from its candidates: a reply wins, then the most telling failure. */
export function directionOutcome(echoes: readonly CandidateEcho[]): EchoOutcome {
  if (echoes.length === 0) return "no-address";
  const order: EchoOutcome[] = ["reply", "icmp-refused", "timeout", "not-run", "no-address"];
  for (const o of order) if (echoes.some((e) => e.outcome === o)) return o;
  return "not-run";
}

const OUTCOME_WORDS: Readonly<Record<EchoOutcome, string>> = {
  "reply": "echo came back",
  "timeout": "no answer (timeout)",
  "icmp-refused": "ICMP port unreachable (refused)",
  "no-address": "no address to send to",
  "rejected-by-admission": "probe pod rejected by admission",
  "not-run": "could not run",
};

/** `consumer rome → provider milan`. */
export function directionName(
  d: Pick<Direction, "client" | "server" | "clientCluster" | "serverCluster">,
): string {
  return `${d.client} ${d.clientCluster} → ${d.server} ${d.serverCluster}`;
}

/** The evidence lines of a direction: one per candidate. */
export function directionEvidence(d: Direction): string[] {
  const from = `client pod in ${d.clientCluster}${d.clientNode ? ` (node ${d.clientNode})` : ""}`;
  if (d.candidates.length === 0) {
    return [`${directionName(d)}: ${OUTCOME_WORDS[d.outcome]}${d.reason ? `: ${d.reason}` : ""}`];
  }
  return d.candidates.map((e) =>
    `${directionName(d)}: ${from} → ${candidateText(e.candidate)}: ${OUTCOME_WORDS[e.outcome]}` +
    (e.sent > 0 ? ` (${e.replies}/${e.sent} echoed)` : "") +
    (e.seenSource ? `; the server saw the client as ${e.seenSource}` : "") +
    (e.outcome !== "reply" && e.detail ? `; ${e.detail}` : "")
  );
}

/** PF-UDP's verdict over the directions tried. */
export function judgeUdp(directions: readonly Direction[], runNamespace: string): Outcome {
  const evidence = directions.flatMap(directionEvidence);
  const ok = directions.filter((d) => d.outcome === "reply");
  const bad = directions.filter((d) => d.outcome !== "reply");
  if (directions.length === 0) {
    return { status: "unknown", summary: "no direction was probed", evidence };
  }
  const name = (d: Direction) => `${d.client} → ${d.server}`;
  if (bad.length === 0) {
    return {
      status: "pass",
      summary: `UDP echo works ${ok.map(name).join(" and ")}: ${ok.map((d) => best(d)).join("; ")}`,
      evidence,
    };
  }
  if (ok.length > 0) {
    return {
      status: bad.some((d) => inconclusive(d.outcome)) ? "pass" : "warn",
      summary: `UDP echo works ${ok.map(name).join(", ")} (${ok.map(best).join("; ")}), not ${
        bad.map((d) => `${name(d)} (${OUTCOME_WORDS[d.outcome]})`).join(", ")
      }: the gateway server must live on the ${ok[0].server} side (PF-DIR)`,
      evidence,
    };
  }
  const unsure = bad.filter((d) => inconclusive(d.outcome));
  if (unsure.length > 0) {
    return {
      status: "unknown",
      summary: `UDP path not judged: ${
        unsure.map((d) => `${name(d)}: ${OUTCOME_WORDS[d.outcome]}${d.reason ? ` (${d.reason})` : ""}`).join(
          "; ",
        )
      }`,
      evidence,
      remediation: fix(
        "let the probe pods run (Pod Security restricted, agnhost), then re-run; see why:",
        kubectlIn("local", runNamespace, "get", "events"),
      ),
    };
  }
  return {
    status: "fail",
    summary: `no UDP echo in either direction: ${
      bad.map((d) => `${name(d)}: ${OUTCOME_WORDS[d.outcome]}`).join("; ")
    }`,
    evidence,
  };
}

/** The candidate that replied, as text. */
function best(d: Direction): string {
  const e = d.candidates.find((c) => c.outcome === "reply");
  return e ? candidateText(e.candidate) : "?";
}

/** The side a direction's server is on, for callers that only know its client. */
export function serverOf(client: PfSide): PfSide {
  return client === "consumer" ? "provider" : "consumer";
}
