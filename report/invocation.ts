/**
 * How FlyingFish was run, as the report records it: the command line (secrets redacted), the host
 * the run and its network probes ran from, and the kubeconfig file named for each cluster — which
 * the remediation commands reuse so that each names the cluster it must run against.
 */
import { z } from "zod";
import { shellQuote } from "../kube/rerun.ts";

/** How FlyingFish was invoked. */
export interface Invocation {
  /** The command line as typed (`flyingfish check --kubeconfig rome.yaml -o json`), secrets redacted. */
  commandLine: string;
  /** Host the run — and its network probes — ran from; null when unknown (no `--allow-sys`). */
  host: string | null;
  /**
   * The kubeconfig file named for each cluster role (`--kubeconfig`, `--remote-kubeconfig`); null:
   * the default kubeconfig ($KUBECONFIG or ~/.kube/config), a snapshot, or no remote cluster.
   */
  kubeconfig: {
    /** `--kubeconfig`. */
    local: string | null;
    /** `--remote-kubeconfig` (or the local file when only `--remote-context` was given). */
    remote: string | null;
  };
}

/** Zod schema of {@link Invocation}. */
export const InvocationSchema: z.ZodType<Invocation> = z.object({
  commandLine: z.string().describe("The command line, secrets redacted"),
  host: z.string().nullable().describe("Host the run and its network probes ran from (null: unknown)"),
  kubeconfig: z.object({
    local: z.string().nullable(),
    remote: z.string().nullable(),
  }).describe(
    "The kubeconfig file named for each cluster role; null: the default kubeconfig, or a snapshot. " +
      "Remediation commands name it with the cluster's context",
  ),
});

/** Flag names whose value is a secret (matched on the name without dashes). */
const SECRET_FLAG = /token|password|passwd|secret|credential|client-key|private-key|api-key|^key$|auth/i;

/** The text that replaces a redacted value. */
export const REDACTED = "(redacted)";

/** Redacts `user:password@` in URLs. */
function redactUrl(s: string): string {
  return s.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, `$1${REDACTED}@`);
}

/**
 * `args` with secret values redacted: the value of a flag whose name says it holds a secret
 * (`--token x`, `--password=x`, `--client-key x`…), credentials in URLs.
 */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const flag = /^--?([A-Za-z][\w-]*)(=(.*))?$/.exec(a);
    if (flag && SECRET_FLAG.test(flag[1])) {
      if (flag[2] !== undefined) out.push(`${a.slice(0, a.indexOf("=") + 1)}${REDACTED}`);
      else {
        out.push(a);
        if (i + 1 < args.length && !args[i + 1].startsWith("-")) {
          out.push(REDACTED);
          i++;
        }
      }
      continue;
    }
    out.push(redactUrl(a));
  }
  return out;
}

/** The command line of `program args…`, redacted and shell-quoted. */
export function commandLineOf(program: string, args: readonly string[]): string {
  return [program, ...redactArgs(args).map((a) => (a === REDACTED ? a : shellQuote(a)))].join(" ");
}

/**
 * The host name, or null when Deno's `--allow-sys` (hostname) is not granted or the call fails —
 * never a permission prompt, never an exception.
 */
export function hostName(): string | null {
  try {
    if (Deno.permissions.querySync({ name: "sys", kind: "hostname" }).state !== "granted") return null;
    return Deno.hostname();
  } catch {
    return null;
  }
}

/** What the CLI knows about a run, for {@link invocationOf}. */
export interface InvocationInput {
  /** The program name to show (e.g. `flyingfish`). */
  program: string;
  /** The arguments after it, as typed. */
  args: readonly string[];
  /** `--kubeconfig` and `--remote-kubeconfig` as given (a remote without its own file uses the local one). */
  kubeconfig?: string;
  remoteKubeconfig?: string;
  /** `--remote-context` as given: a remote cluster named by its context alone is in the local kubeconfig. */
  remoteContext?: string;
  /** The host, when known (default: {@link hostName}). */
  host?: string | null;
}

/** The invocation record of a CLI run. */
export function invocationOf(input: InvocationInput): Invocation {
  const local = input.kubeconfig ?? null;
  return {
    commandLine: commandLineOf(input.program, input.args),
    host: input.host === undefined ? hostName() : input.host,
    kubeconfig: {
      local,
      remote: input.remoteKubeconfig ?? (input.remoteContext !== undefined ? local : null),
    },
  };
}

/** The flags of a run that name its clusters (as given on the command line). */
export interface ClusterFlagsGiven {
  kubeconfig?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
}

/** The invocation record of this `flyingfish` process (its own arguments). */
export function cliInvocation(flags: ClusterFlagsGiven): Invocation {
  return invocationOf({
    program: "flyingfish",
    args: Deno.args,
    kubeconfig: flags.kubeconfig,
    remoteKubeconfig: flags.remoteKubeconfig,
    remoteContext: flags.remoteContext,
  });
}
