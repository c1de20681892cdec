/**
 * Preflight's active checks (PF-API, PF-EXP, PF-UDP, PF-DIR, PF-MTU): each `run` asks the run's
 * preflight phase (./phase.ts) for its outcome, as the PROBE-* checks ask the active phase. They
 * run only with `flyingfish preflight --probe`; each needs both kubeconfigs (the consumer's and the
 * provider's) and writes only in `flyingfish-preflight-<run id>`.
 */
import type { CheckContext, CheckDef, Outcome } from "../../checks/types.ts";
import { PROBE_PORTS } from "../commands.ts";
import { MIN_USEFUL_MTU } from "./mtu/judge.ts";
import { ECHO_COUNT, LIQO_DEFAULT_MTU, LIQO_DEFAULT_PORT, MTU_SEARCH, PF_IDS, WG_OVERHEAD } from "./model.ts";

/** The probe every PF-[P] check belongs to (`CheckDef.active.probe`). */
export const PREFLIGHT_PROBE = "preflight";

function fromPhase(id: string): CheckDef["run"] {
  return (ctx: CheckContext): Promise<Outcome> | Outcome =>
    ctx.active
      ? ctx.active.outcome(id, { local: ctx.cluster, remote: ctx.remote })
      : { status: "unknown", summary: "not probed: run flyingfish preflight --probe" };
}

function pfCheck(id: string, def: Pick<CheckDef, "title" | "explain" | "hops">): CheckDef {
  return {
    id,
    layer: "preflight",
    needs: [],
    scope: "single",
    perPeer: false,
    reads: ["nodes"],
    // The provider's API override (its controller-manager), an existing peering, the gateway placement.
    optionalReads: ["deployments", "foreignclusters", "wggatewayservertemplates", "wggatewayclienttemplates"],
    active: { probe: PREFLIGHT_PROBE, modes: ["direct"] },
    ...def,
    run: fromPhase(id),
  };
}

const HYGIENE = "Everything is created in one namespace per cluster, flyingfish-preflight-<run id> (labels " +
  "app.kubernetes.io/managed-by=flyingfish, flyingfish.io/run-id; annotation flyingfish.io/expires-at = start + " +
  "1 h; enforced Pod Security `restricted`), after a SelfSubjectAccessReview pre-flight and a dryRun=All of " +
  "every object; the namespace is deleted at the end whatever happens, Ctrl-C and --timeout included (--keep " +
  "keeps it; `flyingfish probe --cleanup` finds leftovers).";

const PODS =
  "In each cluster: an echo pod ff-preflight-echo (agnhost netexec serving UDP on the gateway port, " +
  `default ${LIQO_DEFAULT_PORT}) behind the Service ff-preflight-gw (UDP, the type liqoctl would use: ` +
  "LoadBalancer unless --service-type NodePort), and a client pod ff-preflight-client (agnhost, on the pod " +
  "network, placed like Liqo's gateway pods: the gateway template's nodeSelector/tolerations/affinity when " +
  `known) whose netexec /dial (HTTP ${PROBE_PORTS.http}, loopback) sends the datagrams.`;

/** PF-API: the provider API URL from a consumer pod. */
export const PF_API: CheckDef = pfCheck(PF_IDS.api, {
  title: "Provider API server reachable from a pod in the consumer (TCP + TLS)",
  explain: {
    reads:
      "The provider API URL Liqo will embed in the consumer's Identity: the provider controller-manager's " +
      "--api-server-address-override when set, else the provider kubeconfig's server. From the consumer's client " +
      "pod: `curl -sS -k --max-time N -o /dev/null -w '%{http_code} %{remote_ip}' <url>/version` (TCP + TLS; " +
      "-k because the pod lacks the cluster CA: the handshake is what is asked); at the same time the tool " +
      `dials the URL from this host (TCP + TLS). ${HYGIENE}`,
    decides: "pass when the pod completes TCP + TLS (any HTTP status); fail when it cannot (DNS, refused, " +
      'timeout, TLS), saying whether this host reaches it ("the host reaches it, the cluster cannot": a proxy ' +
      "such as Teleport, a private endpoint) or not; unknown when the client pod did not run.",
    fixes: "Give Liqo a provider API address the consumer's pods reach (on the provider: liqoctl install … " +
      "--api-server-url https://<address>, i.e. --api-server-address-override), or open the path to it.",
  },
  hops: ["local-pod"],
});

/** PF-EXP: the throwaway UDP Service gets an address. */
export const PF_EXP: CheckDef = pfCheck(PF_IDS.exposure, {
  title: "The would-be gateway server's UDP Service gets an address a peer can dial",
  explain: {
    reads: `${PODS} Reads the Service until status.loadBalancer.ingress has an address (bounded by ` +
      "--probe-timeout) and lists the Nodes: those that can host the gateway (Ready, schedulable, no " +
      "NoSchedule taint, not a virtual node, matching the template's nodeSelector) and the address Liqo would " +
      `advertise for a NodePort gateway (ExternalDNS > ExternalIP > InternalDNS > InternalIP). ${HYGIENE}`,
    decides: "pass when the would-be server side (--server-side, else the provider: Liqo's default) gets a " +
      "LoadBalancer address, or (NodePort) a Ready gateway node with a routable address; warn when its only " +
      "addresses are private (RFC 1918/CGNAT: reachable only inside a shared network — PF-UDP tells), or when " +
      "only the other side can expose one; fail on a LoadBalancer still pending after the wait (naming the " +
      "Service and the wait) or no gateway node with an address (naming the nodes).",
    fixes: "A pending LoadBalancer: install or fix the LoadBalancer controller (MetalLB, the cloud's: many " +
      "refuse UDP), or peer with --gw-server-service-type NodePort; private node addresses: put the server " +
      "where the peer can reach it (PF-DIR).",
  },
  hops: ["gateway"],
});

/** PF-UDP: the two-way echo. */
export const PF_UDP: CheckDef = pfCheck(PF_IDS.udp, {
  title: "UDP echo between the clusters, both ways, from the gateway's vantage",
  explain: {
    reads: `${PODS} From the client pod of one cluster to every address of the other's Service (the ` +
      "LoadBalancer address, then the NodePort on up to 3 gateway nodes, then a port mapping given with " +
      `--gw-client-address/--gw-client-port): ${ECHO_COUNT} datagrams each carrying a run nonce ` +
      "(`echo ff-pf-<nonce>-<k>-<seq>`), the echo required to carry the same nonce, then `clientip` (the source " +
      `the echo pod saw: the client side's NAT); then the reverse direction, at the same time. ${HYGIENE}`,
    decides:
      "A typed outcome per direction and address: reply (the nonce came back), timeout, ICMP refusal " +
      "(port unreachable), no address (PF-EXP found none), rejected by admission (Pod Security, a webhook, a " +
      "ResourceQuota refused a probe pod), could not run. pass when every direction replied; warn when only " +
      "one did; fail when neither did and both were really tried; unknown when a direction was inconclusive " +
      '(admission, pods not Ready) and none replied — never "blocked". Every line names protocol, address, ' +
      "port and node.",
    fixes: "Follow PF-DIR: put the server where the echo arrived, or open the port it names.",
  },
  hops: ["gateway", "wireguard"],
});

/** PF-DIR: the recommendation. */
export const PF_DIR: CheckDef = pfCheck(PF_IDS.direction, {
  title: "Where the gateway server should live, and how it is reached",
  explain: {
    reads: "PF-UDP's directions (no request of its own).",
    decides: "The server on the provider exposed as a LoadBalancer (Liqo's default) when that echo worked; " +
      "else the server on the consumer (liqoctl peer --gw-server-service-location Consumer, Liqo's NAT " +
      "option A); a NodePort when only the node addresses carried it (--gw-server-service-type NodePort); the " +
      "port mapping (--gw-client-address/--gw-client-port, option B) when only it did. pass with that " +
      "recommendation (the verdict's liqoctl peer line uses it); fail when no direction carried UDP, saying " +
      "what to open where (protocol, address, port, which cluster's egress); unknown when a direction could not " +
      "be probed and none worked.",
    fixes: "Peer with the liqoctl peer line of the verdict; when nothing worked, open the port named, or " +
      "forward a public UDP port to a provider node's NodePort and re-run with it.",
  },
  hops: ["gateway", "wireguard"],
});

/** PF-MTU: path MTU over the same path. */
export const PF_MTU: CheckDef = pfCheck(PF_IDS.mtu, {
  title: "Path MTU between the clusters vs the tunnel Liqo will build",
  explain: {
    reads: "Over the address PF-DIR picked, from the same client pod: padded echo datagrams " +
      `(\`echo ff-pf-<nonce>-<size>-xxx…\`), a binary search of the largest IP packet (${MTU_SEARCH.min}–` +
      `${MTU_SEARCH.max} bytes) whose echo comes back; Linux sends them with don't-fragment set below the ` +
      "route MTU, so a smaller hop drops them.",
    decides:
      `pass when the largest echoed packet fits the tunnel MTU (--mtu, Liqo's ${LIQO_DEFAULT_MTU}) plus ` +
      `WireGuard's overhead (IPv4 ${WG_OVERHEAD.v4}, IPv6 ${WG_OVERHEAD.v6} bytes); otherwise the safe --mtu is ` +
      `the largest echoed packet minus the overhead: warn while it is ≥ ${MIN_USEFUL_MTU}, fail below; unknown ` +
      "when no direction carried the echo.",
    fixes: "Peer with the safe --mtu the result names (liqoctl peer --mtu S), or raise the MTU of the hop " +
      "that drops larger packets.",
  },
  hops: ["wireguard"],
});

/** The `flyingfish preflight --probe` checks, in dependency order. */
export const PREFLIGHT_PROBE_CHECKS: readonly CheckDef[] = [PF_API, PF_EXP, PF_UDP, PF_DIR, PF_MTU];
