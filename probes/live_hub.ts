/**
 * The ProbeHub used by runs: memoises every probe per key so concurrent checks share one
 * `wg show` exec pair, one UDP probe per endpoint, one TLS dial per URL and one DNS lookup per
 * hostname, and applies the run-wide switches (network probes off, snapshot replay).
 */
import type { ClusterSource } from "../kube/source.ts";
import type { ProbeHub, ResolveResult, TlsDialResult, UdpProbeResult, WgEvidence } from "./hub.ts";
import type { AccessAnswers, AccessQuestions, DryRunAnswer, LogEvidence } from "./hub.ts";
import { readContainerLogs } from "./logs.ts";
import { collectWireguard } from "./wireguard.ts";
import { probeUdp, type UdpProbeOptions } from "./udp.ts";
import { dialTls, type TlsDialOptions } from "./tls.ts";
import { resolveHost, type ResolveOptions } from "./dns.ts";

/** Low-level probe functions; replaceable in tests. */
export interface ProbeImpls {
  collectWireguard: (
    source: ClusterSource,
    ns: string,
    pod: string,
    intervalMs: number,
    signal?: AbortSignal,
    onFirst?: () => void,
  ) => Promise<WgEvidence>;
  probeUdp: (host: string, port: number, opts: UdpProbeOptions) => Promise<UdpProbeResult>;
  dialTls: (url: string, opts: TlsDialOptions) => Promise<TlsDialResult>;
  resolveHost: (host: string, opts: ResolveOptions) => Promise<ResolveResult>;
  readContainerLogs: (
    source: ClusterSource,
    ns: string,
    pod: string,
    container: string,
    opts: { previous: boolean },
  ) => Promise<LogEvidence>;
}

/** Options of {@link createProbeHub}. */
export interface ProbeHubOptions {
  /** Cluster sources by cluster name (the name checks pass to `wireguard`). */
  sources: Map<string, ClusterSource>;
  /** Host-side UDP/TLS probes allowed (false with --no-network-probes). */
  networkProbes: boolean;
  /** Use the FFI UDP probe that detects ICMP refusals (--udp-precise). */
  preciseUdp: boolean;
  /** Gap between the two `wg show` samples. */
  sampleIntervalMs: number;
  /** Default 2000 ms. */
  udpTimeoutMs?: number;
  /** Default 5000 ms. */
  tlsTimeoutMs?: number;
  /** Default 3000 ms. */
  dnsTimeoutMs?: number;
  /** Extra PEM roots for TLS dials. */
  caCerts?: string[];
  /** Aborts pending probes (e.g. on Ctrl-C or global timeout). */
  signal?: AbortSignal;
  /** Overrides of the probe functions (tests). */
  impls?: Partial<ProbeImpls>;
}

/** A ProbeHub that can also start WireGuard sampling ahead of the checks. */
export interface LiveProbeHub extends ProbeHub {
  /** Always present on the run's hub. */
  logs: NonNullable<ProbeHub["logs"]>;
  /** Always present on the run's hub. */
  resolve: NonNullable<ProbeHub["resolve"]>;
  /** Always present on the run's hub. */
  access: NonNullable<ProbeHub["access"]>;
  /**
   * Starts (or joins) the WireGuard sampling of a gateway pod without waiting for it; resolves once
   * its first sample is in (or failed), never rejects.
   */
  warm(clusterName: string, namespace: string, pod: string): Promise<void>;
}

/** Detail of DNS results when --no-network-probes is set. */
export const DNS_PROBES_DISABLED = "not resolved (network probes off)";
/** Detail of UDP/TLS results when --no-network-probes is set. */
export const NETWORK_PROBES_DISABLED = "network probes disabled (--no-network-probes)";
/** Detail of UDP/TLS results when replaying a snapshot. */
export const SNAPSHOT_NO_PROBES = "snapshot: host-side network probes are not run when replaying a capture";

/** A stable number per object (by identity), for memo keys. */
function identities<T extends object>(): { idOf(o: T): number } {
  const ids = new WeakMap<T, number>();
  let next = 0;
  return {
    idOf(o: T): number {
      let id = ids.get(o);
      if (id === undefined) ids.set(o, id = next++);
      return id;
    },
  };
}

/** Builds the run's ProbeHub. Probes never throw; failures become results. */
export function createProbeHub(opts: ProbeHubOptions): LiveProbeHub {
  const impl: ProbeImpls = {
    collectWireguard: opts.impls?.collectWireguard ?? collectWireguard,
    probeUdp: opts.impls?.probeUdp ?? probeUdp,
    dialTls: opts.impls?.dialTls ?? dialTls,
    resolveHost: opts.impls?.resolveHost ?? resolveHost,
    readContainerLogs: opts.impls?.readContainerLogs ?? readContainerLogs,
  };
  const logs = new Map<string, Promise<LogEvidence>>();
  const wg = new Map<string, Promise<WgEvidence>>();
  /** Per WireGuard sampling (same keys as `wg`): resolves once its first sample is in. */
  const wgFirst = new Map<string, Promise<void>>();
  const sourceIds = identities<ClusterSource>();
  const udp = new Map<string, Promise<UdpProbeResult>>();
  const tls = new Map<string, Promise<TlsDialResult>>();
  const dns = new Map<string, Promise<ResolveResult>>();
  const snapshot = [...opts.sources.values()].some((s) => s.isSnapshot);

  const memo = <T>(
    map: Map<string, Promise<T>>,
    key: string,
    run: () => Promise<T>,
    onError: (e: unknown) => T,
  ) => {
    let p = map.get(key);
    if (!p) {
      p = run().catch(onError);
      map.set(key, p);
    }
    return p;
  };
  const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e));

  // Keyed by the source, not the name: a run starts sampling before it knows a cluster's name
  // (under a provisional one) and the checks later ask under the final name.
  const wgKey = (clusterName: string, namespace: string, pod: string): string => {
    const source = opts.sources.get(clusterName);
    return `${source ? sourceIds.idOf(source) : `?${clusterName}`}\u0000${namespace}\u0000${pod}`;
  };

  const hub: LiveProbeHub = {
    wireguard(clusterName: string, namespace: string, pod: string): Promise<WgEvidence> {
      const source = opts.sources.get(clusterName);
      const key = wgKey(clusterName, namespace, pod);
      return memo(
        wg,
        key,
        () => {
          let first = () => {};
          wgFirst.set(key, new Promise<void>((resolve) => first = resolve));
          if (!source) {
            first();
            return Promise.resolve<WgEvidence>({
              ok: false,
              namespace,
              pod,
              reason: "error",
              message: `unknown cluster "${clusterName}"`,
            });
          }
          return impl.collectWireguard(source, namespace, pod, opts.sampleIntervalMs, opts.signal, first)
            .finally(first);
        },
        (e) => ({ ok: false, namespace, pod, reason: "error", message: `wireguard probe failed: ${msg(e)}` }),
      );
    },
    logs(clusterName, namespace, pod, container, o): Promise<LogEvidence> {
      const previous = o?.previous === true;
      const key = [clusterName, namespace, pod, container, previous ? "previous" : "current"].join("\u0000");
      const base = { namespace, pod, container };
      return memo(
        logs,
        key,
        () => {
          const source = opts.sources.get(clusterName);
          if (!source) {
            return Promise.resolve<LogEvidence>({
              ...base,
              ok: false,
              reason: "error",
              message: `unknown cluster "${clusterName}"`,
            });
          }
          return impl.readContainerLogs(source, namespace, pod, container, { previous });
        },
        (e) => ({ ...base, ok: false, reason: "error", message: `log read failed: ${msg(e)}` }),
      );
    },
    udp(host: string, port: number): Promise<UdpProbeResult> {
      if (!opts.networkProbes) {
        return Promise.resolve({ outcome: "unavailable", detail: NETWORK_PROBES_DISABLED });
      }
      if (snapshot) return Promise.resolve({ outcome: "unavailable", detail: SNAPSHOT_NO_PROBES });
      return memo(
        udp,
        `${host}\u0000${port}`,
        () =>
          impl.probeUdp(host, port, {
            timeoutMs: opts.udpTimeoutMs ?? 2000,
            precise: opts.preciseUdp,
            signal: opts.signal,
          }),
        (e) => ({ outcome: "unavailable", detail: `UDP probe failed: ${msg(e)}` }),
      );
    },
    tls(url: string): Promise<TlsDialResult> {
      if (!opts.networkProbes) {
        return Promise.resolve({ outcome: "unavailable", detail: NETWORK_PROBES_DISABLED });
      }
      if (snapshot) return Promise.resolve({ outcome: "unavailable", detail: SNAPSHOT_NO_PROBES });
      return memo(
        tls,
        url,
        () =>
          impl.dialTls(url, {
            timeoutMs: opts.tlsTimeoutMs ?? 5000,
            caCerts: opts.caCerts,
            signal: opts.signal,
          }),
        (e) => ({ outcome: "failed", detail: `TLS dial failed: ${msg(e)}` }),
      );
    },
    resolve(host: string): Promise<ResolveResult> {
      if (!opts.networkProbes) {
        return Promise.resolve({ outcome: "unavailable", detail: DNS_PROBES_DISABLED });
      }
      if (snapshot) return Promise.resolve({ outcome: "unavailable", detail: SNAPSHOT_NO_PROBES });
      return memo(
        dns,
        host.toLowerCase(),
        () => impl.resolveHost(host, { timeoutMs: opts.dnsTimeoutMs ?? 3000, signal: opts.signal }),
        (e) => ({ outcome: "unavailable", detail: `DNS query failed: ${msg(e)}` }),
      );
    },
    async access(clusterName: string, questions: AccessQuestions): Promise<AccessAnswers> {
      const source = opts.sources.get(clusterName);
      if (!source) return { ok: false, unavailable: `unknown cluster "${clusterName}"` };
      if (source.isSnapshot || !source.access) {
        return { ok: false, unavailable: "snapshot: access reviews and dry runs need the live cluster" };
      }
      const access = source.access;
      try {
        const [verdicts, dryRuns] = await Promise.all([
          access.review(questions.reviews, { signal: opts.signal }),
          Promise.all(questions.dryRuns.map(async (object): Promise<DryRunAnswer> => {
            const r = await access.dryRunCreate(object, { signal: opts.signal });
            return r.ok
              ? { object, admitted: true }
              : { object, admitted: false, status: r.status, reason: r.reason, message: r.message };
          })),
        ]);
        return { ok: true, verdicts, dryRuns };
      } catch (e) {
        return { ok: false, unavailable: `access review failed: ${msg(e)}` };
      }
    },
    warm(clusterName: string, namespace: string, pod: string): Promise<void> {
      const done = hub.wireguard(clusterName, namespace, pod).then(() => {}, () => {});
      return wgFirst.get(wgKey(clusterName, namespace, pod)) ?? done;
    },
  };
  return hub;
}

/**
 * Starts WireGuard sampling of a gateway pod early, so the sample interval overlaps other work.
 * Works on any ProbeHub. Resolves once the first sample is in (a hub that cannot tell: once the
 * sampling ends); never rejects.
 */
export function prefetchWireguard(
  hub: ProbeHub,
  clusterName: string,
  namespace: string,
  pod: string,
): Promise<void> {
  const live = hub as Partial<LiveProbeHub>;
  if (typeof live.warm === "function") return live.warm(clusterName, namespace, pod);
  return hub.wireguard(clusterName, namespace, pod).then(() => {}, () => {});
}
