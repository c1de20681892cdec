/**
 * Container logs as a probe: a bounded read of a container's recent log through the ClusterSource
 * (live: GET pods/{name}/log with tailLines/limitBytes, `previous=true` for the last terminated
 * instance; snapshot: the log `collect` stored), reduced to the few lines worth citing. Liqo's
 * components write why they stopped to their log (the gateway's kernel-version refusal, "cannot create
 * wireguard interface"), not to `lastState.terminated.message`.
 */
import type { ClusterSource, LogRequest } from "../kube/source.ts";
import type { LogEvidence } from "./hub.ts";

/** Lines read per container log. */
export const LOG_TAIL_LINES = 100;
/** Bytes read per container log. */
export const LOG_LIMIT_BYTES = 64 * 1024;
/** Relevant (error-like) lines kept. */
export const MAX_RELEVANT_LINES = 5;
/** Lines kept when none is error-like. */
export const FALLBACK_LINES = 3;
/** Longest line kept; longer ones are cut with "…". */
export const MAX_LINE_CHARS = 200;

/** A line that says something went wrong: error, fatal, panic, failed (or a klog E/F line). */
const RELEVANT =
  /\b(errors?|fatal|panic(?:ked)?|fail(?:ed|ure|s)?|unable to|cannot|did not complete|timed? ?out|unreachable|no such host|denied|not permitted|invalid)\b|^[EF]\d{4} /i;

/** Cuts a line to `max` characters ("…" marks the cut). */
export function cutLine(line: string, max = MAX_LINE_CHARS): string {
  const clean = line.replace(/\s+$/, "");
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * The lines of a log worth citing: the last {@link MAX_RELEVANT_LINES} lines with error, fatal, panic
 * or failed; when there is none, the last {@link FALLBACK_LINES} lines. Long lines are cut.
 */
export function relevantLogLines(text: string): { lines: string[]; matched: boolean; total: number } {
  const all = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const hits = all.filter((l) => RELEVANT.test(l));
  const pick = hits.length > 0 ? hits.slice(-MAX_RELEVANT_LINES) : all.slice(-FALLBACK_LINES);
  return { lines: pick.map((l) => cutLine(l)), matched: hits.length > 0, total: all.length };
}

/** The message of a klog/logr line without its header (`E1130 02:25:49.030118 1 main.go:201] msg` → `msg`). */
export function logMessage(line: string): string {
  const klog = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+[^\]]+\]\s*(.*)$/.exec(line);
  if (klog) return klog[1];
  const iso = /^\d{4}-\d{2}-\d{2}T\S+\s+(?:(?:INFO|WARN|WARNING|ERROR|FATAL|DEBUG|PANIC)\s+)?(.*)$/i.exec(
    line,
  );
  return iso ? iso[1] : line;
}

/** Reads a container's log through a source and keeps the relevant lines. Never throws. */
export async function readContainerLogs(
  source: ClusterSource,
  namespace: string,
  pod: string,
  container: string,
  opts: { previous: boolean },
): Promise<LogEvidence> {
  const base = { namespace, pod, container };
  if (typeof source.logs !== "function") {
    return { ...base, ok: false, reason: "error", message: "this cluster source cannot read container logs" };
  }
  const req: LogRequest = { tailLines: LOG_TAIL_LINES, limitBytes: LOG_LIMIT_BYTES, previous: opts.previous };
  let out = await source.logs(namespace, pod, container, req);
  // No previous instance after all (e.g. the restart was garbage-collected): the current log still helps.
  if (!out.ok && opts.previous && out.reason !== "forbidden") {
    const current = await source.logs(namespace, pod, container, { ...req, previous: false });
    if (current.ok) out = current;
  }
  if (!out.ok) return { ...base, ok: false, reason: out.reason, message: out.message };
  const { lines, matched, total } = relevantLogLines(out.text);
  return {
    ...base,
    ok: true,
    previous: out.previous,
    via: out.via,
    lines,
    matched,
    totalLines: total,
    ...(out.note ? { note: out.note } : {}),
  };
}
