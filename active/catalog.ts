/**
 * The active checks, as entries of the one catalog: ID, title, layer `probe`, the data-path hops each
 * speaks for, what it reads (the fleet is planned from the inventory), the explanation
 * `flyingfish explain PROBE-…` prints, and the probe that measures it. They run through the engine
 * like every check: each `run` asks the run's active phase (active/phase.ts: one session, every
 * probe in parallel, cleanup on every exit path) for its outcome.
 */
import type { KindId } from "../kube/kinds.ts";
import { PROBE_PORTS } from "./commands.ts";
import { PROBE_CHECK_IDS, type ProbeName } from "./model.ts";
import { UDP_THRESHOLDS } from "./udp/judge.ts";
import { GENEVE_OVERHEAD, MAX_PACKET, MIN_PACKET, PING_OVERHEAD, WIREGUARD_OVERHEAD } from "./mtu/judge.ts";
import type { ActiveSpec, CheckContext, CheckDef, Outcome } from "../checks/types.ts";

/** An active check: a catalog entry whose outcome the probe `active.probe` measures. */
export type ProbeCheckDef = CheckDef & { readonly active: ActiveSpec & { readonly probe: ProbeName } };

/** An active check's run: its outcome from the run's active phase. */
function fromPhase(id: string): CheckDef["run"] {
  return (ctx: CheckContext): Promise<Outcome> | Outcome =>
    ctx.active
      ? ctx.active.outcome(id, { local: ctx.cluster, remote: ctx.remote })
      : { status: "unknown", summary: "not probed: no active phase in this run" };
}

/**
 * An active check from its own fields: probes are opt-in, run once per run, and no passive check
 * blocks them — they exist to test what passive signals claim.
 */
function activeCheck(
  id: string,
  probe: ProbeName,
  def: Pick<CheckDef, "title" | "reads" | "readsIn" | "explain" | "hops">,
): ProbeCheckDef {
  return {
    id,
    layer: "probe",
    needs: [],
    scope: "single",
    perPeer: false,
    active: { probe, modes: ["direct", "offload"] },
    ...def,
    run: fromPhase(id),
  };
}

/** What every probe reads to plan its fleet and addresses. */
const FLEET_READS: readonly KindId[] = ["nodes", "foreignclusters", "configurations", "virtualnodes"];

const HYGIENE = "Everything is created in one namespace per run and cluster, flyingfish-probe-<run id> " +
  "(labels app.kubernetes.io/managed-by=flyingfish, flyingfish.io/run-id; annotation flyingfish.io/expires-at " +
  "= start + 1 h; enforced Pod Security `restricted`), after a SelfSubjectAccessReview pre-flight and a " +
  "dryRun=All of every template; the namespace is deleted at the end whatever happens (--keep keeps it).";

const POD = "one agnhost probe pod per schedulable node (`netexec --http-port=" + PROBE_PORTS.http +
  " --udp-port=" + PROBE_PORTS.udp + "`, non-root, no capabilities, seccomp RuntimeDefault, placed by " +
  "required nodeAffinity on kubernetes.io/hostname; control-plane, tainted, cordoned and NotReady nodes are " +
  "left out unless --tolerate KEY)";

/** PROBE-MATRIX: pod-to-pod reachability per node pair. */
export const PROBE_MATRIX: ProbeCheckDef = activeCheck(PROBE_CHECK_IDS.matrix, "matrix", {
  title: "Pod-to-pod reachability matrix, every node pair (TCP + UDP)",
  reads: FLEET_READS,
  explain: {
    reads: `Creates ${POD} in each cluster (direct mode: with each cluster's own kubeconfig; offload mode: ` +
      "in a namespace offloaded to the peer, so Liqo runs the remote half). From every local probe pod to " +
      `every remote one it runs a TCP connect (\`/agnhost connect <ip>:${PROBE_PORTS.http} --timeout=3s\`) and ` +
      "a UDP echo (curl to the pod's own netexec /dial, which sends one datagram to " +
      `<ip>:${PROBE_PORTS.udp} and reports the answer); the remote pod's address is its pod IP remapped ` +
      "with the local Configuration for the peer (host bits kept, spec.remote.cidr.pod → " +
      "status.remote.cidr.pod). The same from the remote side back, and inside each cluster as the " +
      "control group. Each source pod runs its whole row in one exec (every cell at once, in the " +
      "pod), the rows in parallel under the per-cluster exec bound: a fully red matrix costs about two " +
      "UDP timeouts per wave of source pods, not per cell. " + HYGIENE,
    decides: "Each cell is tried once; a failed cell is retried once, and a cell that passes only on " +
      "the retry is flaky (~, a warning), never ok. pass: every cross-cluster cell answers both " +
      "protocols; warn: only flaky cells; fail: any cell fails; unknown: the probe could not run (no " +
      "Configuration for the peer, no schedulable node, the fleet never came up). The matrix is read " +
      "by its pattern: a whole row red → that source node's Geneve/fabric path to its gateway; a whole " +
      "column red → that remote node; everything red → the tunnel or the gateways; one cell → that " +
      "pair. A red control grid (same cluster) → that cluster's CNI, not Liqo. Red on one protocol " +
      "only (UDP red while TCP crosses the same cells, or the reverse) → a filter on that protocol " +
      "(NetworkPolicy, firewall or NAT rule), not the tunnel. Cells the probe had no time to reach " +
      "(--probe-timeout) are named, and the matrix is then never a pass. This is also the active " +
      "half of FAB-03: a red row whose node is green in its control grid fails that cluster's FAB-03, " +
      "naming the node (and leads the diagnosis, this result also failing).",
    fixes: "Follow the reading: a red row → kubectl -n liqo logs the fabric pod on that node and the " +
      "node's Geneve interface (FAB-01..04); a red column → that remote node's fabric and CNI; all red " +
      "→ the gateway and tunnel checks (GW-*, TUN-*); a red control grid → the cluster's CNI.",
  },
  hops: ["local-pod", "node", "geneve", "gateway", "wireguard", "remote-pod"],
});

/** PROBE-UDP: datagram series through the tunnel. */
export const PROBE_UDP: ProbeCheckDef = activeCheck(PROBE_CHECK_IDS.udp, "udp", {
  title: "UDP through the tunnel: loss, RTT, duplicates, source address",
  reads: FLEET_READS,
  explain: {
    reads: `Uses the matrix's probe pods. From one local pod to one remote pod it sends a series of ` +
      `${UDP_THRESHOLDS.count} ` +
      "datagrams, each carrying a run nonce and a sequence number (`echo ff-<nonce>-<seq>` through " +
      "netexec /dial), one after the other within a batch — each batch small enough that, every datagram " +
      "lost and waiting its 2 s, it ends inside the exec limit (--request-timeout); the batches run at " +
      "once — and records which came back, how often, and the round " +
      "trip; then asks the far side which source address it saw (netexec `clientip`). The expected " +
      "source is the local pod IP remapped with the remote cluster's Configuration for the local " +
      "cluster (direct mode; it needs --remote-kubeconfig). " + HYGIENE,
    decides: `fail when nothing comes back, from ${UDP_THRESHOLDS.lossFailPct}% loss, or on a source ` +
      "address other than the expected one (NAT mis-translation: replies would be routed elsewhere); " +
      `warn on any loss above ${UDP_THRESHOLDS.lossWarnAbovePct}%, on duplicate or late replies (an ` +
      "answer carrying another datagram's sequence number); pass otherwise. RTT (min/avg/max) is " +
      "evidence, not a verdict. unknown when the inputs are missing (no Configuration, no probe pod on " +
      "a side) or the series could not run.",
    fixes: "Loss: the underlay between the gateways (UDP blocked or rate-limited: see GW-05, TUN-03); " +
      "a wrong source address: compare the Configurations of both ends (IPAM-*), the gateways' NAT " +
      "rules (FirewallConfigurations) and `liqoctl info peer`.",
  },
  hops: ["local-pod", "gateway", "wireguard", "remote-pod"],
});

/** PROBE-MTU: path MTU through the tunnel and on the underlay. */
export const PROBE_MTU: ProbeCheckDef = activeCheck(PROBE_CHECK_IDS.mtu, "mtu", {
  title: "Path MTU through the tunnel vs the configured MTU",
  reads: [...FLEET_READS, "pods", "gatewayservers", "gatewayclients", "wggatewayservers", "wggatewayclients"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads: "Execs in the active Liqo gateway pod (container `gateway`, which ships iputils ping): a " +
      "binary search of the largest don't-fragment ping (`ping -M do -c 1 -W 1 -s <payload> <addr>`, " +
      `packet = payload + ${PING_OVERHEAD}, searched between ${MIN_PACKET} and ${MAX_PACKET} bytes) to the ` +
      "peer's tunnel address and, where ICMP is allowed, on the underlay " +
      "toward the peer's gateway endpoint. Each answer is classified: a local interface limit (\"local " +
      'error: message too long, mtu=X"), a hop that said "Frag needed (mtu = X)", or a silent black ' +
      "hole (no answer above a size that works). Creates nothing beyond the run namespace.",
    decides: "pass when the configured tunnel MTU M (the larger GatewayServer/GatewayClient " +
      "spec.mtu; InternalFabric spec.mtu is shown too) fits what crosses the tunnel (M ≤ N, the " +
      `largest passing packet); warn when M + ${WIREGUARD_OVERHEAD} (WireGuard over IPv4: 20 IP + 8 UDP + ` +
      "32 WireGuard) does not fit the underlay path (the tunnel packets travel fragmented), or when a " +
      "size passed only on its one retry (flaky); fail when packets up to the configured MTU do not " +
      "cross (a black hole, frag needed, or nothing at all, not even the smallest): the verdict names " +
      `the safe MTU S = min(N, underlay path MTU − ${WIREGUARD_OVERHEAD}) against M (the fabric's Geneve ` +
      `adds ${GENEVE_OVERHEAD} inside the cluster). The underlay is measured from the client side only (the ` +
      "server does not know the client's address); no answer there at any size is unknown for the " +
      "underlay, never a fail. unknown without a gateway pod to exec in, or without iputils ping in it.",
    fixes: "Set the tunnel MTU to the safe value the result names: `liqoctl network connect … --mtu S` " +
      "(`liqoctl peer` takes --mtu too), or patch spec.mtu of both gateways; or fix the underlay hop " +
      "that drops large packets; see TUN-02.",
  },
  hops: ["gateway", "wireguard"],
});

/** PROBE-SVC: a reflected Service reaches every backend. */
export const PROBE_SVC: ProbeCheckDef = activeCheck(PROBE_CHECK_IDS.service, "service", {
  title: "Reflected Service reaches every backend",
  reads: [...FLEET_READS, "namespaceoffloadings"],
  explain: {
    reads: "Offloads the run namespace to the peer (NamespaceOffloading `offloading` in it, in direct " +
      "mode too: Liqo reflects Services only from an offloaded namespace), creates a Service selecting every " +
      "probe pod (local and offloaded) in the run namespace, then reads its EndpointSlices on both " +
      "sides (the provider's reflected slices, managed-by endpointslice.reflection.liqo.io), resolves " +
      "its name from a pod on each side (`getent hosts`), and dials it (`curl …/hostname`) until every " +
      "expected backend has answered, bounded by --probe-timeout — never a guessed repeat count. " +
      HYGIENE,
    decides: "pass when both sides list every backend, the name resolves on both sides and every " +
      "backend answered; fail on a missing backend (not reflected, or never answering), a name that " +
      "does not resolve, or slices that disagree; unknown when the Service could not be created.",
    fixes: "A backend missing from the provider's slices: the virtual kubelet's EndpointSlice " +
      "reflection (REF-* checks, the liqo-controller-manager and virtual-kubelet logs); a backend " +
      "listed but silent: run PROBE-MATRIX for that pod's node.",
  },
  hops: ["local-pod", "gateway", "wireguard", "remote-pod"],
});

/** PROBE-TRACE: hop localisation by nonce. */
export const PROBE_TRACE: ProbeCheckDef = activeCheck(PROBE_CHECK_IDS.trace, "trace", {
  title: "Where a packet stops: hop localisation by nonce",
  reads: [...FLEET_READS, "pods", "gatewayservers", "gatewayclients"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads: "Sends datagrams carrying `ff-trace-<nonce>` (one nonce per pair; up to 4 pairs per " +
      "direction, chosen so that every probed node of either side is in one) from local probe pods to " +
      "remote ones while " +
      "capturing in the local and remote gateway pods (whose images ship tcpdump: `timeout N tcpdump " +
      `-i <iface> -n -l -A -s 256 udp port ${PROBE_PORTS.udp}\`) at four points — the source gateway's ` +
      "Geneve interface toward the source node, its liqo-tunnel, the destination gateway's " +
      "liqo-tunnel, its Geneve interface toward the destination node — and reads the WireGuard " +
      "transfer counters on both gateways before and after (`wg show liqo-tunnel dump`). Packets are " +
      "found by their nonce, not by address (NAT rewrites addresses); the echo is followed back the " +
      "same way. Nothing runs with host networking.",
    decides: "pass when every pair's echo comes back, both ways (the returned echo is the ground " +
      "truth); otherwise fail naming the first capture point without the nonce: node → gateway Geneve, " +
      "gateway routing, WireGuard/underlay (with the counters: sent on one side, not received on the " +
      "other), remote gateway routing, or remote node/CNI/NetworkPolicy (seen on the remote Geneve " +
      "interface, no echo). A capture that could not run (tcpdump missing, no permission) makes its " +
      "hop unknown and the fault spans the hops nobody saw; only local → remote in offload mode " +
      "without the remote kubeconfig (said in the evidence).",
    fixes: "Per hop: Geneve → the fabric checks (FAB-*); gateway routing → the RouteConfigurations " +
      "(`kubectl get routeconfigurations -A`); WireGuard/underlay → TUN-* and the firewall between the " +
      "gateways; remote node/CNI → that cluster's NetworkPolicies and CNI.",
  },
  hops: ["local-pod", "node", "geneve", "gateway", "wireguard", "remote-pod"],
});

/** The active probes, in the order they are reported. */
export const PROBE_CHECKS: readonly ProbeCheckDef[] = [
  PROBE_MATRIX,
  PROBE_UDP,
  PROBE_MTU,
  PROBE_SVC,
  PROBE_TRACE,
];

/** The probe behind a PROBE-* check ID (exact ID), or null. */
export function probeOfCheck(id: string): ProbeName | null {
  return PROBE_CHECKS.find((c) => c.id === id)?.active.probe ?? null;
}

/** The catalog entry of a PROBE-* ID (exact ID), or undefined. */
export function findProbeCheck(id: string): ProbeCheckDef | undefined {
  return PROBE_CHECKS.find((c) => c.id === id);
}
