/**
 * Reading the fleet: every selected context grouped by what it reaches before anything is sent
 * (API server URL + CA fingerprint), one context per group read — each cluster's inventory read
 * ONCE, by the same read plan and loader a single run uses — with at most `parallel` clusters in
 * flight and each bounded by `clusterTimeoutMs`. A cluster that cannot be read is kept with its
 * one-line tool error and never stops the others; a missing Deno permission or a bug still ends the
 * run. Groups that turn out to share a Liqo cluster ID are one cluster (merged in ./identity.ts).
 */
import { oneLine, PermissionError, ToolError } from "../errors.ts";
import type { ContextEntry } from "../kube/kubeconfig.ts";
import type { ClusterSource, ServerVersion } from "../kube/source.ts";
import type { ClusterView } from "../checks/types.ts";
import type { ProbeHub } from "../probes/hub.ts";
import { type ReadPlan, ViewLoader, viewOf } from "../diagnose/views.ts";
import { peersOf } from "../diagnose/views.ts";
import { warmWireguard } from "../diagnose/warmup.ts";
import { WARMUP_READS } from "../diagnose/run.ts";
import { within } from "../time.ts";
import type { FleetClock } from "./timings.ts";

/** Contexts that reach one API server with one CA: one cluster, read through one of them. */
export interface EndpointGroup {
  /** In kubeconfig order. */
  contexts: ContextEntry[];
}

/** Groups contexts by API server URL and CA fingerprint (no request is sent). */
export function groupByEndpoint(contexts: readonly ContextEntry[]): EndpointGroup[] {
  const groups = new Map<string, EndpointGroup>();
  for (const c of contexts) {
    // A context without a server cannot be compared: alone, it fails on its own.
    const key = c.server === null ? `\u0000${c.name}` : `${c.server}\u0000${c.ca}`;
    const g = groups.get(key);
    if (g) g.contexts.push(c);
    else groups.set(key, { contexts: [c] });
  }
  return [...groups.values()];
}

/** One endpoint group as read. */
export interface ReadCluster {
  group: EndpointGroup;
  /** The context whose credentials read it (or the last one tried). */
  context: ContextEntry;
  /** Why that context, when the group has several. */
  chosenBecause: string | null;
  source: ClusterSource | null;
  view: ClusterView | null;
  serverVersion: ServerVersion | null;
  /** The one-line tool error (null: read). */
  error: string | null;
}

/** How the fleet is read. */
export interface FleetReadOptions {
  /** Opens a context's live source (nothing sent yet). */
  open: (context: string) => Promise<ClusterSource>;
  plan: ReadPlan;
  probes: ProbeHub;
  /** The probe hub's sources: each read cluster is added under a provisional alias for the warm-up. */
  sources: Map<string, ClusterSource>;
  parallel: number;
  clusterTimeoutMs: number;
  /** `--cluster-timeout` as the user spelled it (for the reason line). */
  clusterTimeoutLabel: string;
  clock?: FleetClock;
  /** The fleet's urgent-first order of reads (default: one per read of the fleet). */
  gate?: UrgentFirst;
}

/** The longest a cluster's other reads are held for the fleet's warm-up reads (one may never answer). */
export const URGENT_FIRST_GRACE_MS = 1_500;

/**
 * Urgent first, across the fleet: while a started cluster still waits for its warm-up reads
 * (gateways and their pods: what the first `wg show` sample needs) and for those first samples,
 * every cluster's other reads are held — at most {@link URGENT_FIRST_GRACE_MS} per round of holding. A fleet run's floor is the
 * last gateway's sampling interval, which starts only once that cluster's warm-up reads are in;
 * the other reads (and their parsing) then fill the interval instead of delaying it. The same
 * requests are made, in another order.
 */
export class UrgentFirst {
  #pending = 0;
  #release: (() => void) | null = null;
  #open: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** A cluster starts waiting for its warm-up reads; call the returned function once they are in. */
  enter(): () => void {
    if (this.#pending++ === 0) {
      this.#open = new Promise((resolve) => this.#release = resolve);
      this.#timer = setTimeout(() => this.#openNow(), URGENT_FIRST_GRACE_MS);
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--this.#pending === 0) this.#openNow();
    };
  }

  /** Resolves once no started cluster waits for its warm-up reads (or the grace has passed). */
  get open(): Promise<void> {
    return this.#open;
  }

  #openNow(): void {
    clearTimeout(this.#timer);
    this.#release?.();
    this.#release = null;
  }
}

/** Reads every group, `parallel` at a time, in kubeconfig order. */
export async function readFleet(
  groups: readonly EndpointGroup[],
  opts: FleetReadOptions,
): Promise<ReadCluster[]> {
  opts = { ...opts, gate: opts.gate ?? new UrgentFirst() };
  const out: ReadCluster[] = new Array(groups.length);
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      const i = next++;
      out[i] = await readGroup(groups[i], opts);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel, groups.length)) }, worker));
  return out;
}

/**
 * Reads a group through its first context; when that context's credentials are refused (401/403
 * on /version) the next one is tried — the reason says so.
 */
async function readGroup(group: EndpointGroup, opts: FleetReadOptions): Promise<ReadCluster> {
  const many = group.contexts.length > 1;
  const refused: string[] = [];
  let last: ReadCluster | null = null;
  for (const [i, ctx] of group.contexts.entries()) {
    const why = !many
      ? null
      : i === 0
      ? `first in kubeconfig order of ${group.contexts.length} contexts reaching ${ctx.server} with the same CA`
      : `${refused.join("; ")}: used ${ctx.name}, the next context reaching ${ctx.server}`;
    const r = await readOne(group, ctx, why, opts);
    if (!r.error) return r;
    last = r;
    // Only a refusal of the credentials is worth another context: an unreachable server stays so.
    if (!/\b(401|403)\b|unauthori[sz]ed|forbidden|credentials/i.test(r.error)) return r;
    refused.push(`${ctx.name} was refused (${r.error})`);
  }
  return last!;
}

async function readOne(
  group: EndpointGroup,
  ctx: ContextEntry,
  chosenBecause: string | null,
  opts: FleetReadOptions,
): Promise<ReadCluster> {
  const failed = (error: string, source: ClusterSource | null = null): ReadCluster => ({
    group,
    context: ctx,
    chosenBecause,
    source,
    view: null,
    serverVersion: null,
    error,
  });
  let source: ClusterSource;
  try {
    source = await opts.open(ctx.name);
  } catch (err) {
    return failed(toolErrorLine(err));
  }
  // A bundle's lists are answered at once: nothing to order.
  const gate = source.isSnapshot ? undefined : opts.gate;
  const leave = gate?.enter() ?? (() => {});
  const attempt = (async () => {
    opts.clock?.mark("read-start", ctx.name);
    const loader = new ViewLoader(source, opts.plan, WARMUP_READS, gate?.open);
    const version = (await source.probeReachable?.()) ?? null;
    opts.clock?.mark("read-version", ctx.name);
    // The first `wg show` of each gateway starts once gateways and pods are in, as in a single run;
    // the fleet's other reads wait until those first samples are in too (their execs would queue
    // behind the flood of lists, and each gateway's sampling interval starts only after its first).
    const warm = loader.ready(WARMUP_READS);
    let firstSamples: Promise<void> = Promise.resolve();
    const warming = warm.then((inv) => {
      const alias = `\u0000fleet:${ctx.name}`;
      const early: ClusterView = { ...viewOf(source, inv), name: alias };
      opts.sources.set(alias, source);
      firstSamples = warmWireguard(opts.probes, early, peersOf(early));
    }).catch(() => {});
    warming.then(() => firstSamples).then(leave, leave);
    const view = await loader.view();
    await warming;
    opts.clock?.mark("read-end", ctx.name);
    return { view, version };
  })();
  attempt.catch(() => {});
  // However the read ends (refused, an error), it no longer holds the others' reads back.
  attempt.then(leave, leave);
  try {
    const r = await within(attempt, opts.clusterTimeoutMs);
    if (!r.done) {
      leave();
      await source.close();
      return failed(
        `${ctx.server ?? ctx.name}: no complete answer within --cluster-timeout ${opts.clusterTimeoutLabel}`,
      );
    }
    return {
      group,
      context: ctx,
      chosenBecause,
      source,
      view: r.value.view,
      serverVersion: r.value.version,
      error: null,
    };
  } catch (err) {
    await source.close();
    return failed(toolErrorLine(err));
  }
}

/** A tool error as its one line (a missing Deno permission or a bug is rethrown: it ends the run). */
function toolErrorLine(err: unknown): string {
  if (err instanceof PermissionError || !(err instanceof ToolError)) throw err;
  return oneLine(err.message);
}
