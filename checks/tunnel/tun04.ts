/**
 * TUN-04: the WireGuard keys are symmetric — the peer's PublicKey sits labelled in the gateway
 * namespace, is configured on the live tunnel, and (dual) is the key the peer's gateway uses now.
 */
import type { CheckContext, CheckDef, ClusterView, Outcome } from "../types.ts";
import type { PublicKey } from "../../liqo/views/networking.ts";
import type { WgInterface, WgPeer } from "../../probes/hub.ts";
import { activeGatewayPod, gatewayOf, type GatewayRef, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { tunnelInterfaces } from "../../probes/wireguard.ts";
import { lookupGateway } from "../common/gateway.ts";
import { execFix, GW_KINDS, liveWireguard, shortKey, wgCommand } from "./_story.ts";
import { fix, kubectlIn, type RemediationStep, step } from "../remediation.ts";
import { GATEWAY_RESOURCE_LABEL } from "../../liqo/names.ts";

interface KeyLookup {
  key: PublicKey | null;
  misplaced: string[];
}

/** The PublicKey CR for a peer in the gateway namespace, and near-misses explaining its absence. */
function publicKeyOf(inv: ClusterView["inv"], gw: GatewayRef, peerId: string): KeyLookup {
  const all = inv.items("publickeies");
  const key =
    all.find((p) =>
      p.metadata.namespace === gw.namespace && p.metadata.labels?.[REMOTE_ID_LABEL] === peerId
    ) ??
      null;
  const misplaced: string[] = [];
  for (const p of all) {
    if (p === key) continue;
    const label = p.metadata.labels?.[REMOTE_ID_LABEL];
    if (label === peerId) {
      misplaced.push(
        `PublicKey ${p.metadata.namespace}/${p.metadata.name} has the right label but lives in ${p.metadata.namespace}, not the gateway namespace ${gw.namespace}`,
      );
    } else if (p.metadata.namespace === gw.namespace) {
      misplaced.push(
        `PublicKey ${p.metadata.namespace}/${p.metadata.name} is labelled ${REMOTE_ID_LABEL}=${
          label ?? "(none)"
        }, expected ${peerId}`,
      );
    }
  }
  return { key, misplaced };
}

function peerKeys(tunnels: WgInterface[]): WgPeer[] {
  return tunnels.flatMap((i) => i.peers);
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw, peerId } = l;
  const { key, misplaced } = publicKeyOf(ctx.cluster.inv, gw, peerId);
  const keyFix = keyExchangeFix(ctx, gw, peerId);
  const wrongLabel = ctx.cluster.inv.items("publickeies").filter((p) =>
    p.metadata.namespace === gw.namespace && p.metadata.labels?.[REMOTE_ID_LABEL] !== peerId
  );
  if (!key) {
    const what = misplaced.length > 0
      ? "not found where the gateway looks (mislabelled or wrong namespace)"
      : "missing";
    return {
      status: "fail",
      summary: `PublicKey of peer ${peerId} ${what}: the wireguard container has no peer to configure`,
      evidence: [
        `no PublicKey labelled ${REMOTE_ID_LABEL}=${peerId} in ${gw.namespace} on ${ctx.cluster.name}`,
        ...misplaced,
      ],
      remediation: fix(
        kubectlIn("local", gw.namespace, "get", "publickeies", "-A", "--show-labels"),
        misplaced.length > 0 && "fix the label/namespace, e.g.:",
        misplaced.length > 0 &&
          kubectlIn(
            "local",
            gw.namespace,
            ...["label", "publickey", wrongLabel[0]?.metadata.name ?? "<name>"],
            ...[`${REMOTE_ID_LABEL}=${peerId}`, "--overwrite"],
          ),
        ...keyFix,
      ),
    };
  }
  const cr = String(key.spec?.publicKey ?? "");
  const evidence = [`PublicKey ${gw.namespace}/${key.metadata.name}: ${cr}`, ...misplaced];
  const live = await liveWireguard(ctx, gw);
  let liveNote: string | null = null;
  if ("none" in live) liveNote = live.none;
  else if (!live.ev.ok) liveNote = `wg not readable (${live.ev.message})`;
  else {
    const tunnels = tunnelInterfaces(live.ev.first);
    if (tunnels.length === 0) liveNote = "no liqo-tunnel interface in wg output";
    else {
      const peers = peerKeys(tunnels);
      evidence.push(
        `live ${tunnels.map((t) => t.name).join(",")} peers: ${
          peers.map((p) => p.publicKey).join(", ") || "(none)"
        }`,
      );
      // A peer line that could not be read at all may be the one with this key: then presence is unknown.
      const unreadable = [
        ...tunnels.flatMap((t) => (t.unreadableLines ?? []).map((u) => `${t.name}: ${u}`)),
        ...(live.ev.first.unreadableLines ?? []),
      ];
      if (!peers.some((p) => p.publicKey === cr) && unreadable.length > 0) {
        return {
          status: "unknown",
          summary: `PublicKey ${shortKey(cr)} not among the readable wg peers, but the wg output has ` +
            `unreadable lines (${unreadable[0]}): key presence cannot be decided`,
          evidence: [...evidence, ...unreadable.slice(0, 6)],
          remediation: fix("inspect by hand:", wgCommand(gw.namespace, live.ev.pod)),
        };
      }
      if (!peers.some((p) => p.publicKey === cr)) {
        return {
          status: "fail",
          summary: `PublicKey CR not configured on the tunnel: wg peers do not include ${shortKey(cr)}`,
          evidence,
          remediation: fix(
            step(
              kubectlIn("local", gw.namespace, "logs", live.ev.pod, "-c", "wireguard"),
              "PublicKey reconcile errors",
            ),
            step(
              kubectlIn("local", gw.namespace, "delete", "pod", live.ev.pod),
              "the gateway reconfigures the peer on start",
            ),
          ),
        };
      }
    }
  }
  const dual = remoteKeyCheck(ctx, cr);
  const dualResult = dual ? await dual : null;
  if (dualResult) {
    evidence.push(...dualResult.evidence);
    if (dualResult.mismatch) {
      return {
        status: "fail",
        summary:
          `stale PublicKey after a gateway was recreated: ${ctx.cluster.name} holds ${
            shortKey(cr)
          } for ${peerId}, ` +
          `but ${ctx.remote?.name} now uses ${shortKey(dualResult.mismatch)}`,
        evidence,
        remediation: fix(
          `the peer's gateway key changed; replace ${gw.namespace}/${key.metadata.name} with it:`,
          ...keyFix,
        ),
      };
    }
  }
  if (liveNote) {
    return {
      status: "unknown",
      summary: `PublicKey present; live comparison with wg not possible: ${liveNote}`,
      evidence,
      remediation: live && "ev" in live && !live.ev.ok ? execFix(live.ev) : undefined,
    };
  }
  return {
    status: "pass",
    summary: `PublicKey ${shortKey(cr)} configured on the tunnel${
      dualResult ? " and matches the peer's gateway" : ""
    }`,
    evidence,
  };
}

/** How to put the peer gateway's current key into the local PublicKey (names filled in where known). */
function keyExchangeFix(ctx: CheckContext, gw: GatewayRef, peerId: string): RemediationStep[] {
  const rgw = ctx.remote && ctx.remotePeer ? gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId) : null;
  const remoteNs = rgw?.namespace ?? ctx.peer?.foreignCluster?.status?.tenantNamespace?.remote ??
    `liqo-tenant-${ctx.cluster.clusterId ?? "<this cluster ID>"}`;
  const remoteSecret = rgw?.workloadName ?? `gw-${ctx.cluster.clusterId ?? "<this cluster ID>"}`;
  return fix(
    `on ${ctx.remote?.name ?? peerId}, read its gateway public key:`,
    kubectlIn("remote", remoteNs, "get", "secret", remoteSecret, "-o", "jsonpath={.data.publicKey}"),
    `here, that value must be spec.publicKey of a PublicKey in ${gw.namespace} labelled ` +
      `${REMOTE_ID_LABEL}=${peerId} and ${GATEWAY_RESOURCE_LABEL}=true`,
    "(liqoctl generate publickey on the peer prints such an object; re-running liqoctl network connect re-exchanges keys)",
  );
}

/** Dual mode: compares the local PublicKey with the peer gateway's Secret and live interface key. */
async function remoteKeyCheck(
  ctx: CheckContext,
  cr: string,
): Promise<{ evidence: string[]; mismatch: string | null; remoteName: string } | null> {
  if (!ctx.remote || !ctx.remotePeer) return null;
  const rgw = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
  if (!rgw) return null;
  const evidence: string[] = [];
  let mismatch: string | null = null;
  const secrets = ctx.remote.inv.tryItems("secrets");
  const secret = secrets?.find((s) =>
    s.metadata.namespace === rgw.namespace &&
    (s.metadata.name === rgw.workloadName ||
      (s.metadata.labels?.[GATEWAY_RESOURCE_LABEL] === "true" &&
        s.metadata.labels?.[REMOTE_ID_LABEL] === ctx.remotePeer?.clusterId))
  );
  const secretKey = secret?.data?.publicKey ? decodeKey(String(secret.data.publicKey)) : null;
  if (secretKey) {
    evidence.push(
      `${ctx.remote.name} Secret ${rgw.namespace}/${secret!.metadata.name} publicKey: ${secretKey}`,
    );
    if (secretKey !== cr) mismatch = secretKey;
  } else {evidence.push(
      `${ctx.remote.name} Secret ${rgw.namespace}/${rgw.workloadName}: ${
        secrets ? "not found" : "not readable"
      }`,
    );}
  const pod = activeGatewayPod(ctx.remote.inv, rgw);
  if (pod) {
    const ev = await ctx.probes.wireguard(ctx.remote.name, rgw.namespace, pod.metadata.name);
    if (ev.ok) {
      const itf = tunnelInterfaces(ev.first)[0];
      if (itf?.publicKey) {
        evidence.push(`${ctx.remote.name} ${itf.name} public-key: ${itf.publicKey}`);
        if (itf.publicKey !== cr) mismatch = itf.publicKey;
      }
    } else evidence.push(`${ctx.remote.name} wg not readable: ${ev.message}`);
  }
  return { evidence, mismatch, remoteName: rgw.name };
}

/**
 * Secret data is base64 of the base64 key text in a raw Secret, but the inventory may already hold the
 * decoded text; accept both (a WireGuard key is 44 characters of base64 ending in "=").
 */
function decodeKey(v: string): string {
  if (/^[A-Za-z0-9+/]{43}=$/.test(v)) return v;
  try {
    const text = atob(v);
    if (/^[A-Za-z0-9+/]{43}=$/.test(text)) return text;
  } catch {
    // not base64: keep as is
  }
  return v;
}

export const TUN_04: CheckDef = {
  id: "TUN-04",
  title: "WireGuard keys symmetric",
  layer: "tunnel",
  // Without a running gateway there is no live key to compare: GW-01 is the finding then.
  needs: ["GW-01"],
  scope: "single",
  perPeer: true,
  reads: [...GW_KINDS, "publickeies", "pods"],
  readsIn: { pods: ["gateways"] },
  optionalReads: ["secrets"],
  explain: {
    reads:
      "The PublicKey labelled liqo.io/remote-cluster-id=<peer> in the gateway namespace (spec.publicKey), " +
      "`wg show all dump` in container wireguard of the active gateway pod; in dual mode the peer's gateway " +
      "Secret gw-<name> data.publicKey and its live liqo-tunnel public key.",
    decides:
      "fail: PublicKey missing, mislabelled or in another namespace (the wireguard container then never " +
      "configures a peer nor creates the Connection); its key is not among the live wg peers; dual: it differs " +
      "from the peer gateway's Secret or live key (stale after the peer's gateway was recreated). unknown: the " +
      "PublicKey exists but wg could not be read, or its key is not among the readable peers while some wg " +
      "lines were unreadable (a peer line with an unreadable field keeps its key and still counts).",
    fixes:
      "Re-exchange keys: `liqoctl generate publickey` on the peer and apply it here, or re-run liqoctl " +
      "network connect.",
  },
  hops: ["wireguard"],
  hubReads: ["wireguard", "logs", "resolve"],
  run,
};
