/**
 * What Liqo's controllers derive from a peer's Configuration and the InternalNodes, recomputed here so
 * FAB-05 can hold the live RouteConfigurations and FirewallConfigurations against it (their `Applied`
 * status says only that a pod applied *some* content). Pure functions over typed views.
 */
import type {
  Configuration,
  FirewallConfiguration,
  InternalNode,
  RouteConfiguration,
} from "../../liqo/views/networking.ts";

/** One NAT rule as a comparable fact: its type, the address it matches (dst or src) and where it maps to. */
export interface NatFact {
  natType: string;
  /** "dst" or "src": which match of the rule holds the address. */
  position: "dst" | "src";
  match: string;
  to: string | null;
}

interface LooseMatch {
  op?: unknown;
  ip?: { position?: unknown; value?: unknown } | null;
}

/** The NAT rules of a FirewallConfiguration, each with its `eq` address match of `position`. */
export function natFacts(fw: FirewallConfiguration, position: "dst" | "src"): NatFact[] {
  const out: NatFact[] = [];
  for (const chain of fw.spec?.table?.chains ?? []) {
    for (const rule of chain?.rules?.natRules ?? []) {
      const r = rule as { natType?: unknown; to?: unknown; match?: unknown };
      const matches = Array.isArray(r.match) ? r.match as LooseMatch[] : [];
      const m = matches.find((x) => x?.op === "eq" && x?.ip?.position === position);
      if (typeof m?.ip?.value !== "string") continue;
      out.push({
        natType: typeof r.natType === "string" ? r.natType : "?",
        position,
        match: m.ip.value,
        to: typeof r.to === "string" ? r.to : null,
      });
    }
  }
  return out;
}

/** The remote CIDRs the `<cfg>-gw-ext` RouteConfiguration routes per node: spec.remote pod + external. */
export function gwExtCidrs(cfg: Configuration): string[] {
  return [...(cfg.spec?.remote?.cidr?.pod ?? []), ...(cfg.spec?.remote?.cidr?.external ?? [])];
}

/**
 * The (node, CIDR) rules `<cfg>-gw-ext` lacks: Liqo writes one rule per InternalNode (iif its gateway-side
 * Geneve interface) per remote CIDR (`pkg/liqo-controller-manager/networking/external-network/route/k8s.go`
 * forgeMutateRouteConfiguration).
 */
export function missingNodeRules(
  rc: RouteConfiguration,
  cfg: Configuration,
  inodes: readonly InternalNode[],
): { node: string; iif: string; cidrs: string[] }[] {
  const rules = rc.spec?.table?.rules ?? [];
  const cidrs = gwExtCidrs(cfg);
  const out: { node: string; iif: string; cidrs: string[] }[] = [];
  for (const n of inodes) {
    const iif = n.spec?.interface?.gateway?.name;
    if (!iif) continue;
    const missing = cidrs.filter((c) => !rules.some((r) => r?.iif === iif && r?.dst === c));
    if (missing.length > 0) out.push({ node: n.metadata.name, iif, cidrs: missing });
  }
  return out;
}

/** The rules of `<cfg>-gw-ext` toward a CIDR the Configuration no longer has (a stale remote CIDR). */
export function staleDstRules(rc: RouteConfiguration, cfg: Configuration): string[] {
  const cidrs = new Set(gwExtCidrs(cfg));
  return [
    ...new Set(
      (rc.spec?.table?.rules ?? []).map((r) => r?.dst).filter((d): d is string =>
        typeof d === "string" && !cidrs.has(d)
      ),
    ),
  ];
}

/** Remapped pairs of one CIDR type: spec.remote[i] (the peer's own) → status.remote[i] (as seen here). */
export function remapPairs(cfg: Configuration, type: "pod" | "external"): { own: string; seen: string }[] {
  const spec = cfg.spec?.remote?.cidr?.[type] ?? [];
  const status = cfg.status?.remote?.cidr?.[type] ?? [];
  const out: { own: string; seen: string }[] = [];
  spec.forEach((own, i) => {
    const seen = status[i];
    if (typeof seen === "string" && seen !== own) out.push({ own, seen });
  });
  return out;
}

/**
 * What `<cfg>-remap-podcidr` / `-remap-externalcidr` must hold for the remapped pairs: DNAT dst seen → own,
 * SNAT src own → seen (`pkg/liqo-controller-manager/networking/external-network/remapping/cidr.go`).
 */
export function expectedRemapFacts(pairs: readonly { own: string; seen: string }[]): NatFact[] {
  return pairs.flatMap((p) => [
    { natType: "dnat", position: "dst" as const, match: p.seen, to: p.own },
    { natType: "snat", position: "src" as const, match: p.own, to: p.seen },
  ]);
}

/** "dnat dst 10.71.0.0/16 → 10.244.0.0/16". */
export function factText(f: NatFact): string {
  return `${f.natType} ${f.position} ${f.match} → ${f.to ?? "(none)"}`;
}

/**
 * The remote CIDRs `<cfg>-masquerade-bypass` must match as destinations: the peer's pod CIDRs and its primary
 * external CIDR as remapped here, status.remote (`internal-network/configuration-controller/firewall.go`).
 */
export function masqueradeBypassDsts(cfg: Configuration): string[] {
  const pod = cfg.status?.remote?.cidr?.pod ?? [];
  const ext = cfg.status?.remote?.cidr?.external?.[0];
  return [...pod, ...(ext ? [ext] : [])];
}
