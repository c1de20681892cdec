/**
 * DNS resolution of a gateway endpoint hostname from the tool's host (GW-03, GW-04, GW-05, TUN-02
 * evidence): A and AAAA records through `Deno.resolveDns`. It answers "does this name resolve from
 * here?", never "does it resolve inside the gateway pod" (the pod may use another resolver).
 *
 * `Deno.resolveDns` needs net permission for the system's nameserver (`--allow-net`, or
 * `--allow-net=<nameserver>:53`): a denied permission is a result naming the flag, never a throw.
 */
import type { ResolveResult } from "./hub.ts";

/** Options of {@link resolveHost}. */
export interface ResolveOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The low-level resolver (Deno.resolveDns's signature, narrowed); replaceable in tests. */
export type DnsResolver = (
  host: string,
  type: "A" | "AAAA",
  opts: { signal?: AbortSignal },
) => Promise<string[]>;

/** Marks the detail of a resolution refused by Deno's permission model. */
export const DNS_PERMISSION_DENIED = "no permission to query DNS";

/** True when `e` is Deno's "permission denied" (NotCapable since Deno 2, PermissionDenied before). */
export function isPermissionError(e: unknown): boolean {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied ||
    (e instanceof Error && /Requires net access/i.test(e.message));
}

function message(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // "proto error: no records found for Query { … }" says more than users need.
  return /no records found/i.test(m) ? "no records found" : m.split(/\r?\n/)[0].slice(0, 200);
}

const denoResolver: DnsResolver = (host, type, opts) => Deno.resolveDns(host, type, opts);

/**
 * Resolves `host` (A and AAAA) within `timeoutMs`. `resolved` with the addresses when either record
 * type answers; `not-found` when the name has no A/AAAA record (NXDOMAIN, no records); `unavailable`
 * when the question could not be asked (permission denied, timeout, no resolver). Never throws.
 */
export async function resolveHost(
  host: string,
  opts: ResolveOptions,
  resolver: DnsResolver = denoResolver,
): Promise<ResolveResult> {
  const timeout = AbortSignal.timeout(Math.max(1, opts.timeoutMs));
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const ask = (type: "A" | "AAAA") =>
    resolver(host, type, { signal }).then(
      (addrs) => ({ ok: true as const, addrs }),
      (e: unknown) => ({ ok: false as const, e }),
    );
  const [a, aaaa] = await Promise.all([ask("A"), ask("AAAA")]);
  const addresses = [...(a.ok ? a.addrs : []), ...(aaaa.ok ? aaaa.addrs : [])];
  if (addresses.length > 0) {
    return { outcome: "resolved", addresses, detail: `resolves to ${addresses.join(", ")}` };
  }
  const errors = [a, aaaa].flatMap((r) => (r.ok ? [] : [r.e]));
  const denied = errors.find(isPermissionError);
  if (denied) {
    return {
      outcome: "unavailable",
      detail: `${DNS_PERMISSION_DENIED} (${
        message(denied)
      }): grant --allow-net to resolve endpoint hostnames`,
    };
  }
  const failed = errors.find((e) => !(e instanceof Deno.errors.NotFound));
  if (!failed) {
    // Every type answered empty or "not found": the name has no address.
    return {
      outcome: "not-found",
      detail: `no A/AAAA record (${errors.length ? message(errors[0]) : "empty answer"})`,
    };
  }
  if (timeout.aborted) return { outcome: "unavailable", detail: `DNS timeout after ${opts.timeoutMs} ms` };
  if (opts.signal?.aborted) return { outcome: "unavailable", detail: "DNS query aborted" };
  return { outcome: "unavailable", detail: `DNS query failed: ${message(failed)}` };
}
