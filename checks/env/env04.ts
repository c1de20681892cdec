/**
 * ENV-04: no debris of old peerings: nothing stuck deleting for more than 5 minutes, no tenant
 * namespace without its ForeignCluster, no gateway Deployment without its GatewayServer/Client, no
 * peer marked permanently unreachable (Liqo's `pkg/utils/foreigncluster/conditions.go`, `pkg/consts/`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { Namespace } from "../../liqo/views/core.ts";
import { KINDS } from "../../kube/kinds.ts";
import { ageMs, formatAge, type Named, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import { GATEWAY_LABELS, TENANT_NAMESPACE_LABEL, UNREACHABLE_ANNOTATION } from "../../liqo/names.ts";
import { kubectl, kubectlIn, liqoctl, type RemediationStep, step, unique } from "../remediation.ts";

const STUCK_MS = 5 * 60 * 1000;

/** What a deletion is judged on: metadata, and for a Namespace its `spec.finalizers`. */
type Deletable = Named & { readonly kind?: string; readonly spec?: Readonly<Record<string, unknown>> | null };

function finalizersOf(o: Deletable): string[] {
  const meta = o.metadata.finalizers ?? [];
  const specFinalizers = o.kind === "Namespace" ? o.spec?.finalizers : undefined;
  const spec: string[] = Array.isArray(specFinalizers) ? specFinalizers.map(String) : [];
  return [...meta, ...spec];
}

/** Namespace status conditions that name what blocks its deletion. */
function namespaceBlockers(ns: Namespace): string[] {
  const conds = ns.status?.conditions ?? [];
  return conds
    .filter((c) => c?.status === "True" && /Remaining|Failure/.test(String(c?.type)) && c?.message)
    .map((c) => `    ${c.type}: ${c.message}`);
}

function stuckLine(o: Deletable, now: Date, what: string): string | null {
  const age = ageMs(now, o.metadata.deletionTimestamp);
  if (age === null || age < STUCK_MS) return null;
  const fins = finalizersOf(o);
  return `${what} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}: deleting for ${
    formatAge(age)
  }, finalizers [${fins.join(", ") || "none"}]`;
}

/** Liqo kinds whose leftovers commonly keep a tenant namespace from terminating. */
const LEFTOVER_KINDS = [
  "tenants",
  "identities",
  "resourceslices",
  "namespacemaps",
  "virtualnodes",
  "configurations",
  "gatewayservers",
  "gatewayclients",
  "publickeies",
  "internalfabrics",
  "networks",
  "ips",
] as const;

/** Objects with finalizers inside a namespace, among the Liqo kinds this run has read. */
function leftovers(
  inv: Objects,
  ns: string,
): { kind: string; resource: string; name: string; finalizers: string[] }[] {
  const out: { kind: string; resource: string; name: string; finalizers: string[] }[] = [];
  for (const k of LEFTOVER_KINDS) {
    for (const o of inv.tryItems(k) ?? []) {
      if (o.metadata.namespace !== ns || !(o.metadata.finalizers?.length)) continue;
      const spec = KINDS[k];
      out.push({
        kind: spec.kind,
        resource: `${spec.plural}.${spec.group}`,
        name: o.metadata.name,
        finalizers: o.metadata.finalizers,
      });
    }
  }
  return out;
}

/** The merge patch that drops an object's finalizers. */
const NO_FINALIZERS = `{"metadata":{"finalizers":null}}`;

function orphanGateways(inv: Objects, tenantNs: readonly Namespace[], fixes: RemediationStep[]): string[] {
  const deps = inv.tryItems("deployments");
  const servers = inv.tryItems("gatewayservers");
  const clients = inv.tryItems("gatewayclients");
  if (!deps || !servers || !clients) return [];
  const nsNames = new Set(tenantNs.map((n) => n.metadata.name));
  const out: string[] = [];
  for (const d of deps) {
    if (!nsNames.has(d.metadata.namespace ?? "")) continue;
    const labels = d.metadata.labels ?? {};
    const isGw = labels[GATEWAY_LABELS.component] === "gateway" || d.metadata.name.startsWith("gw-");
    if (!isGw) continue;
    const gwName = labels[GATEWAY_LABELS.name] ?? d.metadata.name.replace(/^gw-/, "");
    const owner = [...servers, ...clients].find((g) =>
      g.metadata.namespace === d.metadata.namespace && g.metadata.name === gwName
    );
    if (owner) continue;
    out.push(
      `gateway Deployment ${d.metadata.namespace}/${d.metadata.name}: no GatewayServer/GatewayClient ${gwName}`,
    );
    fixes.push(
      step(
        kubectlIn("local", d.metadata.namespace ?? "", "delete", "deployment", d.metadata.name),
        "orphaned gateway",
      ),
    );
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  const now = ctx.cluster.now;
  const fcs = inv.items("foreignclusters");
  const fcIds = new Set(fcs.map((f) => f.spec?.clusterID ?? f.metadata.name));
  const tenantNs = inv.items("namespaces").filter((n) =>
    n.metadata.labels?.[TENANT_NAMESPACE_LABEL] === "true"
  );
  const evidence: string[] = [];
  const fixes: RemediationStep[] = [];

  for (const ns of tenantNs) {
    const line = stuckLine(ns, now, "tenant namespace");
    const id = ns.metadata.labels?.[REMOTE_ID_LABEL];
    const orphan = id !== undefined && !fcIds.has(id);
    if (line) {
      const left = leftovers(inv, ns.metadata.name);
      evidence.push(
        line + (orphan ? ` (no ForeignCluster ${id})` : ""),
        ...namespaceBlockers(ns),
        ...left.map((l) => `    leftover ${l.kind} ${l.name}: finalizers [${l.finalizers.join(", ")}]`),
      );
      fixes.push(
        step(kubectl("local", "get", "liqo", "-n", ns.metadata.name), "what is left inside (category liqo)"),
      );
      if (left.length === 0) {
        fixes.push(
          step(
            kubectlIn(
              "local",
              ns.metadata.name,
              "patch",
              "<resource>",
              "<name>",
              "--type=merge",
              "-p",
              NO_FINALIZERS,
            ),
            "for each leftover whose controller is gone",
          ),
        );
      }
      for (const l of left) {
        fixes.push(
          step(
            kubectlIn(
              "local",
              ns.metadata.name,
              "patch",
              l.resource,
              l.name,
              "--type=merge",
              "-p",
              NO_FINALIZERS,
            ),
            orphan ? `peer ${id} is gone` : "only if its controller cannot finish the cleanup",
          ),
        );
      }
    } else if (orphan) {
      evidence.push(
        `tenant namespace ${ns.metadata.name}: no ForeignCluster for peer ${id} (leftover of an old peering)`,
      );
      fixes.push(
        step(kubectl("local", "get", "liqo", "-n", ns.metadata.name)),
        step(kubectl("local", "delete", "namespace", ns.metadata.name), `only if peer ${id} is really gone`),
      );
    }
  }
  for (const fc of fcs) {
    const line = stuckLine(fc, now, "ForeignCluster");
    if (line) {
      evidence.push(line);
      fixes.push(
        step(liqoctl("local", "unpeer", "--remote-kubeconfig", `<${fc.metadata.name} kubeconfig>`)),
        step(
          kubectl("local", "patch", "foreigncluster", fc.metadata.name, "--type=merge", "-p", NO_FINALIZERS),
          "or, if that peer is gone:",
        ),
      );
    }
    if (fc.metadata.annotations?.[UNREACHABLE_ANNOTATION] === "true") {
      evidence.push(
        `ForeignCluster ${fc.metadata.name}: annotated ${UNREACHABLE_ANNOTATION}="true" (peer marked dead)`,
      );
      fixes.push(
        step(liqoctl("local", "unpeer", "--remote-kubeconfig", `<${fc.metadata.name} kubeconfig>`)),
        step(
          kubectl("local", "annotate", "foreigncluster", fc.metadata.name, `${UNREACHABLE_ANNOTATION}-`),
          "or remove the annotation if the peer is back:",
        ),
      );
    }
  }
  for (
    const [kind, label] of [["namespacemaps", "NamespaceMap"], ["resourceslices", "ResourceSlice"]] as const
  ) {
    for (const o of inv.tryItems(kind) ?? []) {
      const line = stuckLine(o, now, label);
      if (!line) continue;
      evidence.push(line);
      fixes.push(
        step(
          kubectlIn(
            "local",
            o.metadata.namespace ?? "",
            "patch",
            label.toLowerCase(),
            o.metadata.name,
            "--type=merge",
            "-p",
            NO_FINALIZERS,
          ),
          "force-unpeer order: NamespaceMaps first, then ResourceSlices",
        ),
      );
    }
  }
  evidence.push(...orphanGateways(inv, tenantNs, fixes));
  if (evidence.length === 0) {
    return {
      status: "pass",
      summary: `no stale peering debris (${tenantNs.length} tenant namespace${
        tenantNs.length === 1 ? "" : "s"
      }, ${fcs.length} ForeignCluster${fcs.length === 1 ? "" : "s"})`,
    };
  }
  const count = evidence.filter((l) => !l.startsWith("  ")).length;
  return {
    status: "warn",
    summary: `${count} piece${count === 1 ? "" : "s"} of stale peering debris`,
    evidence,
    remediation: unique(fixes),
  };
}

export const ENV_04: CheckDef = {
  id: "ENV-04",
  title: "No stale peering debris",
  layer: "env",
  needs: [],
  scope: "single",
  perPeer: false,
  reads: ["namespaces", "foreignclusters"],
  optionalReads: [
    "namespacemaps",
    "resourceslices",
    "deployments",
    "gatewayservers",
    "gatewayclients",
    "tenants",
    "identities",
    "virtualnodes",
    "configurations",
    "publickeies",
    "internalfabrics",
    "networks",
    "ips",
  ],
  explain: {
    reads: "Tenant namespaces (label liqo.io/tenant-namespace=true), ForeignClusters, NamespaceMaps and " +
      "ResourceSlices with their deletionTimestamp and finalizers, namespace deletion conditions, gateway " +
      "Deployments in tenant namespaces, and the ForeignCluster annotation " +
      "liqo.io/foreign-cluster-permanently-unreachable.",
    decides:
      "warn when something has been deleting for more than 5 minutes, when a tenant namespace has no " +
      "ForeignCluster, when a gateway Deployment has no GatewayServer/GatewayClient, or when a peer is " +
      "marked permanently unreachable; pass otherwise.",
    fixes: "Unpeer properly (liqoctl unpeer); for peers that are gone, remove the finalizers of leftovers " +
      "(NamespaceMaps first, then ResourceSlices) and delete orphaned namespaces/Deployments.",
  },
  hops: [],
  run,
};
