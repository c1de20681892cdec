/**
 * The snapshot ClusterSource: replays a bundle written by `flyingfish collect` — lists (forbidden or
 * failed kinds replay as such), discovery, and exec outputs (the first `wg show all dump` returns the
 * first sample, the second the second, each with its original capture time so rates come out
 * right). `now()` is the capture time, so ages are judged as of then. Needs only read access to the
 * bundle file: no network, no cluster, no credentials.
 */
import { PermissionError, ToolError } from "../errors.ts";
import {
  DiscoveryFileSchema,
  ExecRecordSchema,
  layout,
  ListFileSchema,
  type Manifest,
  type ManifestCluster,
  readJson,
  readManifest,
  unpackBundle,
} from "./bundle.ts";
import type { KindSpec, ListScope } from "./kinds.ts";
import { scopeMatcher } from "./selectors.ts";
import { displayUrl } from "./display_url.ts";
import { objectLabel, setAsideTooDeep, type SkippedObject } from "./depth.ts";
import { KIND_IDS, KINDS } from "./kinds.ts";
import type {
  ClusterSource,
  DiscoveryOutcome,
  ExecOutcome,
  K8sObject,
  ListOutcome,
  LogOutcome,
  LogRequest,
} from "./source.ts";

/** The clusters of a bundle, shaped like the live sources of `check`. */
export interface OpenedSnapshot {
  local: ClusterSource;
  remote: { source: ClusterSource | null; error?: string } | null;
}

/** A snapshot source with the manifest it came from. */
export interface SnapshotClusterSource extends ClusterSource {
  readonly manifest: Manifest;
  readonly cluster: ManifestCluster;
}

function kindIdOf(spec: KindSpec): string | null {
  for (const id of KIND_IDS) {
    const k = KINDS[id];
    if (k.group === spec.group && k.plural === spec.plural) return id;
  }
  return null;
}

/** Told of every object a snapshot source leaves out (with the bundle's cluster it is in). */
export type OnSkipped = (cluster: string, object: SkippedObject) => void;

/** The default {@link OnSkipped}: one line on stderr per object. */
export const warnSkipped: OnSkipped = (cluster, o) => {
  console.error(`flyingfish: not judged (${cluster}): ${objectLabel(o)}: ${o.reason}`);
};

/**
 * Builds the replaying source of one captured cluster from the bundle's files. An object of a list
 * nested too deeply to process (kube/depth.ts; a bundle written by hand or by another tool) is left
 * out and reported once through `onSkipped`.
 */
export function snapshotSource(
  files: Map<string, Uint8Array>,
  manifest: Manifest,
  cluster: ManifestCluster,
  onSkipped: OnSkipped = warnSkipped,
): SnapshotClusterSource {
  const reported = new Set<string>();
  const capturedAt = new Date(cluster.capturedAt ?? manifest.capturedAt);
  if (Number.isNaN(capturedAt.getTime())) {
    throw new ToolError(
      `bundle manifest: invalid capture time "${cluster.capturedAt ?? manifest.capturedAt}"`,
    );
  }
  const calls = new Map<string, number>();
  const name = cluster.name;
  return {
    manifest,
    cluster,
    endpoint: { context: cluster.context, server: displayUrl(cluster.server) },
    now: () => new Date(capturedAt.getTime()),
    isSnapshot: true,
    list(spec: KindSpec, scope?: ListScope): Promise<ListOutcome> {
      const id = kindIdOf(spec);
      const path = id ? layout.list(name, id) : null;
      if (!id || !path || !files.has(path)) {
        return Promise.resolve({
          ok: false,
          reason: "error",
          message: `snapshot: ${spec.plural} was not captured in this bundle`,
        });
      }
      const stored = readJson(files, path, ListFileSchema);
      if (!stored.ok) return Promise.resolve(stored);
      // A fresh copy per call: consumers may not mutate the bundle's objects. A scoped list replays
      // what the server would have answered: the stored objects the namespace and selectors select.
      const { kept, skipped } = setAsideTooDeep(stored.items as K8sObject[], spec.kind);
      for (const o of skipped) {
        const key = objectLabel(o);
        if (reported.has(key)) continue;
        reported.add(key);
        onSkipped(name, o);
      }
      const items = structuredClone(kept);
      return Promise.resolve({ ok: true, items: scope ? items.filter(scopeMatcher(scope)) : items });
    },
    discovery(groups): Promise<DiscoveryOutcome> {
      const path = layout.discovery(name);
      if (!files.has(path)) {
        return Promise.resolve({
          ok: false,
          reason: "error",
          message: "snapshot: discovery was not captured",
        });
      }
      const stored = readJson(files, path, DiscoveryFileSchema);
      if (!stored.ok) return Promise.resolve(stored);
      return Promise.resolve({
        ok: true,
        groups: groups.map(({ group, version }) =>
          stored.groups.find((g) => g.group === group && g.version === version) ??
            { group, version, resources: [] }
        ),
      });
    },
    exec(namespace, pod, container, command): Promise<ExecOutcome> {
      const path = layout.exec(name, namespace, pod, container, command);
      if (!files.has(path)) {
        return Promise.resolve({
          ok: false,
          reason: "error",
          message: `snapshot: \`${command.join(" ")}\` in ${namespace}/${pod}/${container} was not captured`,
        });
      }
      const rec = readJson(files, path, ExecRecordSchema);
      if (rec.namespace !== namespace || rec.pod !== pod || rec.container !== container) {
        return Promise.resolve({
          ok: false,
          reason: "error",
          message: `snapshot: ${path} is for another pod`,
        });
      }
      // The n-th call replays the n-th captured run; a second diagnosis over the same source starts over.
      const n = calls.get(path) ?? 0;
      calls.set(path, n + 1);
      const run = rec.runs[n % rec.runs.length];
      if (!run.ok) return Promise.resolve(run);
      return Promise.resolve({
        ok: true,
        stdout: run.stdout,
        stderr: run.stderr,
        exitCode: run.exitCode,
        via: "snapshot",
        takenAt: run.takenAt,
      });
    },
    logs(namespace, pod, container, req?: LogRequest): Promise<LogOutcome> {
      return Promise.resolve(replayLog(files, cluster, namespace, pod, container, req ?? {}));
    },
    close: () => Promise.resolve(),
  };
}

const logDecoder = new TextDecoder();

/**
 * The log `collect` stored for a container, bounded like a live read. The bundle holds the current
 * log only (for a crash-looping container that is the last terminated run); a log that was refused
 * at capture time replays as such; a missing one is "not captured".
 */
export function replayLog(
  files: Map<string, Uint8Array>,
  cluster: ManifestCluster,
  namespace: string,
  pod: string,
  container: string,
  req: LogRequest,
): LogOutcome {
  const data = files.get(layout.log(cluster.name, namespace, pod, container));
  if (!data) {
    const entry = cluster.logs.find((e) =>
      e.namespace === namespace && e.pod === pod && e.container === container && e.state === "refused"
    );
    if (entry) {
      const forbidden = /^forbidden\b/.test(entry.reason ?? "");
      return {
        ok: false,
        reason: forbidden ? "forbidden" : "error",
        message: forbidden
          ? `missing permission at capture time: get pods/log in namespace ${namespace}`
          : `snapshot: the log of ${namespace}/${pod}/${container} could not be read at capture time (${
            entry.reason ?? "refused"
          })`,
      };
    }
    return {
      ok: false,
      reason: "missing",
      message: `snapshot: the log of ${namespace}/${pod}/${container} was not captured`,
    };
  }
  let text = logDecoder.decode(data);
  if (req.limitBytes !== undefined && text.length > req.limitBytes) text = text.slice(-req.limitBytes);
  if (req.tailLines !== undefined) {
    const lines = text.replace(/\n$/, "").split("\n");
    text = lines.slice(Math.max(0, lines.length - req.tailLines)).join("\n") + "\n";
  }
  return {
    ok: true,
    text,
    previous: false,
    via: "snapshot",
    ...(req.previous
      ? { note: "the snapshot holds the current log (for a crash-looping container, its last run)" }
      : {}),
  };
}

/** Reads a bundle's bytes (a clear one-line error when the file or the permission is missing). */
export async function readBundleFile(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new PermissionError("--allow-read", `read the bundle ${path}`, { cause: err });
    }
    if (err instanceof Deno.errors.NotFound) throw new ToolError(`cannot read bundle ${path}: no such file`);
    if (err instanceof Deno.errors.IsADirectory) {
      throw new ToolError(`cannot read bundle ${path}: is a directory`);
    }
    throw new ToolError(`cannot read bundle ${path}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/**
 * Opens the clusters captured in a bundle from its bytes. The objects `collect` left out (the
 * manifest's `skipped`) and any the sources leave out are reported through `onSkipped`.
 */
export async function openSnapshotBytes(
  bytes: Uint8Array,
  onSkipped: OnSkipped = warnSkipped,
): Promise<OpenedSnapshot & { manifest: Manifest }> {
  const files = await unpackBundle(bytes);
  const manifest = readManifest(files);
  for (const c of manifest.clusters) for (const o of c.skipped ?? []) onSkipped(c.name, o);
  const localEntry = manifest.clusters.find((c) => c.role === "local");
  if (!localEntry) throw new ToolError("bundle manifest has no local cluster");
  if (localEntry.error) {
    throw new ToolError(`the bundle holds no data for the local cluster: ${localEntry.error}`);
  }
  const local = snapshotSource(files, manifest, localEntry, onSkipped);
  const remoteEntry = manifest.clusters.find((c) => c.role === "remote");
  let remote: OpenedSnapshot["remote"] = null;
  if (remoteEntry) {
    remote = remoteEntry.error
      ? { source: null, error: remoteEntry.error }
      : { source: snapshotSource(files, manifest, remoteEntry, onSkipped) };
  }
  return { local, remote, manifest };
}

/** Every cluster of a bundle (a fleet bundle holds many): its manifest entry and its source, or why none. */
export async function openSnapshotClusters(
  path: string,
  onSkipped: OnSkipped = warnSkipped,
): Promise<{ entry: ManifestCluster; source: SnapshotClusterSource | null }[]> {
  const files = await unpackBundle(await readBundleFile(path));
  const manifest = readManifest(files);
  for (const c of manifest.clusters) for (const o of c.skipped ?? []) onSkipped(c.name, o);
  return manifest.clusters.map((entry) => ({
    entry,
    source: entry.error ? null : snapshotSource(files, manifest, entry, onSkipped),
  }));
}

/** Opens a bundle file written by `flyingfish collect` (only `--allow-read` needed). */
export async function openSnapshot(path: string): Promise<OpenedSnapshot> {
  const { local, remote } = await openSnapshotBytes(await readBundleFile(path));
  return { local, remote };
}
