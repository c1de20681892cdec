/**
 * FAB-05: the routes and NAT rules Liqo derived for a peer match their sources now — the Configuration's
 * CIDRs and the InternalNodes — whatever their `Applied` status says. Liqo rewrites them only when a
 * watched source changes, and several versions miss a change: a node added after the peering never got
 * its rules in `<cfg>-gw-ext` (no InternalNode watch before v1.2.0, liqotech/liqo cb38ff7cd), the
 * masquerade-bypass NAT kept its first rules (idempotence by rule name before v1.0.2, ce762bc8b), the
 * CIDR-remap SNAT matched the local pod CIDR (before v1.0.1, 7228d3801).
 */
import { fix, kubectlIn, note } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Named } from "../../liqo/lookups.ts";
import { gatewayOf, liqoVersionOf, ref, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import {
  expectedRemapFacts,
  factText,
  masqueradeBypassDsts,
  missingNodeRules,
  natFacts,
  remapPairs,
  staleDstRules,
} from "./_derived.ts";
import { noGatewaySkip } from "./shared.ts";

/** The checks that judge the Configuration itself (their verdicts gate this one, as inputs). */
const IPAM_03_ID = "IPAM-03";
const IPAM_02_ID = "IPAM-02";

/** A Liqo fix that explains a kind of staleness, shown when the running version predates it. */
interface KnownFix {
  version: [number, number, number];
  commit: string;
  what: string;
}

const NODE_RULES_FIX: KnownFix = {
  version: [1, 2, 0],
  commit: "cb38ff7cd",
  what:
    "the Configuration controller did not watch InternalNodes: a node added after the peering gets no gw-ext rules",
};
const MASQ_BYPASS_FIX: KnownFix = {
  version: [1, 0, 2],
  commit: "ce762bc8b",
  what: "the masquerade-bypass rules were kept by name and never rewritten when the remapped CIDRs changed",
};
const REMAP_SNAT_FIX: KnownFix = {
  version: [1, 0, 1],
  commit: "7228d3801",
  what: "the CIDR-remap SNAT rule matched the local pod CIDR instead of the peer's",
};

function parseVersion(v: string | null): [number, number, number] | null {
  const m = v?.match(/^v?(\d+)\.(\d+)\.(\d+)/);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function below(v: [number, number, number], w: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (v[i] !== w[i]) return v[i] < w[i];
  return false;
}

/** The evidence line naming the fix, when the running version predates it. */
function fixLine(version: string | null, f: KnownFix): string | null {
  const v = parseVersion(version);
  if (!v || !below(v, f.version)) return null;
  return `Liqo ${version} predates liqotech/liqo ${f.commit} (fixed in v${f.version.join(".")}): ${f.what}`;
}

/** "Applied=True on <hosts>" for an object whose content is stale: its status is no proof. */
function appliedNote(
  o: { status?: { conditions?: { host?: unknown; type?: string; status?: string }[] | null } },
): string {
  const hosts = (o.status?.conditions ?? []).filter((c) => c?.type === "Applied" && c?.status === "True")
    .map((c) => String(c.host ?? "?"));
  return hosts.length > 0
    ? ` (status Applied=True on ${hosts.join(", ")}: the applied content is stale)`
    : "";
}

interface Problem {
  line: string;
  object: Named & { kind: "routeconfiguration" | "firewallconfiguration" };
  fix: KnownFix | null;
}

function run(ctx: CheckContext): Outcome {
  const peerId = ctx.peer!.clusterId;
  const { inv } = ctx.cluster;
  const gw = gatewayOf(inv, peerId);
  if (!gw) return noGatewaySkip(ctx);
  const cfgs = inv.items("configurations").filter((c) => c.metadata.labels?.[REMOTE_ID_LABEL] === peerId);
  const cfg = cfgs.find((c) => c.metadata.namespace === gw.namespace) ?? cfgs[0];
  if (!cfg) return { status: "skip", summary: `no Configuration for peer ${peerId} (IPAM-01)` };
  for (const id of [IPAM_03_ID, IPAM_02_ID]) {
    const ipam = ctx.input(id)?.result;
    // Only a failure gates: an IPAM check that could not read its inputs leaves this one its own reads.
    if (ipam && ipam.peer === peerId && ipam.status === "fail") {
      return {
        status: "skip",
        summary:
          `Configuration ${cfg.metadata.name} itself is not sound (${id} ${ipam.status}): its derived routes and NAT rules are not judged`,
      };
    }
  }
  if (!cfg.status?.remote?.cidr?.pod?.length) {
    return {
      status: "skip",
      summary: `Configuration ${cfg.metadata.name} has no status.remote yet (${IPAM_03_ID})`,
    };
  }
  const ns = cfg.metadata.namespace ?? "";
  const version = liqoVersionOf(inv);
  const evidence: string[] = [];
  const problems: Problem[] = [];
  const routes = inv.items("routeconfigurations").filter((r) => r.metadata.namespace === ns);
  const fws = inv.items("firewallconfigurations").filter((f) => f.metadata.namespace === ns);
  const inodes = inv.items("internalnodes");

  // (1) <cfg>-gw-ext: one rule per InternalNode per remote CIDR.
  const gwExt = routes.find((r) => r.metadata.name === `${cfg.metadata.name}-gw-ext`);
  if (gwExt) {
    const missing = missingNodeRules(gwExt, cfg, inodes);
    const rules = gwExt.spec?.table?.rules?.length ?? 0;
    evidence.push(
      `RouteConfiguration ${ref(gwExt)}: ${rules} rules for ${inodes.length} InternalNodes × ${
        (cfg.spec?.remote?.cidr?.pod?.length ?? 0) + (cfg.spec?.remote?.cidr?.external?.length ?? 0)
      } remote CIDRs`,
    );
    for (const m of missing) {
      problems.push({
        line: `RouteConfiguration ${ref(gwExt)} has no rule for InternalNode ${m.node} (iif ${m.iif}, dst ${
          m.cidrs.join(", ")
        }): traffic from pods on ${m.node} toward the peer is not routed into the tunnel${
          appliedNote(gwExt)
        }`,
        object: { ...gwExt, kind: "routeconfiguration" },
        fix: NODE_RULES_FIX,
      });
    }
    for (const d of staleDstRules(gwExt, cfg)) {
      problems.push({
        line: `RouteConfiguration ${
          ref(gwExt)
        } routes ${d}, which is not among Configuration ${cfg.metadata.name}'s remote CIDRs (${
          [...(cfg.spec?.remote?.cidr?.pod ?? []), ...(cfg.spec?.remote?.cidr?.external ?? [])].join(", ")
        })${appliedNote(gwExt)}`,
        object: { ...gwExt, kind: "routeconfiguration" },
        fix: null,
      });
    }
  } else {
    evidence.push(`no RouteConfiguration ${ns}/${cfg.metadata.name}-gw-ext (not judged)`);
  }

  // (2) <cfg>-remap-podcidr / -remap-externalcidr: DNAT seen → own, SNAT own → seen, per remapped pair.
  for (const [type, table] of [["pod", "remap-podcidr"], ["external", "remap-externalcidr"]] as const) {
    const fw = fws.find((f) => f.metadata.name === `${cfg.metadata.name}-${table}`);
    const expected = expectedRemapFacts(remapPairs(cfg, type));
    if (!fw) {
      if (expected.length > 0) {
        evidence.push(`no FirewallConfiguration ${ns}/${cfg.metadata.name}-${table} (not judged)`);
      }
      continue;
    }
    const actual = [
      ...natFacts(fw, "dst").filter((f) => f.natType === "dnat"),
      ...natFacts(fw, "src").filter((f) => f.natType === "snat"),
    ];
    const key = factText;
    const have = new Set(actual.map(key));
    const want = new Set(expected.map(key));
    const lacking = expected.filter((f) => !have.has(key(f)));
    const extra = actual.filter((f) => !want.has(key(f)));
    evidence.push(`FirewallConfiguration ${ref(fw)}: ${actual.map(factText).join("; ") || "no NAT rules"}`);
    if (lacking.length > 0 || extra.length > 0) {
      const snatLocal = extra.some((f) =>
        f.natType === "snat" && (cfg.spec?.local?.cidr?.pod ?? []).includes(f.match)
      );
      problems.push({
        line: `FirewallConfiguration ${
          ref(fw)
        } does not match Configuration ${cfg.metadata.name}'s ${type} CIDR remapping: ${
          [
            ...lacking.map((f) => `missing ${factText(f)}`),
            ...extra.map((f) => `stale ${factText(f)}`),
          ].join("; ")
        }${appliedNote(fw)}`,
        object: { ...fw, kind: "firewallconfiguration" },
        fix: snatLocal ? REMAP_SNAT_FIX : null,
      });
    }
  }

  // (3) <cfg>-masquerade-bypass: NAT rules toward exactly the peer's CIDRs as remapped here.
  const bypass = fws.find((f) => f.metadata.name === `${cfg.metadata.name}-masquerade-bypass`);
  if (bypass) {
    const want = masqueradeBypassDsts(cfg);
    const dsts = [...new Set(natFacts(bypass, "dst").map((f) => f.match))];
    const lacking = want.filter((d) => !dsts.includes(d));
    const stale = dsts.filter((d) => !want.includes(d));
    evidence.push(`FirewallConfiguration ${ref(bypass)}: NAT rules toward ${dsts.join(", ") || "(none)"}`);
    if (lacking.length > 0 || stale.length > 0) {
      problems.push({
        line: `FirewallConfiguration ${
          ref(bypass)
        } is stale against Configuration ${cfg.metadata.name} status.remote ${want.join(", ")}: ${
          [
            ...(stale.length ? [`rules toward ${stale.join(", ")} (no longer the peer's CIDRs)`] : []),
            ...(lacking.length ? [`no rule toward ${lacking.join(", ")}`] : []),
          ].join("; ")
        }${appliedNote(bypass)}`,
        object: { ...bypass, kind: "firewallconfiguration" },
        fix: MASQ_BYPASS_FIX,
      });
    }
  }

  if (problems.length === 0) {
    return {
      status: "pass",
      summary:
        `routes and NAT rules for ${peerId} match Configuration ${cfg.metadata.name} and the ${inodes.length} InternalNodes`,
      evidence,
    };
  }
  const fixes = [...new Set(problems.map((p) => p.fix).filter((f): f is KnownFix => f !== null))]
    .map((f) => fixLine(version, f)).filter((l): l is string => l !== null);
  const objects = [...new Map(problems.map((p) => [ref(p.object), p.object])).values()];
  return {
    status: "fail",
    summary: problems[0].line,
    evidence: [...evidence, ...problems.slice(1).map((p) => p.line), ...fixes],
    remediation: fix(
      ...(fixes.length > 0 ? [note(`upgrade Liqo: ${fixes.join("; ")}`)] : []),
      "delete the stale objects: the controller-manager re-creates them from the current sources",
      ...objects.map((o) =>
        kubectlIn("local", o.metadata.namespace ?? ns, "delete", o.kind, o.metadata.name)
      ),
    ),
  };
}

export const FAB_05: CheckDef = {
  id: "FAB-05",
  title: "Routes and NAT rules match their sources",
  layer: "fabric",
  needs: [],
  // Derived content is judged against a sound Configuration only: when IPAM-03 fails it, the
  // Configuration itself is what is wrong, and the objects derived from it are rightly behind.
  inputs: [IPAM_03_ID, IPAM_02_ID],
  scope: "single",
  perPeer: true,
  reads: ["configurations", "routeconfigurations", "firewallconfigurations", "internalnodes"],
  optionalReads: ["gatewayservers", "gatewayclients", "deployments"],
  explain: {
    reads: "The peer's Configuration (spec.local/spec.remote CIDRs, status.remote: the peer's CIDRs as " +
      "remapped here), every InternalNode (spec.interface.gateway.name), and in the Configuration's namespace " +
      "the RouteConfiguration <cfg>-gw-ext and the FirewallConfigurations <cfg>-remap-podcidr, " +
      "<cfg>-remap-externalcidr and <cfg>-masquerade-bypass; the Liqo version (controller-manager image).",
    decides: "fail when the content differs from what Liqo's controllers derive from the current sources, " +
      "whatever the objects' Applied status says: an InternalNode without its gw-ext rules (one per remote " +
      "CIDR, iif the node's Geneve interface), a rule toward a CIDR the peer no longer has, a remap " +
      "DNAT/SNAT pair that does not map status.remote ↔ spec.remote, masquerade-bypass rules toward old " +
      "CIDRs; names the Liqo fix when the running version predates it (cb38ff7cd v1.2.0, ce762bc8b v1.0.2, " +
      "7228d3801 v1.0.1). pass when all match; skip without a gateway or Configuration, or when IPAM-03 or " +
      "IPAM-02 (inputs) fail the Configuration itself (not configured, not remapped, colliding).",
    fixes:
      "Upgrade Liqo past the named fix; delete the stale object so the controller-manager re-creates it " +
      "from the current sources.",
  },
  hops: ["node", "geneve", "gateway"],
  run,
};
