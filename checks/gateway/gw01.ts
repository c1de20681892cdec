/**
 * GW-01: the peer's gateway workload runs — a GatewayServer/GatewayClient exists, its Deployment
 * gw-<name> has a pod, and the gateway, wireguard and geneve containers are running (Liqo's
 * `deployments/liqo/templates/liqo-wireguard-gateway-{server,client}-template.yaml`, `pkg/gateway/forge/utils.go`).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import type { Pod } from "../../liqo/views/core.ts";
import {
  activeGatewayPod,
  activeLabelledGatewayPods,
  ageMs,
  conditionOf,
  containerSummaries,
  formatAge,
  GATEWAY_LABELS,
  gatewayOf,
  gatewayPods,
  type GatewayRef,
  liqoVersionOf,
  nodeDownText,
  podNodeDown,
  REMOTE_ID_LABEL,
} from "../../liqo/lookups.ts";
import { containerLog } from "../common/logs.ts";
import { gatewayDeployment, networkingDisabled } from "../common/gateway.ts";
import { eventLines } from "./shared.ts";
import {
  fix,
  kubectl,
  kubectlIn,
  liqoctl,
  note,
  pipe,
  remoteKubeconfig,
  shell,
  step,
} from "../remediation.ts";

/** The three containers of a gateway pod (the gateway templates). */
const GATEWAY_CONTAINERS: readonly string[] = ["gateway", "wireguard", "geneve"];

/** A restart whose termination finished less than this long ago is "recent" (GW-01). */
const RECENT_RESTART_MS = 60 * 60 * 1000;

async function run(ctx: CheckContext): Promise<Outcome> {
  if (!ctx.peer) return { status: "unknown", summary: "no peer given to a per-peer check" };
  const peerId = ctx.peer.clusterId;
  const gw = gatewayOf(ctx.cluster.inv, peerId);
  if (!gw) return noGateway(ctx, peerId);
  const evidence: string[] = [
    `${gw.role === "server" ? "GatewayServer" : "GatewayClient"} ${gw.namespace}/${gw.name}`,
  ];
  const dep = gatewayDeployment(ctx, gw);
  const logs = kubectlIn(
    "local",
    gw.namespace,
    "logs",
    `deploy/${gw.workloadName}`,
    "-c",
    "wireguard",
    "--previous",
  );
  if (!dep) {
    return {
      status: "fail",
      summary: `gateway Deployment ${gw.namespace}/${gw.workloadName} is missing`,
      evidence: [...evidence, `no Deployment ${gw.workloadName} in ${gw.namespace}`],
      remediation: fix(
        kubectlIn(
          "local",
          gw.namespace,
          "get",
          `wg${gw.role === "server" ? "gatewayserver" : "gatewayclient"}`,
          gw.name,
          "-o",
          "yaml",
        ),
        pipe(
          kubectlIn("local", ctx.cluster.liqoNamespace ?? "liqo", "logs", "deploy/liqo-controller-manager"),
          shell("grep", gw.name),
        ),
      ),
    };
  }
  const desired = typeof dep.spec?.replicas === "number" ? dep.spec.replicas : 1;
  const ready = dep.status?.readyReplicas ?? 0;
  evidence.push(`Deployment ${gw.workloadName}: ${ready}/${desired} ready`);
  if (desired === 0) {
    return {
      status: "fail",
      summary: `gateway Deployment ${gw.workloadName} is scaled to 0 replicas`,
      evidence,
      remediation: fix(
        kubectlIn("local", gw.namespace, "scale", `deploy/${gw.workloadName}`, "--replicas=1"),
      ),
    };
  }
  const pods = gatewayPods(ctx.cluster.inv, gw).filter((p) => !p.metadata.deletionTimestamp);
  const passEvidence = [...evidence, ...pods.flatMap((p) => podEvidence(ctx, p))];
  // Warning events explain a finding (FailedScheduling, BackOff…); a passing result stays as it was.
  for (const p of pods) evidence.push(...podEvidence(ctx, p), ...eventLines(ctx, "Pod", p));
  if (pods.length === 0) {
    evidence.push(...eventLines(ctx, "Deployment", dep));
    return {
      status: "fail",
      summary: `no pod for gateway Deployment ${gw.workloadName} (${ready}/${desired} ready)`,
      evidence,
      remediation: fix(
        kubectlIn("local", gw.namespace, "describe", `deploy/${gw.workloadName}`),
        kubectlIn(
          "local",
          gw.namespace,
          "get",
          "events",
          "--field-selector",
          "involvedObject.kind=ReplicaSet",
        ),
      ),
    };
  }
  const active = activeGatewayPod(ctx.cluster.inv, gw);
  const doubled = active ? activeLabelConflict(ctx, gw, active) : null;
  if (doubled) {
    evidence.push(...doubled.evidence);
    passEvidence.push(...doubled.evidence);
    if (doubled.outcome) return { ...doubled.outcome, evidence };
  }
  // A pod bound to a lost node keeps its last-posted status (Running): the gateway is down with the node.
  const onDown = [active, ...pods].find((p) => p && podNodeDown(ctx.cluster.inv, p));
  if (onDown && (!active || active === onDown)) {
    const down = podNodeDown(ctx.cluster.inv, onDown)!;
    return {
      status: "fail",
      summary: `gateway pod ${onDown.metadata.name} is on NotReady node ${down.name} (see ENV-07): ${
        nodeDownText(down, ctx.cluster.now)
      }, its last-posted status is stale and the gateway is down with the node`,
      evidence: [
        ...evidence,
        `node ${down.name}: ${nodeDownText(down, ctx.cluster.now)}${
          down.taints.length ? `, taints ${down.taints.join(", ")}` : ""
        }`,
      ],
      remediation: fix(
        kubectl("local", "describe", "node", down.name),
        "to reschedule the gateway on a Ready node now (the Deployment recreates the pod):",
        kubectlIn(
          "local",
          gw.namespace,
          "delete",
          "pod",
          onDown.metadata.name,
          "--force",
          "--grace-period=0",
        ),
      ),
    };
  }
  if (!active) {
    const p = pods[0];
    return {
      status: "fail",
      summary: `gateway pod ${p.metadata.name} is not running (${podPhaseText(p)})`,
      evidence,
      remediation: fix(kubectlIn("local", gw.namespace, "describe", "pod", p.metadata.name), logs),
    };
  }
  const summaries = containerSummaries(active);
  const down = GATEWAY_CONTAINERS.filter((c) => summaries.find((s) => s.name === c)?.state !== "running");
  if (down.length > 0) {
    const first = summaries.find((s) => s.name === down[0]);
    const why = first
      ? `${first.state}${first.lastTermination ? ` — ${first.lastTermination}` : ""}`
      : "no status";
    // Liqo's gateway writes why it stopped to its log (kernel version, cannot create the interface).
    const log = await containerLog(ctx, active, down[0]);
    evidence.push(...log.evidence);
    return {
      status: "fail",
      summary: `gateway pod ${active.metadata.name}: container ${down.join(", ")} not running (${why})${
        log.cite ? `; log: "${log.cite}"` : ""
      }`,
      evidence,
      remediation: fix(
        kubectlIn("local", gw.namespace, "logs", active.metadata.name, "-c", down[0], "--previous"),
        kubectlIn("local", gw.namespace, "describe", "pod", active.metadata.name),
        kernelHint(`${first?.lastTermination ?? ""} ${log.cite ?? ""}`),
      ),
    };
  }
  const recent = recentRestarts(ctx, active);
  if (recent.length > 0) {
    const log = await containerLog(ctx, active, recent[0]);
    evidence.push(...log.evidence);
    return {
      status: "warn",
      summary: `gateway pod ${active.metadata.name} running, but ${
        recent.join(", ")
      } restarted within the last hour${log.cite ? `; log: "${log.cite}"` : ""}`,
      evidence,
      remediation: fix(
        kubectlIn("local", gw.namespace, "logs", active.metadata.name, "-c", recent[0], "--previous"),
      ),
    };
  }
  if (ready < desired) {
    return {
      status: "warn",
      summary: `gateway ${active.metadata.name} running, but only ${ready}/${desired} replicas ready`,
      evidence,
      remediation: fix(kubectlIn("local", gw.namespace, "describe", `deploy/${gw.workloadName}`)),
    };
  }
  return {
    status: "pass",
    summary: `gateway pod ${active.metadata.name} running (gateway, wireguard, geneve)`,
    evidence: passEvidence,
  };
}

/** The first Liqo version whose controllers skip gateway pods being deleted (liqotech/liqo 00322dfc5). */
const TERMINATING_FIX: readonly [number, number, number] = [1, 2, 0];

function versionBelow(v: string | null, w: readonly [number, number, number]): boolean | null {
  const m = v?.match(/^v?(\d+)\.(\d+)\.(\d+)/);
  if (!m) return null;
  const x = [Number(m[1]), Number(m[2]), Number(m[3])];
  for (let i = 0; i < 3; i++) if (x[i] !== w[i]) return x[i] < w[i];
  return false;
}

/** "Terminating for 12m0s on NotReady node rome-worker-1" / "Running on rome-worker-2". */
function podState(ctx: CheckContext, p: Pod): string {
  const node = p.spec?.nodeName ?? "?";
  const down = podNodeDown(ctx.cluster.inv, p);
  const where = down ? `NotReady node ${node}` : `node ${node}`;
  const ip = p.status?.podIP ? `, IP ${p.status.podIP}` : "";
  return p.metadata.deletionTimestamp
    ? `Terminating for ${formatAge(ageMs(ctx.cluster.now, p.metadata.deletionTimestamp))} on ${where}${ip}`
    : `${p.status?.phase ?? "?"} on ${where}${ip}`;
}

/**
 * More than one gateway pod labelled active (a replaced pod stuck Terminating on a lost node keeps the
 * label): Liqo's controllers before v1.2.0 then refuse to pick one ("wrong number of pods … (must be 1)")
 * and the gateway's status.internalEndpoint — the address every node's Geneve tunnel targets — stays at
 * the old pod. Fails when the internal endpoint is not the running active pod's; evidence otherwise.
 */
function activeLabelConflict(
  ctx: CheckContext,
  gw: GatewayRef,
  active: Pod,
): { evidence: string[]; outcome: Outcome | null } | null {
  const labelled = activeLabelledGatewayPods(ctx.cluster.inv, gw);
  if (labelled.length < 2) return null;
  const stuck = labelled.filter((p) => p !== active);
  const evidence = [
    `${labelled.length} gateway pods carry ${GATEWAY_LABELS.active}=true: ${
      labelled.map((p) => `${p.metadata.name} (${podState(ctx, p)})`).join(", ")
    }`,
  ];
  const ie = (gw.object.status as { internalEndpoint?: { ip?: string; node?: string } } | undefined)
    ?.internalEndpoint;
  const kind = gw.role === "server" ? "GatewayServer" : "GatewayClient";
  if (ie?.ip) {
    evidence.push(`${kind} ${gw.name} status.internalEndpoint: ${ie.ip} on ${ie.node ?? "?"}`);
  }
  const version = liqoVersionOf(ctx.cluster.inv);
  const old = versionBelow(version, TERMINATING_FIX);
  const frozen = ie?.ip !== undefined && active.status?.podIP !== undefined && ie.ip !== active.status.podIP;
  if (!frozen) {
    evidence.push(
      `the internal endpoint follows the running pod ${active.metadata.name}${
        old === false ? ` (Liqo ${version} skips pods being deleted)` : ""
      }`,
    );
    return { evidence, outcome: null };
  }
  const holder = stuck.find((p) => p.status?.podIP === ie!.ip);
  const first = stuck[0];
  return {
    evidence,
    outcome: {
      status: "fail",
      summary: `gateway ${gw.workloadName}: ${labelled.length} pods carry ${GATEWAY_LABELS.active}=true — ${
        (holder ?? first).metadata.name
      } (${podState(ctx, holder ?? first)}) next to ${active.metadata.name} (${podState(ctx, active)}); Liqo${
        version ? ` ${version}` : ""
      } refuses to pick one and the internal endpoint is frozen at ${ie!.ip}${
        holder ? ` (${holder.metadata.name})` : ""
      }`,
      remediation: fix(
        old !== false
          ? note(
            `Liqo before v${
              TERMINATING_FIX.join(".")
            } counts gateway pods being deleted (fixed by liqotech/liqo 00322dfc5): upgrade; meanwhile remove the stuck pod`,
          )
          : null,
        ...stuck.map((p) =>
          kubectlIn("local", gw.namespace, "delete", "pod", p.metadata.name, "--force", "--grace-period=0")
        ),
        kubectlIn(
          "local",
          gw.namespace,
          "get",
          `gateway${gw.role}`,
          gw.name,
          "-o",
          "jsonpath={.status.internalEndpoint}",
        ),
      ),
    },
  };
}

function noGateway(ctx: CheckContext, peerId: string): Outcome {
  if (networkingDisabled(ctx.peer?.foreignCluster)) {
    return { status: "skip", summary: "networking not enabled for this peer" };
  }
  const ns = ctx.peer?.tenantNamespace ?? `liqo-tenant-${peerId}`;
  return {
    status: "fail",
    summary:
      `no gateway for peer ${peerId}: neither a GatewayServer nor a GatewayClient labelled ${REMOTE_ID_LABEL}=${peerId}`,
    evidence: [
      `ForeignCluster ${peerId}: networking module ${
        ctx.peer?.foreignCluster?.status?.modules?.networking?.enabled === true ? "enabled" : "state unknown"
      }`,
      `no GatewayServer/GatewayClient with ${REMOTE_ID_LABEL}=${peerId} on ${ctx.cluster.name}`,
    ],
    remediation: fix(
      kubectl("local", "get", "gatewayservers,gatewayclients", "-A", "--show-labels"),
      "re-create the network between the clusters (run on the consumer):",
      step(liqoctl("consumer", "network", "connect", remoteKubeconfig("provider")), "or: liqoctl peer …"),
      kubectlIn("local", ns, "get", "events"),
    ),
  };
}

function podPhaseText(p: Pod): string {
  const phase = p.status?.phase ?? "unknown phase";
  const sched = conditionOf(p, "PodScheduled");
  if (sched?.status === "False") return `${phase}, ${sched.reason ?? "not scheduled"}`;
  const waiting = containerSummaries(p).find((s) => s.state.startsWith("waiting"));
  return waiting ? `${phase}, ${waiting.name} ${waiting.state}` : phase;
}

function podEvidence(ctx: CheckContext, p: Pod): string[] {
  const node = p.spec?.nodeName ? ` on ${p.spec.nodeName}` : "";
  const active = p.metadata.labels?.[GATEWAY_LABELS.active] === "true" ? ", active" : "";
  const out = [
    `pod ${p.metadata.name}: ${p.status?.phase ?? "unknown phase"}${node}${active}, age ${
      formatAge(ageMs(ctx.cluster.now, p.metadata.creationTimestamp))
    }`,
  ];
  const sched = conditionOf(p, "PodScheduled");
  if (sched?.status === "False") {
    out.push(`  PodScheduled=False ${sched.reason ?? ""}: ${sched.message ?? ""}`.trimEnd());
  }
  for (const s of containerSummaries(p)) {
    out.push(
      `  ${s.name}: ${s.state}, restarts ${s.restarts}${
        s.lastTermination ? `, last: ${s.lastTermination}` : ""
      }`,
    );
  }
  return out;
}

function kernelHint(termination: string): string | null {
  if (/operation not supported|wireguard kernel module/i.test(termination)) {
    return "the node's kernel cannot create a WireGuard interface (no wireguard module): load it on the node " +
      "(modprobe wireguard) or switch the gateways to the userspace implementation " +
      "(Helm networking.gatewayTemplates.wireguard.implementation=userspace)";
  }
  return /kernel version|minimum requirements/i.test(termination)
    ? "the node kernel is below 5.10: move the gateway to a newer node or upgrade the kernel (see ENV-05)"
    : null;
}

/** Containers of a pod whose last termination finished within the last hour. */
function recentRestarts(ctx: CheckContext, pod: Pod): string[] {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.filter((s) => {
    if (!((s.restartCount ?? 0) > 0)) return false;
    const age = ageMs(ctx.cluster.now, s.lastState?.terminated?.finishedAt);
    return age !== null && age < RECENT_RESTART_MS;
  }).map((s) => String(s.name));
}

export const GW_01: CheckDef = {
  id: "GW-01",
  title: "Gateway workload running",
  layer: "gateway",
  needs: ["ENV-05"],
  scope: "single",
  perPeer: true,
  reads: ["gatewayservers", "gatewayclients", "deployments", "pods"],
  readsIn: { pods: ["gateways"] },
  optionalReads: ["events", "nodes"],
  explain: {
    reads:
      "GatewayServer/GatewayClient labelled liqo.io/remote-cluster-id=<peer>; Deployment gw-<name> and its " +
      "pods (labels networking.liqo.io/component=gateway, gateway-name=<name>) in the gateway namespace; " +
      "container states of gateway, wireguard, geneve; ForeignCluster status.modules.networking.enabled; " +
      "when readable, the Warning events of the gateway pods (shown with a failure or warning) and the Node " +
      "the gateway pod is bound to (Ready condition, unreachable taint); for a container that is not running " +
      "or restarted lately, a bounded read of its log (the previous instance after a restart: the gateway " +
      'writes why it stopped there, e.g. the kernel-version refusal or "cannot create wireguard interface").',
    decides:
      "fail: no gateway object for a peer with networking enabled, Deployment missing or at 0 replicas, " +
      "no pod, the gateway pod bound to a NotReady node (its status is stale; see ENV-07, which names the " +
      "node), pod not running (Pending/Unschedulable), a container not running (CrashLoopBackOff: last " +
      "termination and the last error line of its log cited, up to 5 error lines — else the last 3 lines — " +
      "as evidence; a log that cannot be read says why, e.g. the missing get pods/log permission), more " +
      "than one pod labelled networking.liqo.io/active=true (a replaced pod stuck Terminating on a lost node " +
      "keeps the label; Liqo before v1.2.0 then refuses to pick one, liqotech/liqo 00322dfc5) while the " +
      "gateway's status.internalEndpoint is not the running active pod's IP — named with each pod's deletion " +
      "timestamp and node (when the endpoint follows the running pod, evidence only). warn: a " +
      "container restarted within the last hour (its log cited the same way), or fewer replicas ready than " +
      "desired. Gateway containers have no readiness probe, so Ready only means running. skip: networking " +
      "module disabled for this peer.",
    fixes:
      "Read the previous logs of the failing container (kubectl logs --previous), describe the pod for " +
      "scheduling problems, bring back (or leave) a NotReady node and delete the gateway pod bound to it so " +
      "it is rescheduled, and re-create the network (liqoctl network connect / liqoctl peer) when the " +
      "gateway objects are gone.",
  },
  hops: ["gateway"],
  hubReads: ["logs"],
  run,
};
