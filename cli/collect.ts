/**
 * `flyingfish collect`: capture a redacted snapshot of one or both clusters (everything the passive
 * checks read, the `wg show` samples, bounded logs) into a .tar.gz bundle that
 * `flyingfish check --snapshot` diagnoses later, elsewhere, offline.
 */
import { z } from "zod";
import { durationOption, timeoutsFrom } from "./check.ts";
import { type OnExpiry, withDeadline } from "./deadline.ts";
import { PermissionError, ToolError } from "../errors.ts";
import type { ClusterSource } from "../kube/source.ts";
import { objectLabel } from "../kube/depth.ts";
import type { CollectedBundle, CollectOptions, CollectTarget } from "../collect/collect.ts";
import type { ClusterReader } from "../kube/live/logs.ts";
import type { KubeConfig } from "../kube/kubeconfig.ts";

/** Options of the collect command, as parsed by commander. */
export interface CollectCommandOptions {
  /** `--kubeconfig`, repeated values joined by a newline (a fleet capture merges them). */
  kubeconfig?: string;
  /** Fleet capture: every context, or those `--contexts` selects, into one bundle. */
  allContexts?: boolean;
  contexts?: string[];
  /** Fleet capture: clusters captured at once (default 4, as `check --all-contexts`). */
  parallel?: string;
  /** Fleet capture: bound of capturing one cluster (default 60s; 0 = none). */
  clusterTimeout?: string;
  context?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
  peer?: string[];
  /** The bundle to write (`-f`, `--output-file`). */
  outputFile?: string;
  /** `-o`: a format everywhere else; refused here, naming `--output-file`. */
  output?: string;
  redactIps?: boolean;
  sampleInterval: string;
  /** Overall bound of the capture (`0` = none). */
  timeout: string;
  /** Bound of each API request and exec (`0` = none); absent: 30s. */
  requestTimeout?: string;
  /** No progress and no summary line (errors still go to stderr). */
  quiet?: boolean;
}

/** Default bundle name: flyingfish-bundle-YYYYMMDD-HHMMSS.tar.gz (UTC). */
export function defaultBundleName(now: Date = new Date()): string {
  const s = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `flyingfish-bundle-${s}.tar.gz`;
}

/** Fails early, with the one-line permission error, when the bundle cannot be written. */
export function ensureWritable(path: string): void {
  let state: Deno.PermissionState;
  try {
    state = Deno.permissions.querySync({ name: "write", path }).state;
  } catch {
    state = "denied";
  }
  if (state !== "granted") throw new PermissionError("--allow-write", `write the bundle ${path}`);
}

function stderrIsTty(): boolean {
  try {
    return Deno.stderr.isTerminal();
  } catch {
    return false;
  }
}

/** Progress on stderr: one rewritten line on a TTY, nothing otherwise. */
function progressLine(): { update: (s: string) => void; done: () => void } {
  if (!stderrIsTty()) return { update: () => {}, done: () => {} };
  const enc = new TextEncoder();
  const write = (s: string): void => {
    try {
      Deno.stderr.writeSync(enc.encode(s));
    } catch {
      // ignore
    }
  };
  return {
    update: (s: string) => write(`\r\x1b[K⧗ collect: ${s}`),
    done: () => write("\r\x1b[K"),
  };
}

/** What a kubeconfig user's auth-provider block may carry (its `config` map). */
const AuthProviderConfig = z.object({ config: z.record(z.string(), z.unknown()) });

/**
 * Credential values of a loaded kubeconfig (token, password, client key — base64 and PEM,
 * auth-provider tokens), to be scrubbed from every file of the bundle should any ever echo them.
 * Never written anywhere.
 */
function kubeconfigSecrets(kc: KubeConfig): string[] {
  try {
    const out: string[] = [];
    for (const user of kc.getUsers()) {
      for (const v of [user.token, user.password, user.keyData]) if (typeof v === "string") out.push(v);
      if (typeof user.keyData === "string") {
        try {
          const pem = atob(user.keyData);
          out.push(pem, ...pem.split("\n").filter((l) => l.length >= 16 && !l.startsWith("-----")));
        } catch {
          // not base64
        }
      }
      const ap = AuthProviderConfig.safeParse(user.authProvider);
      if (ap.success) {
        for (const [k, v] of Object.entries(ap.data.config)) {
          if (typeof v === "string" && /token|secret/i.test(k)) out.push(v);
        }
      }
    }
    return out.filter((s) => s.length >= 8);
  } catch {
    return [];
  }
}

/** A reachable cluster: its source and raw reads over one client, and its kubeconfig credentials. */
interface OpenCluster {
  source: ClusterSource;
  reader: ClusterReader;
  secrets: string[];
}

/** Loads the kubeconfig once, opens one client for lists, exec, logs and /version, and probes it. */
async function openCluster(
  kubeconfig: string | undefined,
  context: string | undefined,
  requestTimeoutMs: number,
): Promise<OpenCluster> {
  const { openLiveCluster } = await import("../kube/live/source.ts");
  const { source, reader, client } = await openLiveCluster({ kubeconfig, context, requestTimeoutMs });
  try {
    await source.probeReachable();
    return { source, reader, secrets: kubeconfigSecrets(client.kc) };
  } catch (err) {
    await source.close();
    throw err;
  }
}

/**
 * The line that tells what redaction scrubbed, per kind of secret (also in manifest.json `scrubbed`),
 * e.g. `scrubbed: annotations 5, args 3, bearer 1, env 14, pem 2 (manifest.json "scrubbed")`.
 */
export function scrubbedLine(counts: Record<string, number> | undefined): string {
  const parts = Object.entries(counts ?? {}).filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`);
  return parts.length
    ? `scrubbed: ${parts.join(", ")} (manifest.json "scrubbed"; check before sharing)`
    : 'scrubbed: nothing matched a secret rule (manifest.json "scrubbed")';
}

/** Runs the collect command; returns the exit code (0 when a bundle was written). */
export async function runCollectCommand(opts: CollectCommandOptions): Promise<number> {
  if (opts.output !== undefined) {
    throw new ToolError(
      `collect writes a bundle file: give it with --output-file (-f), e.g. --output-file ${
        opts.output.endsWith(".tar.gz") ? opts.output : "peering.tar.gz"
      } (-o is an output format in the other commands)`,
    );
  }
  const sampleIntervalMs = durationOption("--sample-interval", opts.sampleInterval);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  if (opts.outputFile === "-") {
    throw new ToolError("collect writes a file: give --output-file <bundle.tar.gz>");
  }
  const out = opts.outputFile ?? defaultBundleName();
  ensureWritable(out);
  return await withDeadline(
    runTimeoutMs,
    opts.timeout,
    (onExpiry) => capture(opts, out, sampleIntervalMs, requestTimeoutMs, onExpiry),
  );
}

/** `source`, telling `onRejected` of each tool error (not a missing permission) its reads end in. */
function rejectionsOf(source: ClusterSource, onRejected: (err: ToolError) => void): ClusterSource {
  const seen = <T>(p: Promise<T>): Promise<T> =>
    p.catch((err) => {
      if (err instanceof ToolError && !(err instanceof PermissionError)) onRejected(err);
      throw err;
    });
  return {
    ...source,
    list: (...a) => seen(source.list(...a)),
    discovery: (...a) => seen(source.discovery(...a)),
  };
}

/** Opens the clusters, captures and writes the bundle (closing what it opened, also on expiry). */
async function capture(
  opts: CollectCommandOptions,
  out: string,
  sampleIntervalMs: number,
  timeoutMs: number,
  onExpiry: OnExpiry,
): Promise<number> {
  const { packBundle } = await import("../kube/bundle.ts");
  const progress = opts.quiet ? { update: () => {}, done: () => {} } : progressLine();
  try {
    const bundle = await captureLive(opts, sampleIntervalMs, timeoutMs, onExpiry, progress.update);
    progress.update("compressing");
    const bytes = await packBundle(bundle.entries);
    try {
      await Deno.writeFile(out, bytes, { mode: 0o600 });
    } catch (err) {
      if (err instanceof Deno.errors.NotCapable) {
        throw new PermissionError("--allow-write", `write the bundle ${out}`, { cause: err });
      }
      throw new ToolError(`cannot write ${out}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    progress.done();
    // Objects left out are said whatever --quiet: the bundle lacks them (one line each).
    for (const c of bundle.manifest.clusters) {
      for (const o of c.skipped ?? []) {
        console.error(`flyingfish: left out of the bundle (${c.name}): ${objectLabel(o)}: ${o.reason}`);
      }
    }
    const refused = bundle.manifest.clusters.flatMap((c) => [
      ...Object.entries(c.kinds).filter(([, k]) => k.state !== "ok" && k.state !== "missing").map(([k]) =>
        `${c.name}:${k}`
      ),
      ...c.exec.filter((e) => e.state === "refused").map((e) => `${c.name}:exec ${e.pod}`),
    ]);
    if (opts.quiet) return 0;
    const files = bundle.entries.length;
    const kib = Math.ceil(bytes.length / 1024);
    console.error(
      `flyingfish: wrote ${out} (${files} files, ${kib} KiB${opts.redactIps ? ", IPs pseudonymised" : ""})` +
        (refused.length
          ? `; not captured: ${refused.slice(0, 6).join(", ")}${refused.length > 6 ? ", …" : ""}`
          : "") +
        `\n  ${scrubbedLine(bundle.manifest.scrubbed)}` +
        `\n  diagnose it anywhere: flyingfish check --snapshot ${out}${
          bundle.manifest.clusters.length > 2 ? " --all-contexts" : ""
        }`,
    );
    return 0;
  } finally {
    progress.done();
  }
}

/** The clusters a live capture reads: the kubeconfig flags of `collect` (and of `diff`'s live side). */
export type LiveCaptureFlags = Pick<
  CollectCommandOptions,
  | "kubeconfig"
  | "context"
  | "remoteKubeconfig"
  | "remoteContext"
  | "peer"
  | "redactIps"
  | "allContexts"
  | "contexts"
  | "parallel"
  | "clusterTimeout"
>;

/**
 * Opens the clusters the flags name, captures them into a redacted bundle in memory (collect's own
 * capture: the same objects, the same redaction) and closes them again, also on expiry. A remote
 * that cannot be reached is left out with the reason, as by `collect`.
 */
export async function captureLive(
  opts: LiveCaptureFlags,
  sampleIntervalMs: number,
  timeoutMs: number,
  onExpiry: OnExpiry,
  onProgress: (message: string) => void,
): Promise<CollectedBundle> {
  const [{ collectBundle }, { kindsFor }, { PASSIVE_CHECKS }] = await Promise.all([
    import("../collect/collect.ts"),
    import("../diagnose/run.ts"),
    import("../checks/catalog.ts"),
  ]);
  const { isFleet, checkFleetFlags } = await import("./fleet_cmd.ts");
  const fleet = isFleet(opts);
  checkFleetFlags(opts as LiveCaptureFlags & Record<string, unknown>, fleet);
  const targets: CollectTarget[] = [];
  onExpiry(async () => {
    for (const t of targets) await t.source?.close();
  });
  const secrets: string[] = [];
  const collect = (
    bounds: Pick<CollectOptions, "parallel" | "clusterTimeoutMs" | "clusterTimeoutLabel"> = {},
  ) =>
    collectBundle(targets, {
      kinds: kindsFor(PASSIVE_CHECKS),
      sampleIntervalMs,
      redactIps: opts.redactIps === true,
      peers: opts.peer,
      knownSecrets: secrets,
      onProgress,
      ...bounds,
    });
  if (fleet) {
    // Opened as each cluster's turn comes (at most --parallel at once): closed here, also on expiry.
    const opened: ClusterSource[] = [];
    onExpiry(async () => {
      for (const s of opened) await s.close();
    });
    try {
      const bounds = await fleetTargets(opts, timeoutMs, targets, secrets, opened);
      const bundle = await collect(bounds);
      for (const c of bundle.manifest.clusters) {
        if (c.error) console.error(`flyingfish: ${c.context || c.name}: ${c.error} — left out of the bundle`);
      }
      if (!bundle.manifest.clusters.some((c) => !c.error)) {
        throw new ToolError("no selected context could be reached: nothing to collect");
      }
      return bundle;
    } finally {
      for (const s of opened) await s.close();
    }
  }
  const dual = Boolean(opts.remoteKubeconfig || opts.remoteContext);
  const local = await openCluster(opts.kubeconfig, opts.context, timeoutMs);
  targets.push({ role: "local", source: local.source, reader: local.reader });
  secrets.push(...local.secrets);
  const leaveOut = (err: ToolError): void => {
    const error = `remote cluster unavailable: ${err.message}`;
    console.error(`flyingfish: ${error} — collecting ${local.source.endpoint.context} alone`);
    targets.push({ role: "remote", source: null, reader: null, error });
  };
  // A run-ending error of the remote's reads after its /version answered (credentials rejected on
  // the lists): the capture is made again without it, as when it is unreachable.
  let remoteRejected: ToolError | null = null;
  if (dual) {
    const rk = opts.remoteKubeconfig ?? opts.kubeconfig;
    try {
      const remote = await openCluster(rk, opts.remoteContext, timeoutMs);
      const source = rejectionsOf(remote.source, (err) => remoteRejected ??= err);
      targets.push({ role: "remote", source, reader: remote.reader });
      secrets.push(...remote.secrets);
    } catch (err) {
      if (err instanceof PermissionError || !(err instanceof ToolError)) {
        await local.source.close();
        throw err;
      }
      leaveOut(err);
    }
  }

  try {
    const bundle = await collect().catch(async (err) => {
      const rejected = remoteRejected as ToolError | null;
      if (rejected === null || !(err instanceof ToolError) || err instanceof PermissionError) throw err;
      const i = targets.findIndex((t) => t.role === "remote");
      await targets[i].source?.close();
      targets.splice(i, 1);
      leaveOut(rejected);
      return await collect();
    });
    return bundle;
  } finally {
    // Closing a source closes the client its reader shares.
    for (const t of targets) await t.source?.close();
  }
}

/**
 * A fleet bundle: one cluster per API server + CA among the selected contexts (multicluster/
 * load.ts groups them), each under a folder named after its context, opened when its turn comes:
 * at most `--parallel` clusters captured at once, each bounded by `--cluster-timeout` (the
 * defaults and wording of `check --all-contexts`). The first cluster captured is the bundle's
 * `local` (a reader that knows one or two clusters opens it and the next), the others `remote`. A
 * cluster that cannot be opened, or not within its bound, is recorded with its reason and never
 * stops the others.
 */
async function fleetTargets(
  opts: LiveCaptureFlags,
  timeoutMs: number,
  targets: CollectTarget[],
  secrets: string[],
  opened: ClusterSource[],
): Promise<Pick<CollectOptions, "parallel" | "clusterTimeoutMs" | "clusterTimeoutLabel">> {
  const [{ selectedContexts, DEFAULT_PARALLEL, DEFAULT_CLUSTER_TIMEOUT }, { groupByEndpoint }, {
    kubeconfigList,
    parallelOption,
  }] = await Promise.all([
    import("../multicluster/run.ts"),
    import("../multicluster/load.ts"),
    import("./fleet_cmd.ts"),
  ]);
  const parallel = parallelOption(opts.parallel, DEFAULT_PARALLEL);
  const clusterTimeoutLabel = opts.clusterTimeout ?? DEFAULT_CLUSTER_TIMEOUT;
  const clusterTimeoutMs = durationOption("--cluster-timeout", clusterTimeoutLabel, true);
  const kubeconfigs = kubeconfigList(opts.kubeconfig);
  const contexts = await selectedContexts({
    kubeconfigs,
    selection: { all: opts.allContexts === true, patterns: opts.contexts ?? [] },
  });
  const used = new Set<string>();
  const folder = (ctx: string) => {
    const base = ctx.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "cluster";
    let name = base;
    for (let i = 2; used.has(name) || name === "local" || name === "remote"; i++) name = `${base}-${i}`;
    used.add(name);
    return name;
  };
  for (const [i, g] of groupByEndpoint(contexts).entries()) {
    const ctx = g.contexts[0];
    targets.push({
      role: i === 0 ? "local" : "remote",
      name: folder(ctx.name),
      source: null,
      reader: null,
      ...(ctx.server ? { server: ctx.server } : {}),
      open: async () => {
        const { openLiveCluster } = await import("../kube/live/source.ts");
        const c = await openLiveCluster({
          ...(kubeconfigs.length === 1 ? { kubeconfig: kubeconfigs[0] } : {}),
          ...(kubeconfigs.length > 1 ? { kubeconfigs } : {}),
          context: ctx.name,
          requestTimeoutMs: timeoutMs,
        });
        opened.push(c.source);
        await c.source.probeReachable();
        secrets.push(...kubeconfigSecrets(c.client.kc));
        return { source: c.source, reader: c.reader };
      },
    });
  }
  return { parallel, clusterTimeoutMs, clusterTimeoutLabel };
}
