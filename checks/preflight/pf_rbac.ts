/**
 * PF-RBAC: what `liqoctl peer` will do on each side is allowed — one SelfSubjectAccessReview per
 * verb it needs (`pkg/liqoctl/network/cluster.go`, `authenticate/cluster.go`, `rest/resourceslice`:
 * the tenant namespace, then get/create/update of each object it creates or updates), then the
 * tenant Namespace created with `dryRun=All` so that admission speaks too, like linkerd's `check
 * --pre` (where that namespace exists already there is nothing to create: the reviews alone judge).
 * Neither persists anything, so passive runs ask
 * them — through the probe hub's declared `access` read (kube/live/access.ts).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { AccessAttributes } from "../../kube/live/access.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { DryRunAnswer } from "../../probes/hub.ts";
import { type KindId, KINDS } from "../../kube/kinds.ts";
import {
  AUTH_KEYS_SECRET,
  DEFAULT_LIQO_NAMESPACE,
  NONCE_SECRET,
  NONCE_SECRET_LABEL,
  REMOTE_ID_LABEL,
  TENANT_NAMESPACE_LABEL,
  TENANT_NAMESPACE_PREFIX,
} from "../../liqo/names.ts";
import { fix } from "../remediation.ts";
import {
  type Intent,
  intentOf,
  liqoInstalled,
  named,
  noProvider,
  type Role,
  type Side,
  sidesOf,
} from "./_shared.ts";

/** One permission `liqoctl peer` needs on a side, and why. */
export interface PeerNeed {
  kind: KindId;
  verbs: readonly string[];
  /** Where: the tenant namespace, the side's Liqo namespace, or cluster-wide (the Namespace itself). */
  where: "tenant" | "liqo" | "cluster";
  /** One object by name (the SSAR's `name`), when liqoctl reads only that one. */
  name?: string;
  why: string;
}

/**
 * What `liqoctl peer` does on one side (it runs from the consumer, with both kubeconfigs): the
 * tenant namespace (create, or find one made beforehand), the Configuration, the gateway of that
 * side (server or client by `--gw-server-service-location`), the PublicKey, the nonce Secret
 * (provider) or the signed nonce (consumer), the Tenant (provider), the Identity and the
 * ResourceSlice (consumer), and it reads the consumer's authentication keys in the Liqo namespace
 * (to sign the Tenant's CSR). CreateOrUpdate gets, then creates or updates.
 */
export function peerNeeds(role: Role, intent: Pick<Intent, "serverSide">): PeerNeed[] {
  const cu = ["get", "create", "update"] as const;
  const server = intent.serverSide === role;
  const out: PeerNeed[] = [
    { kind: "namespaces", verbs: ["get", "create"], where: "cluster", why: "the tenant namespace" },
    { kind: "configurations", verbs: cu, where: "tenant", why: "the network Configuration" },
    server
      ? { kind: "gatewayservers", verbs: cu, where: "tenant", why: "the gateway server" }
      : { kind: "gatewayclients", verbs: cu, where: "tenant", why: "the gateway client" },
    { kind: "publickeies", verbs: cu, where: "tenant", why: "the peer's WireGuard PublicKey" },
    {
      kind: "secrets",
      verbs: cu,
      where: "tenant",
      why: role === "provider" ? "the authentication nonce" : "the signed nonce",
    },
  ];
  if (role === "provider") {
    out.push({ kind: "tenants", verbs: cu, where: "tenant", why: "the consumer's Tenant" });
  } else {
    out.push(
      // GenerateTenant signs the Tenant's CSR with the cluster's keys (`authentication/keys.go` GetClusterKeys).
      {
        kind: "secrets",
        verbs: ["get"],
        where: "liqo",
        name: AUTH_KEYS_SECRET,
        why: "the cluster's authentication keys",
      },
      { kind: "identities", verbs: cu, where: "tenant", why: "the provider's Identity" },
      { kind: "resourceslices", verbs: cu, where: "tenant", why: "the ResourceSlice" },
    );
  }
  return out;
}

/** The tenant namespace `liqoctl peer` creates on `side` for the other cluster. */
function tenantNamespace(other: Side): string {
  const id = other.view.clusterId ?? other.view.context.toLowerCase().replace(/[^a-z0-9-]/g, "-");
  return `${TENANT_NAMESPACE_PREFIX}${id}`;
}

/** The access questions of one side. */
export function accessQuestions(
  role: Role,
  intent: Intent,
  tenantNs: string,
  liqoNs: string = DEFAULT_LIQO_NAMESPACE,
): AccessAttributes[] {
  return peerNeeds(role, intent).flatMap((n) =>
    n.verbs.map((verb) => ({
      verb,
      resource: KINDS[n.kind].plural,
      ...(KINDS[n.kind].group ? { group: KINDS[n.kind].group } : {}),
      ...(n.where === "tenant" ? { namespace: tenantNs } : n.where === "liqo" ? { namespace: liqoNs } : {}),
      ...(n.name ? { name: n.name } : {}),
    }))
  );
}

/** The tenant Namespace as `liqoctl peer` creates it (labels of `pkg/tenantNamespace/namespaceManager.go`). */
function tenantNamespaceObject(name: string, remoteId: string | null): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      labels: { [TENANT_NAMESPACE_LABEL]: "true", ...(remoteId ? { [REMOTE_ID_LABEL]: remoteId } : {}) },
    },
  };
}

/**
 * The nonce Secret `liqoctl peer` creates on the provider (`forge.Nonce` + `MutateNonce`: its name and
 * labels; the controller-manager fills the data). Dry-run only in a tenant namespace that exists:
 * in one still to be created, the API server would answer NotFound whatever admission says.
 */
function nonceSecretObject(tenantNs: string, remoteId: string | null): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: NONCE_SECRET,
      namespace: tenantNs,
      labels: { [NONCE_SECRET_LABEL]: "true", ...(remoteId ? { [REMOTE_ID_LABEL]: remoteId } : {}) },
    },
  };
}

function resourceName(a: AccessAttributes): string {
  return a.group ? `${a.resource}.${a.group}` : a.resource;
}

function dryRunLine(cluster: string, d: Extract<DryRunAnswer, { admitted: false }>): string {
  const o = d.object;
  const name = o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
  const by = /admission webhook "([^"]+)"/.exec(d.message)?.[0] ?? (d.reason || "the API server");
  return `dry run of ${o.kind} ${name} refused on ${cluster} by ${by}: ${d.message}`;
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const sides = sidesOf(ctx);
  if (typeof sides === "string") return noProvider(sides);
  if (!ctx.probes.access) {
    return { status: "unknown", summary: "access reviews are not available in this run" };
  }
  const intent = intentOf(ctx.options);
  const denials: string[] = [];
  const refusals: string[] = [];
  const unknowns: string[] = [];
  const warns: string[] = [];
  const evidence: string[] = [];
  await Promise.all(sides.map(async (side, i) => {
    const other = sides[1 - i];
    const ns = tenantNamespace(other);
    const nsExists = (side.view.inv.tryItems("namespaces") ?? []).some((n) => n.metadata.name === ns);
    // Liqo absent: its namespace-to-be (liqoctl install's default).
    const reviews = accessQuestions(side.role, intent, ns, side.view.liqoNamespace ?? DEFAULT_LIQO_NAMESPACE);
    // The tenant namespace when it is still to be created; in one that exists, the provider's nonce
    // Secret (the other objects are Liqo CRs whose specs liqoctl forges from both clusters: SSAR only).
    const dryRuns = !nsExists
      ? [tenantNamespaceObject(ns, other.view.clusterId)]
      : side.role === "provider"
      ? [nonceSecretObject(ns, other.view.clusterId)]
      : [];
    const answers = await ctx.probes.access!(side.view.name, { reviews, dryRuns });
    const who = named(side);
    if (!answers.ok) {
      unknowns.push(`${who}: ${answers.unavailable}`);
      return;
    }
    const failed = answers.verdicts.filter((v) => v.reviewFailed);
    if (failed.length > 0) {
      unknowns.push(`${who}: ${failed[0].reason}`);
      return;
    }
    const denied = answers.verdicts.filter((v) => !v.allowed);
    for (const v of denied) {
      const where = v.namespace ? ` in namespace ${v.namespace}` : "";
      const one = v.name ? ` ${v.name}` : "";
      const line = `cannot ${v.verb} ${resourceName(v)}${one}${where} on ${who}${
        v.reason ? ` (${v.reason})` : ""
      }`;
      // A tenant namespace made beforehand is what liqoctl falls back to (`network/cluster.go` SetNamespaces).
      if (v.resource === "namespaces" && v.verb === "create" && nsExists) {
        warns.push(`${line}: ${ns} exists, liqoctl uses it`);
      } else denials.push(line);
    }
    // 409: a nonce from an earlier attempt exists, and liqoctl updates it (CreateOrUpdate) — not a refusal.
    // A create the access review already refused is one refusal, not two (RBAC answers before admission).
    const deniedCreate = (o: K8sObject) =>
      denied.some((v) =>
        v.verb === "create" && v.resource === (o.kind === "Secret" ? "secrets" : "namespaces") &&
        (v.namespace ?? null) === (o.metadata.namespace ?? null) && !v.name
      );
    const refused = answers.dryRuns.filter((d) => !d.admitted && d.status !== 409 && !deniedCreate(d.object));
    for (const d of refused) if (!d.admitted) refusals.push(dryRunLine(who, d));
    const liqo = liqoInstalled(side.view) === false
      ? " (Liqo not installed: its kinds asked about by name)"
      : "";
    evidence.push(
      `${who}: ${
        answers.verdicts.length - denied.length
      }/${answers.verdicts.length} access reviews allowed in ${ns} and the Liqo namespace` +
        `${liqo}; ${
          answers.dryRuns.length === 0
            ? `${ns} exists (nothing to dry-run)`
            : `${nsExists ? `${ns} exists; ` : ""}${
              answers.dryRuns.map((d) => `${d.object.kind} ${d.object.metadata.name}`).join(", ")
            } ${refused.length ? "refused" : "admitted"} by a dryRun=All create`
        }`,
    );
  }));
  if (denials.length > 0 || refusals.length > 0) {
    return {
      status: "fail",
      summary: `liqoctl peer would be refused: ${[...denials, ...refusals].length} refusal(s), e.g. ${
        [...denials, ...refusals][0]
      }`,
      evidence: [...denials, ...refusals, ...warns, ...unknowns, ...evidence],
      remediation: fix(
        "Run liqoctl peer with credentials allowed to do the above on each cluster (docs/preflight.md, RBAC), or " +
          "have the admission policy named above admit the tenant namespace.",
      ),
    };
  }
  if (unknowns.length > 0) {
    return { status: "unknown", summary: unknowns.join("; "), evidence: [...warns, ...evidence] };
  }
  if (warns.length > 0) return { status: "warn", summary: warns.join("; "), evidence };
  return {
    status: "pass",
    summary:
      "every permission liqoctl peer needs is granted on both sides, and the tenant namespaces pass admission",
    evidence,
  };
}

export const PF_RBAC: CheckDef = {
  id: "PF-RBAC",
  title: "liqoctl peer is allowed on both sides",
  layer: "preflight",
  needs: ["PF-ID"],
  runsIfUnknown: ["PF-ID"],
  scope: "dual",
  perPeer: false,
  reads: ["namespaces"],
  optionalReads: ["deployments"],
  hubReads: ["access"],
  explain: {
    reads: "One SelfSubjectAccessReview per verb liqoctl peer needs on each side (get/create of the tenant " +
      "namespace; get/create/update of the Configuration, GatewayServer or GatewayClient, PublicKey and nonce " +
      "Secret in it; the Tenant on the provider, the Identity and ResourceSlice on the consumer, and get of the " +
      "consumer's authentication-keys Secret in its Liqo namespace, with which liqoctl signs the Tenant), then the tenant " +
      "Namespace created with dryRun=All (admission runs, nothing is stored) — where it exists already, the " +
      "provider's nonce Secret liqo-nonce in it instead; the Liqo resources are judged by the reviews alone.",
    decides:
      "fail listing each refusal (verb, resource, namespace, cluster) and each dry run admission refused " +
      "(the webhook or policy, its message); warn when only namespace creation is refused and the tenant namespace " +
      "exists already (liqoctl uses it); unknown when the access review itself is refused (403).",
    fixes:
      "Grant the role in docs/preflight.md (RBAC) to the credentials liqoctl peer will use, or fix the admission " +
      "policy that refuses the tenant namespace.",
  },
  hops: [],
  run,
};
