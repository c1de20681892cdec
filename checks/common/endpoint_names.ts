/**
 * Gateway endpoints given as hostnames, as the gateway and tunnel checks report them: whether a name
 * resolves from this host (through the memoised `ctx.probes.resolve`), and the "hostname listed before
 * an IP" risk of clients that dial only `addresses[0]` (Liqo's client template,
 * `deployments/liqo/templates/liqo-wireguard-gateway-client-template.yaml`). Not a check.
 */
import type { CheckContext } from "../types.ts";
import { fix, kubectlIn, type RemediationStep, type RunsOn } from "../remediation.ts";
import type { ResolveResult } from "../../probes/hub.ts";
import {
  dialsOnlyFirstAddress,
  type Endpoint,
  FIRST_ADDRESS_ONLY_BEFORE,
  hostnameBeforeIp,
  isHostname,
} from "../../liqo/endpoints.ts";

/** What a resolution says when network probes are off (nothing is sent from this host). */
export const NOT_RESOLVED_PROBES_OFF = "not resolved (network probes off)";

/**
 * Resolves a hostname from this host: only with network probes on (else `unavailable`, "not resolved
 * (network probes off)"); a hub without a resolver, or one that throws, is `unavailable` too. Never
 * throws.
 */
export async function resolveFromHere(ctx: CheckContext, host: string): Promise<ResolveResult> {
  if (!ctx.options.networkProbes) return { outcome: "unavailable", detail: NOT_RESOLVED_PROBES_OFF };
  if (typeof ctx.probes.resolve !== "function") {
    return { outcome: "unavailable", detail: "not resolved (no resolver in this run)" };
  }
  try {
    return await ctx.probes.resolve(host);
  } catch (e) {
    return {
      outcome: "unavailable",
      detail: `DNS query failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

/** One evidence line about a hostname: "<what> <host> is a hostname: resolves from here to …". */
export function hostnameLine(what: string, host: string, r: ResolveResult): string {
  const from = r.outcome === "resolved"
    ? `resolves from here to ${r.addresses.join(", ")}`
    : r.outcome === "not-found"
    ? `does NOT resolve from here (${r.detail})`
    : r.detail.startsWith("not resolved")
    ? r.detail
    : `not resolved from here: ${r.detail}`;
  return `${what} ${host} is a hostname: ${from} (the gateway pod resolves it with its own DNS)`;
}

/** Evidence lines for every hostname address of an endpoint (none when it has only IPs). */
export async function hostnameLines(ctx: CheckContext, what: string, e: Endpoint | null): Promise<string[]> {
  const names = [...new Set((e?.addresses ?? []).filter(isHostname))];
  const results = await Promise.all(names.map((h) => resolveFromHere(ctx, h)));
  return names.map((h, i) => hostnameLine(what, h, results[i]));
}

/** The "hostname before an IP" finding of an endpoint dialled by a client of a given Liqo version. */
export interface HostnameFirstRisk {
  hostname: string;
  ips: string[];
  /** True: the version dials only addresses[0] for certain (warn); false/null: evidence only. */
  certain: boolean | null;
  /** Evidence line (always) and, when `certain`, the warning summary and remediation. */
  line: string;
  summary: string;
  remediation: RemediationStep[];
}

/**
 * The risk of an endpoint whose first address is a hostname with IPs after it, for a client running
 * `version` (`versionSource` says where the version comes from). Null when there is no such risk.
 */
export function hostnameFirstRisk(
  e: Endpoint | null,
  version: string | null,
  versionSource: string,
  client: { namespace: string; on: RunsOn } | null = null,
): HostnameFirstRisk | null {
  const r = hostnameBeforeIp(e);
  if (!r) return null;
  const certain = dialsOnlyFirstAddress(version);
  const b = FIRST_ADDRESS_ONLY_BEFORE.text;
  const ver = version ? `Liqo ${version}` : "Liqo (version unknown)";
  const ips = r.ips.join(", ");
  const line =
    `addresses[0] is the hostname ${r.hostname}, listed before ${ips}: ${ver} (${versionSource}) ` +
    (certain
      ? `is before ${b}: its client gateway dials only the first address`
      : certain === false
      ? `is ${b} or later (the client gateway's --endpoint-address is still addresses[0])`
      : `— client gateways before ${b} dial only the first address`);
  return {
    hostname: r.hostname,
    ips: r.ips,
    certain,
    line,
    summary: `the hostname ${r.hostname} is listed before ${ips}: ${ver} is before ${b} and dials only the ` +
      `first address, so a client gateway that cannot resolve ${r.hostname} never tries ${ips}`,
    remediation: fix(
      `the client gateway dials only ${r.hostname}: check it resolves in the client cluster (cluster DNS):`,
      // Without `client` the result is the server's (GW-03): the client is the remote cluster.
      kubectlIn(
        client?.on ?? "remote",
        client?.namespace ?? "<client tenant namespace>",
        ...[
          "run",
          "dns-check",
          "--rm",
          "-it",
          "--restart=Never",
          "--image=busybox",
          "--",
          "nslookup",
          r.hostname,
        ],
      ),
      `or dial the IP instead: liqoctl peer … --gw-client-address ${r.ips[0]} (or patch GatewayClient ` +
        `spec.endpoint.addresses to ["${r.ips[0]}"])`,
    ),
  };
}
