/**
 * PF-KRN: every node that can host a gateway or fabric pod runs kernel ≥ 5.10, below which Liqo's
 * gateway and fabric refuse to start — today a bad node is found only after peering has begun.
 * Where Liqo is installed, "can host" follows the gateway templates' and the fabric DaemonSet's
 * placement; where it is not, the chart's fabric tolerations (every node but those tainted away).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Node } from "../../liqo/views/core.ts";
import { isVirtualNode } from "../../liqo/lookups.ts";
import { kernelBelowMin, parseKernel } from "../common/kernel.ts";
import { fix } from "../remediation.ts";
import { CHART_FABRIC_TOLERATIONS, excludedBy, type Placement, templatePodSpec } from "./_placement.ts";
import { liqoInstalled, liqoItems, liqoNamespace, named, noProvider, type Side, sidesOf } from "./_shared.ts";

/** The placements of a side's gateway and fabric pods. */
function placements(side: Side): Placement[] {
  const inv = side.view.inv;
  if (!liqoInstalled(side.view)) {
    return [{ from: "Liqo's chart (fabric)", tolerations: CHART_FABRIC_TOLERATIONS }];
  }
  const ns = liqoNamespace(side.view);
  const out: Placement[] = [];
  for (const kind of ["wggatewayservertemplates", "wggatewayclienttemplates"] as const) {
    for (const t of liqoItems(side.view, kind) ?? []) {
      if (ns && t.metadata.namespace !== ns) continue;
      const spec = templatePodSpec(t);
      out.push({
        from: `${t.kind ?? kind} ${t.metadata.namespace}/${t.metadata.name}`,
        nodeSelector: spec.nodeSelector as Record<string, unknown> | undefined,
        affinity: spec.affinity,
        tolerations: spec.tolerations,
      });
    }
  }
  const fabric = (inv.tryItems("daemonsets") ?? []).find((d) =>
    d.metadata.labels?.["app.kubernetes.io/name"] === "fabric" && (!ns || d.metadata.namespace === ns)
  );
  const pod = fabric?.spec?.template?.spec;
  out.push(
    fabric
      ? {
        from: `DaemonSet ${fabric.metadata.namespace}/${fabric.metadata.name}`,
        nodeSelector: pod?.nodeSelector as Record<string, unknown> | undefined,
        affinity: pod?.affinity,
        tolerations: pod?.tolerations,
      }
      : { from: "Liqo's chart (fabric)", tolerations: CHART_FABRIC_TOLERATIONS },
  );
  return out;
}

function run(ctx: CheckContext): Outcome {
  const sides = sidesOf(ctx);
  if (typeof sides === "string") return noProvider(sides);
  const low: string[] = [];
  const unknown: string[] = [];
  const ok: string[] = [];
  const off: string[] = [];
  for (const side of sides) {
    const nodes: readonly Node[] = side.view.inv.items("nodes").filter((n) => !isVirtualNode(n));
    if (nodes.length === 0) unknown.push(`${named(side)}: no (non-virtual) node visible`);
    const ps = placements(side);
    for (const n of nodes) {
      const hosts = ps.filter((p) => excludedBy(n, p) === null).map((p) => p.from);
      const where = `${named(side)} node ${n.metadata.name}`;
      if (hosts.length === 0) {
        off.push(`${where}: hosts no gateway or fabric pod (${excludedBy(n, ps[0])})`);
        continue;
      }
      const release = n.status?.nodeInfo?.kernelVersion;
      const k = parseKernel(release);
      if (!k) {
        unknown.push(`${where}: kernel version ${release ? `"${release}" unparsable` : "not reported"}`);
      } else if (kernelBelowMin(k)) {
        low.push(`${where}: kernel ${release} < 5.10 (may host: ${hosts.join(", ")})`);
      } else ok.push(`${where}: kernel ${release}`);
    }
  }
  if (low.length > 0) {
    return {
      status: "fail",
      summary: `kernel below 5.10 on ${low.length} node(s) that can host a gateway or fabric pod: ` +
        low.map((l) => l.split(":")[0]).join(", "),
      evidence: [...low, ...unknown, ...ok, ...off],
      remediation: fix(
        "Upgrade those nodes' kernel (or OS image) to 5.10 or newer, or keep Liqo's gateway off them " +
          "(networking.gatewayTemplates.pod.nodeSelector / affinity in Liqo's Helm values) — the fabric " +
          "runs on every node it tolerates.",
      ),
    };
  }
  if (unknown.length > 0) {
    return { status: "unknown", summary: unknown.join("; "), evidence: [...ok, ...off] };
  }
  return {
    status: "pass",
    summary: `${ok.length} node(s) that can host Liqo's gateway or fabric run kernel ≥ 5.10`,
    evidence: [...ok, ...off],
  };
}

export const PF_KRN: CheckDef = {
  id: "PF-KRN",
  title: "Node kernels ≥ 5.10 where gateway and fabric can run",
  layer: "preflight",
  needs: ["PF-ID"],
  runsIfUnknown: ["PF-ID"],
  scope: "dual",
  perPeer: false,
  reads: ["nodes"],
  optionalReads: ["deployments", "daemonsets", "wggatewayservertemplates", "wggatewayclienttemplates"],
  explain: {
    reads:
      "status.nodeInfo.kernelVersion of every non-virtual node of both clusters; the placement (nodeSelector, " +
      "required node affinity, tolerations) of the WgGateway*Templates and the fabric DaemonSet where Liqo is " +
      "installed, else the chart's fabric tolerations.",
    decides:
      "fail naming each node below 5.10 that can host a gateway or fabric pod; unknown when a kernel " +
      "version cannot be read; nodes no such pod can land on are listed, not judged.",
    fixes:
      "Upgrade the node kernel or OS image, or pin the gateway elsewhere with Liqo's gateway template placement.",
  },
  hops: [],
  run,
};
