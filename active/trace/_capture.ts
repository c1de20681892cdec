/**
 * PROBE-TRACE's reading of one capture, `timeout N tcpdump -i IF -n -l -A -s 256 'udp port 8081'`
 * (active/commands.ts captureOn): did a packet carrying the run's nonce cross the interface,
 * as the request (to the probe port) or as the echo coming back (from it)? Addresses are not trusted
 * (Liqo's NAT rewrites them): the nonce in the payload is. A capture that could not run (tcpdump
 * missing, no such interface, no permission, exec refused) is unavailable, with the reason. Pure.
 */
import type { ExecOutcome } from "../../kube/source.ts";
import { PROBE_PORTS } from "../commands.ts";

/** What one capture saw of the nonce. */
export type CaptureReading =
  | {
    kind: "captured";
    /** A packet to the probe port carried the nonce (the request). */
    request: boolean;
    /** A packet from the probe port carried the nonce (the echo). */
    reply: boolean;
    /** Packets the capture printed in all (any nonce). */
    packets: number;
  }
  | { kind: "unavailable"; reason: string };

/** A tcpdump packet header: `12:00:00.123456 IP 10.0.0.5.40000 > 10.80.0.7.8081: UDP, length 18`. */
const HEADER = /^\d{2}:\d{2}:\d{2}\.\d+\s+(?:\S+\s+)?IP6?\s+(\S+)\s+>\s+(\S+?):/;

function portOf(endpoint: string): number | null {
  const m = endpoint.match(/\.(\d+)$/);
  return m ? Number(m[1]) : null;
}

function firstLine(text: string, re: RegExp): string | null {
  return text.split("\n").map((l) => l.trim()).find((l) => re.test(l)) ?? null;
}

/**
 * Reads one capture for `nonce`. `timeout` ending tcpdump (exit 124) is the normal end; exit 0 is
 * fine too. Any other exit, or an error line from tcpdump, makes the capture unavailable: a hop
 * nobody looked at is never reported as "not seen".
 */
export function parseCapture(out: ExecOutcome, nonce: string): CaptureReading {
  if (!out.ok) return { kind: "unavailable", reason: `exec failed: ${out.message}` };
  const err = out.stderr;
  if (out.exitCode === 126 || out.exitCode === 127) {
    return {
      kind: "unavailable",
      reason: `tcpdump could not run (exit ${out.exitCode}): ${
        firstLine(`${err}\n${out.stdout}`, /\S/) ?? "not found"
      }`,
    };
  }
  const problem = firstLine(
    err,
    /No such device|doesn't exist|permission|not permitted|Operation not permitted|syntax error|can't|cannot|unknown/i,
  );
  if (out.exitCode !== 0 && out.exitCode !== 124) {
    return {
      kind: "unavailable",
      reason: `tcpdump failed (exit ${out.exitCode})${problem ? `: ${problem}` : ""}`,
    };
  }
  if (problem && !/listening on/i.test(err)) return { kind: "unavailable", reason: `tcpdump: ${problem}` };
  let packets = 0;
  let request = false;
  let reply = false;
  let dir: "request" | "reply" | null = null;
  for (const raw of out.stdout.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const h = line.match(HEADER);
    if (h) {
      packets++;
      dir = portOf(h[2]) === PROBE_PORTS.udp ? "request" : portOf(h[1]) === PROBE_PORTS.udp ? "reply" : null;
    }
    if (dir !== null && line.includes(nonce)) {
      if (dir === "request") request = true;
      else reply = true;
    }
  }
  return { kind: "captured", request, reply, packets };
}
