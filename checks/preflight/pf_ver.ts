/**
 * PF-VER: both Kubernetes versions lie in Liqo's supported window, and the Liqo versions (where
 * installed, and the `liqoctl` on this host) can peer. Liqo guarantees "the last 3 Kubernetes
 * releases" (`docs/installation/requirements.md`): per Liqo minor, the newest is the Kubernetes its
 * release is built against (`go.mod` k8s.io/api), the window that and the two before it. Peering
 * across Liqo minor versions is unsupported (`docs/usage/peer.md`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { liqoVersionOf } from "../../liqo/lookups.ts";
import { fix, kubectl, step } from "../remediation.ts";
import { liqoInstalled, named, noProvider, notInstalled, type Side, sidesOf, unreadable } from "./_shared.ts";

/**
 * Newest Kubernetes minor per Liqo minor (k8s.io/api in Liqo's go.mod: v1.0.0 v0.31, v1.1.0 v0.33,
 * v1.2.0 v0.35); the window is it and the two minors before it.
 */
export const LIQO_KUBERNETES: Readonly<Record<string, number>> = { "1.0": 31, "1.1": 33, "1.2": 35 };

/** The Liqo a fresh install gets today (the newest row of {@link LIQO_KUBERNETES}). */
export const NEWEST_LIQO = "1.2";

/** "v1.2.3" (also "1.31.4-eks-…", "v1.31.4+k3s1") → [1, 2, 3]; null when not a release version. */
export function parseVersion(v: string | null | undefined): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec((v ?? "").trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

/** The supported Kubernetes minors of a Liqo minor ("1.2" → [33, 35]); null when not in the table. */
export function kubernetesWindow(liqoMinor: string): [number, number] | null {
  const newest = LIQO_KUBERNETES[liqoMinor];
  return newest === undefined ? null : [newest - 2, newest];
}

/** A side's Kubernetes version: the API server's /version, else the kubelets' (newest), with where it came from. */
function kubernetesOf(side: Side): { version: string; from: string } | null {
  if (side.view.serverVersion) return { version: side.view.serverVersion, from: "/version" };
  const nodes = side.view.inv.tryItems("nodes") ?? [];
  const kubelets = [
    ...new Set(nodes.map((n) => n.status?.nodeInfo?.kubeletVersion).filter((v): v is string => !!v)),
  ];
  return kubelets.length ? { version: kubelets.sort().at(-1)!, from: "node kubeletVersion" } : null;
}

function minorOf(v: [number, number, number]): string {
  return `${v[0]}.${v[1]}`;
}

function run(ctx: CheckContext): Outcome {
  const sides = sidesOf(ctx);
  if (typeof sides === "string") return noProvider(sides);
  const fails: string[] = [];
  const warns: string[] = [];
  const unknowns: string[] = [];
  const evidence: string[] = [];
  const installed = sides.map((s) => liqoInstalled(s.view));
  const liqo = sides.map((s, i) => installed[i] ? liqoVersionOf(s.view.inv) : null);
  // The Liqo each side's window is judged against: its own, else the other side's, else a fresh install's.
  const parsedLiqo = liqo.map(parseVersion);
  const basis = (i: number): { minor: string; why: string } => {
    const own = parsedLiqo[i];
    if (own) return { minor: minorOf(own), why: `Liqo ${liqo[i]} installed there` };
    const other = parsedLiqo[1 - i];
    if (other) return { minor: minorOf(other), why: `Liqo ${liqo[1 - i]} on the other side` };
    return { minor: NEWEST_LIQO, why: `a fresh install of Liqo v${NEWEST_LIQO}` };
  };
  sides.forEach((s, i) => {
    const k = kubernetesOf(s);
    if (installed[i] === null) unknowns.push(unreadable(s.view, "deployments"));
    evidence.push(
      `${named(s)}: Kubernetes ${k ? `${k.version} (${k.from})` : "unknown"}, Liqo ${
        installed[i] === false ? "not installed" : liqo[i] ?? "unknown version"
      }`,
    );
    const kv = parseVersion(k?.version);
    if (!kv) {
      unknowns.push(`the Kubernetes version of ${named(s)} could not be read`);
      return;
    }
    const b = basis(i);
    const w = kubernetesWindow(b.minor);
    if (!w) {
      unknowns.push(`no supported-Kubernetes window known for Liqo ${b.minor} (${b.why})`);
      return;
    }
    const range = `1.${w[0]}–1.${w[1]}`;
    if (kv[1] < w[0]) {
      fails.push(
        `${named(s)}: Kubernetes ${k!.version} is below Liqo ${b.minor}'s supported ${range} (${b.why})`,
      );
    } else if (kv[1] > w[1]) {
      warns.push(
        `${named(s)}: Kubernetes ${
          k!.version
        } is newer than Liqo ${b.minor} was built for (${range}, ${b.why}): ` +
          "not yet covered by its guarantee",
      );
    }
  });
  if (installed[0] && installed[1]) {
    const [a, b] = parsedLiqo;
    if (!a || !b) unknowns.push(`a Liqo version is not a release version (${liqo[0]} / ${liqo[1]})`);
    else if (a[0] !== b[0] || a[1] !== b[1]) {
      fails.push(
        `Liqo ${liqo[0]} (${named(sides[0])}) and ${liqo[1]} (${named(sides[1])}) differ in minor version`,
      );
    } else if (a[2] !== b[2]) warns.push(`Liqo patch versions differ: ${liqo[0]} vs ${liqo[1]}`);
  }
  const cli = ctx.options.preflight?.liqoctl;
  if (cli) {
    evidence.push(`liqoctl on this host: ${cli.version ?? cli.detail}`);
    const v = parseVersion(cli.version);
    const server = parsedLiqo.find((p) => p !== null) ?? null;
    if (v && server && (v[0] !== server[0] || v[1] !== server[1])) {
      fails.push(`liqoctl ${cli.version} on this host does not match the installed Liqo ${minorOf(server)}`);
    } else if (v && server && v[2] !== server[2]) {
      warns.push(`liqoctl ${cli.version} differs in patch version`);
    }
  }
  const remediation = fix(
    "Upgrade the cluster(s) named above into the window, or install the Liqo release built for that Kubernetes;",
    "peer clusters running the same Liqo minor version, with a liqoctl of that version:",
    step(kubectl("local", "version")),
  );
  if (fails.length) {
    return {
      status: "fail",
      summary: fails.join("; "),
      evidence: [...evidence, ...warns, ...unknowns],
      remediation,
    };
  }
  if (unknowns.length) {
    return { status: "unknown", summary: unknowns.join("; "), evidence: [...evidence, ...warns] };
  }
  if (warns.length) return { status: "warn", summary: warns.join("; "), evidence, remediation };
  const absent = sides.filter((_, i) => installed[i] === false).map((s) => notInstalled(s.view));
  return {
    status: "pass",
    summary: `Kubernetes in Liqo's supported window on both sides; ${
      absent.length ? `Liqo versions not compared: ${absent.join(", ")}` : "Liqo versions agree"
    }`,
    evidence,
  };
}

export const PF_VER: CheckDef = {
  id: "PF-VER",
  title: "Kubernetes and Liqo versions can peer",
  layer: "preflight",
  needs: ["PF-ID"],
  runsIfUnknown: ["PF-ID"],
  scope: "dual",
  perPeer: false,
  reads: ["deployments"],
  optionalReads: ["nodes"],
  explain: {
    reads:
      "Each API server's /version (else the nodes' kubeletVersion), the Liqo version (the controller-manager " +
      "image tag, as liqoctl reads it) and `liqoctl version --client` when liqoctl is on PATH.",
    decides:
      "fail when a Kubernetes version is below the window of the Liqo it runs or will run (the newest " +
      "Kubernetes that Liqo release is built against and the two before it: v1.0 1.29–1.31, v1.1 1.31–1.33, v1.2 " +
      "1.33–1.35), or Liqo (or liqoctl) minor versions differ; warn on a newer Kubernetes or a patch skew; Liqo " +
      "absent: judged against a fresh install of the newest Liqo.",
    fixes:
      "Upgrade Kubernetes, or install the same Liqo release on both sides with a liqoctl of that release.",
  },
  hops: [],
  run,
};
