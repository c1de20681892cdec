/**
 * PF-API's measurement: the provider API URL Liqo would embed in the consumer's Identity — the
 * provider controller-manager's `--api-server-address-override` when set (FACTS §6.1), else the
 * provider kubeconfig's server — dialled from the consumer's client pod (curl TCP + TLS) and from
 * this host (probes/tls.ts), at once.
 */
import type { ClusterView } from "../../../checks/types.ts";
import { controllerManagerArg } from "../../../liqo/lookups.ts";
import { dialTls } from "../../../probes/tls.ts";
import type { TlsDialResult } from "../../../probes/hub.ts";
import { apiReach, PROBE_CONTAINER } from "../../commands.ts";
import type { PreflightPodState } from "../../fleet/preflight_fleet.ts";
import type { ProbeTarget } from "../../fleet/target.ts";
import { type ApiUrl, parsePodReach, type PodReach } from "./judge.ts";

/** The controller-manager flag that overrides the API server address Liqo advertises. */
export const API_OVERRIDE_FLAG = "api-server-address-override";

/** The provider API URL Liqo would embed, and where it came from. */
export function providerApiUrl(provider: ClusterView): ApiUrl {
  const override = controllerManagerArg(provider.inv, API_OVERRIDE_FLAG);
  if (override) {
    const url = /^https?:\/\//.test(override) ? override : `https://${override}`;
    return { url, source: `the provider's controller-manager --${API_OVERRIDE_FLAG}` };
  }
  return { url: provider.server, source: "the provider kubeconfig's server" };
}

/** Dials the URL from the consumer's client pod and from this host. */
export async function measureApi(input: {
  api: ApiUrl;
  consumer: ProbeTarget;
  namespace: string;
  clientPod: PreflightPodState | undefined;
  timeoutMs: number;
  signal: AbortSignal;
  /** The host's dial (tests replace it); null: not from this host (`--no-network-probes`). */
  hostDial?: ((url: string) => Promise<TlsDialResult>) | null;
}): Promise<
  {
    pod: { reach: PodReach; pod: string; node: string | null; cluster: string } | null;
    host: TlsDialResult | null;
    why: string | null;
  }
> {
  const hostDial: (url: string) => Promise<TlsDialResult | null> = input.hostDial === null
    ? () => Promise.resolve(null)
    : input.hostDial ?? ((url: string) => dialTls(url, { timeoutMs: input.timeoutMs, signal: input.signal }));
  const p = input.clientPod;
  const fromPod = async () => {
    if (!p) return { pod: null, why: "no client pod in the consumer" };
    if (p.state === "rejected") {
      return { pod: null, why: `client pod ${p.name} rejected by ${p.by}: ${p.message}` };
    }
    if (p.state === "failed") return { pod: null, why: `client pod: ${p.reason}` };
    const secs = Math.max(1, Math.round(input.timeoutMs / 1000));
    const out = await input.consumer.exec(
      input.namespace,
      p.name,
      PROBE_CONTAINER,
      apiReach(input.api.url, secs),
    );
    if (!out.ok) return { pod: null, why: `exec in ${p.name} failed: ${out.message}` };
    return {
      pod: {
        reach: parsePodReach(out.exitCode, out.stdout, out.stderr),
        pod: p.name,
        node: p.node,
        cluster: input.consumer.name,
      },
      why: null,
    };
  };
  const [pod, host] = await Promise.all([fromPod(), hostDial(input.api.url)]);
  return { pod: pod.pod, host, why: pod.why };
}
