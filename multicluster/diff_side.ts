/**
 * One side of a fleet diff from a fleet bundle's files — a `collect --all-contexts` bundle read
 * from disk, or the live fleet captured in memory by collect's own code — judged by the fleet
 * engine exactly as `check --snapshot <bundle> --all-contexts` judges it (passive, no packet from
 * this host), and each cluster's captured objects kept under its fleet name for diff/.
 */
import { type Manifest, readManifest } from "../kube/bundle.ts";
import { type OnSkipped, snapshotSource } from "../kube/snapshot.ts";
import type { CheckDef } from "../checks/types.ts";
import { createProbeHub } from "../probes/live_hub.ts";
import { captureOfEntry, type ClusterCapture } from "../diff/capture.ts";
import { DIFF_RUN_OPTIONS } from "../diff/open.ts";
import type { FleetSide } from "./diff.ts";
import { contextOfEntry, snapshotFleet } from "./snapshot.ts";
import { DEFAULT_PARALLEL, runFleet } from "./run.ts";

/**
 * True for a fleet bundle: its clusters are in folders named after their contexts, where a single
 * or dual bundle's are named after their role (`local`, `remote`; collect never names a fleet
 * folder so).
 */
export function isFleetManifest(manifest: Manifest): boolean {
  return manifest.clusters.some((c) => c.name !== c.role);
}

/** What {@link fleetSideFromFiles} needs besides the files. */
export interface FleetSideOptions {
  label: string;
  mode: "snapshot" | "live";
  catalog: readonly CheckDef[];
  onSkipped?: OnSkipped;
  onNotice?: (line: string) => void;
}

/** A bundle of a fleet read as one side of a fleet diff. */
export async function fleetSideFromFiles(
  files: Map<string, Uint8Array>,
  opts: FleetSideOptions,
): Promise<FleetSide> {
  const manifest = readManifest(files);
  const captured = manifest.clusters.map((entry) => ({
    entry,
    source: entry.error ? null : snapshotSource(files, manifest, entry, opts.onSkipped),
  }));
  const { contexts, open } = snapshotFleet(captured);
  const report = await runFleet({
    kubeconfigs: [],
    selection: { all: true, patterns: [] },
    contexts,
    parallel: DEFAULT_PARALLEL,
    // A bundle answers from memory: no cluster of it can hang.
    clusterTimeoutMs: 600_000,
    clusterTimeoutLabel: "600s",
    open,
    options: DIFF_RUN_OPTIONS,
    catalog: opts.catalog,
    probes: (sources) =>
      createProbeHub({ sources, networkProbes: false, preciseUdp: false, sampleIntervalMs: 0 }),
    onNotice: opts.onNotice,
  });
  const captures = new Map<string, ClusterCapture>();
  for (const c of report.clusters) {
    const entry = manifest.clusters.find((e) => !e.error && contextOfEntry(e).name === c.context);
    if (entry) captures.set(c.name, captureOfEntry(files, entry, c.name));
  }
  return {
    label: opts.label,
    mode: opts.mode,
    takenAt: manifest.capturedAt,
    report,
    captures,
    ipsPseudonymised: manifest.options.redactIps,
  };
}
