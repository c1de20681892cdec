/**
 * Known bugs of Liqo releases, as data: which check's finding a bug explains, the versions it affects,
 * what it looks like in the objects (its signature), the fix that ended it (a commit or release note in
 * liqotech/liqo) and a workaround. When a check warns or fails and the running Liqo version is in a
 * bug's range and the signature matches, the result says so, names the first version with the fix and
 * puts the upgrade first in the remediation (then the workaround, then the check's own fix).
 * `flyingfish explain <ID>` lists the entries a check carries. Wrapped around the catalog's checks
 * (checks/catalog.ts), so no check needs to know about them.
 */
import type { CheckContext, CheckDef, Outcome } from "./types.ts";
import { fix, helm, note, type RemediationStep, type RunsOn } from "./remediation.ts";
import {
  gatewayOf,
  type GatewayRef,
  isVirtualNode,
  liqoNamespaceOf,
  liqoVersionOf,
} from "../liqo/lookups.ts";
import { GATEWAY_LABELS } from "../liqo/names.ts";
import { endpointOf, hostnameBeforeIp } from "../liqo/endpoints.ts";
import type { Objects } from "../liqo/views/mod.ts";

/** A release version as [major, minor, patch]; null for anything else (a digest, a CI SHA, "latest"). */
export function parseRelease(v: string | null | undefined): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec((v ?? "").trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function compare(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** True when `version` is in [from, fixedIn); null when the version is not a release. */
export function inRange(version: string | null, from: string, fixedIn: string): boolean | null {
  const v = parseRelease(version), lo = parseRelease(from), hi = parseRelease(fixedIn);
  if (!v || !lo || !hi) return null;
  return compare(v, lo) >= 0 && compare(v, hi) < 0;
}

/** A cluster of the run, as a known bug's signature sees it. */
interface Side {
  readonly name: string;
  readonly inv: Objects;
  /** Where a command for this cluster runs, from the result's point of view. */
  readonly on: RunsOn;
}

/** What a matched signature says: the evidence line and the cluster whose Liqo has the bug. */
export interface BugMatch {
  readonly line: string;
  readonly on: Side;
}

/** One known bug of a Liqo release range. */
export interface KnownBug {
  /** Stable ID (the fix commit's short hash, prefixed). */
  readonly id: string;
  readonly title: string;
  /** The checks whose warning or failure it explains. */
  readonly checks: readonly string[];
  /** First affected release (inclusive). */
  readonly from: string;
  /** First release with the fix. */
  readonly fixedIn: string;
  /** The fix commit or release note in liqotech/liqo. */
  readonly source: string;
  /** What it looks like, in words (for `explain`). */
  readonly signature: string;
  /** What to do until the upgrade, if anything. */
  readonly workaround: string | null;
  /** The signature over the objects: the evidence and the affected cluster, or null. */
  match(ctx: CheckContext): BugMatch | null;
}

function local(ctx: CheckContext): Side {
  return { name: ctx.cluster.name, inv: ctx.cluster.inv, on: "local" };
}

/** The server side of this peering (this cluster or, in dual mode, the other one), with its gateway. */
function serverSide(ctx: CheckContext): { side: Side; gw: GatewayRef } | null {
  if (!ctx.peer) return null;
  const here = gatewayOf(ctx.cluster.inv, ctx.peer.clusterId);
  if (here?.role === "server") return { side: local(ctx), gw: here };
  if (ctx.remote && ctx.remotePeer) {
    const there = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
    if (there?.role === "server") {
      return { side: { name: ctx.remote.name, inv: ctx.remote.inv, on: "remote" }, gw: there };
    }
  }
  return null;
}

/** The AWS annotation that makes the gateway's LoadBalancer an NLB (a Classic ELB carries no UDP). */
const AWS_LB_TYPE = "service.beta.kubernetes.io/aws-load-balancer-type";

/** The bugs, one entry each; every entry has a test in known_bugs_test.ts and a scenario. */
export const KNOWN_BUGS: readonly KnownBug[] = [
  {
    id: "liqo-0581b38e2",
    title: "EKS gateway server template renders no AWS load-balancer annotations",
    checks: ["GW-02"],
    from: "v1.0.0",
    fixedIn: "v1.1.2",
    source: "https://github.com/liqotech/liqo/commit/0581b38e21fd8eaace76381647875b311aca41f1",
    signature: "EKS nodes; the gateway server Service is a LoadBalancer without the " + AWS_LB_TYPE +
      " annotation: the EKS WgGatewayServerTemplate rendered its AWS annotations only when " +
      "networking.gatewayTemplates.server.service.annotations was set " +
      "(deployments/liqo/templates/liqo-wireguard-gateway-server-template-eks.yaml), so a Helm install " +
      "gets a Classic ELB, which carries no UDP",
    workaround: "set the annotation through the chart values (liqoctl install eks used to): " +
      `--set networking.gatewayTemplates.server.service.annotations.${
        AWS_LB_TYPE.replaceAll(".", "\\.")
      }=nlb`,
    match(ctx) {
      const inv = ctx.cluster.inv;
      const eks = inv.items("nodes").some((n) =>
        !isVirtualNode(n) &&
        Object.keys(n.metadata.labels ?? {}).some((k) => k.startsWith("eks.amazonaws.com/"))
      );
      const gw = ctx.peer ? gatewayOf(inv, ctx.peer.clusterId) : null;
      if (!eks || gw?.role !== "server") return null;
      const svc =
        inv.items("services").find((s) =>
          s.metadata.namespace === gw.namespace && s.metadata.labels?.[GATEWAY_LABELS.name] === gw.name &&
          s.metadata.labels?.[GATEWAY_LABELS.component] === "gateway"
        ) ?? inv.get("services", gw.namespace, gw.workloadName);
      if (svc?.spec?.type !== "LoadBalancer" || svc.metadata.annotations?.[AWS_LB_TYPE]) return null;
      return {
        line:
          `EKS node labels; Service ${gw.namespace}/${svc.metadata.name} is a LoadBalancer without ${AWS_LB_TYPE}`,
        on: local(ctx),
      };
    },
  },
  {
    id: "liqo-a6076eca2",
    title: "GatewayServer endpoint lists a LoadBalancer hostname before its IP",
    checks: ["GW-03", "GW-04"],
    from: "v1.0.0",
    fixedIn: "v1.2.0",
    source: "https://github.com/liqotech/liqo/commit/a6076eca247c42aaedca4067fb3249322a362494",
    signature: "the server's controller-manager writes GatewayServer status.endpoint with a LoadBalancer " +
      "hostname before its IP when the cloud sets both in the ingress; the client dials addresses[0], the " +
      "name, which may not resolve in its cluster (the fix lists IPs first)",
    workaround: "have the client dial the IP: liqoctl peer … --gw-client-address <LoadBalancer IP>",
    match(ctx) {
      const s = serverSide(ctx);
      if (!s) return null;
      const first = hostnameBeforeIp(endpointOf(s.gw.object.status?.endpoint));
      if (!first) return null;
      return {
        line: `${s.side.name} GatewayServer ${s.gw.name} status.endpoint lists ${first.hostname} before ${
          first.ips.join(", ")
        }`,
        on: s.side,
      };
    },
  },
];

/** The known bugs a check carries. */
export function knownBugsOf(checkId: string): KnownBug[] {
  return KNOWN_BUGS.filter((b) => b.checks.includes(checkId));
}

/** The outcome amended by the first known bug of `checkId` that matches (warn and fail only). */
export function amendWithKnownBugs(checkId: string, ctx: CheckContext, o: Outcome): Outcome {
  if (o.status !== "warn" && o.status !== "fail") return o;
  for (const bug of knownBugsOf(checkId)) {
    let m: BugMatch | null;
    try {
      m = bug.match(ctx);
    } catch {
      continue; // an unreadable input: no claim either way
    }
    if (!m) continue;
    const version = liqoVersionOf(m.on.inv);
    if (inRange(version, bug.from, bug.fixedIn) !== true) continue;
    const ns = liqoNamespaceOf(m.on.inv) ?? "liqo";
    const upgrade: RemediationStep[] = fix(
      `known Liqo bug of ${version} on ${m.on.name}, fixed in ${bug.fixedIn} (${bug.source}): upgrade first:`,
      helm(m.on.on, "upgrade", "liqo", "liqo/liqo", "-n", ns, "--version", bug.fixedIn, "--reuse-values"),
      bug.workaround && note(`until then: ${bug.workaround}`),
    );
    return {
      ...o,
      summary: `${o.summary} — known Liqo bug of ${version} (${bug.title}), fixed in ${bug.fixedIn}`,
      evidence: [
        ...(o.evidence ?? []),
        `known bug ${bug.id} (Liqo ${bug.from} to before ${bug.fixedIn}, ${m.on.name} runs ${version}): ${m.line}`,
      ],
      remediation: [...upgrade, ...(o.remediation ?? [])],
    };
  }
  return o;
}

/** A check whose warnings and failures are amended by its known bugs (the check itself unchanged). */
export function withKnownBugs(def: CheckDef): CheckDef {
  if (knownBugsOf(def.id).length === 0) return def;
  return {
    ...def,
    run: async (ctx) => amendWithKnownBugs(def.id, ctx, await def.run(ctx)),
  };
}
