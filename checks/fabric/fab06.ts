/**
 * FAB-06: every per-IP NAT mapping (FirewallConfigurations of subcategory ip-mapping) belongs to an IP that
 * still asks for it, with the IP's current addresses. Liqo's IP controller writes `<ip>-remap-ipmapping-gw`
 * (DNAT status.ip → spec.ip, SNAT back) for each IP, and `<ip>-remap-ipmapping-fabric` (masquerade on the
 * nodes) only while spec.masquerade is true
 * (`pkg/liqo-controller-manager/networking/external-network/remapping/ip.go`); until liqotech/liqo 11d11c0b8
 * (after v1.2.0) the masquerade object outlived a masquerade turned off, and the gateway rules are kept by
 * their target address, so a re-allocated IP keeps matching its old address.
 */
import { fix, kubectlIn, note } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { ref } from "../../liqo/lookups.ts";
import { FIREWALL_LABELS, IP_MAPPING_SUBCATEGORY } from "../../liqo/names.ts";
import type { FirewallConfiguration } from "../../liqo/views/networking.ts";
import { factText, natFacts } from "./_derived.ts";

/** The IP an ip-mapping FirewallConfiguration belongs to: its owner reference of kind IP. */
function ownerIpName(fw: FirewallConfiguration): string | null {
  const o = (fw.metadata.ownerReferences ?? []).find((r) => r?.kind === "IP");
  return typeof o?.name === "string" ? o.name : null;
}

function run(ctx: CheckContext): Outcome {
  const { inv } = ctx.cluster;
  const mappings = inv.items("firewallconfigurations").filter((f) =>
    f.metadata.labels?.[FIREWALL_LABELS.subcategory] === IP_MAPPING_SUBCATEGORY
  );
  if (mappings.length === 0) return { status: "pass", summary: "no per-IP NAT mappings", evidence: [] };
  // A 404 reads as no objects: without the IP CRD every mapping would look orphaned.
  const ipState = inv.state("ips");
  if (ipState.state === "missing") {
    return {
      status: "unknown",
      summary: `IPs not served (${
        "message" in ipState ? ipState.message : "ipam.liqo.io missing"
      }, see ENV-03): the ${mappings.length} per-IP NAT mappings are not judged`,
    };
  }
  const ips = inv.items("ips");
  const problems: { line: string; fw: FirewallConfiguration }[] = [];
  const evidence: string[] = [];
  let masqFix = false;
  for (const fw of mappings) {
    const ns = fw.metadata.namespace ?? "";
    const name = ownerIpName(fw);
    const ip = name ? ips.find((i) => i.metadata.name === name && i.metadata.namespace === ns) : undefined;
    const category = fw.metadata.labels?.[FIREWALL_LABELS.category];
    if (!ip) {
      problems.push({
        line: `FirewallConfiguration ${ref(fw)} maps IP ${
          name ?? "(no owner)"
        }, which no longer exists in ${ns}`,
        fw,
      });
      continue;
    }
    if (category === "fabric") {
      if (ip.spec?.masquerade !== true) {
        masqFix = true;
        problems.push({
          line: `FirewallConfiguration ${ref(fw)} still masquerades IP ${ns}/${name} (${
            ip.spec?.ip ?? "?"
          }) on every node, but the IP does not ask for it (spec.masquerade ${
            ip.spec?.masquerade === false ? "false" : "unset"
          })`,
          fw,
        });
      } else {evidence.push(
          `FirewallConfiguration ${ref(fw)}: masquerade for IP ${name} (spec.masquerade true)`,
        );}
      continue;
    }
    const seen = ip.status?.ip;
    const own = ip.spec?.ip;
    if (!seen || !own) {
      evidence.push(
        `IP ${ns}/${name}: not allocated yet (status.ip ${seen ?? "unset"}): ${ref(fw)} not judged`,
      );
      continue;
    }
    const dnat = natFacts(fw, "dst").filter((f) => f.natType === "dnat");
    const snat = natFacts(fw, "src").filter((f) => f.natType === "snat");
    const stale = [
      ...dnat.filter((f) => f.match !== seen || f.to !== own),
      ...snat.filter((f) => f.match !== seen || f.to !== own),
    ];
    const lacking = [
      ...(dnat.some((f) => f.match === seen && f.to === own) ? [] : [`dnat dst ${seen} → ${own}`]),
      ...(snat.some((f) => f.match === seen && f.to === own) ? [] : [`snat src ${seen} → ${own}`]),
    ];
    if (stale.length > 0 || lacking.length > 0) {
      problems.push({
        line: `FirewallConfiguration ${
          ref(fw)
        } does not map IP ${ns}/${name} as allocated (${seen} → ${own}): ${
          [...lacking.map((l) => `missing ${l}`), ...stale.map((f) => `stale ${factText(f)}`)].join("; ")
        }`,
        fw,
      });
    } else evidence.push(`FirewallConfiguration ${ref(fw)}: ${seen} ↔ ${own} as IP ${name} is allocated`);
  }
  if (problems.length === 0) {
    return {
      status: "pass",
      summary: `${mappings.length} per-IP NAT mapping${mappings.length > 1 ? "s" : ""} match their IPs`,
      evidence,
    };
  }
  return {
    status: "fail",
    summary: problems[0].line,
    evidence: [...evidence, ...problems.slice(1).map((p) => p.line)],
    remediation: fix(
      masqFix
        ? note(
          "Liqo up to v1.2.0 leaves the masquerade mapping behind when an IP stops asking for it (fixed by liqotech/liqo 11d11c0b8, after v1.2.0)",
        )
        : null,
      "delete the stale mappings: the controller-manager re-creates those its IPs still ask for",
      ...problems.map((p) =>
        kubectlIn(
          "local",
          p.fw.metadata.namespace ?? "",
          "delete",
          "firewallconfiguration",
          p.fw.metadata.name,
        )
      ),
    ),
  };
}

export const FAB_06: CheckDef = {
  id: "FAB-06",
  title: "Per-IP NAT mappings match their IPs",
  layer: "fabric",
  needs: [],
  scope: "single",
  perPeer: false,
  reads: ["firewallconfigurations", "ips"],
  explain: {
    reads:
      "FirewallConfigurations labelled networking.liqo.io/firewall-subcategory=ip-mapping, their owner IP " +
      "(ipam.liqo.io, same namespace): spec.ip, status.ip, spec.masquerade.",
    decides:
      "fail when a mapping's IP is gone, when a masquerade mapping (category fabric) remains for an IP " +
      "whose spec.masquerade is not true (liqotech/liqo 11d11c0b8), or when a gateway mapping's DNAT/SNAT " +
      "does not map the IP's status.ip ↔ spec.ip — whatever its Applied status says; pass otherwise.",
    fixes:
      "Delete the stale FirewallConfiguration; the controller-manager re-creates the mappings the IPs ask for.",
  },
  hops: ["node", "gateway"],
  run,
};
