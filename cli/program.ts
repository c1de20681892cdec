/**
 * The FlyingFish command tree (commander). Only commander is imported up front: every command loads
 * its own modules when it runs, so `--help` stays fast. The entry point is cli/main.ts.
 */
import { Command, InvalidArgumentError, Option, type OptionValues } from "@commander-js/extra-typings";
import { VERSION } from "../version.ts";
import { PermissionError, ToolError, toToolError } from "../errors.ts";
import { errorDocumentText, formatToolError, requestedDocumentFormat } from "./errors.ts";
import { envValue, writeOut } from "./output.ts";
import { didYouMean } from "./suggest.ts";
import { DEFAULT_REQUEST_TIMEOUT, DEFAULT_RUN_TIMEOUT, REPORT_FORMATS, RUN_DEFAULTS } from "./defaults.ts";

/** Output formats of `check` and `demo`. */
const FORMATS = ["text", "json", "yaml", "markdown", "junit"] as const;

/** A value that looks like a file name rather than a format. */
function looksLikeFile(v: string): boolean {
  return /[./\\]/.test(v);
}

/**
 * `-o, --output <format>`: the output format, on every command. A value that is not one of the
 * formats is a usage error (exit 3) — never a file silently named after it — and when it looks like a
 * file name the message says how to write a file instead.
 */
function formatOption<const T extends readonly string[]>(formats: T, fileHint: (v: string) => string) {
  return new Option("-o, --output <format>", "output format").choices(formats).argParser((v): T[number] => {
    if ((formats as readonly string[]).includes(v)) return v;
    throw new InvalidArgumentError(
      `Allowed formats are ${formats.join(", ")}.${looksLikeFile(v) ? ` ${fileHint(v)}` : ""}`,
    );
  });
}

/**
 * Collects a list flag: comma-separated and repeatable, the same on every list flag
 * (`--only A,B --only C`, `--peer a,b`).
 */
function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").map((v) => v.trim()).filter(Boolean)];
}

/** `--peer`: the same list grammar as `--only` (comma-separated, repeatable). */
function peerOption(what = "only these peers") {
  return new Option(
    "--peer <clusterIDs>",
    `${what} (remote cluster IDs or ForeignCluster names; comma-separated, repeatable)`,
  ).argParser(collectList);
}

/** `--request-timeout` and `--timeout`, on every command that talks to a cluster. */
function withTimeoutOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .option(
      "--request-timeout <duration>",
      "bound of each API request and exec, like kubectl's (0 = none)",
      DEFAULT_REQUEST_TIMEOUT,
    )
    .option(
      "--timeout <duration>",
      "bound of the whole run: past it, exit 3 (0 = none)",
      DEFAULT_RUN_TIMEOUT,
    );
}

/** The kubeconfig options of a command that reads one cluster or both ends of a peering. */
function withKubeconfigOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
  verb: "check" | "capture",
  fleet = false,
) {
  return cmd
    .option(
      "--kubeconfig <path>",
      `kubeconfig of the cluster to ${verb} (default: $KUBECONFIG, ~/.kube/config)${
        fleet ? "; repeatable in a fleet run (merged like KUBECONFIG)" : ""
      }`,
      // Repeated values are kept (joined by a newline) so a single run can refuse them and a fleet
      // run merge them (cli/fleet_cmd.ts kubeconfigList).
      (v: string, prev: string | undefined) => (prev === undefined ? v : `${prev}\n${v}`),
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
  fleet = false,
) {
  return withKubeconfigOptions(cmd, "check", fleet)
    .option(
      "--snapshot <bundle>",
      "diagnose a bundle written by `flyingfish collect` (offline; only --allow-read)",
    )
    .addOption(peerOption());
}

/** Fleet mode (`check`, `report`): every context of the kubeconfig, both ends of every link paired. */
function withFleetOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .option("--all-contexts", "fleet run: every context of the merged kubeconfig (docs/fleet.md)")
    .option(
      "--contexts <list>",
      "fleet run: these contexts — names, /regex/, ^excluded (comma-separated, repeatable)",
      collectList,
    )
    .option("--parallel <n>", "fleet run: clusters read at once (default 4)")
    .option(
      "--cluster-timeout <duration>",
      "fleet run: bound of reading one cluster (default 60s; 0 = none)",
    );
}

/** How `check` and `report` run the checks: timeouts, sampling, thresholds and network probes. */
function withRunOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return withTimeoutOptions(cmd)
    .option(
      "--sample-interval <duration>",
      "time between the two `wg show` samples (TUN-03)",
      RUN_DEFAULTS.sampleInterval,
    )
    .option(
      "--latency-threshold <duration>",
      "TUN-05 warns above this tunnel latency",
      RUN_DEFAULTS.latencyThreshold,
    )
    .option("--no-network-probes", "send nothing from this host (GW-05 UDP probe, API-01 TLS dial)")
    .option("--udp-precise", "GW-05 through a libc socket (needs --allow-ffi) so ICMP refusals are seen");
}

/** The probe flags of `probe` and `check --active`. */
function withProbeOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .addOption(
      new Option(
        "--mode <mode>",
        "how the peer is reached (default: direct with --remote-kubeconfig, else offload)",
      )
        .choices(["direct", "offload"] as const),
    )
    .option("--keep", "keep the probe namespace(s) and pods; prints the --cleanup command")
    .option(
      "--image <name=ref>",
      "use this image for a probe role (repeatable; see --print-images)",
      collectList,
    )
    .option("--image-registry <mirror>", "pull the default images from this registry (path and digest kept)")
    .option("--print-images", "print the images the probes pull, pinned by digest, and exit")
    .option("--tolerate <key>", "also probe nodes tainted with this key (repeatable)", collectList)
    .option(
      "--probe-timeout <duration>",
      "bound of bringing the probe pods up, and of each probe",
      RUN_DEFAULTS.probeTimeout,
    )
    .option(
      "--cleanup-timeout <duration>",
      "the cleanup's own budget, on top of --timeout",
      RUN_DEFAULTS.cleanupTimeout,
    );
}

/** Builds the command tree (exported for tests). */
export function buildProgram(): Command {
  const program = new Command()
    .name("flyingfish")
    .description(
      "Diagnose Liqo inter-cluster connectivity: walks every layer of a peering and points at the first broken link.",
    )
    .version(VERSION, "--version")
    .showHelpAfterError("(see --help)")
    // Help is plain text: commander's own colour detection reads CLICOLOR_FORCE & co. from the
    // environment, which without --allow-env is a permission error (or a prompt on a terminal).
    // One error style: usage errors start `flyingfish: ` like tool errors (cli/errors.ts).
    .configureOutput({
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      outputError: (str, write) => write(str.replace(/^error: /, "flyingfish: ")),
    })
    // `help <command>` is ours: an unknown command is a usage error (exit 3) with a suggestion.
    .helpCommand(false)
    .exitOverride();

  const check = withSourceOptions(
    program.command("check")
      .description(
        "run every check against one cluster (or both ends of a peering, or every context: --all-contexts) and print the diagnosis",
      ),
    true,
  )
    .addOption(
      formatOption(FORMATS, (v) => `To write the output to a file, use --output-file ${v}.`).default(
        "text" as const,
      ),
    )
    .option(
      "-f, --output-file <file>",
      "write the output to this file (needs --allow-write); stdout when absent or -",
    )
    .option(
      "--only <ids>",
      "run only these checks (IDs or layers, comma-separated; what they need runs too)",
      collectList,
    )
    .option(
      "--skip <ids>",
      "do not run these checks (IDs or layers); what needs them is not run",
      collectList,
    );
  const checkWith = withFleetOptions(withRunOptions(check))
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .option("-v, --verbose", "show evidence for passing checks too")
    .option("-q, --quiet", "print only the diagnosis and the counts")
    .option("--active", "then run the active probes (creates pods: see `flyingfish probe --help`)")
    .option(
      "--probes <names>",
      "with --active: matrix, udp, mtu, service, trace or all (comma-separated)",
      collectList,
    );
  withProbeOptions(checkWith)
    .action(async (opts) => {
      if (opts.active) {
        if (opts.allContexts || opts.contexts?.length) {
          throw new ToolError(
            "--active cannot be combined with a fleet run (--all-contexts, --contexts): probe one peering",
          );
        }
        const { runCheckActive } = await import("./probe_cmd.ts");
        Deno.exitCode = await runCheckActive(opts);
        return;
      }
      const { runCheckCommand } = await import("./check.ts");
      Deno.exitCode = await runCheckCommand(opts);
    });

  const probe = withSourceOptions(
    program.command("probe")
      .description(
        "active probes (opt-in): create probe pods in a flyingfish-probe-<run id> namespace, prove the data path " +
          "end to end, remove everything",
      )
      .argument(
        "[probes...]",
        "matrix, udp, mtu, service, trace or all (default: all that apply to the mode)",
      ),
  )
    .addOption(
      formatOption(
        [...FORMATS, "html"] as const,
        (v) => `To write the output to a file, use --output-file ${v}.`,
      ).default("text" as const),
    )
    .option(
      "-f, --output-file <file>",
      "write the report to this file (needs --allow-write); stdout when absent or -",
    )
    .option("--cleanup", "remove the namespaces of earlier runs, by label, on every kubeconfig given")
    .option("--run-id <id>", "with --cleanup: only this run's namespace (expired or not)")
    .option("--all", "with --cleanup: every run's namespace, expired or not (default: only expired ones)");
  withProbeOptions(withRunOptions(probe))
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .option("-v, --verbose", "show evidence for passing probes too")
    .option("-q, --quiet", "print only the diagnosis and the counts")
    .action(async (probes, opts) => {
      const { runProbeCommand } = await import("./probe_cmd.ts");
      Deno.exitCode = await runProbeCommand(probes, opts);
    });

  const preflight = program.command("preflight")
    .description(
      "before liqoctl peer: can these two clusters peer? Judges both (Liqo installed or not), ends with a " +
        "verdict and the liqoctl peer line; passive unless --probe",
    )
    .option(
      "--kubeconfig <path>",
      "kubeconfig of the would-be consumer (default: $KUBECONFIG, ~/.kube/config)",
    )
    .option("--context <name>", "context of the would-be consumer (default: current-context)")
    .option(
      "--remote-kubeconfig <path>",
      "kubeconfig of the would-be provider (required, or --remote-context)",
    )
    .option("--remote-context <name>", "context of the would-be provider")
    .addOption(
      formatOption(
        [...FORMATS, "html"] as const,
        (v) => `To write the output to a file, use --output-file ${v}.`,
      ).default("text" as const),
    )
    .option(
      "-f, --output-file <file>",
      "write the output to this file (needs --allow-write); stdout when absent or -",
    )
    .option(
      "--only <ids>",
      "run only these PF checks (IDs or the layer preflight; what they need runs too)",
      collectList,
    )
    .option("--skip <ids>", "do not run these PF checks; what needs them is not run", collectList)
    .addOption(
      new Option("--service-type <type>", "the gateway Service type to plan for (default LoadBalancer)")
        .choices(["LoadBalancer", "NodePort"] as const),
    )
    .addOption(
      new Option(
        "--server-side <side>",
        "where the gateway server would live (default provider; --probe: tries both)",
      )
        .choices(["consumer", "provider"] as const),
    )
    .option("--port <port>", "the gateway server port (default 51840)")
    .option("--mtu <bytes>", "the tunnel MTU liqoctl peer will set (default 1340)")
    .option(
      "--probe",
      "also the active checks: a throwaway UDP echo both ways, in a flyingfish-preflight-<run id> namespace per cluster, removed on every exit path",
    )
    .option("--keep", "with --probe: keep the preflight namespaces; prints the cleanup command")
    .option("--image <name=ref>", "with --probe: use this image for a probe role (repeatable)", collectList)
    .option("--image-registry <mirror>", "with --probe: pull the default images from this registry")
    .option("--probe-timeout <duration>", "with --probe: bound of each probe (and of a LoadBalancer address)")
    .option("--cleanup-timeout <duration>", "with --probe: the cleanup's own budget, on top of --timeout")
    .option(
      "--gw-client-address <address>",
      "with --probe: a port mapping in front of the would-be server (NAT), tried beside its own addresses",
    )
    .option("--gw-client-port <port>", "with --probe: the port mapping's port (with --gw-client-address)")
    .option(
      "--gw-server-service-nodeport <port>",
      "with --probe: the NodePort the throwaway gateway Service asks for (what the port mapping forwards to)",
    );
  withTimeoutOptions(preflight)
    .option("--no-network-probes", "send nothing from this host (the --probe API check compares with it)")
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .option("-v, --verbose", "show evidence for passing checks too")
    .option("-q, --quiet", "print only the verdict, the diagnosis and the counts")
    .action(async (opts) => {
      const { runPreflightCommand } = await import("./preflight_cmd.ts");
      Deno.exitCode = await runPreflightCommand(opts);
    });

  const report = program.command("report")
    .description(
      "run the check and write a self-contained incident report (HTML, or Markdown) to a file or stdout",
    )
    .addOption(
      formatOption(REPORT_FORMATS, (v) => `To write the report to a file, use --output-file ${v}.`),
    )
    .option(
      "-f, --output-file <file>",
      "file to write (needs --allow-write; format from its extension when -o is absent: .md → markdown, else html); stdout when absent or -",
    )
    // The first spelling of the format flag: it cannot be misread, so it stays (out of the help).
    .addOption(new Option("--format <format>").choices(REPORT_FORMATS).hideHelp());
  withFleetOptions(withRunOptions(withSourceOptions(report, true)))
    .action(async (opts) => {
      const { runReportCommand } = await import("./report_cmd.ts");
      Deno.exitCode = await runReportCommand(opts);
    });

  const collect = program.command("collect")
    .description(
      "capture a redacted snapshot of one or both clusters into a .tar.gz bundle, for `check --snapshot` later, elsewhere",
    );
  const collectWith = withKubeconfigOptions(collect, "capture", true)
    .option(
      "--all-contexts",
      "capture every context of the merged kubeconfig into one bundle (docs/fleet.md)",
    )
    .option(
      "--contexts <list>",
      "capture these contexts into one bundle — names, /regex/, ^excluded (comma-separated, repeatable)",
      collectList,
    )
    .option("--parallel <n>", "fleet run: clusters read at once (default 4)")
    .option(
      "--cluster-timeout <duration>",
      "fleet run: bound of reading one cluster (default 60s; 0 = none)",
    )
    .addOption(peerOption("only sample the gateways of these peers: lists are always complete"))
    .option(
      "-f, --output-file <file>",
      "bundle to write (needs --allow-write); default flyingfish-bundle-<time>.tar.gz",
    )
    // `-o` names a format everywhere: here it is refused with the flag to use instead.
    .addOption(new Option("-o, --output <value>").hideHelp())
    .option("--redact-ips", "pseudonymise IPv4 addresses (keyed, prefix-preserving; loopback kept)")
    .option(
      "--sample-interval <duration>",
      "time between the two `wg show` samples (TUN-03)",
      RUN_DEFAULTS.sampleInterval,
    );
  withTimeoutOptions(collectWith)
    .option("-q, --quiet", "no progress and no summary line")
    .action(async (opts) => {
      const { runCollectCommand } = await import("./collect.ts");
      Deno.exitCode = await runCollectCommand(opts);
    });

  const diff = withKubeconfigOptions(
    program.command("diff")
      .description(
        "what changed since it worked: compare two diagnoses (collect bundles, or a bundle and the live cluster or fleet) — check results first, then the objects behind them",
      )
      .argument("<before>", "a bundle written by `flyingfish collect` (the earlier side)")
      .argument("[after]", "a second bundle; absent: the live cluster the kubeconfig flags name"),
    "check",
    true,
  )
    .option("--all-contexts", "live side of a fleet bundle: every context of the merged kubeconfig")
    .option(
      "--contexts <list>",
      "live side of a fleet bundle: these contexts — names, /regex/, ^excluded (comma-separated, repeatable)",
      collectList,
    )
    .addOption(peerOption())
    .addOption(
      formatOption(
        [...FORMATS, "html"] as const,
        (v) => `To write the output to a file, use --output-file ${v}.`,
      )
        .default("text" as const),
    )
    .option(
      "-f, --output-file <file>",
      "write the diff to this file (needs --allow-write); stdout when absent or -",
    )
    .option(
      "--sample-interval <duration>",
      "live side: time between the two `wg show` samples",
      RUN_DEFAULTS.sampleInterval,
    );
  withTimeoutOptions(diff)
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .option("-v, --verbose", "every changed field of every object")
    .option("-q, --quiet", "no progress lines on stderr")
    .action(async (before, after, opts) => {
      const { runDiffCommand } = await import("./diff_cmd.ts");
      Deno.exitCode = await runDiffCommand(after === undefined ? [before] : [before, after], opts);
    });

  const serve = withKubeconfigOptions(
    program.command("serve").description(
      "re-check every --interval and serve Prometheus /metrics, the report (/report JSON, / HTML), /healthz and /readyz; in a pod with no kubeconfig, uses its service account",
    ),
    "check",
  )
    .addOption(peerOption())
    .option(
      "--listen <[host]:port>",
      "address to serve on (default 127.0.0.1:9464, and :9464 = every interface in a pod)",
    )
    .option("--interval <duration>", "time between the starts of two rounds", RUN_DEFAULTS.roundInterval)
    .option(
      "--service-account-dir <dir>",
      "in-cluster credentials (default /var/run/secrets/kubernetes.io/serviceaccount)",
    )
    .option(
      "--request-timeout <duration>",
      "bound of each API request and exec (0 = none)",
      DEFAULT_REQUEST_TIMEOUT,
    )
    .option(
      "--sample-interval <duration>",
      "time between the two `wg show` samples (TUN-03)",
      RUN_DEFAULTS.sampleInterval,
    )
    .option(
      "--latency-threshold <duration>",
      "TUN-05 warns above this tunnel latency",
      RUN_DEFAULTS.latencyThreshold,
    )
    .option("--no-network-probes", "send nothing from this host (GW-05 UDP probe, API-01 TLS dial)")
    .option("--udp-precise", "GW-05 through a libc socket (needs --allow-ffi) so ICMP refusals are seen");
  serve.action(async (opts) => {
    const { runServeCommand } = await import("./serve_cmd.ts");
    Deno.exitCode = await runServeCommand(opts);
  });

  withKubeconfigOptions(
    program.command("watch").description(
      "re-check every --interval: a live dashboard on a terminal, JSON lines (transitions, heartbeats) otherwise",
    ),
    "check",
    true,
  )
    .option(
      "--all-contexts",
      "fleet rounds: every context of the merged kubeconfig, each round (docs/fleet.md)",
    )
    .option(
      "--contexts <list>",
      "fleet rounds: these contexts — names, /regex/, ^excluded (comma-separated, repeatable)",
      collectList,
    )
    .option("--parallel <n>", "fleet rounds: clusters read at once (default 4)")
    .option("--cluster-timeout <duration>", "fleet rounds: bound of reading one cluster (default 60s)")
    .addOption(peerOption())
    .option("--interval <duration>", "time between the starts of two rounds", RUN_DEFAULTS.roundInterval)
    .addOption(
      formatOption(["text", "jsonl"] as const, (v) => `To save it, redirect it: -o jsonl > ${v}`).default(
        "text" as const,
      ),
    )
    .addOption(
      new Option("--until <condition>", "stop when the peering is healthy, or has a failure (exit 0)")
        .choices(["healthy", "failure"] as const),
    )
    .option(
      "--wait <duration>",
      "with --until: give up after this long, exit 1 (default 10m); alone: watch this long (0 = none)",
    )
    .option("--timeout <duration>", "bound of the whole run: past it, exit 3 (0 = none)", "0")
    .option("--flap-threshold <n>", "more status changes than this within --flap-window is flapping", "3")
    .option("--flap-window <duration>", "the flapping window", "10m")
    .option(
      "--request-timeout <duration>",
      "bound of each API request and exec (0 = none)",
      DEFAULT_REQUEST_TIMEOUT,
    )
    .option(
      "--sample-interval <duration>",
      "time between the two `wg show` samples (TUN-03), within --interval",
      RUN_DEFAULTS.sampleInterval,
    )
    .option(
      "--latency-threshold <duration>",
      "TUN-05 warns above this tunnel latency",
      RUN_DEFAULTS.latencyThreshold,
    )
    .option("--no-network-probes", "send nothing from this host (GW-05 UDP probe, API-01 TLS dial)")
    .option("--udp-precise", "GW-05 through a libc socket (needs --allow-ffi) so ICMP refusals are seen")
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .action(async (opts) => {
      const { runWatchCommand } = await import("./watch_cmd.ts");
      Deno.exitCode = await runWatchCommand(opts);
    });

  program.command("checks")
    .description("list the check catalog")
    .addOption(
      formatOption(["text", "json"] as const, (v) => `To save it, redirect it: -o json > ${v}`).default(
        "text" as const,
      ),
    )
    .action(async (opts) => {
      const { printCatalog } = await import("./catalog_cmd.ts");
      printCatalog(opts.output);
    });

  program.command("explain")
    .description("what a check reads, how it decides, what blocks it, and how to fix what it finds")
    .argument("<id>", "check ID, e.g. GW-02 (any case: tun-02)")
    .action(async (id) => {
      const { explain } = await import("./catalog_cmd.ts");
      Deno.exitCode = explain(id);
    });

  program.command("demo")
    .description("run the full check against an embedded fake cluster (no cluster needed)")
    .argument("[scenario]", "scenario name (see `flyingfish demo --list`)", "gw-lb-pending")
    .option("--list", "list the embedded scenarios")
    .option(
      "--active [scenario]",
      "an active-probe scenario: check --active against it (creates and removes probe pods in the fake servers); alone: list them",
    )
    .option(
      "--preflight [scenario]",
      "a preflight scenario (two clusters before peering): preflight against it (default rbac-denied; see --list)",
    )
    .option(
      "--probe",
      "with --preflight: preflight --probe on a pair whose fake network carries the probes (default server-on-consumer; see --list)",
    )
    .option(
      "--fleet [name]",
      "a fleet of fake clusters (testdata/fleet/, default mixed): check --all-contexts against it",
    )
    .option(
      "--serve",
      "keep the fake cluster(s) up on 127.0.0.1 until Ctrl-C and print their kubeconfigs and commands to try (kubectl, check, watch, report, collect, probe); needs --allow-write",
    )
    .addOption(
      formatOption(FORMATS, (v) => `To save the output in a file, redirect it: -o json > ${v}`).default(
        "text" as const,
      ),
    )
    .option("--diff <after>", "`flyingfish diff` of the scenario (before) and this scenario (after)")
    .option("--no-color", "no ANSI colours (also NO_COLOR)")
    .option("-v, --verbose", "show evidence for passing checks too")
    .action(async (scenario, opts) => {
      if (
        opts.list !== true && opts.active === undefined && opts.preflight === undefined &&
        opts.fleet === undefined
      ) {
        await requireDemoScenario(scenario);
      }
      const { runDemo } = await import("./demo.ts");
      Deno.exitCode = await runDemo(scenario, opts);
    });

  program.command("schema")
    .description("print the JSON Schema of what -o json prints: the report, or the error document (exit 3)")
    .option("--diff", "the schema of `flyingfish diff -o json` instead")
    .option(
      "--fleet",
      "the fleet report's schema instead (check --all-contexts -o json); with --diff, a fleet diff's",
    )
    .action(async (opts) => {
      if (opts.diff && opts.fleet) {
        const { fleetDiffJsonSchema } = await import("../report/fleet_diff.ts");
        return void console.log(JSON.stringify(fleetDiffJsonSchema(), null, 2));
      }
      if (opts.diff) {
        const { diffJsonSchema } = await import("../report/diff_schema.ts");
        return void console.log(JSON.stringify(diffJsonSchema(), null, 2));
      }
      if (opts.fleet) {
        const { fleetJsonSchema } = await import("../report/fleet.ts");
        return void console.log(JSON.stringify(fleetJsonSchema(), null, 2));
      }
      const { publishedSchema } = await import("../report/error_doc.ts");
      console.log(JSON.stringify(publishedSchema(), null, 2));
    });

  program.command("version")
    .description(
      "print the FlyingFish, Deno and git commit versions; with --kubeconfig/--context, the cluster's Kubernetes and Liqo versions",
    )
    .option("--kubeconfig <path>", "kubeconfig of the cluster to ask (default: $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context (default: current-context)")
    .option("--request-timeout <duration>", "bound of each API request (0 = none)", DEFAULT_REQUEST_TIMEOUT)
    .addOption(
      formatOption(["text", "json"] as const, (v) => `To save it, redirect it: -o json > ${v}`).default(
        "text" as const,
      ),
    )
    .action(async (opts) => {
      const { printVersion } = await import("./version_cmd.ts");
      await printVersion(opts);
    });

  program.command("help")
    .description("display help for a command")
    .argument("[command]", "the command")
    .action((name) => {
      if (name === undefined) return void program.outputHelp();
      const sub = program.commands.find((c) => c.name() === name || c.aliases().includes(name));
      if (sub) return void sub.outputHelp();
      throw new ToolError(`unknown command "${name}"${didYouMean(name, commandNames(program))} (see --help)`);
    });

  program.command("completion")
    .description("print a shell completion script (bash, zsh or fish)")
    .argument("<shell>", "bash, zsh or fish")
    .action(async (shell) => {
      const { printCompletion } = await import("./completion.ts");
      await printCompletion(program, shell);
    });

  return program;
}

/** The names of the program's commands (for suggestions). */
function commandNames(program: Command): string[] {
  return program.commands.map((c) => c.name());
}

/** An unknown demo scenario is exit 3 with the nearest names (`gw-lb-pendin` → gw-lb-pending). */
async function requireDemoScenario(name: string): Promise<void> {
  const [{ listScenarios, useTestdata }, { demoTestdata }] = await Promise.all([
    import("@flyingfish/fakekube"),
    import("./demo_data.ts"),
  ]);
  useTestdata(demoTestdata());
  const known = await listScenarios().catch(() => [] as string[]);
  if (known.length && !known.includes(name)) {
    throw new ToolError(
      `no demo scenario "${name}"${didYouMean(name, known)} (see \`flyingfish demo --list\`)`,
    );
  }
}

/**
 * With `-o json|yaml|junit`, the error document is printed only when the command has that format:
 * `checks -o yaml` is refused in text, not answered in YAML.
 */
function documentFormat(program: Command, args: string[]): ReturnType<typeof requestedDocumentFormat> {
  const format = requestedDocumentFormat(args);
  if (!format) return null;
  const name = args.find((a) => !a.startsWith("-"));
  const sub = program.commands.find((c) => c.name() === name);
  const choices = sub?.options.find((o) => o.long === "--output")?.argChoices;
  return choices && !choices.includes(format) ? null : format;
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
    // Only when started by the task, i.e. in the project directory: INIT_CWD is inherited by every
    // process a task starts, and a CLI started elsewhere (by a script run from a task) stays there.
    const root = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");
    if (new URL("../", import.meta.url).protocol !== "file:" || Deno.cwd() !== root) return;
    Deno.chdir(dir);
  } catch {
    // no read permission for it: relative paths then resolve against the task directory
  }
}

/** Runs the CLI with the given arguments; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  restoreCallerDirectory();
  const program = buildProgram();
  if (args[0] === "__complete") {
    // kubectl's plugin completion (bin/kubectl_complete-flyingfish): not a command of the help.
    const { printCompletions } = await import("./completion.ts");
    await printCompletions(program, args.slice(1));
    return 0;
  }
  try {
    await program.parseAsync(args, { from: "user" });
    return typeof Deno.exitCode === "number" ? Deno.exitCode : 0;
  } catch (err) {
    // commander signals help/version/usage through exceptions when exitOverride is on.
    const code = (err as { code?: string; exitCode?: number }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version" || code === "commander.help") {
      return 0;
    }
    const format = documentFormat(program, args);
    // Commander has printed a usage error on stderr already.
    if (typeof code === "string" && code.startsWith("commander.")) {
      if (format) await printErrorDocument(format, errorMessage(err).replace(/^error: /, ""), null);
      return 3;
    }
    const tool = err instanceof ToolError ? err : toToolError(err);
    if (tool) {
      console.error(formatToolError(tool));
      if (format) {
        await printErrorDocument(format, tool.message, tool instanceof PermissionError ? tool.flag : null);
      }
      return 3;
    }
    console.error(
      `flyingfish: internal error: ${err instanceof Error ? err.stack ?? err.message : String(err)}`,
    );
    if (format) await printErrorDocument(format, `internal error: ${errorMessage(err)}`, null);
    return 3;
  }
}

function errorMessage(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0];
}

/** With `-o json|yaml|junit`, a tool error still prints a document on stdout (report/error_doc.ts). */
async function printErrorDocument(
  format: Parameters<typeof errorDocumentText>[0],
  message: string,
  permission: string | null,
): Promise<void> {
  try {
    writeOut(await errorDocumentText(format, message, permission));
  } catch {
    // stdout closed: the stderr line is what remains
  }
}
