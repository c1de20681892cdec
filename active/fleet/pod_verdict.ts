/**
 * The pod verdicts of a fleet's wait, pure: what one pod's status says (Ready, failed for good —
 * Unschedulable, an image pull failure, a container config error, a failed pod — or still on its
 * way), and one message for the failures of a poll.
 */
import type { K8sObject } from "../../kube/source.ts";
import type { Side } from "../model.ts";
import { arr, rec, str } from "./_loose.ts";

/** Container waiting reasons that will not heal by waiting: the fleet fails at once. */
export const FATAL_WAITING_REASONS: ReadonlySet<string> = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
  "ImageInspectError",
  "RegistryUnavailable",
  "CreateContainerConfigError",
  "CreateContainerError",
]);

const IMAGE_REASONS = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "InvalidImageName",
  "ImageInspectError",
  "RegistryUnavailable",
]);

/** A pod the fleet waits for. */
export interface ExpectedPod {
  /** The pod network it sits in. */
  side: Side;
  /** The cluster it lives in (and is exec'd through). */
  execSide: Side;
  name: string;
  /** The node it was meant for (the virtual node for offloaded pods). */
  node: string;
  image: string;
  offloaded: boolean;
}

/** Why one pod will not become Ready. */
export interface PodFailure {
  pod: ExpectedPod;
  cluster: string;
  /** Unschedulable, ErrImagePull, CreateContainerConfigError, Failed, FailedCreate, … */
  reason: string;
  message: string;
}

/** What a pod's status says: Ready (with its IP and node), failed for good, or still on its way. */
export type PodVerdict =
  | { state: "ready"; podIP: string; node: string }
  | { state: "failed"; reason: string; message: string }
  | { state: "pending"; detail: string };

/**
 * Reads one pod's status. Fails for good: phase Failed/Succeeded (netexec never exits),
 * PodScheduled=False reason Unschedulable, a container waiting with one of
 * {@link FATAL_WAITING_REASONS}. Ready: the Ready condition True and a pod IP.
 */
export function podVerdict(pod: K8sObject): PodVerdict {
  const status = rec(pod.status);
  const phase = str(status.phase);
  const conditions = arr(status.conditions).map(rec);
  const statuses = [...arr(status.initContainerStatuses), ...arr(status.containerStatuses)].map(rec);
  if (phase === "Failed" || phase === "Succeeded") {
    const term = statuses.map((s) => rec(rec(s.state).terminated)).find((t) => Object.keys(t).length > 0);
    const parts = [
      str(status.reason),
      str(status.message),
      term
        ? [
          str(term.reason),
          term.exitCode !== undefined ? `exit code ${term.exitCode}` : "",
          str(term.message),
        ]
          .filter((s) => s).join(", ")
        : "",
    ].filter((s) => s);
    return {
      state: "failed",
      reason: phase === "Failed" ? "Failed" : "Exited",
      message: parts.join(": ") || `pod ${phase}`,
    };
  }
  const scheduled = conditions.find((c) => c.type === "PodScheduled");
  if (scheduled && scheduled.status === "False" && scheduled.reason === "Unschedulable") {
    return { state: "failed", reason: "Unschedulable", message: str(scheduled.message) || "no node fits" };
  }
  for (const s of statuses) {
    const waiting = rec(rec(s.state).waiting);
    const reason = str(waiting.reason);
    if (FATAL_WAITING_REASONS.has(reason)) {
      return { state: "failed", reason, message: str(waiting.message) || reason };
    }
  }
  const ready = conditions.find((c) => c.type === "Ready");
  const podIP = str(status.podIP);
  const node = str(rec(pod.spec).nodeName);
  if (ready?.status === "True" && podIP) return { state: "ready", podIP, node };
  const waiting = statuses.map((s) => str(rec(rec(s.state).waiting).reason)).find((r) => r);
  const detail = !node
    ? "not scheduled yet"
    : [phase || "Pending", waiting, ready?.status === "False" && phase === "Running" ? "not Ready" : ""]
      .filter((s) => s).join(", ");
  return { state: "pending", detail: podIP || !node ? detail : `${detail}, no pod IP yet` };
}

/** `a, b, c and 2 more`. */
export function listSome(items: string[], max = 4): string {
  return items.length <= max
    ? items.join(", ")
    : `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}

/**
 * One message for the failures of a poll: image problems grouped by image (so "the image is not
 * pullable there" reads once, naming every pod and node), the rest pod by pod.
 */
export function describeFailures(failures: readonly PodFailure[]): string {
  const byImage = new Map<string, PodFailure[]>();
  const others: PodFailure[] = [];
  for (const f of failures) {
    if (IMAGE_REASONS.has(f.reason)) {
      const key = `${f.cluster}\u0000${f.pod.image}`;
      byImage.set(key, [...byImage.get(key) ?? [], f]);
    } else others.push(f);
  }
  const parts: string[] = [];
  for (const group of byImage.values()) {
    // The ErrImagePull message carries the registry's answer; the back-off one only repeats the image.
    const f = group.find((g) => g.reason === "ErrImagePull") ?? group[0];
    const seen = [...new Set(group.map((g) => g.reason))];
    // A back-off always follows a failed pull: say so when the polls only caught the back-off.
    const reasons = seen.length === 1 && seen[0] === "ImagePullBackOff"
      ? "ImagePullBackOff (after ErrImagePull)"
      : seen.join("/");
    parts.push(
      `probe image ${f.pod.image} cannot be pulled in ${f.cluster}: ${reasons} on ${
        listSome(group.map((g) => `pod ${g.pod.name} (node ${g.pod.node})`))
      }: ${f.message}`,
    );
  }
  for (const f of others) {
    const where = f.pod.offloaded ? `offloaded through virtual node ${f.pod.node}` : `for node ${f.pod.node}`;
    parts.push(
      `probe pod ${f.pod.name} ${where} in ${f.cluster} (image ${f.pod.image}): ${f.reason}: ${f.message}`,
    );
  }
  return parts.join("; ");
}
