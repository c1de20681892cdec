/**
 * TUN-06: the tunnel MTU is consistent — gateway spec, InternalFabric, the wireguard --mtu and the live
 * interface agree locally and (dual) with the peer — and TCP MSS clamping is applied (v1.1+).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import {
  activeGatewayPod,
  gatewayOf,
  type GatewayRef,
  liqoVersionOf,
  REMOTE_ID_LABEL,
} from "../../liqo/lookups.ts";
import { TUNNEL_PREFIX } from "../../probes/wireguard.ts";
import { containerArgs } from "../../liqo/args.ts";
import { gatewayDeployment, lookupGateway } from "../common/gateway.ts";
import { GW_KINDS } from "./_story.ts";
import { fix, kubectlIn, liqoctl, remoteKubeconfig } from "../remediation.ts";

/** IPv4 + ICMP header bytes: largest don't-fragment ping payload = MTU − 28. */
const PING_OVERHEAD = 28;

interface MtuView {
  values: { source: string; mtu: number }[];
  notes: string[];
}

async function localMtus(ctx: CheckContext, gw: GatewayRef, peerId: string): Promise<MtuView> {
  const values: { source: string; mtu: number }[] = [];
  const notes: string[] = [];
  const add = (source: string, v: unknown) => {
    const n = typeof v === "number" ? v : typeof v === "string" && /^[0-9]+$/.test(v) ? Number(v) : null;
    if (n !== null) values.push({ source, mtu: n });
  };
  add(`${gw.role === "server" ? "GatewayServer" : "GatewayClient"} ${gw.name} spec.mtu`, gw.object.spec?.mtu);
  const fabric =
    ctx.cluster.inv.items("internalfabrics").find((f) =>
      f.metadata.namespace === gw.namespace && f.metadata.labels?.[REMOTE_ID_LABEL] === peerId
    ) ?? ctx.cluster.inv.items("internalfabrics").find((f) =>
      f.metadata.labels?.[REMOTE_ID_LABEL] === peerId
    );
  if (fabric) add(`InternalFabric ${fabric.metadata.name} spec.mtu`, fabric.spec?.mtu);
  else notes.push(`no InternalFabric for ${peerId}`);
  const dep = gatewayDeployment(ctx, gw);
  add(
    `Deployment ${gw.workloadName} wireguard --mtu`,
    containerArgs(dep?.spec?.template?.spec, "wireguard").get("mtu"),
  );
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (pod) {
    const ev = await ctx.probes.wireguard(ctx.cluster.name, gw.namespace, pod.metadata.name);
    if (ev.ok) {
      const live = Object.entries(ev.mtu).filter(([n]) => n.startsWith(TUNNEL_PREFIX));
      for (const [name, mtu] of live) add(`live ${name} MTU (${pod.metadata.name})`, mtu);
      if (live.length === 0) notes.push("live tunnel MTU not read");
    } else notes.push(`live tunnel MTU not read: ${ev.message}`);
  } else notes.push("no running gateway pod: live MTU not read");
  return { values, notes };
}

function versionAtLeast(v: string | null, major: number, minor: number): boolean | null {
  const m = v?.match(/^v?(\d+)\.(\d+)/);
  if (!m) return null;
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
}

/** The gw-mss-clamping FirewallConfiguration state for the active gateway pod (v1.1+). */
function mssClamp(ctx: CheckContext, gw: GatewayRef): { line: string; problem: string | null } {
  const version = liqoVersionOf(ctx.cluster.inv);
  const ns = ctx.cluster.liqoNamespace ?? "liqo";
  const fwcs = ctx.cluster.inv.tryItems("firewallconfigurations");
  if (!fwcs) return { line: "FirewallConfigurations not readable: MSS clamping not verified", problem: null };
  const fw = fwcs.find((f) => f.metadata.name === "gw-mss-clamping" && f.metadata.namespace === ns) ??
    fwcs.find((f) => f.metadata.name === "gw-mss-clamping");
  if (!fw) {
    if (versionAtLeast(version, 1, 1) === false) {
      return { line: `Liqo ${version}: no MSS clamping before v1.1`, problem: null };
    }
    return {
      line: `no FirewallConfiguration ${ns}/gw-mss-clamping`,
      problem:
        "TCP MSS clamping missing (Helm networking.gateway.mssclamp.enabled=false?): large TCP segments may be dropped",
    };
  }
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { line: `FirewallConfiguration ${ns}/gw-mss-clamping present`, problem: null };
  const entry = (fw.status?.conditions ?? []).find((c) =>
    c?.host === pod.metadata.name && c?.type === "Applied"
  );
  if (entry?.status === "True") {
    return { line: `gw-mss-clamping Applied=True on ${pod.metadata.name}`, problem: null };
  }
  return {
    line: `gw-mss-clamping on ${pod.metadata.name}: ${
      entry ? `Applied=${entry.status}` : "no Applied entry"
    }`,
    problem: `MSS clamping not applied by the gateway pod ${pod.metadata.name}`,
  };
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw, peerId } = l;
  const local = await localMtus(ctx, gw, peerId);
  if (local.values.length === 0) {
    return { status: "unknown", summary: "no MTU found for this gateway", evidence: local.notes };
  }
  const evidence = local.values.map((v) => `${ctx.cluster.name} ${v.source}: ${v.mtu}`);
  evidence.push(...local.notes);
  const tunnelMtu = local.values[0].mtu;
  const distinct = [...new Set(local.values.map((v) => v.mtu))];
  const minMtu = Math.min(...distinct);
  evidence.push(
    `largest don't-fragment ping payload through the tunnel: ${
      minMtu - PING_OVERHEAD
    } bytes (MTU ${minMtu} − 28)`,
  );
  const clamp = mssClamp(ctx, gw);
  evidence.push(clamp.line);
  if (ctx.remote && ctx.remotePeer) {
    const rgw = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
    const rmtu = rgw?.object.spec?.mtu;
    if (rgw && typeof rmtu === "number") {
      evidence.unshift(
        `${ctx.cluster.name} ${gw.role} MTU ${tunnelMtu} | ${ctx.remote.name} ${rgw.role} MTU ${rmtu}`,
      );
      if (rmtu !== tunnelMtu) {
        return {
          status: "fail",
          summary:
            `tunnel MTU differs across the clusters: ${ctx.cluster.name} ${tunnelMtu}, ${ctx.remote.name} ${rmtu}`,
          evidence,
          remediation: fix(
            "both sides must use the same MTU (link MTU − 60 for IPv4); re-run the network setup with it:",
            liqoctl(
              "local",
              ...["network", "connect", remoteKubeconfig("remote")],
              ...["--mtu", String(Math.min(tunnelMtu, rmtu))],
            ),
          ),
        };
      }
    }
  }
  const problems: string[] = [];
  if (distinct.length > 1) problems.push(`local MTU values disagree (${distinct.join(" vs ")})`);
  if (clamp.problem) problems.push(clamp.problem);
  if (problems.length > 0) {
    return {
      status: "warn",
      summary: problems.join("; "),
      evidence,
      remediation: fix(
        kubectlIn("local", gw.namespace, "get", `gateway${gw.role}`, gw.name, "-o", "jsonpath={.spec.mtu}"),
        kubectlIn(
          "local",
          gw.namespace,
          "get",
          "internalfabrics",
          "-o",
          "custom-columns=NAME:.metadata.name,MTU:.spec.mtu",
        ),
        "align them by re-running liqoctl network connect with one --mtu value",
      ),
    };
  }
  return { status: "pass", summary: `tunnel MTU ${tunnelMtu} consistent`, evidence };
}

export const TUN_06: CheckDef = {
  id: "TUN-06",
  title: "Tunnel MTU consistent",
  layer: "tunnel",
  needs: [],
  scope: "single",
  perPeer: true,
  reads: [...GW_KINDS, "internalfabrics", "deployments", "pods"],
  readsIn: { pods: ["gateways"] },
  optionalReads: ["firewallconfigurations"],
  explain: {
    reads:
      "GatewayServer/Client spec.mtu, InternalFabric spec.mtu, the wireguard container's --mtu, the live " +
      "liqo-tunnel MTU, FirewallConfiguration gw-mss-clamping (Applied=True for the active gateway pod, v1.1+); " +
      "in dual mode the peer's gateway spec.mtu.",
    decides:
      "fail: the two clusters use different tunnel MTUs. warn: local values disagree, or MSS clamping is " +
      "missing or not applied. Evidence includes the largest safe ping payload (MTU − 28).",
    fixes: "Use one MTU (link MTU − 60) on both sides: liqoctl network connect --mtu <n>.",
  },
  hops: ["wireguard"],
  hubReads: ["wireguard", "logs", "resolve"],
  run,
};
