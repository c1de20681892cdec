/**
 * One side of a diff from a bundle's files — a `collect` bundle read from disk, or a live read that
 * `collect`'s own capture made in memory (so it is redacted the same way and covers the same
 * objects). Either way the side is diagnosed like `check --snapshot`: the same engine, passive, no
 * packet from this host.
 */
import { ToolError } from "../errors.ts";
import { readManifest, unpackBundle } from "../kube/bundle.ts";
import { type OnSkipped, readBundleFile, snapshotSource } from "../kube/snapshot.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { CheckDef, RunOptions } from "../checks/types.ts";
import { createProbeHub } from "../probes/live_hub.ts";
import { runDiagnosis } from "../diagnose/run.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import { captureFromBundle, type Recorder, type SideCapture } from "./capture.ts";

/** Run options of a side: passive, no network probes (a bundle's capture time judges ages). */
export const DIFF_RUN_OPTIONS: RunOptions = {
  networkProbes: false,
  preciseUdp: false,
  sampleIntervalMs: 0,
  latencyThresholdMs: 200,
  checkTimeoutMs: 30_000,
};

/** What {@link sideFromFiles} needs besides the files. */
export interface SideOptions {
  label: string;
  mode: "snapshot" | "live";
  catalog: readonly CheckDef[];
  options?: RunOptions;
  peers?: readonly string[];
  onSkipped?: OnSkipped;
  onNotice?: (line: string) => void;
}

/** Diagnoses a bundle's files and keeps what they hold: one side of a diff. */
export async function sideFromFiles(files: Map<string, Uint8Array>, opts: SideOptions): Promise<SideCapture> {
  const manifest = readManifest(files);
  const localEntry = manifest.clusters.find((c) => c.role === "local");
  if (!localEntry) throw new ToolError(`${opts.label}: the bundle has no local cluster`);
  if (localEntry.error) {
    throw new ToolError(`${opts.label}: no data for the local cluster: ${localEntry.error}`);
  }
  const local = snapshotSource(files, manifest, localEntry, opts.onSkipped);
  const remoteEntry = manifest.clusters.find((c) => c.role === "remote");
  const remote = remoteEntry
    ? remoteEntry.error
      ? { source: null, error: remoteEntry.error }
      : { source: snapshotSource(files, manifest, remoteEntry, opts.onSkipped) }
    : null;
  const options = opts.options ?? DIFF_RUN_OPTIONS;
  const report = await runDiagnosis({
    local,
    remote,
    peers: opts.peers,
    options,
    catalog: opts.catalog,
    probes: (sources: Map<string, ClusterSource>) =>
      createProbeHub({
        sources,
        networkProbes: false,
        preciseUdp: false,
        sampleIntervalMs: options.sampleIntervalMs,
      }),
    onNotice: opts.onNotice,
  });
  return {
    label: opts.label,
    mode: opts.mode,
    report,
    clusters: captureFromBundle(files, manifest, report),
    ipsPseudonymised: manifest.options.redactIps,
  };
}

/** One side from a bundle file on disk. */
export async function sideFromBundle(
  path: string,
  opts: Omit<SideOptions, "label" | "mode">,
): Promise<SideCapture> {
  return await sideFromFiles(await unpackBundle(await readBundleFile(path)), {
    ...opts,
    label: path,
    mode: "snapshot",
  });
}

/**
 * One side of a diff from clusters read live through diff/'s recorder (a demo scenario, a test's
 * fake cluster): diagnosed passively by the engine, then each cluster's recorded reads captured
 * under the name the report gave it.
 */
export async function sideFromRecorded(
  label: string,
  local: Recorder,
  remote: Recorder | null,
  options: RunOptions,
): Promise<SideCapture> {
  const report = await runDiagnosis({
    local: local.source,
    remote: remote ? { source: remote.source } : null,
    options,
    catalog: PASSIVE_CHECKS,
    probes: (sources) =>
      createProbeHub({
        sources,
        networkProbes: false,
        preciseUdp: false,
        sampleIntervalMs: options.sampleIntervalMs,
      }),
  });
  const nameOf = (role: "local" | "remote") => report.clusters.find((c) => c.role === role)?.name ?? role;
  return {
    label,
    mode: "live",
    report,
    clusters: [
      local.capture("local", nameOf("local")),
      ...(remote ? [remote.capture("remote", nameOf("remote"))] : []),
    ],
  };
}
