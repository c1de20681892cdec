/**
 * PF-MTU's judge: the largest don't-fragment datagram echoed over the working path against what
 * the tunnel will put on it — Liqo's tunnel MTU (1340 unless --mtu) plus WireGuard's overhead
 * (IPv4 60, IPv6 80 bytes). Short of it: the safe `--mtu` is the largest echoed packet minus the
 * overhead; a warning while that still carries a 1280-byte packet (IPv6's minimum link MTU), a
 * failure below.
 */
import type { Outcome } from "../../../checks/types.ts";
import type { PreflightPathFacts } from "../../../checks/facts.ts";
import { fix, note } from "../../../checks/remediation.ts";
import { MTU_SEARCH, type MtuSearch, WG_OVERHEAD } from "../model.ts";
import { candidateText } from "../model.ts";

/** Below this safe MTU the tunnel is judged unusable (IPv6's minimum link MTU, RFC 8200). */
export const MIN_USEFUL_MTU = 1280;

/** The next size to try in a binary search over [lo, hi] (lo known good, hi known bad), or null when done. */
export function nextSize(lo: number, hi: number): number | null {
  return hi - lo <= 1 ? null : Math.floor((lo + hi) / 2);
}

/** The largest size that passed, and the smallest that failed above it. */
export function bounds(tries: MtuSearch["tries"]): { largest: number | null; smallestFailed: number | null } {
  const ok = tries.filter((t) => t.ok).map((t) => t.size);
  const largest = ok.length ? Math.max(...ok) : null;
  const failed = tries.filter((t) => !t.ok && (largest === null || t.size > largest)).map((t) => t.size);
  return { largest, smallestFailed: failed.length ? Math.min(...failed) : null };
}

/** PF-MTU's verdict; `path` is PF-DIR's path, extended with the safe MTU when it is below `tunnelMtu`. */
export function judgeMtu(
  search: MtuSearch | null,
  tunnelMtu: number,
  path: PreflightPathFacts | null,
  why: string | null = null,
): Outcome {
  if (!search) {
    return {
      status: "unknown",
      summary: `path MTU not measured: ${why ?? "no direction carried the echo (PF-UDP)"}`,
    };
  }
  const overhead = WG_OVERHEAD[search.family];
  const need = tunnelMtu + overhead;
  const { largest, smallestFailed } = bounds(search.tries);
  const via = `${search.direction.client} → ${search.direction.server} over ${
    candidateText(search.candidate)
  }`;
  const evidence = [
    `${via}: ${search.tries.map((t) => `${t.size}${t.ok ? "✓" : "✗"}`).join(" ")}`,
    `the tunnel needs ${tunnelMtu} + ${overhead} (WireGuard over ${
      search.family === "v4" ? "IPv4" : "IPv6"
    }) = ${need} bytes`,
  ];
  if (largest === null) {
    return {
      status: "unknown",
      summary:
        `no datagram of ${MTU_SEARCH.min} bytes or more came back ${via}, though smaller ones did (PF-UDP)`,
      evidence,
    };
  }
  if (search.cut) {
    evidence.push("the search stopped at --probe-timeout: the largest echoed size is a lower bound");
  }
  const top = smallestFailed === null
    ? `${largest} bytes (every size tried, up to ${MTU_SEARCH.max})`
    : `${largest} bytes (${smallestFailed} lost)`;
  if (largest >= need) {
    return {
      status: "pass",
      summary:
        `largest datagram echoed ${via}: ${top}; the tunnel MTU ${tunnelMtu} + ${overhead} = ${need} fits`,
      evidence,
      ...(path ? { facts: { preflightPath: path } } : {}),
    };
  }
  const safe = largest - overhead;
  const facts = path ? { preflightPath: { ...path, mtu: safe } } : undefined;
  return {
    status: safe >= MIN_USEFUL_MTU ? "warn" : "fail",
    summary: `largest datagram echoed ${via}: ${top} < ${need} (tunnel MTU ${tunnelMtu} + ${overhead}): ` +
      `peer with --mtu ${safe}`,
    evidence,
    ...(facts ? { facts } : {}),
    remediation: fix(
      note(`liqoctl peer … --mtu ${safe} (the largest echoed packet ${largest} − ${overhead} of WireGuard)`),
      safe < MIN_USEFUL_MTU
        ? "or raise the MTU of the hop that drops larger packets between the clusters"
        : null,
    ),
  };
}
