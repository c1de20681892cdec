/**
 * PF-MTU's measurement: a binary search of the largest datagram echoed over the candidate the
 * recommendation uses, one padded netexec echo per size (active/commands.ts paddedEcho), between
 * 576 and 1500 bytes of IP packet.
 */
import { paddedEcho, paddedEchoText, PROBE_CONTAINER } from "../../commands.ts";
import type { ProbeTarget } from "../../fleet/target.ts";
import { type Candidate, familyOf, MTU_SEARCH, type MtuSearch, type PfSide, UDP_HEADERS } from "../model.ts";
import { datagramOutcome } from "../udp/judge.ts";
import { nextSize } from "./judge.ts";

/** Searches the largest echoed packet from the client pod over `candidate`. */
export async function measureMtu(input: {
  clientTarget: ProbeTarget;
  namespace: string;
  clientPod: string;
  candidate: Candidate;
  direction: { server: PfSide; client: PfSide };
  nonce: string;
  signal: AbortSignal;
  waitS?: number;
  /** When to stop searching (Date.now() ms; --probe-timeout from the search's start). */
  deadline?: number;
}): Promise<MtuSearch> {
  const family = familyOf(input.candidate.address);
  const headers = UDP_HEADERS[family];
  const tries: MtuSearch["tries"] = [];
  const tryOne = async (size: number): Promise<boolean> => {
    const cmd = paddedEcho(
      input.candidate.address,
      input.candidate.port,
      input.nonce,
      size,
      headers,
      input.waitS,
    );
    const out = await input.clientTarget.exec(input.namespace, input.clientPod, PROBE_CONTAINER, cmd);
    const text = paddedEchoText(input.nonce, size, headers);
    const ok = out.ok && datagramOutcome(out.stdout, text).outcome === "reply";
    tries.push({ size, ok });
    return ok;
  };
  // The top first: a path that carries 1500 needs one datagram.
  if (await tryOne(MTU_SEARCH.max)) {
    return { candidate: input.candidate, direction: input.direction, family, tries };
  }
  if (!(await tryOne(MTU_SEARCH.min))) {
    return { candidate: input.candidate, direction: input.direction, family, tries };
  }
  let lo: number = MTU_SEARCH.min;
  let hi: number = MTU_SEARCH.max;
  for (let size = nextSize(lo, hi); size !== null && !input.signal.aborted; size = nextSize(lo, hi)) {
    if (input.deadline !== undefined && Date.now() > input.deadline) {
      return { candidate: input.candidate, direction: input.direction, family, tries, cut: true };
    }
    if (await tryOne(size)) lo = size;
    else hi = size;
  }
  return { candidate: input.candidate, direction: input.direction, family, tries };
}
