/**
 * The collector behind `flyingfish collect`: reads one or two clusters through their live
 * ClusterSource exactly the way a run does (one list per kind, discovery, the two `wg show all dump`
 * samples and the MTU of each active gateway pod), adds `/version` and bounded container logs, and
 * returns the files of a redacted bundle plus its manifest. The namespaced workload kinds are narrowed
 * to what the checks read (scope.ts); redaction happens here, before anything is serialised, and is
 * counted per kind of secret in the manifest (redact.ts).
 */
import { z } from "zod";
import { Inventory } from "../kube/inventory.ts";
import { Objects } from "../liqo/views/mod.ts";
import type { Pod } from "../liqo/views/core.ts";
import { type KindId, KINDS, LIQO_GROUP_VERSIONS } from "../kube/kinds.ts";
import { activeGatewayPod, clusterIdOf, gatewayOf, liqoNamespaceOf } from "../liqo/lookups.ts";
import type { ClusterSource, ExecOutcome, K8sObject, ListOutcome, Unavailable } from "../kube/source.ts";
import type { ClusterReader } from "../kube/live/logs.ts";
import { DEFAULT_LIMIT_BYTES, DEFAULT_TAIL_LINES } from "../kube/live/logs.ts";
import {
  BUNDLE_FORMAT_VERSION,
  type CaptureEntry,
  type ExecRecord,
  layout,
  type Manifest,
  type ManifestCluster,
  type TarEntry,
} from "../kube/bundle.ts";
import {
  addTally,
  createIpPseudonymizer,
  findProviderSecrets,
  type IpPseudonymizer,
  redactObject,
  redactWgDump,
  scrubKnown,
  scrubText,
  sortedTally,
  type Tally,
} from "./redact.ts";
import { narrow, scopeOf, summaryOf } from "./scope.ts";
import { setAsideTooDeep, type SkippedObject } from "../kube/depth.ts";
import { collectWireguard } from "../probes/wireguard.ts";
import { VERSION } from "../version.ts";
import { PermissionError, ToolError } from "../errors.ts";
import { within } from "../time.ts";

/** One cluster to capture. */
export interface CollectTarget {
  role: "local" | "remote";
  /** Its folder under clusters/ (default: the role); a fleet bundle names each cluster (cli/collect.ts). */
  name?: string;
  /** The live source, or null when the cluster could not be reached (then `error` says why). */
  source: ClusterSource | null;
  /** Raw reads (logs, /version), released with the source they share a client with; null to skip them. */
  reader: ClusterReader | null;
  error?: string;
  /**
   * Opens the cluster when its turn comes (a fleet capture: at most `parallel` clusters in flight,
   * the opening inside the cluster's time bound); `source` is null until then. A tool error is the
   * cluster's `error`; a missing permission or a bug ends the capture.
   */
  open?: () => Promise<{ source: ClusterSource; reader: ClusterReader | null }>;
  /** The API server, for the reason line of a cluster that was never opened. */
  server?: string;
}

/** Options of {@link collectBundle}. */
export interface CollectOptions {
  /** Kinds to list (the union of what the catalog reads: `kindsFor(CATALOG)`). */
  kinds: Iterable<KindId>;
  /** Gap between the two `wg show` samples. */
  sampleIntervalMs: number;
  /** Pseudonymise IPv4 addresses everywhere (keyed, prefix-preserving). */
  redactIps?: boolean;
  /** Key of the IP pseudonymisation (default: 32 random bytes, never written). */
  ipKey?: Uint8Array;
  /** Only the gateways of these peers (cluster IDs or ForeignCluster names) are exec'd. */
  peers?: readonly string[];
  /** Secret values known to the caller (kubeconfig credentials): scrubbed from every file. */
  knownSecrets?: readonly string[];
  logTailLines?: number;
  logLimitBytes?: number;
  /** Progress messages (the CLI shows them on a TTY). */
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
  /** Clusters captured at once (default: every one). */
  parallel?: number;
  /** Bound of capturing one cluster, its opening included (0 or absent: none). */
  clusterTimeoutMs?: number;
  /** That bound as the user spelled it (`--cluster-timeout`), for the reason line. */
  clusterTimeoutLabel?: string;
}

/** A collected bundle, ready to be packed. */
export interface CollectedBundle {
  manifest: Manifest;
  /** Every file, manifest included, already redacted. */
  entries: TarEntry[];
}

const REDACTION_NOTES = [
  "scope: pods, configmaps, services, deployments, daemonsets, endpointslices, networkpolicies and events only " +
  "in the Liqo, tenant, gateway and VirtualNode namespaces, plus Liqo-labelled objects, pods on virtual nodes, " +
  "Liqo's reflected EndpointSlices, Services/NetworkPolicies of offloaded namespaces, the CNI's DaemonSets and " +
  "cilium-config (other DaemonSets by name only): see manifest clusters[].scope",
  "Secrets: only a data key publicKey holding a WireGuard key (32 bytes, base64) is kept; stringData, managedFields " +
  "and last-applied-configuration are dropped",
  "containers: env values (except IP_AUTODETECTION_METHOD, CALICO_NETWORKING_BACKEND, booleans and small numbers) " +
  "and command/args values (except known Liqo flags) replaced by (redacted)",
  "annotations: values replaced by (redacted) except the keys the checks read and single-word values of " +
  "liqo.io / kubernetes.io / k8s.io keys",
  "ConfigMaps: data values replaced by (redacted) except Liqo's cluster-ID ConfigMap and cilium-config",
  "everywhere: PEM blocks (certificates kept), base64 PEM, Bearer tokens, JWTs, AWS access key IDs, URL passwords; " +
  "provider keys found by secretlint's recommended rules",
  "logs, command output and Event messages: also Basic credentials, token=/password:/secret= pairs and base64 keys " +
  "next to 'private'",
  "wg show dump: interface private keys and preshared keys replaced by (redacted)",
  "kubeconfig: never written; its credentials are scrubbed from every file",
];

const IP_NOTE =
  "IPv4 addresses pseudonymised with a keyed prefix-preserving map (CIDR containment kept; loopback, 0.0.0.0 and " +
  "address classes — RFC 1918, CGNAT, link-local, multicast — kept; exact addresses and host bits are not): " +
  "checks that compare addresses arithmetically may judge differently offline";

/** A ClusterSource wrapper that records every exec (with the time each output arrived). */
function recordingSource(source: ClusterSource, records: Map<string, ExecRecord>): ClusterSource {
  return {
    endpoint: source.endpoint,
    now: source.now,
    isSnapshot: false,
    list: (spec) => source.list(spec),
    discovery: (g) => source.discovery(g),
    async exec(namespace, pod, container, command): Promise<ExecOutcome> {
      const out = await source.exec(namespace, pod, container, command);
      const takenAt = Date.now();
      const key = JSON.stringify([namespace, pod, container, command]);
      let rec = records.get(key);
      if (!rec) {
        rec = { namespace, pod, container, command: [...command], runs: [] as unknown as ExecRecord["runs"] };
        records.set(key, rec);
      }
      rec.runs.push(
        out.ok
          ? { ok: true, stdout: out.stdout, stderr: out.stderr, exitCode: out.exitCode, takenAt }
          : { ok: false, reason: out.reason, message: out.message },
      );
      return out.ok ? { ...out, takenAt } : out;
    },
    close: () => source.close(),
  };
}

const enc = new TextEncoder();

/** The cluster ID a ForeignCluster names in `spec.clusterID` (when it has one). */
const ForeignClusterSpec = z.object({ clusterID: z.unknown() }).catch({ clusterID: undefined });

/** The container names of a pod's `spec.containers` (entries without a string name are skipped). */
const PodContainerNames = z.object({ containers: z.array(z.unknown()).catch([]) }).catch({ containers: [] })
  .transform(({ containers }) =>
    containers.flatMap((c) => {
      const named = z.object({ name: z.string() }).safeParse(c);
      return named.success ? [named.data.name] : [];
    })
  );

/** Limits concurrency of async work. */
async function pool<T>(items: readonly T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  const workers = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]);
  });
  await Promise.all(workers);
}

/** Reads one or two clusters into a redacted bundle (files + manifest). Never writes to disk. */
export async function collectBundle(
  targets: readonly CollectTarget[],
  opts: CollectOptions,
): Promise<CollectedBundle> {
  const kinds = [...new Set(opts.kinds)].sort();
  const progress = opts.onProgress ?? (() => {});
  const ip: IpPseudonymizer | null = opts.redactIps
    ? createIpPseudonymizer(opts.ipKey ?? crypto.getRandomValues(new Uint8Array(32)))
    : null;
  const known = new Set<string>((opts.knownSecrets ?? []).filter((s) => s.length >= 8));
  const tailLines = opts.logTailLines ?? DEFAULT_TAIL_LINES;
  const limitBytes = opts.logLimitBytes ?? DEFAULT_LIMIT_BYTES;
  const startedAt = new Date();

  // Files are first kept as values/texts; redaction of known secrets and IPs is applied at the end.
  const files: { path: string; value?: unknown; text?: string }[] = [];
  const clusters: ManifestCluster[] = [];
  const tallies = new Map<string, Tally>();

  const fresh = (t: CollectTarget): ManifestCluster => ({
    name: t.name ?? t.role,
    role: t.role,
    context: t.source?.endpoint.context ?? "",
    server: t.source?.endpoint.server ?? t.server ?? "",
    clusterId: null,
    kinds: {},
    exec: [],
    logs: [],
  });
  /** Captures one cluster into `base` and its own `files` (merged only once it is complete). */
  const one = async (
    t: CollectTarget,
    base: ManifestCluster,
    files: { path: string; value?: unknown; text?: string }[],
    opened: (s: ClusterSource) => void,
  ): Promise<void> => {
    const name = base.name;
    const tally: Tally = {};
    tallies.set(name, tally);
    let src = t.source, rdr = t.reader;
    if (!src && t.open) {
      try {
        ({ source: src, reader: rdr } = await t.open());
      } catch (err) {
        if (err instanceof PermissionError || !(err instanceof ToolError)) throw err;
        base.error = err.message;
        return;
      }
      opened(src);
      base.context = src.endpoint.context;
      base.server = src.endpoint.server;
    }
    if (!src) {
      base.error = t.error ?? "cluster unavailable";
      return;
    }
    const source = src;
    t = { ...t, reader: rdr };

    // 1. Lists and discovery, in parallel, like Inventory.load.
    progress(`${name}: listing ${kinds.length} kinds`);
    const lists = new Map<KindId, ListOutcome>();
    const [disco, version] = await Promise.all([
      source.discovery(LIQO_GROUP_VERSIONS),
      t.reader?.version() ?? Promise.resolve(null),
      Promise.all(kinds.map(async (k) => {
        const out = await source.list(KINDS[k]);
        lists.set(k, out);
      })),
    ]);
    base.capturedAt = new Date().toISOString();
    // Objects too deeply nested to walk are named and left out before anything walks them.
    const skipped: SkippedObject[] = [];
    for (const [k, out] of lists) {
      if (!out.ok) continue;
      const split = setAsideTooDeep(out.items, KINDS[k].kind);
      if (split.skipped.length === 0) continue;
      skipped.push(...split.skipped);
      lists.set(k, { ...out, items: split.kept });
    }
    if (skipped.length > 0) base.skipped = skipped;

    const inv = new Objects(Inventory.fromLists(
      Object.fromEntries(
        [...lists].filter(([, o]) => o.ok).map(([k, o]) => [k, (o as { items: K8sObject[] }).items]),
      ),
      Object.fromEntries(
        [...lists].filter(([, o]) => !o.ok).map((
          [k, o],
        ) => [k, o as { reason: Unavailable; message: string }]),
      ),
    ));
    // Only what the checks read of the workload kinds, then redacted (the inventory above keeps the
    // full lists: it finds the gateway pods to sample and the pods whose logs to read).
    const scope = scopeOf(inv);
    base.scope = summaryOf(scope);
    for (const k of kinds) {
      const out = lists.get(k)!;
      if (!out.ok) continue;
      lists.set(k, {
        ok: true,
        items: narrow(k, out.items, scope, base.scope).map((o) => redactObject(o, tally)),
      });
    }
    for (const k of kinds) {
      const out = lists.get(k)!;
      base.kinds[k] = out.ok
        ? { state: "ok", count: out.items.length }
        : { state: out.reason, message: out.message };
      files.push({ path: layout.list(name, k), value: out });
    }
    files.push({ path: layout.discovery(name), value: disco });
    base.discovery = disco.ok ? { state: "ok" } : { state: disco.reason, message: disco.message };
    if (version) {
      base.version = version.ok ? { state: "ok" } : { state: version.reason, message: version.message };
      if (version.ok) {
        let v: unknown = version.text;
        try {
          v = JSON.parse(version.text);
        } catch {
          // keep the text
        }
        files.push({ path: layout.version(name), value: v });
      }
    }

    base.clusterId = clusterIdOf(inv);
    const okCount = Object.values(base.kinds).filter((k) => k.state === "ok").length;
    progress(`${name}: ${okCount}/${kinds.length} kinds listed`);

    // 2. The WireGuard evidence of each active gateway pod, recorded as the probe takes it.
    const gwPods: Pod[] = [];
    if (inv.tryItems("pods") !== null) {
      for (const fc of inv.tryItems("foreignclusters") ?? []) {
        const id = String(ForeignClusterSpec.parse(fc.spec).clusterID ?? fc.metadata.name);
        if (opts.peers?.length && !opts.peers.includes(id) && !opts.peers.includes(fc.metadata.name)) {
          continue;
        }
        try {
          const gw = gatewayOf(inv, id);
          const pod = gw ? activeGatewayPod(inv, gw) : null;
          if (pod && !gwPods.includes(pod)) gwPods.push(pod);
        } catch {
          // Gateways unreadable: no WireGuard sample; the manifest records the kind's failure.
        }
      }
    }
    const records = new Map<string, ExecRecord>();
    const rec = recordingSource(source, records);
    if (gwPods.length) progress(`${name}: sampling WireGuard in ${gwPods.length} gateway pod(s)`);
    await Promise.all(
      gwPods.map((p) =>
        collectWireguard(rec, p.metadata.namespace!, p.metadata.name, opts.sampleIntervalMs, opts.signal)
      ),
    );
    for (const r of records.values()) {
      const isWg = r.command[0] === "wg";
      for (const run of r.runs) {
        if (!run.ok) continue;
        if (isWg) {
          const red = redactWgDump(run.stdout, tally);
          run.stdout = red.text;
          for (const s of red.secrets) known.add(s);
        } else {
          run.stdout = scrubText(run.stdout, [], tally);
        }
        run.stderr = scrubText(run.stderr, [], tally);
      }
    }
    for (const r of records.values()) {
      const path = layout.exec(name, r.namespace, r.pod, r.container, r.command);
      const failed = r.runs.find((x) => !x.ok) as { reason: string; message: string } | undefined;
      base.exec.push({
        namespace: r.namespace,
        pod: r.pod,
        container: r.container,
        what: r.command.join(" "),
        file: path.slice(path.indexOf("/") + 1),
        state: failed ? "refused" : "ok",
        ...(failed ? { reason: `${failed.reason}: ${failed.message}` } : {}),
      });
      files.push({ path, value: r });
    }

    // 3. Recent logs of the Liqo components and the gateway containers (bounded).
    if (t.reader) {
      const lns = liqoNamespaceOf(inv);
      const pods = (inv.tryItems("pods") ?? []).filter((p) =>
        (lns !== null && p.metadata.namespace === lns) || gwPods.includes(p)
      );
      const jobs: { ns: string; pod: string; container: string }[] = [];
      for (const p of pods) {
        for (const container of PodContainerNames.parse(p.spec)) {
          jobs.push({ ns: p.metadata.namespace!, pod: p.metadata.name, container });
        }
      }
      if (jobs.length) progress(`${name}: reading ${jobs.length} container log(s)`);
      const reader = t.reader;
      const entries: CaptureEntry[] = [];
      await pool(jobs, 8, async (j) => {
        const out = await reader.logs(j.ns, j.pod, j.container, { tailLines, limitBytes });
        const path = layout.log(name, j.ns, j.pod, j.container);
        if (out.ok) {
          files.push({ path, text: scrubText(out.text, [], tally) });
          entries.push({
            namespace: j.ns,
            pod: j.pod,
            container: j.container,
            what: "logs",
            file: path.slice(path.indexOf("/") + 1),
            state: "ok",
          });
        } else {
          entries.push({
            namespace: j.ns,
            pod: j.pod,
            container: j.container,
            what: "logs",
            state: "refused",
            reason: `${out.reason}: ${out.message}`,
          });
        }
      });
      base.logs = entries.sort((a, b) =>
        `${a.namespace}/${a.pod}/${a.container}`.localeCompare(`${b.namespace}/${b.pod}/${b.container}`)
      );
    }
    progress(`${name}: done`);
  };

  const bounded = async (t: CollectTarget, i: number): Promise<void> => {
    const base = fresh(t);
    clusters[i] = base;
    const mine: typeof files = [];
    let source: ClusterSource | null = t.source;
    const work = one(t, base, mine, (s) => source = s);
    const ms = opts.clusterTimeoutMs ?? 0;
    if (ms <= 0) {
      await work;
      files.push(...mine);
      return;
    }
    work.catch(() => {});
    const r = await within(work, ms);
    if (r.done) {
      files.push(...mine);
      return;
    }
    // Out of time: nothing of it is kept but the reason (its late answers land in `mine`, dropped).
    await (source as ClusterSource | null)?.close();
    tallies.set(base.name, {});
    clusters[i] = {
      ...fresh(t),
      context: base.context,
      server: base.server,
      error: `${base.server || base.context || base.name}: no complete answer within --cluster-timeout ${
        opts.clusterTimeoutLabel ?? `${ms}ms`
      }`,
    };
  };
  const order = targets.map((t, i) => ({ t, i }));
  await pool(order, Math.max(1, opts.parallel ?? order.length), ({ t, i }) => bounded(t, i));
  // A fleet bundle (every cluster named): its local is the first cluster captured, whichever it is.
  if (
    targets.length > 0 && targets.every((t) => t.name) &&
    !clusters.some((c) => c.role === "local" && !c.error)
  ) {
    const first = clusters.find((c) => !c.error);
    if (first) { for (const c of clusters) c.role = c === first ? "local" : "remote"; }
  }
  clusters.sort((a, b) => (a.role === b.role ? 0 : a.role === "local" ? -1 : 1));

  const manifest: Manifest = {
    formatVersion: BUNDLE_FORMAT_VERSION,
    tool: { name: "flyingfish", version: VERSION },
    capturedAt: clusters.find((c) => c.role === "local")?.capturedAt ?? startedAt.toISOString(),
    options: {
      redactIps: ip !== null,
      sampleIntervalMs: opts.sampleIntervalMs,
      logTailLines: tailLines,
      logLimitBytes: limitBytes,
    },
    clusters,
    redaction: ip ? [...REDACTION_NOTES, IP_NOTE] : REDACTION_NOTES,
  };

  // Final pass, file by file: IP pseudonymisation, every known secret value (kubeconfig credentials,
  // WireGuard private keys) out, then whatever provider key secretlint finds, out of every file.
  // Credentials of clusters opened during the capture (a fleet's) are known only now.
  for (const s of opts.knownSecrets ?? []) if (s.length >= 8) known.add(s);
  const secrets = [...known].sort((a, b) => b.length - a.length);
  const tallyOf = (path: string): Tally | undefined => {
    const m = /\/clusters\/([^/]+)\//.exec(path);
    return m ? tallies.get(m[1]) : undefined;
  };
  const texts = files.map((f) => {
    let text = f.text !== undefined
      ? f.text
      : JSON.stringify(ip ? ip.mapDeep(f.value) : f.value, null, 1) + "\n";
    if (f.text !== undefined && ip) text = ip.mapString(text);
    return scrubKnown(text, secrets, tallyOf(f.path));
  });
  const providerKeys = new Set<string>();
  for (const t of texts) for (const v of await findProviderSecrets(t)) providerKeys.add(v);
  const provider = [...providerKeys].sort((a, b) => b.length - a.length);
  const entries: TarEntry[] = files.map((f, i) => ({
    path: f.path,
    data: enc.encode(scrubKnown(texts[i], provider, tallyOf(f.path), "provider-key")),
  }));
  for (const c of clusters) {
    const t = tallies.get(c.name);
    if (t) c.scrubbed = sortedTally(t);
  }
  manifest.scrubbed = sortedTally(clusters.reduce((acc, c) => addTally(acc, c.scrubbed ?? {}), {} as Tally));
  const manifestText = JSON.stringify(ip ? ip.mapDeep(manifest) : manifest, null, 1) + "\n";
  entries.push({
    path: layout.manifest,
    data: enc.encode(scrubKnown(scrubKnown(manifestText, secrets), provider)),
  });
  entries.sort((
    a,
    b,
  ) => (a.path === layout.manifest ? -1 : b.path === layout.manifest ? 1 : a.path.localeCompare(b.path)));
  return { manifest: ip ? ip.mapDeep(manifest) : manifest, entries };
}
