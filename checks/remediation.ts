/**
 * Remediation as data: what a check (or an active probe's judge) returns as its fix. A fix is a
 * list of steps; a step is a command, a comment, or both. A command is the program's words
 * (`argv`, unquoted) and the cluster it must run against (`on`) — never a shell line: the report
 * (report/targets.ts) adds the `--kubeconfig/--context` of that cluster from how the user ran
 * FlyingFish, and prints the words with the one shell-quoting function. Nothing downstream parses
 * a fix back out of text.
 *
 * Shape:
 * - {@link RemediationStep} `{ command, comment }`: `command` null is a remark alone; `comment`
 *   null is a bare command. A comment that ends with `:` introduces its command (printed above it).
 * - {@link RemediationCommand} `{ argv, on, then? }`: `argv[0]` is the program; a word may be a
 *   {@link ClusterWord} (liqoctl's `--remote-kubeconfig`, naming a second cluster); `then` chains
 *   more commands on the same line (`| grep …`, `&& …`), each with its own `on`.
 * - {@link RunsOn}: which cluster — see there.
 *
 * Placeholders the user must fill in are words like `<kubeconfig>` or `<public IP>`: printed as
 * they are (never quoted), so they stay visible.
 *
 * Pure data and builders, no imports: the ground floor for checks and judges.
 */

/**
 * Which cluster a command runs against:
 * - `local`: the cluster the result was observed on;
 * - `remote`: the other cluster of a dual run (the peer, from a single run);
 * - `consumer` / `provider`: the peering's consumer or provider, resolved per result from the
 *   peer's role (the ForeignCluster `status.role` describes the REMOTE cluster, liqo/views/peering.ts);
 * - `none`: no cluster (`nc`, `ping`, `dig`, `openssl`, a `grep` filter, `flyingfish` whose own
 *   flags already name its clusters). A `wg` inside `kubectl exec` runs on the exec's cluster.
 */
export type RunsOn = "local" | "remote" | "consumer" | "provider" | "none";

/**
 * A word that names a cluster other than the one the command runs on: liqoctl's
 * `--remote-kubeconfig <file>` (plus `--remote-context <ctx>` when the report knows it).
 */
export interface ClusterWord {
  /** The cluster the `--remote-kubeconfig` flag must name. */
  readonly remoteKubeconfig: RunsOn;
}

/** One word of a command: literal text, or a cluster the report fills in. */
export type Word = string | ClusterWord;

/** A command of a fix: the program's words and the cluster it runs against. */
export interface RemediationCommand {
  /** Program and arguments, one word per entry, unquoted (`["kubectl", "-n", "liqo", "get", "pods"]`). */
  readonly argv: readonly Word[];
  /** Which cluster it runs against (the report adds that cluster's flags after the program). */
  readonly on: RunsOn;
  /** Commands on the same line after this one: `|` filters and `&&` follow-ups. */
  readonly then?: readonly ChainedCommand[];
}

/** A command joined to the previous one by a shell operator. */
export interface ChainedCommand {
  /** `|`: pipe into it; `&&`: run it when the previous one succeeded. */
  readonly op: "|" | "&&";
  /** The command that follows the operator. */
  readonly command: RemediationCommand;
}

/** One step of a fix: a command to run and the comment that annotates it (either may be null). */
export interface RemediationStep {
  /** The command (null: a remark only). */
  readonly command: RemediationCommand | null;
  /** What the command does or when to use it; alone, a remark (null: none). */
  readonly comment: string | null;
}

/** A command of `program` on `on`. */
function program(name: string, on: RunsOn, args: readonly Word[]): RemediationCommand {
  return { argv: [name, ...args], on };
}

/** `kubectl …` against `on`. */
export function kubectl(on: RunsOn, ...args: Word[]): RemediationCommand {
  return program("kubectl", on, args);
}

/** `kubectl -n <namespace> …` against `on`. */
export function kubectlIn(on: RunsOn, namespace: string, ...args: Word[]): RemediationCommand {
  return program("kubectl", on, ["-n", namespace, ...args]);
}

/** `liqoctl …` against `on` (put {@link remoteKubeconfig} where its `--remote-kubeconfig` goes). */
export function liqoctl(on: RunsOn, ...args: Word[]): RemediationCommand {
  return program("liqoctl", on, args);
}

/** `helm …` against `on` (its context flag is `--kube-context`). */
export function helm(on: RunsOn, ...args: Word[]): RemediationCommand {
  return program("helm", on, args);
}

/** `flyingfish …`: on no cluster of its own — its flags (the run's) name the clusters. */
export function flyingfish(...args: string[]): RemediationCommand {
  return program("flyingfish", "none", args);
}

/**
 * `flyingfish <command> …` about cluster `on`: the report puts that cluster's `--kubeconfig` and
 * `--context` after the subcommand (`flyingfish check --kubeconfig k --context c --only GW-05`).
 */
export function flyingfishOn(on: RunsOn, command: string, ...args: string[]): RemediationCommand {
  return program("flyingfish", on, [command, ...args]);
}

/**
 * `flyingfish check --only GW-05 --udp-precise` (a libc socket that sees ICMP refusals, which
 * `nc -u` cannot tell), its `why` followed by the permission it needs: no entry point grants FFI, so
 * a hint that left it out would be an exit 3 for whoever pastes it.
 */
export function preciseUdpStep(why: string): RemediationStep {
  return step(
    flyingfishOn("local", "check", "--only", "GW-05", "--udp-precise"),
    `${why} (needs --allow-ffi, which no entry point grants: \`deno run --allow-ffi … cli/main.ts\`)`,
  );
}

/** Any other program (`nc`, `curl`, `dig`, `grep`, `openssl`…), run on no cluster. */
export function shell(name: string, ...args: string[]): RemediationCommand {
  return program(name, "none", args);
}

/** liqoctl's `--remote-kubeconfig` naming `on` (filled in by the report, a placeholder when unknown). */
export function remoteKubeconfig(on: RunsOn): ClusterWord {
  return { remoteKubeconfig: on };
}

/** `first | filter | …` on one line. */
export function pipe(first: RemediationCommand, ...filters: RemediationCommand[]): RemediationCommand {
  return chain(first, filters.map((command) => ({ op: "|", command })));
}

/** `first && next && …` on one line. */
export function andThen(first: RemediationCommand, ...next: RemediationCommand[]): RemediationCommand {
  return chain(first, next.map((command) => ({ op: "&&", command })));
}

function chain(first: RemediationCommand, more: readonly ChainedCommand[]): RemediationCommand {
  return { ...first, then: [...(first.then ?? []), ...more] };
}

/** A remark alone (no command). */
export function note(text: string): RemediationStep {
  return { command: null, comment: text };
}

/** A command with an optional comment (`comment` ending in `:` introduces it). */
export function step(command: RemediationCommand, comment: string | null = null): RemediationStep {
  return { command, comment };
}

/** What {@link fix} takes: a step, a bare command, a remark, or nothing (skipped). */
export type FixPart = RemediationStep | RemediationCommand | string | null | undefined | false;

function isCommand(p: RemediationStep | RemediationCommand): p is RemediationCommand {
  return "argv" in p;
}

/**
 * A fix from its parts, in order: a string is a remark, a command a bare step; falsy parts are
 * left out (for conditional lines). A remark that ends with `:` followed by a bare command becomes
 * that command's comment (it introduces it).
 */
export function fix(...parts: FixPart[]): RemediationStep[] {
  const steps: RemediationStep[] = [];
  for (const p of parts) {
    if (!p) continue;
    const s = typeof p === "string" ? note(p) : isCommand(p) ? step(p) : p;
    const prev = steps.at(-1);
    if (s.command !== null && s.comment === null && prev?.command === null && prev.comment?.endsWith(":")) {
      steps[steps.length - 1] = { command: s.command, comment: prev.comment };
    } else steps.push(s);
  }
  return steps;
}

/** `steps` without repeats (the first of equal steps stays, in order). */
export function unique(steps: readonly RemediationStep[]): RemediationStep[] {
  const seen = new Set<string>();
  return steps.filter((s) => {
    const key = JSON.stringify(s);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
