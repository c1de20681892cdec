/**
 * The `preflight` block of a report (`flyingfish preflight`): the verdict over every PF result —
 * can peer, can peer with changes, cannot peer, could not judge, already peered — and the exact
 * `liqoctl peer` line that fits what was found, with each cluster's kubeconfig and context in its
 * place (liqoctl peer runs from the consumer: `--kubeconfig/--context` are the consumer's,
 * `--remote-kubeconfig/--remote-context` the provider's; flags as `cmd/liqoctl/cmd/peer.go` and
 * `pkg/liqoctl/factory` spell them).
 */
import { z } from "zod";
import type { CheckResult, PreflightIntent } from "../checks/types.ts";
import type { CheckFacts } from "../checks/facts.ts";
import { shellQuote } from "../kube/rerun.ts";

/** The verdict of a preflight run. */
export type PreflightVerdict =
  | "can-peer"
  | "can-peer-with-changes"
  | "cannot-peer"
  | "could-not-judge"
  | "already-peered";

/** Every verdict, in the order the schema lists them. */
export const PREFLIGHT_VERDICTS: readonly PreflightVerdict[] = [
  "can-peer",
  "can-peer-with-changes",
  "cannot-peer",
  "could-not-judge",
  "already-peered",
];

/** The `preflight` block's own version (bumped on a rename, removal or type change inside it). */
export const PREFLIGHT_BLOCK_VERSION: PreflightBlock["version"] = "1";

/** The `preflight` block. */
export interface PreflightBlock {
  /** The block's own version, "1" (bumped on a rename, removal or type change inside it). */
  version: "1";
  /** The would-be consumer (`--kubeconfig/--context`). */
  consumer: string;
  /** The would-be provider (`--remote-kubeconfig/--remote-context`). */
  provider: string;
  /** What the run found: can peer, with changes, cannot, could not judge, already peered. */
  verdict: PreflightVerdict;
  /** One line saying what the verdict rests on. */
  message: string;
  /** Failed checks (cannot peer until fixed). */
  blockers: string[];
  /** Warnings and the flags the line departs from liqoctl's defaults with (can peer with changes). */
  changes: string[];
  /** Checks that could not decide. */
  undecided: string[];
  /** True when the `--probe` checks ran (the data path was tested, not only the plan). */
  probed: boolean;
  /** `liqoctl peer` as words and as one shell line; null when already peered. */
  liqoctl: { argv: string[]; line: string } | null;
}

/** Zod schema of {@link PreflightBlock}. */
export const PreflightBlockSchema: z.ZodType<PreflightBlock> = z.object({
  version: z.literal(PREFLIGHT_BLOCK_VERSION),
  consumer: z.string(),
  provider: z.string(),
  verdict: z.enum(PREFLIGHT_VERDICTS as [PreflightVerdict, ...PreflightVerdict[]]),
  message: z.string(),
  blockers: z.array(z.string()),
  changes: z.array(z.string()),
  undecided: z.array(z.string()),
  probed: z.boolean(),
  liqoctl: z.object({ argv: z.array(z.string()), line: z.string() }).nullable(),
});

/** How the user named one cluster, and where Liqo runs there. */
export interface NamedCluster {
  name: string;
  /** The kubeconfig file given for it; null: the default kubeconfig. */
  kubeconfig: string | null;
  /** Its context ("" when unknown). */
  context: string;
  /** The Liqo namespace, when installed ("liqo" is liqoctl's default). */
  liqoNamespace: string | null;
}

/** What the verdict is built from. */
export interface PreflightInput {
  results: readonly CheckResult[];
  factsOf: (r: CheckResult) => CheckFacts;
  intent: PreflightIntent | undefined;
  consumer: NamedCluster;
  provider: NamedCluster;
  /** The run had the `--probe` phase. */
  probed: boolean;
}

const DEFAULTS = { port: 51840, mtu: 1340 } as const;
const label = (r: CheckResult) => `${r.id}: ${r.summary}`;

/** The `liqoctl peer` words for what was found. */
export function liqoctlPeerArgv(input: PreflightInput): { argv: string[]; changes: string[] } {
  const { consumer, provider } = input;
  // PF-DIR's path, with PF-MTU's safe MTU on top (each check hands its part).
  const paths = input.results.map((r) => input.factsOf(r).preflightPath).filter((p) => p !== undefined);
  const path = paths.length ? Object.assign({}, ...paths) as (typeof paths)[number] : undefined;
  const argv = ["liqoctl", "peer"];
  const changes: string[] = [];
  if (consumer.kubeconfig) argv.push("--kubeconfig", consumer.kubeconfig);
  if (consumer.context) argv.push("--context", consumer.context);
  if (provider.kubeconfig) argv.push("--remote-kubeconfig", provider.kubeconfig);
  if (provider.context) argv.push("--remote-context", provider.context);
  if (consumer.liqoNamespace && consumer.liqoNamespace !== "liqo") {
    argv.push("--liqo-namespace", consumer.liqoNamespace);
  }
  if (provider.liqoNamespace && provider.liqoNamespace !== "liqo") {
    argv.push("--remote-liqo-namespace", provider.liqoNamespace);
  }
  // A change is what the probes found the peering needs, away from what was asked (or liqoctl's default).
  const asked = {
    side: input.intent?.serverSide ?? "provider",
    type: input.intent?.serviceType ?? "LoadBalancer",
  };
  const side = path?.serverSide ?? asked.side;
  argv.push("--gw-server-service-location", side === "consumer" ? "Consumer" : "Provider");
  if (side !== asked.side) {
    changes.push(
      `the gateway server on the ${side} (${side === "consumer" ? consumer.name : provider.name})`,
    );
  }
  const type = path?.serviceType ?? asked.type;
  argv.push("--gw-server-service-type", type);
  if (type !== asked.type) changes.push(`a ${type} gateway Service`);
  const port = input.intent?.port ?? DEFAULTS.port;
  if (type === "NodePort" && path?.port) argv.push("--gw-server-service-nodeport", String(path.port));
  if (port !== DEFAULTS.port) argv.push("--gw-server-service-port", String(port));
  if (path?.clientAddress) {
    argv.push("--gw-client-address", path.clientAddress);
    changes.push(
      `the client dials ${path.clientAddress}${path.clientPort ? `:${path.clientPort}` : ""} (NAT)`,
    );
  }
  if (path?.clientPort) argv.push("--gw-client-port", String(path.clientPort));
  const mtu = path?.mtu ?? input.intent?.mtu ?? DEFAULTS.mtu;
  if (mtu !== DEFAULTS.mtu) argv.push("--mtu", String(mtu));
  if (path?.mtu && path.mtu !== (input.intent?.mtu ?? DEFAULTS.mtu)) {
    changes.push(`tunnel MTU ${mtu} (below the ${input.intent?.mtu ?? DEFAULTS.mtu} asked for)`);
  }
  return { argv, changes };
}

/** The preflight block of a run over the PF results. */
export function buildPreflight(input: PreflightInput): PreflightBlock {
  const pf = input.results.filter((r) => r.layer === "preflight");
  const peered = pf.some((r) => input.factsOf(r).preflightPeered === true);
  const blockers = pf.filter((r) => r.status === "fail").map(label);
  const undecided = pf.filter((r) => r.status === "unknown").map(label);
  const warns = pf.filter((r) => r.status === "warn").map(label);
  const probed = input.probed;
  const base = {
    version: PREFLIGHT_BLOCK_VERSION,
    consumer: input.consumer.name,
    provider: input.provider.name,
    blockers,
    undecided,
    probed,
  } as const;
  if (peered) {
    return {
      ...base,
      verdict: "already-peered",
      message: `${input.consumer.name} and ${input.provider.name} are already peered: run flyingfish check ` +
        "(with both kubeconfigs) to diagnose the peering",
      changes: [],
      liqoctl: null,
    };
  }
  const { argv, changes } = liqoctlPeerArgv(input);
  const line = argv.map(shellQuote).join(" ");
  const allChanges = [...warns, ...changes];
  const untested = probed ? "" : " (the data path is untested: add --probe to send UDP between them)";
  if (blockers.length) {
    return {
      ...base,
      verdict: "cannot-peer",
      message:
        `cannot peer: ${blockers.length} check(s) failed — fix them, then run the line below${untested}`,
      changes: allChanges,
      liqoctl: { argv, line },
    };
  }
  if (undecided.length) {
    return {
      ...base,
      verdict: "could-not-judge",
      message:
        `could not judge: ${undecided.length} check(s) could not decide (see why), nothing failed${untested}`,
      changes: allChanges,
      liqoctl: { argv, line },
    };
  }
  if (allChanges.length) {
    return {
      ...base,
      verdict: "can-peer-with-changes",
      message: `can peer with changes: ${allChanges.length} to mind (below), with this line${untested}`,
      changes: allChanges,
      liqoctl: { argv, line },
    };
  }
  return {
    ...base,
    verdict: "can-peer",
    message: `can peer: nothing found in the way${untested}`,
    changes: [],
    liqoctl: { argv, line },
  };
}
