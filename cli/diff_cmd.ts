/**
 * `flyingfish diff BEFORE [AFTER]`: what changed between two diagnoses of a peering. Each side is a
 * `collect` bundle or, for one of them, the live cluster(s) the kubeconfig flags name (captured the
 * way `collect` captures, in memory, redacted alike). Both sides are diagnosed by the same engine
 * like `check --snapshot`; diff/ compares them; the renderers print the document.
 */
import { ToolError } from "../errors.ts";
import type { Format } from "../render/render.ts";
import type { SideCapture } from "../diff/capture.ts";
import { durationOption, timeoutsFrom } from "./check.ts";
import { withDeadline } from "./deadline.ts";
import { stdoutIsTty, terminalColumns, useColor, writeErr, writeOut } from "./output.ts";

/** Options of the diff command, as parsed by commander. */
export interface DiffCommandOptions {
  kubeconfig?: string;
  context?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
  peer?: string[];
  /** The live side of a fleet bundle: every context, or those selected. */
  allContexts?: boolean;
  contexts?: string[];
  output: Format;
  outputFile?: string;
  sampleInterval: string;
  timeout: string;
  requestTimeout?: string;
  color: boolean;
  verbose?: boolean;
  quiet?: boolean;
}

/** Runs the diff; returns the exit code (0 nothing that matters changed, 1 changed, 2 newly failing). */
export async function runDiffCommand(sides: string[], opts: DiffCommandOptions): Promise<number> {
  const { isFleet, checkFleetFlags } = await import("./fleet_cmd.ts");
  const fleetLive = isFleet(opts);
  const live = fleetLive ||
    Boolean(opts.kubeconfig || opts.context || opts.remoteKubeconfig || opts.remoteContext);
  if (sides.length === 0) {
    throw new ToolError(
      "diff needs two sides: BEFORE and AFTER bundles, or one bundle and --kubeconfig/--context",
    );
  }
  if (sides.length > 2) throw new ToolError(`diff compares two sides; got ${sides.length} bundles`);
  if (sides.length === 2 && live) {
    throw new ToolError(
      "diff compares two sides: two bundles, or one bundle and the live cluster (--kubeconfig/--context), not three",
    );
  }
  if (sides.length === 1 && !live) {
    throw new ToolError(
      `diff needs a second side: another bundle, or --kubeconfig/--context for the live cluster (diff ${
        sides[0]
      } --kubeconfig prod.yaml)`,
    );
  }
  if (fleetLive && sides.length === 2) {
    throw new ToolError("--all-contexts and --contexts name the live fleet: give one bundle, not two");
  }
  checkFleetFlags(opts as DiffCommandOptions & Record<string, unknown>, fleetLive);
  const sampleIntervalMs = durationOption("--sample-interval", opts.sampleInterval);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  if (opts.outputFile && opts.outputFile !== "-") {
    const { requireWrite } = await import("./report_file.ts");
    requireWrite(opts.outputFile);
  }
  const { readBundleFile: readBundle } = await import("../kube/snapshot.ts");
  const [{ unpackBundle, readManifest }, { isFleetManifest }] = await Promise.all([
    import("../kube/bundle.ts"),
    import("../multicluster/diff_side.ts"),
  ]);
  const beforeFiles = await unpackBundle(await readBundle(sides[0]));
  const afterFiles = sides.length === 2 ? await unpackBundle(await readBundle(sides[1])) : null;
  const fleetBefore = isFleetManifest(readManifest(beforeFiles));
  const fleetAfter = afterFiles ? isFleetManifest(readManifest(afterFiles)) : fleetLive;
  if (fleetBefore !== fleetAfter) {
    const what = (fleet: boolean, i: number) =>
      i === 1 && !afterFiles
        ? (fleet ? "the live fleet (--all-contexts/--contexts)" : "the live cluster(s)")
        : `${sides[i]} is ${fleet ? "a fleet bundle (collect --all-contexts)" : "one peering's bundle"}`;
    throw new ToolError(
      `diff compares like with like: ${what(fleetBefore, 0)}, ${what(fleetAfter, 1)}; ` +
        (fleetBefore
          ? "compare it with another fleet bundle, or with the live fleet (--all-contexts or --contexts)"
          : "compare it with another single or dual bundle, or the live cluster(s) (--kubeconfig/--context)"),
    );
  }
  if (fleetBefore) {
    return await runFleetDiff(
      sides,
      beforeFiles,
      afterFiles,
      opts,
      sampleIntervalMs,
      requestTimeoutMs,
      runTimeoutMs,
    );
  }
  const [{ sideFromFiles }, { diffSides }, { PASSIVE_CHECKS }, { renderDiff }] = await Promise
    .all([
      import("../diff/open.ts"),
      import("../diff/diff.ts"),
      import("../checks/catalog.ts"),
      import("../render/diff_formats.ts"),
    ]);
  const sideOpts = {
    catalog: PASSIVE_CHECKS,
    peers: opts.peer,
    onNotice: (line: string) => writeErr(`flyingfish: ${line}\n`),
  };
  const doc = await withDeadline(runTimeoutMs, opts.timeout, async (onExpiry) => {
    const before = await sideFromFiles(beforeFiles, { ...sideOpts, label: sides[0], mode: "snapshot" });
    let after: SideCapture;
    if (afterFiles) {
      after = await sideFromFiles(afterFiles, { ...sideOpts, label: sides[1], mode: "snapshot" });
    } else {
      const { captureLive } = await import("./collect.ts");
      const context = opts.context ?? "current-context";
      if (!opts.quiet) writeErr(`flyingfish: reading the live cluster (${context}) the way collect does\n`);
      const bundle = await captureLive(opts, sampleIntervalMs, requestTimeoutMs, onExpiry, () => {});
      const files = new Map(bundle.entries.map((e) => [e.path, e.data]));
      // Named by the context the capture used (the kubeconfig's current one when none was given).
      const used = bundle.manifest.clusters.find((c) => c.role === "local")?.context || context;
      after = await sideFromFiles(files, { ...sideOpts, label: `live:${used}`, mode: "live" });
    }
    return diffSides(before, after, PASSIVE_CHECKS);
  });
  const file = opts.outputFile && opts.outputFile !== "-" ? opts.outputFile : null;
  const rendered = renderDiff(doc, opts.output, {
    color: file ? false : useColor(opts.color),
    verbose: opts.verbose,
    // As check: the terminal's width; a pipe or a file the renderer's own (commands wrap, never cut).
    width: !file && stdoutIsTty() ? terminalColumns() : undefined,
  });
  if (file) {
    const { writeReportFile } = await import("./report_file.ts");
    await writeReportFile(file, rendered);
    if (!opts.quiet) writeErr(`flyingfish: wrote ${opts.output} diff to ${file}\n`);
  } else writeOut(rendered);
  return doc.exitCode;
}

/**
 * Two fleets: each side judged by the fleet engine (`check --snapshot <bundle> --all-contexts`),
 * the live one captured first the way `collect --all-contexts` captures it; multicluster/ compares
 * them edge by edge.
 */
async function runFleetDiff(
  sides: string[],
  beforeFiles: Map<string, Uint8Array>,
  afterFiles: Map<string, Uint8Array> | null,
  opts: DiffCommandOptions,
  sampleIntervalMs: number,
  requestTimeoutMs: number,
  runTimeoutMs: number,
): Promise<number> {
  const [{ fleetSideFromFiles }, { diffFleets }, { PASSIVE_CHECKS }, { renderFleetDiff }] = await Promise.all(
    [
      import("../multicluster/diff_side.ts"),
      import("../multicluster/diff.ts"),
      import("../checks/catalog.ts"),
      import("../render/fleet_diff.ts"),
    ],
  );
  const sideOpts = {
    catalog: PASSIVE_CHECKS,
    onNotice: opts.quiet ? undefined : (line: string) => writeErr(`flyingfish: ${line}\n`),
  };
  const doc = await withDeadline(runTimeoutMs, opts.timeout, async (onExpiry) => {
    const before = await fleetSideFromFiles(beforeFiles, { ...sideOpts, label: sides[0], mode: "snapshot" });
    let files = afterFiles;
    let label = sides[1];
    if (!files) {
      const { captureLive } = await import("./collect.ts");
      const selection = opts.allContexts ? "every context" : `--contexts ${(opts.contexts ?? []).join(",")}`;
      if (!opts.quiet) writeErr(`flyingfish: reading the live fleet (${selection}) the way collect does\n`);
      const bundle = await captureLive(opts, sampleIntervalMs, requestTimeoutMs, onExpiry, () => {});
      files = new Map(bundle.entries.map((e) => [e.path, e.data]));
      label = `live:${bundle.manifest.clusters.map((c) => c.context).join(",")}`;
    }
    const after = await fleetSideFromFiles(files, {
      ...sideOpts,
      label,
      mode: afterFiles ? "snapshot" : "live",
    });
    return diffFleets(before, after, PASSIVE_CHECKS);
  });
  const file = opts.outputFile && opts.outputFile !== "-" ? opts.outputFile : null;
  const rendered = renderFleetDiff(doc, opts.output, {
    color: file ? false : useColor(opts.color),
    verbose: opts.verbose,
    width: !file && stdoutIsTty() ? terminalColumns() : undefined,
  });
  if (file) {
    const { writeReportFile } = await import("./report_file.ts");
    await writeReportFile(file, rendered);
    if (!opts.quiet) writeErr(`flyingfish: wrote ${opts.output} fleet diff to ${file}\n`);
  } else writeOut(rendered);
  return doc.exitCode;
}
