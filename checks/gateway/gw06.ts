/**
 * GW-06: the gateway is stable — no container restarting repeatedly or terminated lately, and the pod
 * not recreated long after the peering (warn only).
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { activeGatewayPod, ageMs, formatAge } from "../../liqo/lookups.ts";
import { gatewayDeployment, lookupGateway } from "../common/gateway.ts";
import { fix, kubectlIn } from "../remediation.ts";

/** GW-06 warns from this many restarts of one container. */
const REPEATED_RESTARTS = 3;
/** GW-06: terminations younger than this count as recent. */
const RECENT_TERMINATION_MS = 24 * 60 * 60 * 1000;
/** GW-06: a pod younger than this, created well after the peering, was recreated lately. */
const RECREATED_WINDOW_MS = 30 * 60 * 1000;
/** GW-06: slack between peering creation and the first gateway pod. */
const RECREATED_SLACK_MS = 10 * 60 * 1000;

function run(ctx: CheckContext): Outcome {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { status: "skip", summary: "no running gateway pod (see GW-01)" };
  const dep = gatewayDeployment(ctx, gw);
  const replicas = typeof dep?.spec?.replicas === "number" ? dep.spec.replicas : 1;
  const podAge = ageMs(ctx.cluster.now, pod.metadata.creationTimestamp);
  const fcCreated = ctx.peer?.foreignCluster?.metadata?.creationTimestamp;
  const peeringAge = ageMs(ctx.cluster.now, fcCreated);
  const evidence = [
    `pod ${pod.metadata.name}: age ${formatAge(podAge)}, peering ${formatAge(peeringAge)} old`,
    `replicas: ${replicas}${replicas === 1 ? " (single replica, Liqo's default: no failover)" : ""}`,
  ];
  const problems: string[] = [];
  for (const s of pod.status?.containerStatuses ?? []) {
    const restarts = s?.restartCount ?? 0;
    const term = s?.lastState?.terminated;
    const termAge = ageMs(ctx.cluster.now, term?.finishedAt);
    const termText = term
      ? `, last terminated ${term.reason ?? "?"} (exit ${term.exitCode ?? "?"}) ${formatAge(termAge)} ago`
      : "";
    evidence.push(`${s?.name}: restarts ${restarts}${termText}`);
    if (restarts >= REPEATED_RESTARTS) problems.push(`${s?.name} restarted ${restarts} times`);
    else if (term && termAge !== null && termAge < RECENT_TERMINATION_MS && term.reason !== "Completed") {
      problems.push(`${s?.name} terminated ${term.reason ?? "?"} ${formatAge(termAge)} ago`);
    }
  }
  if (
    podAge !== null && peeringAge !== null && podAge < RECREATED_WINDOW_MS &&
    peeringAge - podAge > RECREATED_SLACK_MS
  ) {
    problems.push(`recreated ${formatAge(podAge)} ago, peering ${formatAge(peeringAge)} old`);
  }
  if (problems.length === 0) return { status: "pass", summary: "gateway stable", evidence };
  return {
    status: "warn",
    summary: `gateway ${pod.metadata.name} unstable: ${problems.join("; ")}`,
    evidence,
    remediation: fix(
      kubectlIn("local", gw.namespace, "describe", "pod", pod.metadata.name),
      kubectlIn("local", gw.namespace, "logs", pod.metadata.name, "-c", "wireguard", "--previous"),
      kubectlIn("local", gw.namespace, "get", "events", "--sort-by=.lastTimestamp"),
    ),
  };
}

export const GW_06: CheckDef = {
  id: "GW-06",
  title: "Gateway stability",
  layer: "gateway",
  needs: ["GW-01"],
  scope: "single",
  perPeer: true,
  reads: ["gatewayservers", "gatewayclients", "deployments", "pods"],
  readsIn: { pods: ["gateways"] },
  explain: {
    reads: "The active gateway pod's container restart counts and last terminations, its age against the " +
      "ForeignCluster's age, the Deployment's replicas.",
    decides:
      `warn only: a container restarted ${REPEATED_RESTARTS}+ times, a termination (OOMKilled, Error) in the ` +
      "last 24 h, or a pod recreated in the last 30 min on a peering older than that. A single replica " +
      "(Liqo's default) is noted in the evidence, not warned about.",
    fixes: "Read the previous logs of the restarting container; raise memory limits on OOMKilled; consider " +
      "networking.gatewayTemplates.replicas > 1 for failover.",
  },
  hops: ["gateway"],
  run,
};
