/**
 * PF-UDP's measurement: one exec in the client pod sending nonce datagrams to every candidate
 * address of the other side at once (active/commands.ts preflightEcho), read by the judge.
 */
import { preflightEcho, PROBE_CONTAINER } from "../../commands.ts";
import type { PreflightPodState } from "../../fleet/preflight_fleet.ts";
import type { ProbeTarget } from "../../fleet/target.ts";
import { type Candidate, type Direction, ECHO_COUNT, type PfSide } from "../model.ts";
import { directionOutcome, parseEcho } from "./judge.ts";

/** Runs one direction: the client pod (on `client`) to the candidates of `server`. */
export async function measureDirection(input: {
  server: PfSide;
  client: PfSide;
  serverCluster: string;
  clientTarget: ProbeTarget;
  namespace: string;
  clientPod: PreflightPodState | undefined;
  echoPod: PreflightPodState | undefined;
  candidates: readonly Candidate[];
  nonce: string;
  /** netexec's own wait is 5 s; curl waits this long. */
  waitS?: number;
}): Promise<Direction> {
  const base = {
    server: input.server,
    client: input.client,
    serverCluster: input.serverCluster,
    clientCluster: input.clientTarget.name,
    clientNode: input.clientPod?.state === "ready" ? input.clientPod.node : null,
  };
  for (const [what, p] of [["client", input.clientPod], ["echo", input.echoPod]] as const) {
    if (!p) return { ...base, outcome: "not-run", candidates: [], reason: `no ${what} pod` };
    if (p.state === "rejected") {
      return {
        ...base,
        outcome: "rejected-by-admission",
        candidates: [],
        reason: `${what} pod ${p.name} rejected by ${p.by}: ${p.message}`,
      };
    }
    if (p.state === "failed") {
      return { ...base, outcome: "not-run", candidates: [], reason: `${what} pod: ${p.reason}` };
    }
  }
  if (input.candidates.length === 0) {
    return {
      ...base,
      outcome: "no-address",
      candidates: [],
      reason: `no address to dial in ${input.serverCluster} (PF-EXP)`,
    };
  }
  const pod = input.clientPod as Extract<PreflightPodState, { state: "ready" }>;
  const out = await input.clientTarget.exec(
    input.namespace,
    pod.name,
    PROBE_CONTAINER,
    preflightEcho(input.candidates, input.nonce, ECHO_COUNT, input.waitS),
  );
  if (!out.ok) {
    return {
      ...base,
      outcome: "not-run",
      candidates: [],
      reason: `exec in ${pod.name} failed: ${out.message}`,
    };
  }
  const candidates = parseEcho(out.stdout, input.candidates, input.nonce, ECHO_COUNT);
  return { ...base, outcome: directionOutcome(candidates), candidates };
}
