/**
 * The manual test cheat sheet: every concrete value the run discovered, each with a ready-to-paste
 * command that has the real names filled in. Each works where it is shown: data-path tests are
 * `flyingfish probe` runs (they create admissible pods with pinned images), and the one pod started
 * by hand uses the pinned probe image and passes Pod Security `restricted`.
 */
import type { ClusterView, PeerView } from "../checks/types.ts";
import { activeGatewayPod, gatewayOf, isVirtualNode, peerObjects, REMOTE_ID_LABEL } from "../liqo/lookups.ts";
import { endpointOf } from "../liqo/endpoints.ts";
import type { KindId } from "../kube/kinds.ts";
import type { ReadScope } from "../liqo/scopes.ts";
import type { CheatSheetEntry } from "./model.ts";
import { PROBE_IMAGES } from "../active/mod.ts";
import {
  API_SERVER_PROXY_IP_TYPE,
  IP_TYPE_LABEL,
  MANAGED_BY_LABEL,
  NETWORK_TYPE_LABEL,
  ORIGIN_LABEL,
  SHADOW_ENDPOINTSLICE_MANAGER,
} from "../liqo/names.ts";

/** What the cheat sheet reads, declared like a check's reads. */
export const CHEAT_SHEET_READS: readonly KindId[] = [
  "networks",
  "ips",
  "gatewayservers",
  "gatewayclients",
  "pods",
  "configurations",
  "connections",
  "nodes",
  "endpointslices",
];

/** Where the cheat sheet reads pods: the gateways' (tenant namespaces) and the offloaded ones. */
export const CHEAT_SHEET_READS_IN: { readonly [K in KindId]?: readonly ReadScope[] } = {
  pods: ["gateways", "virtual-nodes"],
  endpointslices: ["reflected"],
};

/** WireGuard (60) + IPv4 (20) + ICMP (8): the ICMP payload that exactly fills the tunnel MTU. */
const ICMP_IPV4_OVERHEAD = 28;

/** Builds the cheat sheet for every cluster and peer read. */
export function buildCheatSheet(
  views: readonly ClusterView[],
  peers: readonly (readonly PeerView[])[],
): CheatSheetEntry[] {
  const out: CheatSheetEntry[] = [];
  views.forEach((v, i) => {
    const kc = `kubectl --context ${v.context}`;
    const add = (e: Omit<CheatSheetEntry, "cluster">) => out.push({ ...e, cluster: v.name });
    const nets = v.inv.tryItems("networks") ?? [];
    for (const type of ["pod-cidr", "external-cidr", "internal-cidr"]) {
      const cidrs = nets.filter((n) =>
        n.metadata.namespace === v.liqoNamespace && n.metadata.labels?.[NETWORK_TYPE_LABEL] === type
      ).map((n) => n.status?.cidr ?? n.spec?.cidr).filter(Boolean);
      if (cidrs.length) {
        add({
          title: `local ${type.replace("-cidr", "")} CIDR`,
          value: cidrs.join(", "),
          command: `${kc} get networks.ipam.liqo.io -A -l ipam.liqo.io/network-type=${type}`,
          peer: null,
        });
      }
    }
    const proxyIp = (v.inv.tryItems("ips") ?? []).find((ip) =>
      ip.metadata.labels?.[IP_TYPE_LABEL] === API_SERVER_PROXY_IP_TYPE
    );
    if (proxyIp?.status?.ip) {
      add({
        title: "API-server proxy IP (local; peers reach it through their remapped external CIDR)",
        value: `${proxyIp.status.ip}:8118`,
        command: `${kc} -n ${proxyIp.metadata.namespace} get ip ${proxyIp.metadata.name} -o wide`,
        peer: null,
      });
    }
    for (const p of peers[i] ?? []) peerEntries(v, p, kc, add);
  });
  return out;
}

/**
 * `kubectl run --overrides` making pod `name` admissible under Pod Security `restricted` (non-root,
 * no capabilities, no privilege escalation, seccomp RuntimeDefault), merged by container name.
 */
function restrictedOverrides(name: string): string {
  return JSON.stringify({
    spec: {
      securityContext: { runAsNonRoot: true, runAsUser: 65534, seccompProfile: { type: "RuntimeDefault" } },
      containers: [{
        name,
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
      }],
    },
  });
}

function peerEntries(
  v: ClusterView,
  p: PeerView,
  kc: string,
  add: (e: Omit<CheatSheetEntry, "cluster">) => void,
): void {
  const peer = p.clusterId;
  // The active probes create what they need (a labelled namespace, pinned images, restricted pods).
  const probe = (name: string) => `flyingfish probe ${name} --context ${v.context} --peer ${peer}`;
  const gw = gatewayOf(v.inv, peer);
  if (gw) {
    // Either Liqo shape of an endpoint: `port` (v1.0) or HEAD's `ports[]`.
    const ep = endpointOf(gw.role === "server" ? gw.object.status?.endpoint : gw.object.spec?.endpoint);
    const addr = ep?.addresses[0];
    if (addr && ep?.port) {
      add({
        title: gw.role === "server"
          ? "gateway endpoint (this cluster serves; the peer dials it)"
          : "gateway endpoint the client dials",
        value: `${addr}:${ep.port}/UDP`,
        // Not `nc -u`: it "succeeds" against anything, WireGuard answering no stranger.
        command: `${
          probe("udp")
        }   # UDP end to end through this endpoint (nc -u proves nothing: WireGuard answers no stranger)`,
        peer,
      });
    }
    const pod = activeGatewayPod(v.inv, gw);
    add({
      title: "live WireGuard state (handshake, counters, endpoint)",
      value: pod ? `${gw.namespace}/${pod.metadata.name}` : `${gw.namespace}/${gw.workloadName}`,
      command: `${kc} -n ${gw.namespace} exec deploy/${gw.workloadName} -c wireguard -- wg show`,
      peer,
    });
    add({
      title: "gateway logs",
      value: `${gw.namespace}/${gw.workloadName}`,
      command: `${kc} -n ${gw.namespace} logs deploy/${gw.workloadName} -c wireguard --tail=100`,
      peer,
    });
    const mtu = Number(gw.object.spec?.mtu);
    if (Number.isFinite(mtu) && mtu > 0) {
      const size = mtu - ICMP_IPV4_OVERHEAD;
      add({
        title: `tunnel MTU ${mtu}: largest ping payload that fits unfragmented`,
        value: String(size),
        // A ping pod needs NET_RAW, which Pod Security `restricted` refuses: the probe execs the
        // don't-fragment pings in the gateway pod instead.
        command: `${probe("mtu")}   # don't-fragment pings through the tunnel, from the gateway`,
        peer,
      });
    }
  }
  const conn = peerObjects(v.inv, "connections", peer)[0] ?? null;
  if (conn) {
    add({
      title: "tunnel Connection status (as the gateway's pinger sees it)",
      value: `${conn.metadata.namespace}/${conn.metadata.name}: ${String(conn.status?.value ?? "no status")}`,
      command:
        `${kc} -n ${conn.metadata.namespace} get connections.networking.liqo.io ${conn.metadata.name} -o yaml`,
      peer,
    });
  }
  const cfg = peerObjects(v.inv, "configurations", peer)[0] ?? null;
  if (cfg) {
    for (const kind of ["pod", "external"] as const) {
      const spec: string[] = cfg.spec?.remote?.cidr?.[kind] ?? [];
      const status: string[] = cfg.status?.remote?.cidr?.[kind] ?? [];
      if (!spec.length) continue;
      add({
        title: `peer ${kind} CIDR as seen from here (original → remapped)`,
        value: spec.map((s, j) => `${s} → ${status[j] ?? "(not remapped yet)"}`).join(", "),
        command: `${kc} -n ${cfg.metadata.namespace} get configuration ${cfg.metadata.name} -o wide`,
        peer,
      });
    }
  }
  const target = remotePodIp(v, p);
  if (target) {
    add({
      title: "a real remote pod, by the address this cluster uses for it",
      value: target,
      command: `${probe("matrix")}   # probe pods on every node, both ways, TCP and UDP`,
      peer,
    });
  }
  const proxy = p.foreignCluster?.status?.foreignProxyUrl;
  if (typeof proxy === "string" && proxy) {
    add({
      title: "peer API server through the in-band proxy",
      value: proxy,
      command: `${kc} run ff-curl --rm -i --restart=Never --image=${PROBE_IMAGES.probe} ` +
        `--override-type=strategic --overrides='${restrictedOverrides("ff-curl")}' ` +
        `--command -- curl -sk -x ${proxy} https://kubernetes.default/livez`,
      peer,
    });
  } else if (typeof p.foreignCluster?.status?.apiServerUrl === "string") {
    add({
      title: "peer API server",
      value: p.foreignCluster.status.apiServerUrl,
      command: `curl -sk ${p.foreignCluster.status.apiServerUrl}/livez`,
      peer,
    });
  }
}

/** An address of a running remote pod as this cluster addresses it (already remapped). */
function remotePodIp(v: ClusterView, p: PeerView): string | null {
  const nodes = (v.inv.tryItems("nodes") ?? []).filter((n) =>
    isVirtualNode(n) && n.metadata.labels?.[REMOTE_ID_LABEL] === p.clusterId
  ).map((n) => n.metadata.name);
  const pods = v.inv.tryItems("pods") ?? [];
  // Consumer side: offloaded pods report the remote pod IP translated into the local view.
  const offloaded = pods.find((pod) =>
    nodes.includes(pod.spec?.nodeName ?? "") && pod.status?.podIP && pod.status?.phase === "Running"
  );
  if (offloaded?.status?.podIP) return offloaded.status.podIP;
  // Provider side: reflected EndpointSlices carry the consumer's pods, mapped into the local view.
  const slices = (v.inv.tryItems("endpointslices") ?? []).filter((s) =>
    s.metadata.labels?.[MANAGED_BY_LABEL] === SHADOW_ENDPOINTSLICE_MANAGER &&
    s.metadata.labels?.[ORIGIN_LABEL] === p.clusterId
  );
  const addr = slices.flatMap((s) => s.endpoints ?? []).flatMap((e) => e.addresses ?? [])[0];
  return typeof addr === "string" ? addr : null;
}
