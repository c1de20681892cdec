/**
 * `flyingfish report`: run the same diagnosis as `check` and write a self-contained incident
 * report — HTML (default) or Markdown (`-o markdown`) — to a file (`--output-file FILE`) or stdout.
 *
 * Writing a file needs Deno's `--allow-write`; without it the command stops before touching any
 * cluster with the one-line permission error naming the flag (exit 3).
 */
import { type ClusterFlags, diagnoseSources, runOptionsFrom, timeoutsFrom, withSources } from "./check.ts";
import { ToolError } from "../errors.ts";
import { writeOut } from "./output.ts";
import { requireWrite, writeReportFile } from "./report_file.ts";
import type { Report } from "../report/model.ts";
import type { FleetFlags } from "./fleet_cmd.ts";

export { REPORT_FORMATS } from "./defaults.ts";
import type { REPORT_FORMATS } from "./defaults.ts";

/** A `flyingfish report` format. */
export type ReportFormat = typeof REPORT_FORMATS[number];

/** Options of the report command, as parsed by commander. */
export interface ReportCommandOptions extends ClusterFlags {
  /** `-o`: the format; by default taken from the file extension (`.md` → markdown), else html. */
  output?: ReportFormat;
  /** `--format`, the first spelling of `-o` (kept: it cannot be misread). */
  format?: ReportFormat;
  /** File to write; stdout when absent or `-`. */
  outputFile?: string;
  peer?: string[];
  /** Overall bound of the run (`0` = none). */
  timeout: string;
  /** Bound of each API request and exec (`0` = none); absent: 30s. */
  requestTimeout?: string;
  sampleInterval: string;
  latencyThreshold?: string;
  networkProbes: boolean;
  udpPrecise?: boolean;
}

/** The format to write: `-o` (or `--format`) when given, else guessed from the file name, else html. */
export function reportFormat(
  opts: Pick<ReportCommandOptions, "output" | "format" | "outputFile">,
): ReportFormat {
  if (opts.output && opts.format && opts.output !== opts.format) {
    throw new ToolError(`-o ${opts.output} and --format ${opts.format} disagree: give one format`);
  }
  const chosen = opts.output ?? opts.format;
  const file = opts.outputFile && opts.outputFile !== "-" ? opts.outputFile : "";
  const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? null;
  const byName = ext === "md" || ext === "markdown"
    ? "markdown"
    : ext === "html" || ext === "htm"
    ? "html"
    : null;
  // Never HTML silently written into x.pdf: a PDF is refused, and without -o so is a name the
  // format cannot be told from.
  if (ext === "pdf" || (!chosen && ext !== null && byName === null)) {
    throw new ToolError(
      `cannot tell the report format from ${file}: name it .html or .md, or give -o html|markdown` +
        (ext === "pdf"
          ? " (FlyingFish writes no PDF: print the HTML report from a browser, e.g. chromium --headless --print-to-pdf)"
          : ""),
    );
  }
  return chosen ?? byName ?? "html";
}

/** The file to write, or null for stdout. */
function targetFile(opts: Pick<ReportCommandOptions, "outputFile">): string | null {
  return opts.outputFile && opts.outputFile !== "-" ? opts.outputFile : null;
}

/** Renders the report in a report format. */
export async function renderReport(report: Report, format: ReportFormat): Promise<string> {
  if (format === "markdown") {
    const { renderMarkdown } = await import("../render/markdown.ts");
    return renderMarkdown(report);
  }
  const { renderHtml } = await import("../render/html.ts");
  return renderHtml(report);
}

/** Runs the report command; returns the exit code of the diagnosis (0/1/2), like `check`. */
export async function runReportCommand(opts: ReportCommandOptions & FleetFlags): Promise<number> {
  const format = reportFormat(opts);
  const file = targetFile(opts);
  if (file) requireWrite(file);
  const { isFleet, checkFleetFlags, runFleetCommand } = await import("./fleet_cmd.ts");
  const fleet = isFleet(opts);
  checkFleetFlags(opts as ReportCommandOptions & FleetFlags & Record<string, unknown>, fleet);
  const options = runOptionsFrom(opts);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  if (fleet) {
    return await runFleetCommand(opts, {
      options,
      requestTimeoutMs,
      runTimeoutMs,
      timeout: opts.timeout,
      format,
      ...(opts.outputFile ? { outputFile: opts.outputFile } : {}),
    });
  }
  const report: Report = await withSources(
    opts,
    requestTimeoutMs,
    runTimeoutMs,
    async ({ local, remote }) => {
      const { cliInvocation } = await import("../report/invocation.ts");
      return await diagnoseSources(local, remote, options, opts.peer, { invocation: cliInvocation(opts) });
    },
  );
  const text = await renderReport(report, format);
  if (!file) {
    writeOut(text);
    return report.exitCode;
  }
  await writeReportFile(file, text);
  const d = report.diagnosis;
  console.error(
    `flyingfish: wrote ${format} report to ${file} — ${
      d ? `diagnosis ✗ ${d.id}: ${d.summary.split(/\r?\n/)[0]}` : "no failure found"
    }`,
  );
  return report.exitCode;
}
