/**
 * ENV-05: every (non-virtual) node runs a kernel of at least 5.10, below which Liqo's gateway and
 * fabric refuse to start (Liqo's `pkg/utils/kernel/version/const.go`, `cmd/gateway/main.go`, `cmd/fabric/main.go`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import {
  containerSummaries,
  controllerManager,
  isVirtualNode,
  networkingEnabled,
} from "../../liqo/lookups.ts";
import { liqoNs } from "./shared.ts";
import { GATEWAY_LABELS } from "../../liqo/names.ts";
import { fix, helm, kubectl, step } from "../remediation.ts";
import { kernelBelowMin, parseKernel } from "../common/kernel.ts";

export { parseKernel } from "../common/kernel.ts";

/** Liqo pods (fabric, gateways) on a node whose containers refused the kernel. */
function kernelRefusals(inv: Objects, node: string): string[] {
  const out: string[] = [];
  for (const p of inv.tryItems("pods") ?? []) {
    if (p.spec?.nodeName !== node) continue;
    const liqo = p.metadata.labels?.["app.kubernetes.io/part-of"] === "liqo" ||
      p.metadata.labels?.[GATEWAY_LABELS.component] === "gateway";
    if (!liqo) continue;
    for (const c of containerSummaries(p)) {
      if (c.lastTermination && /kernel/i.test(c.lastTermination)) {
        out.push(
          `  ${p.metadata.namespace}/${p.metadata.name} container ${c.name}: ${c.state}, ${c.lastTermination}`,
        );
      }
    }
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const inv = ctx.cluster.inv;
  if (controllerManager(inv) && !networkingEnabled(inv)) {
    return {
      status: "skip",
      summary: "networking module disabled: the kernel requirement only applies to gateway and fabric",
    };
  }
  const nodes = inv.items("nodes").filter((n) => !isVirtualNode(n));
  if (nodes.length === 0) return { status: "unknown", summary: "no (non-virtual) nodes visible" };
  const low: string[] = [];
  const unknown: string[] = [];
  const ok: string[] = [];
  for (const n of nodes) {
    const release = n.status?.nodeInfo?.kernelVersion;
    const os = n.status?.nodeInfo?.osImage ? ` (${n.status.nodeInfo.osImage})` : "";
    const k = parseKernel(release);
    if (!k) {
      unknown.push(
        `${n.metadata.name}: kernel version ${release ? `"${release}" unparsable` : "not reported"}`,
      );
    } else if (kernelBelowMin(k)) {
      low.push(`${n.metadata.name}: kernel ${release}${os} < 5.10`, ...kernelRefusals(inv, n.metadata.name));
    } else ok.push(`${n.metadata.name}: kernel ${release}`);
  }
  if (low.length > 0) {
    const names = low.filter((l) => !l.startsWith("  ")).map((l) => l.split(":")[0]);
    return {
      status: "fail",
      summary: `node kernel below 5.10 on ${names.join(", ")}: Liqo gateway and fabric refuse to start there`,
      evidence: [...low, ...unknown, ...ok],
      remediation: fix(
        `Upgrade the kernel of ${names.join(", ")} to 5.10 or newer (e.g. Ubuntu 20.04: ` +
          "sudo apt install --install-recommends linux-generic-hwe-20.04 && sudo reboot), or replace the node(s) with a newer OS image.",
        "Meanwhile keep workloads (and the gateway) off them:",
        ...names.map((n) => kubectl("local", "drain", n, "--ignore-daemonsets", "--delete-emptydir-data")),
        step(
          helm(
            "local",
            ...["upgrade", "liqo", "liqo/liqo", "-n", liqoNs(ctx.cluster) ?? "liqo"],
            ...["--reuse-values", "--set", "requirements.kernel.enabled=false"],
          ),
          "Last resort only (unsupported: Liqo needs the nftables features of 5.10; liqoctl's " +
            "--disable-kernel-version-check only skips its own pre-install check):",
        ),
      ),
    };
  }
  if (unknown.length > 0) {
    return {
      status: "unknown",
      summary: `cannot read the kernel version of ${unknown.length} node(s)`,
      evidence: [...unknown, ...ok],
    };
  }
  return { status: "pass", summary: `all ${nodes.length} nodes run kernel ≥ 5.10`, evidence: ok };
}

export const ENV_05: CheckDef = {
  id: "ENV-05",
  title: "Node kernels ≥ 5.10",
  layer: "env",
  needs: [],
  scope: "single",
  perPeer: false,
  reads: ["nodes"],
  optionalReads: ["pods", "deployments"],
  readsIn: { pods: ["liqo", "tenants"] },
  explain: {
    reads: "status.nodeInfo.kernelVersion of every node not labelled liqo.io/type=virtual-node, and the " +
      "last terminations of Liqo pods on low-kernel nodes (the gateway and fabric kernel refusal).",
    decides: "fail listing each node below 5.10 (Liqo's gateway and fabric refuse to start there); unknown " +
      "when a kernel version cannot be parsed; skip when the networking module is disabled.",
    fixes: "Upgrade the node kernel or OS image; the Helm value requirements.kernel.enabled=false disables " +
      "the check but is unsupported and only a last resort.",
  },
  hops: [],
  run,
};
