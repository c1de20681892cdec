/**
 * CNI-01: which CNI runs (by its DaemonSets) and whether a documented caveat with Liqo applies
 * (Liqo's `docs/installation/install.md`, `docs/installation/compatibility.md`, the fabric options in
 * `deployments/liqo/values.yaml`): Calico IP autodetection, Cilium kube-proxy replacement and taints,
 * masquerade bypass for Kindnet/Azure, AWS rule priority. Only warns: never fails.
 */
import { fix, type FixPart, helm, kubectl, kubectlIn, pipe, shell } from "../remediation.ts";
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { DaemonSet } from "../../liqo/views/core.ts";
import { controllerManagerArg, isVirtualNode } from "../../liqo/lookups.ts";
import { CNI_DAEMONSETS, cniDaemonSet } from "../../liqo/cni.ts";

function containerEnv(ds: DaemonSet, name: string): string | null | undefined {
  for (const c of ds.spec?.template?.spec?.containers ?? []) {
    const e = (c?.env ?? []).find((x) => x?.name === name);
    if (e) return typeof e.value === "string" ? e.value : null;
  }
  return undefined;
}

interface Finding {
  cni: string;
  warn: string[];
  notes: string[];
  fixes: FixPart[];
}

function calicoAutodetectionOk(v: string): boolean {
  if (v.startsWith("skip-interface=")) return /liqo/.test(v);
  return /^(interface=|cidr=|kubernetes-internal-ip|can-reach=)/.test(v);
}

function fingerprintCalico(ctx: CheckContext, dss: readonly DaemonSet[], flannel: boolean): Finding | null {
  const canal = cniDaemonSet(dss, CNI_DAEMONSETS.canal);
  const ds = cniDaemonSet(dss, CNI_DAEMONSETS.calico) ?? canal;
  if (!ds) return null;
  const ref = `DaemonSet ${ds.metadata.namespace}/${ds.metadata.name}`;
  const backend = containerEnv(ds, "CALICO_NETWORKING_BACKEND");
  if (canal || (flannel && backend === "none")) {
    return {
      cni: "Canal (Calico policy + Flannel networking)",
      warn: [],
      notes: [`${ref}: Flannel does the routing, Calico IP autodetection does not pick tunnel endpoints`],
      fixes: [],
    };
  }
  const method = containerEnv(ds, "IP_AUTODETECTION_METHOD");
  const deps = ctx.cluster.inv.tryItems("deployments") ?? [];
  const operator = deps.some((d) => d.metadata.name === "tigera-operator") ||
    ds.metadata.namespace === "calico-system";
  const shown = method === undefined
    ? "unset (= first-found)"
    : method === null
    ? "from a reference (not readable here)"
    : method;
  const f: Finding = {
    cni: `Calico${operator ? " (tigera-operator)" : ""}`,
    warn: [],
    notes: [
      `${ref}: IP_AUTODETECTION_METHOD ${shown}`,
      `CALICO_NETWORKING_BACKEND ${backend ?? "unset (bird)"}`,
    ],
    fixes: [],
  };
  if (method === null) {
    f.notes.push(
      "autodetection method comes from a ConfigMap/Secret reference: check it skips liqo.* interfaces",
    );
    return f;
  }
  const v = method ?? "first-found";
  if (calicoAutodetectionOk(v)) return f;
  f.warn.push(
    `Calico node IP autodetection "${v}" may pick a Liqo interface (liqo.*) as the node address (Liqo docs: installation/install.md, Calico)`,
  );
  if (operator) {
    f.notes.push(
      "the Installation CR (operator.tigera.io) is not read by this tool: the DaemonSet env reflects it",
    );
    const skip = `{"spec":{"calicoNetwork":{"nodeAddressAutodetectionV4":{"skipInterface":"liqo.*"}}}}`;
    f.fixes.push(kubectl("local", "patch", "installation", "default", "--type=merge", "-p", skip));
  } else {
    f.fixes.push(
      kubectlIn(
        "local",
        ds.metadata.namespace ?? "",
        ...["set", "env", `daemonset/${ds.metadata.name}`, "IP_AUTODETECTION_METHOD=skip-interface=liqo.*"],
      ),
    );
  }
  return f;
}

function fingerprintCilium(ctx: CheckContext, dss: readonly DaemonSet[]): Finding | null {
  const ds = cniDaemonSet(dss, CNI_DAEMONSETS.cilium);
  if (!ds) return null;
  const cm = (ctx.cluster.inv.tryItems("configmaps") ?? []).find((c) => c.metadata.name === "cilium-config");
  const f: Finding = {
    cni: "Cilium",
    warn: [],
    notes: [`DaemonSet ${ds.metadata.namespace}/${ds.metadata.name}`],
    fixes: [],
  };
  if (!cm) {
    f.notes.push(
      "ConfigMap cilium-config not readable/found: kube-proxy replacement and devices not checked",
    );
    return f;
  }
  const kpr = String(cm.data?.["kube-proxy-replacement"] ?? "false");
  const devices = String(cm.data?.["devices"] ?? "").trim();
  f.notes.push(`cilium-config: kube-proxy-replacement=${kpr}, devices=${devices || "(unset)"}`);
  if (["true", "strict"].includes(kpr) && !devices) {
    f.warn.push(
      `Cilium kube-proxy-replacement=${kpr} without "devices": its eBPF programs attach to Liqo interfaces (liqo.*) and drop traffic (Liqo docs: installation/install.md, Cilium devices)`,
    );
    f.fixes.push(
      `set Cilium devices explicitly, e.g. helm upgrade cilium cilium/cilium --reuse-values --set devices='{eth0}'`,
    );
    f.fixes.push(
      pipe(
        kubectlIn("local", cm.metadata.namespace ?? "", "get", "configmap", "cilium-config", "-o", "yaml"),
        shell("grep", "-e", "kube-proxy-replacement", "-e", "devices"),
      ),
    );
  }
  const tainted = ctx.cluster.inv.items("nodes").filter((n) =>
    isVirtualNode(n) &&
    (n.spec?.taints ?? []).some((t) => String(t?.key).startsWith("node.cilium.io/"))
  );
  if (tainted.length) {
    f.warn.push(
      `virtual node(s) ${
        tainted.map((n) => n.metadata.name).join(", ")
      } carry a Cilium agent-not-ready taint: pods cannot be offloaded (Liqo docs: installation/install.md, Cilium)`,
    );
    f.fixes.push("give the Cilium DaemonSet a node affinity: liqo.io/type DoesNotExist");
  } else {
    f.notes.push(
      "Cilium ≥ 1.14.2 taints nodes without its agent: keep a node affinity liqo.io/type DoesNotExist (D8)",
    );
  }
  return f;
}

function masqueradeBypass(ctx: CheckContext, cni: string, ref: string): Finding {
  const v = controllerManagerArg(ctx.cluster.inv, "gateway-masquerade-bypass-enabled");
  const f: Finding = {
    cni,
    warn: [],
    notes: [ref, `controller-manager --gateway-masquerade-bypass-enabled=${v ?? "(not readable)"}`],
    fixes: [],
  };
  if (v === "false") {
    f.warn.push(`${cni} needs Liqo's gatewayMasqueradeBypass (networking.fabric.config) but it is off`);
    f.fixes.push(
      helm(
        "local",
        ...["upgrade", "liqo", "liqo/liqo", "-n", ctx.cluster.liqoNamespace ?? "liqo", "--reuse-values"],
        ...["--set", "networking.fabric.config.gatewayMasqueradeBypass=true"],
      ),
    );
  }
  return f;
}

function fingerprintOthers(ctx: CheckContext, dss: readonly DaemonSet[]): Finding[] {
  const out: Finding[] = [];
  const refOf = (d: DaemonSet) => `DaemonSet ${d.metadata.namespace}/${d.metadata.name}`;
  const kindnet = cniDaemonSet(dss, CNI_DAEMONSETS.kindnet);
  if (kindnet) out.push(masqueradeBypass(ctx, "Kindnet", refOf(kindnet)));
  const azure = cniDaemonSet(dss, CNI_DAEMONSETS.azure);
  if (azure) out.push(masqueradeBypass(ctx, "Azure CNI", refOf(azure)));
  const aws = cniDaemonSet(dss, CNI_DAEMONSETS.aws);
  if (aws) {
    const prio = controllerManagerArg(ctx.cluster.inv, "fabric-route-rule-priority");
    const f: Finding = {
      cni: "AWS VPC CNI",
      warn: [],
      notes: [refOf(aws), `controller-manager --fabric-route-rule-priority=${prio ?? "(not readable)"}`],
      fixes: [],
    };
    if (prio === "0") {
      f.warn.push(
        "AWS VPC CNI policy-routing rules take precedence over Liqo's: set routeConfigurationRulePriority (101–500)",
      );
      f.fixes.push(
        helm(
          "local",
          ...["upgrade", "liqo", "liqo/liqo", "-n", ctx.cluster.liqoNamespace ?? "liqo", "--reuse-values"],
          ...["--set", "networking.fabric.config.routeConfigurationRulePriority=200"],
        ),
      );
    }
    out.push(f);
  }
  const anetd = cniDaemonSet(dss, CNI_DAEMONSETS.gkeDataplaneV2);
  if (anetd) {
    out.push({
      cni: "GKE Dataplane V2",
      warn: [],
      notes: [
        refOf(anetd),
        "offloaded pods cannot be exposed via NodePort/LoadBalancer (Liqo docs: installation/compatibility.md, reported by ENV-06)",
      ],
      fixes: [],
    });
  }
  for (
    const [cni, names] of [
      ["Weave Net", CNI_DAEMONSETS.weave],
      ["Antrea", CNI_DAEMONSETS.antrea],
      ["kube-router", CNI_DAEMONSETS.kubeRouter],
      // OpenShift's default CNI: ENV-06 reports the platform caveat (networking module is WIP there).
      ["OVN-Kubernetes", CNI_DAEMONSETS.ovnKubernetes],
    ] as const
  ) {
    const d = cniDaemonSet(dss, names);
    if (d) {
      out.push({ cni, warn: [], notes: [`${refOf(d)}: no Liqo-specific setting documented`], fixes: [] });
    }
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const dss = ctx.cluster.inv.items("daemonsets");
  const flannelDs = cniDaemonSet(dss, CNI_DAEMONSETS.flannel);
  const findings: Finding[] = [];
  const calico = fingerprintCalico(ctx, dss, !!flannelDs);
  if (calico) findings.push(calico);
  if (flannelDs && !calico?.cni.startsWith("Canal")) {
    findings.push({
      cni: "Flannel",
      warn: [],
      notes: [
        `DaemonSet ${flannelDs.metadata.namespace}/${flannelDs.metadata.name}: no Liqo-specific setting needed`,
      ],
      fixes: [],
    });
  }
  const cilium = fingerprintCilium(ctx, dss);
  if (cilium && !cniDaemonSet(dss, CNI_DAEMONSETS.gkeDataplaneV2)) findings.push(cilium);
  findings.push(...fingerprintOthers(ctx, dss));
  if (findings.length === 0) {
    const raw = dss.filter((d) => d.metadata.namespace === "kube-system").map((d) => d.metadata.name);
    const others = dss.filter((d) =>
      d.metadata.namespace !== "kube-system" && d.metadata.namespace !== ctx.cluster.liqoNamespace
    )
      .map((d) => `${d.metadata.namespace}/${d.metadata.name}`);
    return {
      status: "warn",
      summary: "CNI not recognised: Liqo caveats could not be checked",
      evidence: [
        `kube-system DaemonSets: ${raw.length ? raw.join(", ") : "(none)"}`,
        ...(others.length ? [`other DaemonSets: ${others.join(", ")}`] : []),
      ],
      remediation: fix(
        "Compare your CNI with Liqo's notes (docs/installation/install.md, CNIs section): make sure it does not " +
          "treat liqo.* interfaces as node interfaces and does not masquerade traffic towards remote CIDRs.",
      ),
    };
  }
  const names = findings.map((f) => f.cni).join(" + ");
  const warns = findings.flatMap((f) => f.warn);
  const evidence = findings.flatMap((f) => [...f.warn, ...f.notes.map((n) => `${f.cni}: ${n}`)]);
  if (warns.length === 0) {
    return { status: "pass", summary: `CNI: ${names}, no known Liqo caveat applies`, evidence };
  }
  return {
    status: "warn",
    summary: `CNI ${names}: ${warns[0]}`,
    evidence,
    remediation: fix(...findings.flatMap((f) => f.fixes)),
  };
}

export const CNI_01: CheckDef = {
  id: "CNI-01",
  title: "CNI caveats",
  layer: "cni",
  needs: [],
  scope: "single",
  perPeer: false,
  reads: ["daemonsets"],
  optionalReads: ["configmaps", "deployments", "nodes"],
  readsIn: { configmaps: ["cni"] },
  explain: {
    reads:
      "DaemonSets in every namespace (calico-node, canal, cilium, kube-flannel-ds, kindnet, aws-node, azure-cns, " +
      "anetd, weave-net, antrea-agent, kube-router), ConfigMap cilium-config, the controller-manager's fabric flags.",
    decides:
      "warn with the setting to change: Calico IP autodetection not skipping liqo.*; Cilium kube-proxy " +
      "replacement without devices; Kindnet/Azure without gatewayMasqueradeBypass; AWS without rule priority; " +
      "unknown CNI (listing the raw DaemonSets). Never fails.",
    fixes:
      "Calico: skip-interface=liqo.*; Cilium: devices; Liqo Helm networking.fabric.config.* for the others.",
  },
  hops: ["local-pod"],
  run,
};
