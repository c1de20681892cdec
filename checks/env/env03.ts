/**
 * ENV-03: the API server serves every Liqo group/version and resource FlyingFish reads, i.e. the
 * Liqo CRDs are installed (Liqo's `deployments/liqo/charts/liqo-crds/crds/`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { KINDS } from "../../kube/kinds.ts";
import { controllerManager, liqoVersionOf } from "../../liqo/lookups.ts";
import { liqoNs } from "./shared.ts";
import { andThen, fix, helm, kubectl, pipe, shell, step } from "../remediation.ts";

/** Plurals of the Liqo kinds FlyingFish reads, per group/version. */
export function expectedLiqoResources(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const spec of Object.values(KINDS)) {
    if (!spec.group.endsWith(".liqo.io")) continue;
    const key = `${spec.group}/${spec.version}`;
    out.set(key, [...(out.get(key) ?? []), spec.plural]);
  }
  return out;
}

function run(ctx: CheckContext): Outcome {
  const d = ctx.cluster.inv.discovery;
  if (!d) return { status: "unknown", summary: "API discovery was not read in this run" };
  if (!d.ok) return { status: "unknown", summary: `API discovery ${d.reason}: ${d.message}` };
  const served = new Map(d.groups.map((g) => [`${g.group}/${g.version}`, new Set(g.resources)]));
  const missing: string[] = [];
  const present: string[] = [];
  for (const [gv, plurals] of expectedLiqoResources()) {
    const have = served.get(gv);
    if (!have || have.size === 0) {
      missing.push(`${gv}: group/version not served`);
      continue;
    }
    const lacking = plurals.filter((p) => !have.has(p));
    if (lacking.length) missing.push(`${gv}: missing ${lacking.join(", ")}`);
    else present.push(`${gv}: ${plurals.length} resources served`);
  }
  if (missing.length === 0) {
    return { status: "pass", summary: "all Liqo API groups and resources are served", evidence: present };
  }
  if (present.length === 0 && !controllerManager(ctx.cluster.inv)) {
    return { status: "skip", summary: "Liqo is not installed (see ENV-01)" };
  }
  const ns = liqoNs(ctx.cluster) ?? "liqo";
  const version = liqoVersionOf(ctx.cluster.inv) ?? "<version>";
  return {
    status: "fail",
    summary: `Liqo CRDs missing (broken or partial install): ${
      missing.map((m) => m.split(":")[0]).join(", ")
    }`,
    evidence: [...missing, ...present],
    remediation: fix(
      pipe(kubectl("local", "get", "crd"), shell("grep", "liqo.io")),
      kubectl("local", "api-resources", `--api-group=${missing[0].split("/")[0]}`),
      "Reinstall the CRDs of the running version (Helm installs CRDs only on first install, a plain " +
        "upgrade does not update or restore them):",
      andThen(
        // `helm pull` only downloads the chart: no cluster.
        helm("none", "pull", "liqo/liqo", "--version", version, "--untar"),
        kubectl("local", "apply", "--server-side", "-f", "liqo/charts/liqo-crds/crds/"),
      ),
      step(
        helm(
          "local",
          "-n",
          ns,
          "upgrade",
          "liqo",
          "liqo/liqo",
          "--version",
          version,
          "--reuse-values",
          "--set",
          "liqo-crds.crdUpgrade.enabled=true",
        ),
        "or (runs the chart's CRD upgrade Job):",
      ),
      "then restart the crash-looping Liqo components; if that is not enough: unpeer, uninstall and " +
        "reinstall the same version on both clusters",
    ),
  };
}

export const ENV_03: CheckDef = {
  id: "ENV-03",
  title: "Liqo API groups served",
  layer: "env",
  needs: [],
  scope: "single",
  perPeer: false,
  reads: [],
  explain: {
    reads: "API discovery for authentication/core/networking/offloading.liqo.io v1beta1 and ipam.liqo.io " +
      "v1alpha1, and the resources this tool reads in each (e.g. publickeies, foreignclusters, networks).",
    decides: "fail listing each group/version or resource that is not served (broken or partial install); " +
      "skip when Liqo is not installed at all (ENV-01 says so); unknown when discovery is forbidden or " +
      "failed. Whether CRDs are older than the running controllers cannot be seen through discovery " +
      "(schemas are not compared), so that part is not judged.",
    fixes: "Reinstall the CRDs of the running Liqo version (Helm does not touch CRDs on upgrade): apply " +
      "the chart's liqo-crds/crds/ with kubectl apply --server-side, or helm upgrade with " +
      "liqo-crds.crdUpgrade.enabled=true; otherwise unpeer, uninstall and reinstall.",
  },
  hops: [],
  run,
};
