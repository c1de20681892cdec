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
import { useColor, writeErr, writeOut } from "./output.ts";

/** Options of the diff command, as parsed by commander. */
export interface DiffCommandOptions {
  kubeconfig?: string;
  context?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
  peer?: string[];
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
  const live = Boolean(opts.kubeconfig || opts.context || opts.remoteKubeconfig || opts.remoteContext);
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
  const sampleIntervalMs = durationOption("--sample-interval", opts.sampleInterval);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  if (opts.outputFile && opts.outputFile !== "-") {
    const { requireWrite } = await import("./report_file.ts");
    requireWrite(opts.outputFile);
  }
  const [{ sideFromBundle, sideFromFiles }, { diffSides }, { PASSIVE_CHECKS }, { renderDiff }] = await Promise
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
    const before = await sideFromBundle(sides[0], sideOpts);
    let after: SideCapture;
    if (sides.length === 2) after = await sideFromBundle(sides[1], sideOpts);
    else {
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
  });
  if (file) {
    const { writeReportFile } = await import("./report_file.ts");
    await writeReportFile(file, rendered);
    if (!opts.quiet) writeErr(`flyingfish: wrote ${opts.output} diff to ${file}\n`);
  } else writeOut(rendered);
  return doc.exitCode;
}
