/**
 * Duration parsing and formatting: Connection latency strings written by the Liqo gateway
 * ("8ms", "850μs", "N/A"), CLI duration flags ("3s", "500ms", "10"), and compact ages ("3d4h").
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3, // U+00B5 MICRO SIGN
  "μs": 1e-3, // U+03BC GREEK SMALL LETTER MU (what Go prints)
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Parses a Go-style duration ("1.5s", "2m3s", "850μs") into milliseconds; null if malformed. */
function parseGoDuration(text: string): number | null {
  if (text === "") return null;
  let total = 0;
  let pos = 0;
  while (pos < text.length) {
    TERM.lastIndex = pos;
    const m = TERM.exec(text);
    if (m === null) return null;
    total += Number(m[1]) * UNIT_MS[m[2]];
    pos = TERM.lastIndex;
  }
  return Number.isFinite(total) ? total : null;
}

/**
 * Parses a Connection `status.latency.value` into milliseconds. Accepts "8ms", "850μs" (Greek mu),
 * "850µs" (micro sign), "850us", "1.2s" and composite Go durations ("1m2s"); "0" is 0.
 * "N/A", empty, negative or unparsable strings give null.
 */
export function parseLatency(s: string | null | undefined): number | null {
  if (typeof s !== "string") return null;
  const t = s.trim();
  if (t === "" || /^n\/?a$/i.test(t)) return null;
  if (t === "0") return 0;
  return parseGoDuration(t);
}

/**
 * Parses a CLI duration flag into milliseconds: "3s", "500ms", "1m", "1m30s", "2h", or a bare number
 * meaning seconds ("10", "2.5"). Throws a RangeError with a readable message on anything else.
 */
export function parseDurationFlag(s: string): number {
  const t = String(s ?? "").trim();
  if (/^([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(t)) return Math.round(Number(t) * 1000);
  const ms = parseGoDuration(t);
  if (ms === null) {
    throw new RangeError(`invalid duration "${s}": use e.g. 500ms, 3s, 1m or a number of seconds`);
  }
  return Math.round(ms);
}

/**
 * Formats an age in milliseconds with its two most significant units, kubectl style: "3d4h",
 * "5h2m", "5m12s", "5m0s", "42s". Negative ages count as 0; non-finite input gives "?"; null (an
 * absent or unreadable timestamp) gives "unknown age". The one age format of the product.
 */
export function formatAge(ms: number | null): string {
  if (ms === null) return "unknown age";
  if (!Number.isFinite(ms)) return "?";
  const s = Math.floor(Math.max(0, ms) / 1000);
  const d = Math.floor(s / 86_400), h = Math.floor((s % 86_400) / 3600), m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d${h}h`;
  if (h > 0) return `${h}h${m}m`;
  if (m > 0) return `${m}m${s % 60}s`;
  return `${s}s`;
}
