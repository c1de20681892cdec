/**
 * PF-API's judge: the provider API URL Liqo will embed, reached from a pod in the consumer (curl
 * TCP + TLS, active/commands.ts apiReach) against the tool host's own dial (probes/tls.ts). The
 * cluster's vantage decides; the host's tells "the host reaches it, the cluster cannot" (proxies,
 * Teleport, private endpoints) apart from "nobody can".
 */
import type { Outcome } from "../../../checks/types.ts";
import type { TlsDialResult } from "../../../probes/hub.ts";
import { fix, note } from "../../../checks/remediation.ts";

/** What a pod's curl said. */
export type PodReach =
  | { kind: "ok"; httpCode: string; remoteIp: string }
  | { kind: "dns" | "refused" | "timeout" | "tls" | "error"; detail: string };

/** Reads curl's exit code and output (`<code> <ip>` on success). */
export function parsePodReach(exitCode: number, stdout: string, stderr: string): PodReach {
  const detail = (stderr.trim() || stdout.trim() || `curl exit ${exitCode}`).split("\n")[0];
  if (exitCode === 0) {
    const [code = "", ip = ""] = stdout.trim().split(/\s+/);
    return { kind: "ok", httpCode: code, remoteIp: ip };
  }
  if (exitCode === 6) return { kind: "dns", detail };
  if (exitCode === 7) return { kind: "refused", detail };
  if (exitCode === 28) return { kind: "timeout", detail };
  if (exitCode === 35 || exitCode === 56 || exitCode === 60) return { kind: "tls", detail };
  return { kind: "error", detail };
}

/** Where the URL came from. */
export interface ApiUrl {
  url: string;
  /** "the provider's --api-server-address-override" or "the provider kubeconfig's server". */
  source: string;
}

const WORDS: Record<Exclude<PodReach["kind"], "ok">, string> = {
  dns: "its name does not resolve",
  refused: "TCP connection refused or unreachable",
  timeout: "no TCP/TLS answer in time",
  tls: "TCP connects but the TLS handshake fails (a proxy in the way?)",
  error: "curl failed",
};

/** PF-API's verdict; `pod` null: no pod ran (why in `why`). */
export function judgeApi(
  api: ApiUrl,
  pod: { reach: PodReach; pod: string; node: string | null; cluster: string } | null,
  host: TlsDialResult | null,
  why: string | null = null,
): Outcome {
  const hostLine = host === null
    ? "this host: not dialled (--no-network-probes)"
    : host.outcome === "ok"
    ? `this host: TCP + TLS to ${api.url} ok${host.detail ? ` (${host.detail})` : ""}`
    : `this host: ${host.outcome}: ${host.detail ?? ""}`;
  const evidence = [`URL ${api.url} (${api.source})`, hostLine];
  if (!pod) {
    return { status: "unknown", summary: `not probed from the consumer: ${why ?? "no pod ran"}`, evidence };
  }
  const from = `pod ${pod.pod} in ${pod.cluster}${pod.node ? ` (node ${pod.node})` : ""}`;
  if (pod.reach.kind === "ok") {
    return {
      status: "pass",
      summary: `${api.url} answers TCP + TLS from ${from} (HTTP ${pod.reach.httpCode}${
        pod.reach.remoteIp ? `, ${pod.reach.remoteIp}` : ""
      })`,
      evidence: [...evidence, `${from}: HTTP ${pod.reach.httpCode}`],
    };
  }
  const fromPod = `${from}: ${WORDS[pod.reach.kind]}: ${pod.reach.detail}`;
  const hostOk = host?.outcome === "ok";
  return {
    status: "fail",
    summary: hostOk
      ? `the host reaches ${api.url}, the consumer cluster cannot: ${WORDS[pod.reach.kind]} (from ${from})`
      : host === null
      ? `${api.url} is not reachable from the consumer (${
        WORDS[pod.reach.kind]
      }, from ${from}); this host did not dial it (--no-network-probes)`
      : `${api.url} is not reachable from the consumer (${
        WORDS[pod.reach.kind]
      }, from ${from}), nor from this host`,
    evidence: [...evidence, fromPod],
    remediation: fix(
      hostOk
        ? "this host goes through something the cluster does not (a proxy, Teleport, a private endpoint): " +
          "give Liqo a provider API address the consumer's pods reach"
        : "make the provider's API server reachable from the consumer's pods (firewall, security group, private endpoint)",
      note(
        "on the provider: liqoctl install … --api-server-url https://<address the consumer reaches> " +
          "(controller-manager --api-server-address-override)",
      ),
    ),
  };
}
