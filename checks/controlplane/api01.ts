/**
 * API-01: the consumer's controller-manager reaches the provider's API server (APIServerStatus),
 * with an optional TLS dial from this host to tell a cluster-side block from a wrong address
 * (Liqo's `pkg/liqo-controller-manager/core/foreigncluster-controller/apiserverchecker.go`,
 * `pkg/liqoctl/authenticate/handler.go`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { Identity } from "../../liqo/views/peering.ts";
import { conditionOf, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { describeCondition, liqoNs, peerId } from "./shared.ts";
import {
  fix,
  kubectlIn,
  liqoctl,
  pipe,
  type RemediationStep,
  remoteKubeconfig,
  shell,
  step,
} from "../remediation.ts";

function controlPlaneIdentity(inv: Objects, id: string): Identity | undefined {
  return (inv.tryItems("identities") ?? []).find((i) =>
    i.metadata.labels?.[REMOTE_ID_LABEL] === id && i.spec?.type === "ControlPlane"
  );
}

async function dialFromHere(
  ctx: CheckContext,
  url: string | undefined,
  proxyUrl: string | undefined,
): Promise<{ ok: boolean | null; line: string }> {
  if (proxyUrl) {
    return {
      ok: null,
      line: "not dialled from here: in-band peering (API reached through liqo-proxy in the tunnel)",
    };
  }
  if (!url) return { ok: null, line: "not dialled from here: no URL" };
  if (!ctx.options.networkProbes) return { ok: null, line: "not dialled from here: network probes disabled" };
  if (ctx.cluster.isSnapshot) return { ok: null, line: "not dialled from here: snapshot" };
  const r = await ctx.probes.tls(url);
  if (r.outcome === "ok") return { ok: true, line: `from here: TLS handshake with ${url} in ${r.ms} ms` };
  if (r.outcome === "failed") return { ok: false, line: `from here: ${url} not reachable: ${r.detail}` };
  return { ok: null, line: `not dialled from here: ${r.detail}` };
}

function api01Remediation(ctx: CheckContext, target: string, inBand: boolean): RemediationStep[] {
  const lns = liqoNs(ctx);
  const curl = ["--image=curlimages/curl", "--", "curl", "-skm5", `${target}/livez`];
  return fix(
    pipe(
      kubectlIn("local", lns, "logs", "deploy/liqo-controller-manager"),
      shell("grep", "-i", "api server"),
    ),
    step(
      kubectlIn("local", lns, "run", "ff-curl", "--rm", "-it", "--restart=Never", ...curl),
      "Test from inside the cluster:",
    ),
    inBand &&
      "In-band path: check API-02 (liqo-proxy on the provider, the remapped proxy IP) and the tunnel (TUN-01)",
    !inBand &&
      step(
        liqoctl("consumer", "peer", remoteKubeconfig("provider"), "--in-band"),
        "Open egress from the nodes to the provider API server (TCP, the port in the URL); if the provider's " +
          "API server cannot be exposed, peer in-band:",
      ),
    !inBand &&
      "If the address is wrong, set it on the provider (Helm apiServer.address / liqoctl install " +
        "--api-server-url) and re-peer",
  );
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const fc = ctx.peer?.foreignCluster;
  const id = peerId(ctx);
  const identity = controlPlaneIdentity(ctx.cluster.inv, id);
  const url: string | undefined = fc?.status?.apiServerUrl || identity?.spec?.authParams?.apiServer ||
    undefined;
  const proxyUrl: string | undefined = fc?.status?.foreignProxyUrl || identity?.spec?.authParams?.proxyURL ||
    undefined;
  if (!url && !proxyUrl) {
    return {
      status: "skip",
      summary: "the local cluster does not consume this peer's API (no apiServerUrl)",
    };
  }
  const evidence: string[] = [];
  if (url) evidence.push(`apiServerUrl ${url}`);
  if (proxyUrl) evidence.push(`foreignProxyUrl ${proxyUrl} (in-band)`);
  const idUrl = identity?.spec?.authParams?.apiServer;
  if (identity && idUrl && url && idUrl !== url) {
    evidence.push(
      `Identity ${identity.metadata.name} authParams.apiServer ${idUrl} differs from the ForeignCluster`,
    );
  }
  const cond = conditionOf(fc, "APIServerStatus");
  const now = ctx.cluster.now;
  if (cond) {
    evidence.push(
      `${describeCondition(cond, now)}${cond.message ? `: ${cond.message}` : ""}`,
    );
  } else evidence.push("no APIServerStatus condition on the ForeignCluster");
  const here = await dialFromHere(ctx, url, proxyUrl);
  evidence.push(here.line);
  const target = proxyUrl ?? url;
  if (cond?.status === "Error") {
    return {
      status: "fail",
      summary: here.ok === true
        ? `provider API server ${target} reachable from here but not from the cluster (APIServerStatus=Error)`
        : `provider API server ${target} not reachable from the cluster (APIServerStatus=Error)`,
      evidence,
      remediation: api01Remediation(ctx, target!, !!proxyUrl),
    };
  }
  if (cond?.status === "Established") {
    return {
      status: "pass",
      summary: here.ok === false
        ? "reachable from the cluster but not from here (that's fine for the peering; your host has no route)"
        : `provider API server ${target} reachable from the cluster`,
      evidence,
    };
  }
  return {
    status: "unknown",
    summary: cond
      ? `APIServerStatus=${cond.status}: the controller-manager has not confirmed the API server yet`
      : "no APIServerStatus condition yet (the controller-manager probes /livez every 15 s)",
    evidence,
  };
}

export const API_01: CheckDef = {
  id: "API-01",
  title: "Provider API server reachable",
  layer: "controlplane",
  // In-band peerings reach the provider API through liqo-proxy: a broken in-band path (API-02) is
  // why APIServerStatus is Error. Out-of-band, API-02 skips without blocking.
  needs: ["API-02"],
  scope: "single",
  perPeer: true,
  reads: ["foreignclusters"],
  optionalReads: ["identities"],
  explain: {
    reads: "ForeignCluster status.apiServerUrl/foreignProxyUrl, the control-plane Identity's " +
      "authParams.apiServer/proxyURL, the APIServerStatus condition (the controller-manager GETs /livez every " +
      "15 s), and with network probes a TCP+TLS dial from the tool's host ('from here').",
    decides: "skip when the local cluster does not consume this peer's API, or when API-02 found the " +
      "in-band path broken (that is the cause); fail when APIServerStatus is " +
      "Error (saying whether it is reachable from here); pass when Established, even if unreachable from " +
      "here (the host may simply have no route); unknown while the condition is missing or pending.",
    fixes:
      "Open the path from the consumer's nodes to the provider API server, fix the advertised address, " +
      "or peer in-band (liqoctl peer --in-band).",
  },
  hops: [],
  hubReads: ["tls"],
  run,
};
