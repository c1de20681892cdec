#!/usr/bin/env -S deno run --allow-env --allow-read --allow-write --allow-net --allow-sys --allow-run=kubectl
/**
 * FlyingFish command line. Only commander is imported up front: every command loads its own
 * modules (and @kubernetes/client-node) when it runs, so `--help` stays fast.
 */
import { Command, Option, type OptionValues } from "@commander-js/extra-typings";
import { VERSION } from "../version.ts";
import { ToolError, toToolError } from "../errors.ts";
import { formatToolError } from "./errors.ts";
import { envValue } from "./output.ts";

const FORMATS = ["text", "json", "yaml", "markdown", "junit"] as const;

/** The kubeconfig options of a command that reads one cluster or both ends of a peering. */
function withKubeconfigOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
  verb: "check" | "capture",
) {
  return cmd
    .option(
      "--kubeconfig <path>",
      `kubeconfig of the cluster to ${verb} (default: $KUBECONFIG, ~/.kube/config)`,
    )
    .option("--context <name>", "kubeconfig context (default: current-context)")
    .option(
      "--remote-kubeconfig <path>",
      `kubeconfig of the other end of the peering: ${
        verb === "check" ? "correlates" : "captures"
      } both sides`,
    )
    .option("--remote-context <name>", "context in the remote kubeconfig");
}

/** What `check` and `report` diagnose: the kubeconfig options, `--snapshot` and `--peer`. */
function withSourceOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return withKubeconfigOptions(cmd, "check")
    .option(
      "--snapshot <bundle>",
      "diagnose a bundle written by `flyingfish collect` (offline; only --allow-read)",
    )
    .option("--peer <clusterID...>", "only these peers (remote cluster IDs or ForeignCluster names)");
}

/** How `check` and `report` run the checks: timeouts, sampling, thresholds and network probes. */
function withRunOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .option("--timeout <duration>", "per-check and per-request timeout", "30s")
    .option("--sample-interval <duration>", "time between the two `wg show` samples (TUN-03)", "3s")
    .option("--latency-threshold <duration>", "TUN-05 warns above this tunnel latency", "200ms")
    .option("--no-network-probes", "send nothing from this host (GW-05 UDP probe, API-01 TLS dial)")
    .option("--udp-precise", "GW-05 through a libc socket (needs --allow-ffi) so ICMP refusals are seen");
}

/** Builds the command tree (exported for tests). */
export function buildProgram(): Command {
  const program = new Command()
    .name("flyingfish")
    .description(
      "Diagnose Liqo inter-cluster connectivity: walks every layer of a peering and points at the first broken link.",
    )
    .version(VERSION, "--version")
    .showHelpAfterError()
    .exitOverride();

  const check = withSourceOptions(
    program.command("check")
      .description("run every check against one cluster (or both ends of a peering) and print the diagnosis"),
  )
    .addOption(
      new Option("-o, --output <format>", "output format").choices(FORMATS).default("text" as const),
    );
  withRunOptions(check)
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .option("-v, --verbose", "show evidence for passing checks too")
    .option("-q, --quiet", "print only the diagnosis and the counts")
    .action(async (opts) => {
      const { runCheckCommand } = await import("./check.ts");
      Deno.exitCode = await runCheckCommand(opts);
    });

  const report = program.command("report")
    .description(
      "run the check and write a self-contained incident report (HTML, or Markdown) to a file or stdout",
    )
    .addOption(
      new Option(
        "--format <format>",
        "report format (default: from the -o extension, .md → markdown; else html)",
      )
        .choices(["html", "markdown"] as const),
    )
    .option("-o, --output <file>", "file to write (needs --allow-write); stdout when absent or -");
  withRunOptions(withSourceOptions(report))
    .action(async (opts) => {
      const { runReportCommand } = await import("./report_cmd.ts");
      Deno.exitCode = await runReportCommand(opts);
    });

  const collect = program.command("collect")
    .description(
      "capture a redacted snapshot of one or both clusters into a .tar.gz bundle, for `check --snapshot` later, elsewhere",
    );
  withKubeconfigOptions(collect, "capture")
    .option("--peer <clusterID...>", "only sample the gateways of these peers (lists are always complete)")
    .option(
      "-o, --output <file>",
      "bundle to write (needs --allow-write); default flyingfish-bundle-<time>.tar.gz",
    )
    .option("--redact-ips", "pseudonymise IPv4 addresses (keyed, prefix-preserving; loopback kept)")
    .option("--sample-interval <duration>", "time between the two `wg show` samples (TUN-03)", "3s")
    .option("--timeout <duration>", "per-request timeout", "30s")
    .option("-q, --quiet", "no progress and no summary line")
    .action(async (opts) => {
      const { runCollectCommand } = await import("./collect.ts");
      Deno.exitCode = await runCollectCommand(opts);
    });

  program.command("checks")
    .description("list the check catalog")
    .addOption(
      new Option("-o, --output <format>", "output format").choices(["text", "json"] as const).default(
        "text" as const,
      ),
    )
    .action(async (opts) => {
      const { printCatalog } = await import("./catalog_cmd.ts");
      printCatalog(opts.output);
    });

  program.command("explain")
    .description("what a check reads, how it decides, what blocks it, and how to fix what it finds")
    .argument("<id>", "check ID, e.g. GW-02")
    .action(async (id) => {
      const { explain } = await import("./catalog_cmd.ts");
      Deno.exitCode = explain(id);
    });

  program.command("demo")
    .description("run the full check against an embedded fake cluster (no cluster needed)")
    .argument("[scenario]", "scenario name (see `flyingfish demo --list`)", "gw-lb-pending")
    .option("--list", "list the embedded scenarios")
    .addOption(new Option("-o, --output <format>", "output format").choices(FORMATS).default("text" as const))
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .option("-v, --verbose", "show evidence for passing checks too")
    .action(async (scenario, opts) => {
      const { runDemo } = await import("./demo.ts");
      Deno.exitCode = await runDemo(scenario, opts);
    });

  program.command("schema")
    .description("print the JSON Schema of the -o json report")
    .action(async () => {
      const { jsonSchema } = await import("../report/model.ts");
      console.log(JSON.stringify(jsonSchema(), null, 2));
    });

  program.command("version")
    .description("print the FlyingFish version")
    .action(() => console.log(`flyingfish ${VERSION}`));

  return program;
}

/**
 * `deno task` runs in the directory of deno.json and records the caller's directory in INIT_CWD:
 * go back there so relative paths (`--kubeconfig ./rome.yaml`, `-o bundle.tar.gz`) mean what the
 * user typed.
 */
function restoreCallerDirectory(): void {
  const dir = envValue("INIT_CWD");
  if (!dir) return;
  try {
    Deno.chdir(dir);
  } catch {
    // no read permission for it: relative paths then resolve against the task directory
  }
}

/** Runs the CLI with the given arguments; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  restoreCallerDirectory();
  const program = buildProgram();
  try {
    await program.parseAsync(args, { from: "user" });
    return typeof Deno.exitCode === "number" ? Deno.exitCode : 0;
  } catch (err) {
    // commander signals help/version/usage through exceptions when exitOverride is on.
    const code = (err as { code?: string; exitCode?: number }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version" || code === "commander.help") {
      return 0;
    }
    if (typeof code === "string" && code.startsWith("commander.")) return 3;
    const tool = err instanceof ToolError ? err : toToolError(err);
    if (tool) {
      console.error(formatToolError(tool));
      return 3;
    }
    console.error(
      `flyingfish: internal error: ${err instanceof Error ? err.stack ?? err.message : String(err)}`,
    );
    return 3;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
