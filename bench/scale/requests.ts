/**
 * What a run asked the API server for, from the fake server's request log: lists (first pages),
 * continuation pages, exec sessions, everything else (discovery, /version, gets, logs), and the
 * requests sent more than once.
 */
import type { RequestLogEntry } from "../../fakekube/mod.ts";

/** Counts of one run's requests. */
export interface RequestStats {
  total: number;
  /** First pages of collection GETs (`/api/v1/pods`, `/apis/g/v/namespaces/ns/kind`). */
  lists: number;
  /** Collection GETs carrying a `continue` token. */
  pages: number;
  /** Exec WebSocket upgrades. */
  exec: number;
  /** Discovery, /version, single-object gets, logs, anything else. */
  other: number;
  /**
   * Requests that repeat an earlier one (same method, path and query). Continuation pages and exec
   * sessions are excepted: TUN-03 samples `wg show` twice on purpose, one interval apart.
   */
  repeated: number;
  /** The repeated requests, "METHOD path?query ×n". */
  repeatedList: string[];
  /** The lists that took more than one page, "path?query (without limit/continue): n pages". */
  pagedLists: string[];
}

const isExec = (r: RequestLogEntry): boolean => r.upgrade || r.path.endsWith("/exec");

const hasContinue = (query: string): boolean => new URLSearchParams(query).has("continue");

/**
 * True for a collection path: /api/v1/<plural>, /api/v1/namespaces/<ns>/<plural> (but not
 * /api/v1/namespaces/<name>), and the same under /apis/<group>/<version>.
 */
export function isCollectionPath(path: string): boolean {
  const s = path.split("/").filter((x) => x !== "");
  let rest: string[];
  if (s[0] === "api" && s.length >= 2) rest = s.slice(2);
  else if (s[0] === "apis" && s.length >= 3) rest = s.slice(3);
  else return false;
  if (rest.length === 1) return true;
  return rest.length === 3 && rest[0] === "namespaces";
}

/** Classifies a request log (see {@link RequestStats}). */
export function requestStats(log: readonly RequestLogEntry[]): RequestStats {
  const stats: RequestStats = {
    total: log.length,
    lists: 0,
    pages: 0,
    exec: 0,
    other: 0,
    repeated: 0,
    repeatedList: [],
    pagedLists: [],
  };
  const pages = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const r of log) {
    const cont = hasContinue(r.query);
    if (isExec(r)) {
      stats.exec++;
      continue;
    }
    if (r.method === "GET" && isCollectionPath(r.path)) {
      cont ? stats.pages++ : stats.lists++;
      const q = new URLSearchParams(r.query);
      q.delete("continue");
      q.delete("limit");
      const list = `${r.path}${q.size ? `?${decodeURIComponent(q.toString())}` : ""}`;
      pages.set(list, (pages.get(list) ?? 0) + 1);
    } else stats.other++;
    if (cont) continue;
    const key = `${r.method} ${r.path}${r.query ? `?${r.query}` : ""}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  for (const [list, n] of pages) if (n > 1) stats.pagedLists.push(`${list}: ${n} pages`);
  for (const [key, n] of seen) {
    if (n < 2) continue;
    stats.repeated += n - 1;
    stats.repeatedList.push(`${key} ×${n}`);
  }
  return stats;
}

/** The GETs a bare client replays for the floor: every non-upgrade GET, path and query as logged. */
export function replayableGets(log: readonly RequestLogEntry[]): string[] {
  return log.filter((r) => r.method === "GET" && !isExec(r))
    .map((r) => r.path + (r.query ? `?${r.query}` : ""));
}
