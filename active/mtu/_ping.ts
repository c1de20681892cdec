/**
 * PROBE-MTU's reading of one iputils `ping -M do -c 1 -W 1 -s N` (active/commands.ts
 * dontFragmentPing): the packet passed, the local interface refused it (`local error: message too
 * long, mtu=X`), a router on the way said it is too big (`Frag needed and DF set (mtu = X)`), it
 * vanished (100% loss with no error: a black hole, or ICMP dropped), or the command itself cannot
 * answer the question (BusyBox ping has no `-M`, ping missing, name or route errors). Pure.
 */
import type { ExecOutcome } from "../../kube/source.ts";

/** What one don't-fragment ping said. */
export type PingReading =
  /** At least one echo reply came back. */
  | { kind: "pass" }
  /** The sending interface (or a cached path MTU) is smaller: `local error: message too long, mtu=X`. */
  | { kind: "local-limit"; mtu: number | null; line: string }
  /** A router answered ICMP "fragmentation needed": `From R icmp_seq=1 Frag needed and DF set (mtu = X)`. */
  | { kind: "frag-needed"; mtu: number | null; from: string | null; line: string }
  /** No reply and no error: lost on the way (a silent black hole at this size, or ICMP filtered). */
  | { kind: "lost" }
  /** The container cannot run this test (no iputils `ping`, `-M` unknown): nothing measured. */
  | { kind: "unsupported"; reason: string }
  /** Any other failure, not tied to the size (unknown host, no route, exec failed). */
  | { kind: "error"; reason: string };

/** First line matching `re` in `text`, trimmed. */
function lineWith(text: string, re: RegExp): string | null {
  return text.split("\n").map((l) => l.trim()).find((l) => re.test(l)) ?? null;
}

const MTU_EQ = /mtu\s*=\s*(\d+)/i;

function mtuIn(line: string): number | null {
  const m = line.match(MTU_EQ);
  return m ? Number(m[1]) : null;
}

/** A short, single-line excerpt of command output for a reason. */
function excerpt(text: string): string {
  const t = text.trim().split("\n").map((l) => l.trim()).filter((l) => l !== "")[0] ?? "";
  return t.length > 160 ? `${t.slice(0, 159)}…` : t;
}

/**
 * Reads one don't-fragment ping. Decision: stdout and stderr are read together (iputils prints
 * `local error` on stderr in recent releases and on stdout in older ones); a reply counts only from
 * the statistics line (`N received` with N ≥ 1) or a `bytes from` line, never from the exit code
 * alone.
 */
export function parsePing(out: ExecOutcome): PingReading {
  if (!out.ok) return { kind: "error", reason: `exec failed: ${out.message}` };
  const text = `${out.stdout}\n${out.stderr}`;
  if (/invalid option|unrecognized option|BusyBox/i.test(text)) {
    const line = lineWith(text, /invalid option|unrecognized option|BusyBox/i) ?? "";
    return {
      kind: "unsupported",
      reason: `ping in the container is not iputils (no don't-fragment option \`-M do\`): ${line}`,
    };
  }
  if (
    out.exitCode === 126 || out.exitCode === 127 ||
    /executable file not found|not found in \$PATH|No such file or directory/i.test(text) &&
      !/received/.test(text)
  ) {
    return { kind: "unsupported", reason: `ping is not available in the container: ${excerpt(text)}` };
  }
  const received = text.match(/(\d+) (?:packets )?received/);
  if ((received && Number(received[1]) > 0) || /\d+ bytes from /.test(text)) return { kind: "pass" };
  const local = lineWith(text, /local error|message too long/i);
  if (local) return { kind: "local-limit", mtu: mtuIn(local), line: local };
  const frag = lineWith(text, /frag(mentation)? needed/i);
  if (frag) {
    const from = frag.match(/^From\s+(\S+)/i)?.[1] ?? null;
    return { kind: "frag-needed", mtu: mtuIn(frag), from, line: frag };
  }
  const unreachable = lineWith(
    text,
    /unknown host|Name or service not known|Temporary failure in name resolution|Network is unreachable|Destination (Host|Net|Port|Protocol) Unreachable|Operation not permitted|Permission denied|bad address/i,
  );
  if (unreachable) return { kind: "error", reason: unreachable };
  if (received && Number(received[1]) === 0) return { kind: "lost" };
  if (out.exitCode === 1 && /100% packet loss/.test(text)) return { kind: "lost" };
  return {
    kind: "error",
    reason: `unreadable ping output (exit ${out.exitCode}): ${excerpt(text) || "no output"}`,
  };
}

/** One line for evidence: "passed", "local error, mtu=1340", "frag needed from 10.0.0.1 (mtu 1400)", "no answer". */
export function describePing(r: PingReading): string {
  switch (r.kind) {
    case "pass":
      return "passed";
    case "local-limit":
      return `refused locally (message too long${r.mtu !== null ? `, mtu=${r.mtu}` : ""})`;
    case "frag-needed":
      return `frag needed${r.from ? ` from ${r.from}` : ""}${r.mtu !== null ? ` (mtu = ${r.mtu})` : ""}`;
    case "lost":
      return "no answer";
    case "unsupported":
    case "error":
      return r.reason;
  }
}
