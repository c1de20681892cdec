/**
 * NetworkPolicy evaluation: label selectors, which policies select a pod, whether their ingress
 * rules admit a source address and port. Used by FAB-03 and CNI-02.
 */
import { contains, overlaps, parseCidr } from "../probes/cidr.ts";
import type { IPBlock, NetworkPolicy, NetworkPolicyIngressRule } from "./views/core.ts";
import type { LabelSelector } from "./views/meta.ts";
import type { Named } from "./lookups.ts";

/** True when a metav1.LabelSelector matches a label set (absent or empty selector matches everything). */
export function selectorMatches(
  sel: LabelSelector | null | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (sel === null || sel === undefined) return true;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    // String(): an absent key is looked up as "undefined", as before the views were typed.
    const key = String(e?.key);
    const has = Object.prototype.hasOwnProperty.call(l, key);
    const values: string[] = e?.values ?? [];
    switch (e?.operator) {
      case "In":
        if (!has || !values.includes(l[key])) return false;
        break;
      case "NotIn":
        if (has && values.includes(l[key])) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Policy types of a NetworkPolicy, with the API's defaulting. */
export function policyTypes(np: NetworkPolicy): string[] {
  const t = np.spec?.policyTypes;
  if (Array.isArray(t) && t.length) return t;
  return ["Ingress", ...(np.spec?.egress ? ["Egress"] : [])];
}

/** NetworkPolicies that restrict ingress of a pod. */
export function ingressPoliciesFor(policies: readonly NetworkPolicy[], pod: Named): NetworkPolicy[] {
  return policies.filter((np) =>
    np.metadata.namespace === pod.metadata.namespace && policyTypes(np).includes("Ingress") &&
    selectorMatches(np.spec?.podSelector, pod.metadata.labels)
  );
}

/** True when an ingress rule's `from` admits a source (selectors never match off-cluster addresses). */
export function ruleAdmitsSource(rule: NetworkPolicyIngressRule, source: string): boolean {
  const from = rule?.from ?? [];
  if (from.length === 0) return true;
  return from.some((p) => p?.ipBlock && ipBlockAdmits(p.ipBlock, source));
}

/** True when an ingress rule's `ports` admit protocol/port (named ports are assumed to match). */
export function ruleAdmitsPort(
  rule: NetworkPolicyIngressRule,
  protocol: string,
  port: number | null,
): boolean {
  const ports = rule?.ports ?? [];
  if (ports.length === 0) return true;
  return ports.some((p) => {
    if ((p?.protocol ?? "TCP") !== protocol) return false;
    if (port === null || p?.port === undefined || typeof p.port === "string") return true;
    return p.endPort ? port >= p.port && port <= p.endPort : p.port === port;
  });
}

/** True when some policy among `policies` admits source → protocol/port. */
export function policiesAdmit(
  policies: readonly NetworkPolicy[],
  source: string,
  protocol: string | null,
  port: number | null,
): boolean {
  return policies.some((np) =>
    (np.spec?.ingress ?? []).some((r) =>
      ruleAdmitsSource(r, source) && (protocol === null || ruleAdmitsPort(r, protocol, port))
    )
  );
}

/** One-line description of a policy's ingress rules for evidence. */
export function describePolicy(np: NetworkPolicy): string {
  const rules = np.spec?.ingress ?? [];
  const sel = JSON.stringify(np.spec?.podSelector ?? {});
  if (rules.length === 0) {
    return `NetworkPolicy ${np.metadata.namespace}/${np.metadata.name} (podSelector ${sel}): no ingress rules = deny all ingress`;
  }
  const parts = rules.map((r) => {
    const from = r?.from ?? [];
    const src = from.length === 0
      ? "any source"
      : from.map((p) =>
        p?.ipBlock
          ? `ipBlock ${p.ipBlock.cidr}`
          : p?.namespaceSelector && p?.podSelector
          ? "namespace+pod selector"
          : p?.namespaceSelector
          ? "namespaceSelector"
          : "podSelector"
      ).join(" | ");
    const ports = r?.ports ?? [];
    const pp = ports.length
      ? ports.map((p) => `${p?.protocol ?? "TCP"}/${p?.port ?? "*"}`).join(",")
      : "all ports";
    return `from ${src} on ${pp}`;
  });
  return `NetworkPolicy ${np.metadata.namespace}/${np.metadata.name} (podSelector ${sel}): ${
    parts.join("; ")
  }`;
}

/** True when an ipBlock admits a whole source (address or CIDR). */
export function ipBlockAdmits(block: IPBlock, source: string): boolean {
  const cidr = parseCidr(block?.cidr ?? "");
  if (!cidr) return false;
  const src = source.includes("/") ? parseCidr(source) : parseCidr(`${source}/32`);
  if (!src) return false;
  if (src.prefix < cidr.prefix || !contains(cidr, src.base)) return false;
  return !(block.except ?? []).some((e) => overlaps(e, src));
}
