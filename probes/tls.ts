/**
 * TCP+TLS dial of an API server URL from the tool's host (API-01, "reachable from here").
 *
 * A TLS handshake that fails only on certificate verification still proves the server is
 * reachable and speaks TLS (API servers use private CAs), so it counts as "ok" with a note.
 */
import type { TlsDialResult } from "./hub.ts";

/** Options of {@link dialTls}. */
export interface TlsDialOptions {
  timeoutMs: number;
  /** Extra PEM roots to trust (e.g. the cluster CA from a kubeconfig). */
  caCerts?: string[];
  signal?: AbortSignal;
}

const CERT_ERROR =
  /certificate|UnknownIssuer|NotValidForName|CertExpired|Expired|BadSignature|CertNotValidYet|UnsupportedCertVersion|BadEncoding|InvalidCertificate|self.signed/i;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function isPermissionError(e: unknown): boolean {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied ||
    (e instanceof Error && /Requires net access/i.test(e.message));
}

function tcpReason(e: unknown, target: string): string {
  if (e instanceof Deno.errors.ConnectionRefused) return `TCP connection to ${target} refused`;
  if (e instanceof Deno.errors.TimedOut) return `TCP connection to ${target} timed out`;
  if (e instanceof Deno.errors.ConnectionReset) return `TCP connection to ${target} reset`;
  if (/dns|lookup|resolve|name or service not known|no such host/i.test(message(e))) {
    return `cannot resolve ${target}: ${message(e)}`;
  }
  return `TCP connection to ${target} failed: ${message(e)}`;
}

function netGranted(host: string, port: number): boolean {
  try {
    return Deno.permissions.querySync({ name: "net", host: `${host}:${port}` }).state === "granted";
  } catch {
    return false;
  }
}

/** Parses an https URL into host (brackets stripped) and port (default 443); null if unusable. */
export function tlsTarget(url: string): { hostname: string; port: number } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "https:") return null;
  const hostname = u.hostname.replace(/^\[(.*)\]$/, "$1");
  if (hostname === "") return null;
  return { hostname, port: u.port === "" ? 443 : Number(u.port) };
}

/**
 * Connects over TCP to the URL's host:port and completes a TLS handshake within `timeoutMs`.
 * "ok" (with the elapsed ms; certificate-verification failures are reported in the detail),
 * "failed" (bad URL, refused, timeout, DNS failure, handshake failure) or "unavailable" (no net
 * permission — nothing is dialled — or aborted). Never throws.
 */
export async function dialTls(url: string, opts: TlsDialOptions): Promise<TlsDialResult> {
  const t = tlsTarget(url);
  if (t === null) return { outcome: "failed", detail: `not an https URL: ${url}` };
  const target = `${t.hostname}:${t.port}`;
  if (!netGranted(t.hostname, t.port)) {
    return { outcome: "unavailable", detail: `no net permission for ${target} (--allow-net)` };
  }
  if (opts.signal?.aborted) return { outcome: "unavailable", detail: "aborted" };
  const started = performance.now();
  const timeoutCtl = new AbortController();
  const timer = setTimeout(() => timeoutCtl.abort(), Math.max(1, opts.timeoutMs));
  const timeoutSignal = timeoutCtl.signal;
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeoutSignal]) : timeoutSignal;
  try {
    return await dialWith(t, target, opts, started, signal, timeoutSignal);
  } finally {
    clearTimeout(timer);
  }
}

async function dialWith(
  t: { hostname: string; port: number },
  target: string,
  opts: TlsDialOptions,
  started: number,
  signal: AbortSignal,
  timeoutSignal: AbortSignal,
): Promise<TlsDialResult> {
  let tcp: Deno.TcpConn;
  try {
    tcp = await Deno.connect({ hostname: t.hostname, port: t.port, transport: "tcp", signal });
  } catch (e) {
    if (opts.signal?.aborted) return { outcome: "unavailable", detail: "aborted" };
    if (timeoutSignal.aborted) {
      return {
        outcome: "failed",
        detail: `TCP connection to ${target} timed out after ${opts.timeoutMs} ms`,
      };
    }
    if (isPermissionError(e)) {
      return { outcome: "unavailable", detail: `no net permission for ${target} (--allow-net)` };
    }
    return { outcome: "failed", detail: tcpReason(e, target) };
  }
  const tcpMs = Math.round(performance.now() - started);

  let tls: Deno.TlsConn | null = null;
  const onAbort = (): void => {
    try {
      (tls ?? tcp).close();
    } catch { /* closed */ }
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    tls = await Deno.startTls(tcp, { hostname: t.hostname, caCerts: opts.caCerts });
    await tls.handshake();
    const ms = Math.round(performance.now() - started);
    return { outcome: "ok", detail: `TCP+TLS reachable (TCP ${tcpMs} ms, TLS handshake done)`, ms };
  } catch (e) {
    if (opts.signal?.aborted) return { outcome: "unavailable", detail: "aborted" };
    if (timeoutSignal.aborted) {
      return {
        outcome: "failed",
        detail:
          `TCP to ${target} connected in ${tcpMs} ms but the TLS handshake timed out after ${opts.timeoutMs} ms`,
      };
    }
    if (CERT_ERROR.test(message(e))) {
      const ms = Math.round(performance.now() - started);
      return { outcome: "ok", detail: `TCP+TLS reachable (certificate not verified: ${message(e)})`, ms };
    }
    return { outcome: "failed", detail: `TCP to ${target} connected but TLS failed: ${message(e)}` };
  } finally {
    signal.removeEventListener("abort", onAbort);
    try {
      (tls ?? tcp).close();
    } catch { /* closed */ }
  }
}
