/**
 * ENV-02: both ends of a peering run the same Liqo version (controller-manager image tag), and the
 * peer's gateway pods run the version of their controller-manager (as liqoctl reads it:
 * `pkg/utils/getters/k8sGetters.go` `GetLiqoVersion`; mixed versions: `docs/usage/peer.md`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import { controllerManager, gatewayOf, gatewayPods, imageTag, liqoVersionOf } from "../../liqo/lookups.ts";
import { andThen, fix, liqoctl, remoteKubeconfig, step } from "../remediation.ts";

/** "v1.2.3" → [1, 2, 3]; null when not a release version (e.g. a CI commit SHA). */
export function parseSemver(v: string | null | undefined): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v ?? "");
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Gateway container image tags of the peer's gateway pods on one cluster. */
function gatewayTags(inv: Objects, peerId: string): { pod: string; tags: string[] } | null {
  const gw = gatewayOf(inv, peerId);
  if (!gw || !inv.tryItems("pods")) return null;
  const pod = gatewayPods(inv, gw).find((p) => !p.metadata.deletionTimestamp);
  if (!pod) return null;
  const containers = pod.spec?.containers ?? [];
  const tags = containers.map((c) => imageTag(c?.image)).filter((t): t is string => t !== null);
  return { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, tags: [...new Set(tags)] };
}

function cmImage(inv: Objects): string {
  const containers = controllerManager(inv)?.spec?.template?.spec?.containers ?? [];
  const c = containers.find((x) => x?.name === "controller-manager") ?? containers[0];
  return c?.image ?? "no image";
}

function compareVersions(a: string, b: string): "same" | "patch" | "minor" | "incomparable" {
  if (a === b) return "same";
  const x = parseSemver(a), y = parseSemver(b);
  if (!x || !y) return "incomparable";
  if (x[0] !== y[0] || x[1] !== y[1]) return "minor";
  return x[2] === y[2] ? "same" : "patch";
}

interface Versioned {
  name: string;
  version: string;
  ctx: string;
}

function olderFirst(a: Versioned, b: Versioned): [Versioned, Versioned] {
  const x = parseSemver(a.version), y = parseSemver(b.version);
  if (!x || !y) return [a, b];
  const cmp = x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  return cmp <= 0 ? [a, b] : [b, a];
}

function run(ctx: CheckContext): Outcome {
  const remote = ctx.remote;
  if (!remote) return { status: "skip", skipKind: "needs-remote", summary: "needs --remote-kubeconfig" };
  const local = ctx.cluster;
  const lv = liqoVersionOf(local.inv), rv = liqoVersionOf(remote.inv);
  const evidence = [
    `${local.name}: ${lv ?? "no controller-manager"} (${cmImage(local.inv)})`,
    `${remote.name}: ${rv ?? "no controller-manager"} (${cmImage(remote.inv)})`,
  ];
  if (!lv || !rv) {
    return {
      status: "unknown",
      summary: `cannot read the Liqo version of ${!lv ? local.name : remote.name}`,
      evidence,
    };
  }
  const lag: string[] = [];
  const sides = [
    { view: local, version: lv, peerId: ctx.peer?.clusterId ?? null },
    { view: remote, version: rv, peerId: ctx.remotePeer?.clusterId ?? local.clusterId },
  ];
  for (const s of sides) {
    if (!s.peerId) continue;
    const g = gatewayTags(s.view.inv, s.peerId);
    if (!g) continue;
    const off = g.tags.filter((t) => compareVersions(t, s.version) !== "same");
    evidence.push(`${s.view.name} gateway ${g.pod}: ${g.tags.join(", ") || "no tag"}`);
    if (off.length > 0) {
      lag.push(`${s.view.name}: gateway ${g.pod} runs ${off.join(", ")}, controller-manager ${s.version}`);
    }
  }
  const diff = compareVersions(lv, rv);
  const [older, newer] = olderFirst(
    { name: local.name, version: lv, ctx: local.context },
    { name: remote.name, version: rv, ctx: remote.context },
  );
  const olderOn = older.ctx === local.context ? "local" : "remote";
  if (diff === "minor") {
    return {
      status: "fail",
      summary:
        `Liqo versions differ beyond patch level: ${local.name} ${lv}, ${remote.name} ${rv} (unsupported)`,
      evidence: [...evidence, ...lag],
      remediation: fix(
        `Run the same Liqo version on both clusters; upgrades do not update CRDs, so on ${older.name} (${older.version}):`,
        step(liqoctl("consumer", "unpeer", remoteKubeconfig("provider")), "from the consumer"),
        andThen(
          liqoctl(olderOn, "uninstall"),
          liqoctl(olderOn, "install", "<provider>", "--version", newer.version),
        ),
        liqoctl("consumer", "peer", remoteKubeconfig("provider")),
        step(liqoctl("local", "version"), "client and server versions on each cluster"),
      ),
    };
  }
  if (diff === "incomparable") {
    return {
      status: "unknown",
      summary:
        `Liqo versions ${lv} and ${rv} are not release versions and differ; cannot tell their distance`,
      evidence,
    };
  }
  if (diff === "patch") {
    return {
      status: "warn",
      summary: `Liqo patch versions differ: ${local.name} ${lv}, ${remote.name} ${rv}`,
      evidence: [...evidence, ...lag],
      remediation: fix(
        step(
          liqoctl(olderOn, "install", "<provider>", "--version", newer.version),
          `Align ${older.name} on ${newer.version} (same options as the original install):`,
        ),
      ),
    };
  }
  if (lag.length > 0) {
    return {
      status: "warn",
      summary: "gateway images lag behind the controller-manager",
      evidence: [...evidence, ...lag],
      remediation: fix(
        step(
          andThen(
            liqoctl("local", "network", "reset", remoteKubeconfig("remote")),
            liqoctl("local", "network", "connect", remoteKubeconfig("remote")),
          ),
          "Gateway Deployments are rendered from the WgGateway*Templates at peering time; re-create them " +
            "with the current images:",
        ),
      ),
    };
  }
  return { status: "pass", summary: `both clusters run Liqo ${lv}`, evidence };
}

export const ENV_02: CheckDef = {
  id: "ENV-02",
  title: "Liqo versions match across the peering",
  layer: "env",
  needs: [],
  scope: "dual",
  perPeer: true,
  reads: ["deployments"],
  optionalReads: ["pods", "gatewayservers", "gatewayclients"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads: "The controller-manager image tag on both clusters (liqoctl's method; app.kubernetes.io/version " +
      "as fallback) and the image tags of the peer's gateway pod on each side.",
    decides: "fail when the versions differ in major or minor (unsupported by Liqo), warn on a patch " +
      "difference or when gateway images lag behind their controller-manager, unknown for non-release " +
      "tags that differ.",
    fixes: "Run the same Liqo version on both clusters; CRDs are not upgraded in place, so unpeer, " +
      "reinstall and peer again.",
  },
  hops: [],
  run,
};
