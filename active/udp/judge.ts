/**
 * PROBE-UDP judge and the parsers of what the probe pods answer: netexec `/dial` JSON, the UDP
 * series (active/commands.ts udpSeries: one `<seq> <json> <seconds>` line per datagram) and
 * the `clientip` answer. Pure: the measurement comes from active/udp.ts.
 *
 * Thresholds ({@link UDP_THRESHOLDS}, quoted by `flyingfish explain PROBE-UDP`): loss above
 * 0 % → warn, from 50 % → fail, 100 % → fail "the tunnel drops UDP"; any duplicate or late reply →
 * warn; the far side seeing a source other than the expected remapped address → fail (NAT).
 */
import { fix, type FixPart, flyingfish, kubectl, unique } from "../../checks/remediation.ts";
import { z } from "zod";
import type { Outcome, Status } from "../../checks/types.ts";

/** Datagrams per run of the UDP series. */
export const UDP_SERIES_COUNT = 20;

/** Loss (%) above which PROBE-UDP warns: any loss. */
export const UDP_LOSS_WARN_ABOVE_PCT = 0;

/** Loss (%) from which PROBE-UDP fails. */
export const UDP_LOSS_FAIL_PCT = 50;

/** The thresholds in one place, for explain texts. */
export const UDP_THRESHOLDS = {
  count: UDP_SERIES_COUNT,
  lossWarnAbovePct: UDP_LOSS_WARN_ABOVE_PCT,
  lossFailPct: UDP_LOSS_FAIL_PCT,
  /** Duplicates or late replies (an answer carrying another datagram's sequence number) warn. */
  duplicatesWarn: true,
} as const;

/** netexec `/dial`'s JSON answer. */
export interface DialAnswer {
  responses: string[];
  errors: string[];
}

const DialAnswerSchema = z.object({
  responses: z.array(z.string()).nullish(),
  errors: z.array(z.string()).nullish(),
});

/** Parses netexec `/dial`'s JSON (`{"responses":[...],"errors":[...]}`); null when it is not that. */
export function parseDialAnswer(text: string): DialAnswer | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return null;
  let json: unknown;
  try {
    json = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  const r = DialAnswerSchema.safeParse(json);
  if (!r.success) return null;
  return { responses: r.data.responses ?? [], errors: r.data.errors ?? [] };
}

/** One datagram of the series as printed. */
export interface SeriesLine {
  seq: number;
  /** The dial answer, null when curl failed or printed no JSON. */
  answer: DialAnswer | null;
  /** curl's `%{time_total}` in seconds, null when absent or -1. */
  seconds: number | null;
  /** The raw text of the record (trimmed), for evidence. */
  raw: string;
}

/**
 * Parses the series output: a record starts with `<seq> ` at the start of a line and runs to the
 * next one (netexec's JSON may end with a newline, curl's `-w` and the `|| echo ' -1'` fallback add
 * their own lines). Lines before the first record are ignored.
 */
export function parseSeries(stdout: string): SeriesLine[] {
  const records: { seq: number; text: string }[] = [];
  for (const line of stdout.split("\n")) {
    const m = /^(\d+) (.*)$/.exec(line);
    if (m) records.push({ seq: Number(m[1]), text: m[2] });
    else if (records.length) records[records.length - 1].text += `\n${line}`;
  }
  return records.map(({ seq, text }) => {
    const answer = parseDialAnswer(text);
    const afterJson = answer ? text.slice(text.lastIndexOf("}") + 1) : text;
    const nums = afterJson.split(/\s+/).filter((t) => /^-?\d+(\.\d+)?$/.test(t)).map(Number);
    const t = nums.find((n) => n >= 0);
    const failed = t === undefined || (nums.includes(-1) && !answer);
    return { seq, answer, seconds: failed ? null : t, raw: text.trim() };
  });
}

/** What the series measured. */
export interface SeriesStats {
  sent: number;
  /** Datagrams answered with their own sequence number. */
  answered: number;
  lost: number;
  /** Loss in %, 0..100 (rounded to one decimal). */
  lossPct: number;
  /** Round trips of the answered datagrams, ms (curl's time_total: includes the loopback HTTP hop). */
  rttMs: { min: number; avg: number; max: number } | null;
  /** Answers repeating a sequence number already answered. */
  duplicates: number;
  /** Answers carrying an earlier, unanswered sequence number (arrived late). */
  late: number;
  /** Answers with another nonce (not ours). */
  foreign: number;
  /** First error netexec or curl reported for a lost datagram. */
  firstError: string | null;
}

/** Counts loss, round trips, duplicates and late replies of a series for nonce `nonce`. */
export function seriesStats(lines: readonly SeriesLine[], nonce: string, count: number): SeriesStats {
  const own = new RegExp(`^ff-${nonce.replace(/[^a-z0-9]/gi, "")}-(\\d+)$`);
  const answeredSeqs = new Set<number>();
  const rtts: number[] = [];
  let duplicates = 0;
  let late = 0;
  let foreign = 0;
  let firstError: string | null = null;
  for (const line of lines) {
    let gotOwn = false;
    for (const r of line.answer?.responses ?? []) {
      const m = own.exec(r.trim());
      if (!m) {
        foreign++;
        continue;
      }
      const k = Number(m[1]);
      if (k === line.seq && !gotOwn && !answeredSeqs.has(k)) {
        gotOwn = true;
        answeredSeqs.add(k);
      } else if (answeredSeqs.has(k)) duplicates++;
      else late++;
    }
    if (gotOwn) {
      if (line.seconds !== null) rtts.push(line.seconds * 1000);
    } else if (firstError === null) {
      firstError = line.answer?.errors[0] ??
        (line.answer ? "empty answer" : `curl failed: ${line.raw || "no output"}`);
    }
  }
  const sent = Math.max(count, lines.length);
  const answered = answeredSeqs.size;
  const lost = sent - answered;
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    sent,
    answered,
    lost,
    lossPct: sent === 0 ? 0 : round((lost / sent) * 100),
    rttMs: rtts.length
      ? {
        min: round(Math.min(...rtts)),
        avg: round(rtts.reduce((a, b) => a + b, 0) / rtts.length),
        max: round(Math.max(...rtts)),
      }
      : null,
    duplicates,
    late,
    foreign,
    firstError,
  };
}

/** The source address netexec `clientip` reports (`ip:port`), without the port; null when absent. */
export function clientIpOf(answer: DialAnswer | null): string | null {
  const r = answer?.responses.find((s) => s.trim() !== "");
  if (!r) return null;
  const t = r.trim();
  const m = /^\[?([0-9a-fA-F.:]+?)\]?:(\d+)$/.exec(t);
  return m ? m[1] : t;
}

/** One end of the series. */
export interface UdpEnd {
  cluster: string;
  pod: string;
  node: string;
}

/** What PROBE-UDP measured, for the judge. */
export interface UdpMeasurement {
  from: UdpEnd;
  to: UdpEnd;
  /** The address dialled and how it was computed; null address = could not be computed. */
  address: { ip: string; how: string } | { ip: null; reason: string };
  nonce: string;
  count: number;
  /** The series: parsed lines, or why it did not run (exec failed). */
  series:
    | {
      ok: true;
      lines: SeriesLine[];
      /** Batches of the series whose exec failed: their datagrams are not judged (why, per batch). */
      notMeasured?: string[];
    }
    | { ok: false; reason: string }
    | null;
  /** The clientip dial: the source seen and the one expected. */
  source: {
    seen: string | null;
    /** Why `seen` is null (dial failed, no answer). */
    error: string | null;
    expected: { ip: string; how: string } | { ip: null; reason: string };
  } | null;
  /** Namespace Liqo runs in (local cluster), for remediation. */
  liqoNamespace: string;
}

const RANK: Record<Status, number> = { pass: 0, skip: 0, unknown: 1, warn: 2, fail: 3 };

/** Judges PROBE-UDP: loss and duplicates by {@link UDP_THRESHOLDS}, and the NAT source check. */
export function judgeUdp(m: UdpMeasurement): Outcome {
  const path =
    `${m.from.pod} (${m.from.cluster}, ${m.from.node}) → ${m.to.pod} (${m.to.cluster}, ${m.to.node})`;
  if (m.address.ip === null) {
    return {
      status: "unknown",
      summary: `no address to dial for ${m.to.pod}: ${m.address.reason}`,
      evidence: [path],
    };
  }
  const evidence = [`${path} at ${m.address.ip} (${m.address.how})`];
  const findings: { status: Status; summary: string }[] = [];
  const fixes: FixPart[] = [];

  if (m.series === null || !m.series.ok) {
    const why = m.series === null ? "not run" : m.series.reason;
    findings.push({ status: "unknown", summary: `the UDP series could not run: ${why}` });
  } else {
    const s = seriesStats(m.series.lines, m.nonce, m.count);
    evidence.push(
      `${s.answered}/${s.sent} datagrams answered (${s.lossPct}% loss), nonce ff-${m.nonce}`,
      s.rttMs
        ? `RTT min/avg/max ${s.rttMs.min}/${s.rttMs.avg}/${s.rttMs.max} ms (curl time_total: includes the pod's loopback HTTP hop)`
        : "RTT: no answer to time",
    );
    if (s.duplicates || s.late || s.foreign) {
      evidence.push(`${s.duplicates} duplicate, ${s.late} late, ${s.foreign} foreign replies`);
    }
    if (s.firstError) evidence.push(`first loss: ${s.firstError}`);
    for (const why of m.series.notMeasured ?? []) evidence.push(`not measured (not counted as loss): ${why}`);
    if (m.series.notMeasured?.length) {
      findings.push({
        status: "unknown",
        summary: `part of the UDP series could not run (${s.sent} datagrams measured): ${
          m.series.notMeasured[0]
        }`,
      });
    }
    if (s.answered === 0 && s.sent > 0) {
      findings.push({ status: "fail", summary: `the tunnel drops UDP: 0/${s.sent} datagrams answered` });
      fixes.push(
        "nothing came back: the gateways, the WireGuard tunnel (UDP) and the underlay between them",
        flyingfish("check", "--only", "gateway,tunnel"),
        flyingfish("probe", "trace"),
      );
    } else if (s.lossPct >= UDP_LOSS_FAIL_PCT) {
      findings.push({
        status: "fail",
        summary: `${s.lossPct}% UDP loss (${s.lost}/${s.sent}) through the tunnel`,
      });
      fixes.push(flyingfish("probe", "mtu"), flyingfish("probe", "trace"));
    } else if (s.lossPct > UDP_LOSS_WARN_ABOVE_PCT) {
      findings.push({
        status: "warn",
        summary: `${s.lossPct}% UDP loss (${s.lost}/${s.sent}) through the tunnel`,
      });
      fixes.push(flyingfish("probe", "mtu"));
    }
    if (s.duplicates || s.late) {
      findings.push({
        status: "warn",
        summary: `${s.duplicates} duplicate and ${s.late} late UDP replies (answers to another datagram)`,
      });
    }
  }

  if (m.source) {
    const { seen, expected, error } = m.source;
    if (seen === null) {
      evidence.push(`clientip: no answer${error ? ` (${error})` : ""}`);
    } else if (expected.ip === null) {
      evidence.push(`clientip: the far side saw ${seen}; expected source unknown: ${expected.reason}`);
    } else if (seen === expected.ip) {
      evidence.push(`clientip: the far side saw ${seen} = expected ${expected.ip} (${expected.how})`);
    } else {
      evidence.push(`clientip: the far side saw ${seen}, expected ${expected.ip} (${expected.how})`);
      findings.push({ status: "fail", summary: `NAT: far side saw ${seen}, expected ${expected.ip}` });
      fixes.push(
        "the source is rewritten wrongly between the gateways: compare the remapping and the NAT rules",
        // The series runs from the local cluster's pod to the remote one's (measure.ts).
        kubectl("local", "get", "configurations.networking.liqo.io", "-A", "-o", "yaml"),
        kubectl("remote", "get", "configurations.networking.liqo.io", "-A", "-o", "yaml"),
        kubectl("local", "get", "firewallconfigurations.networking.liqo.io", "-A"),
        flyingfish("check", "--only", "ipam"),
      );
    }
  }

  if (findings.length === 0) {
    const sourceOk = m.source?.seen != null && m.source.expected.ip === m.source.seen;
    return {
      status: "pass",
      summary: `no UDP loss, no duplicates${
        sourceOk ? ", source address as expected" : " (the source address could not be checked)"
      }`,
      evidence,
    };
  }
  const worst = findings.reduce((a, b) => RANK[b.status] > RANK[a.status] ? b : a);
  const others = findings.filter((f) => f !== worst && f.status !== "unknown").map((f) => f.summary);
  return {
    status: worst.status,
    summary: [worst.summary, ...others].join("; "),
    evidence,
    ...(fixes.length ? { remediation: unique(fix(...fixes)) } : {}),
  };
}
