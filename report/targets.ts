/**
 * Naming the cluster a command runs against. A check says where each command runs (`on`:
 * local, remote, consumer, provider, none — checks/remediation.ts); this module turns that into the
 * cluster of the report and its flags from how the user ran FlyingFish: `--kubeconfig/--context`
 * (helm: `--kube-context`) after the program, liqoctl's `--remote-kubeconfig/--remote-context` for
 * the second cluster, a `<consumer kubeconfig>` placeholder for a cluster not in the run. Then it
 * prints the words, quoted by the one shell-quoting function. Pure, no I/O; nothing is parsed.
 */
import { shellQuote } from "../kube/rerun.ts";
import type { RemediationCommand, RunsOn, Word } from "../checks/remediation.ts";

/** How one cluster of the report is reached: its kubeconfig file (null: the default one) and context. */
export interface ClusterAccess {
  /** Report name of the cluster (the cluster ID when known, else the context). */
  name: string;
  clusterId: string | null;
  /** The kubeconfig context (from a snapshot: the context recorded at capture; "" when unknown). */
  context: string;
  /** The kubeconfig file the user named (null: the default kubeconfig, a snapshot, or not recorded). */
  kubeconfig: string | null;
}

/** A peer as the report lists it: who holds the ForeignCluster, whom it describes, its role. */
export interface PeerRole {
  /** Cluster that holds the ForeignCluster. */
  cluster: string;
  /** The remote cluster ID (spec.clusterID). */
  clusterId: string;
  /** ForeignCluster `status.role`: the role of the REMOTE cluster (liqo/views/peering.ts). */
  role: string;
}

/** What the report knows for targeting: the clusters of the run, the peers, whether the invocation is known. */
export interface Targeting {
  /** Every cluster of the run. */
  clusters: readonly ClusterAccess[];
  peers: readonly PeerRole[];
  /**
   * The invocation is recorded: every command names its cluster (also the one it was observed on).
   * Without it (a library call) a command on the observed cluster stays bare.
   */
  invoked: boolean;
}

/** Where a result was observed (`cluster`: its name, "A ↔ B" for both ends) and about which peer. */
export interface Where {
  cluster: string;
  peer: string | null;
}

/**
 * The cluster a command runs against: one of the run (`home`: the one the result was observed on),
 * one outside the run (`absent`, named by its part in the peering), or none (no flags).
 */
export type Target =
  | { kind: "cluster"; cluster: ClusterAccess; home: boolean }
  | { kind: "absent"; label: string }
  | { kind: "none" };

/** Separator of the two cluster names of a result that compares both ends ("A ↔ B"). */
const BOTH = " ↔ ";

/** The cluster `ref` names: by report name, cluster ID or context. */
export function findCluster(clusters: readonly ClusterAccess[], ref: string): ClusterAccess | undefined {
  return clusters.find((c) => c.name === ref) ?? clusters.find((c) => c.clusterId === ref) ??
    clusters.find((c) => c.context === ref);
}

/**
 * Which end of the peering the observed cluster is, from the peer's ForeignCluster role (it
 * describes the peer): a Provider peer makes home the consumer, a Consumer peer the provider; a
 * peering both ways lets home play either part. Null when it cannot be told.
 */
function homeIs(
  where: Where,
  home: string,
  peers: readonly PeerRole[],
): "consumer" | "provider" | "both" | null {
  if (where.peer === null) return null;
  const role = peers.find((p) => p.cluster === home && p.clusterId === where.peer)?.role;
  if (role === "Provider") return "consumer";
  if (role === "Consumer") return "provider";
  return role === "ConsumerAndProvider" ? "both" : null;
}

/** The other cluster of the result: its peer, the second end of "A ↔ B", or the run's only other cluster. */
function otherCluster(
  where: Where,
  home: ClusterAccess | undefined,
  t: Targeting,
): ClusterAccess | undefined {
  if (where.peer !== null) return t.clusters.find((c) => c.clusterId === where.peer || c.name === where.peer);
  const second = where.cluster.split(BOTH)[1];
  if (second !== undefined) return findCluster(t.clusters, second);
  const others = t.clusters.filter((c) => c !== home);
  return others.length === 1 ? others[0] : undefined;
}

/** The cluster `on` names for a result observed at `where`. */
export function targetOf(on: RunsOn, where: Where, t: Targeting): Target {
  if (on === "none") return { kind: "none" };
  const homeName = where.cluster.split(BOTH)[0];
  const home = findCluster(t.clusters, homeName);
  const atHome = (): Target => (home ? { kind: "cluster", cluster: home, home: true } : { kind: "none" });
  const atOther = (label: string): Target => {
    const c = otherCluster(where, home, t);
    return c ? { kind: "cluster", cluster: c, home: false } : { kind: "absent", label };
  };
  if (on === "local") return atHome();
  // Outside the run the other cluster is named by its cluster ID when the result is about a peer.
  if (on === "remote") return atOther(where.peer ?? "remote");
  const part = homeIs(where, homeName, t.peers);
  if (part === null) return { kind: "absent", label: on };
  // A peering both ways: home consumes, the peer provides (liqoctl runs where it stands).
  if (part === "both") return on === "consumer" ? atHome() : atOther(on);
  return part === on ? atHome() : atOther(on);
}

/** The flags that select `target` for `program` (helm names the context `--kube-context`). */
export function clusterFlags(program: string, target: Target, invoked: boolean): string[] {
  if (target.kind === "none") return [];
  if (target.kind === "absent") return ["--kubeconfig", `<${target.label} kubeconfig>`];
  const c = target.cluster;
  if (!invoked && target.home) return [];
  const kubeconfig = invoked && c.kubeconfig !== null ? ["--kubeconfig", c.kubeconfig] : [];
  return c.context
    ? [...kubeconfig, program === "helm" ? "--kube-context" : "--context", c.context]
    : kubeconfig;
}

/**
 * liqoctl's `--remote-kubeconfig` for `target`: the file and context the user named for it, else a
 * placeholder naming the cluster (the context alongside when the run named one).
 */
export function remoteFlags(target: Target, invoked: boolean): string[] {
  if (target.kind === "none") return ["--remote-kubeconfig", "<kubeconfig>"];
  if (target.kind === "absent") return ["--remote-kubeconfig", `<${target.label} kubeconfig>`];
  const c = target.cluster;
  const file = invoked && c.kubeconfig !== null ? c.kubeconfig : `<${c.name} kubeconfig>`;
  return invoked && c.context ? ["--remote-kubeconfig", file, "--remote-context", c.context] : [
    "--remote-kubeconfig",
    file,
  ];
}

/** Where each `on` of a command lands: resolves a cluster, or is unknown (no flags, placeholders). */
export type Resolve = (on: RunsOn) => Target;

/** Prints one word: a `<placeholder>` as it is (the user fills it in), anything else shell-quoted. */
export function printWord(word: string): string {
  return /<[^<>]+>/.test(word) && !word.includes("'") ? word : shellQuote(word);
}

/**
 * The words of one command with its cluster's flags after the program (after `flyingfish`'s
 * subcommand: its cluster flags belong to the subcommand) and its cluster words expanded.
 */
export function commandWords(cmd: RemediationCommand, resolve: Resolve, invoked: boolean): string[] {
  const [program, ...rest] = cmd.argv;
  const name = typeof program === "string" ? program : "";
  const expand = (w: Word): string[] =>
    typeof w === "string" ? [w] : remoteFlags(resolve(w.remoteKubeconfig), invoked);
  const flags = clusterFlags(name, resolve(cmd.on), invoked);
  if (name === "flyingfish" && flags.length && rest.length) {
    return [name, ...expand(rest[0]), ...flags, ...rest.slice(1).flatMap(expand)];
  }
  return [name, ...flags, ...rest.flatMap(expand)];
}

/** The shell line of a command and what is chained to it (`|`, `&&`), every cluster named. */
export function commandLine(cmd: RemediationCommand, resolve: Resolve, invoked: boolean): string {
  const one = (c: RemediationCommand) => commandWords(c, resolve, invoked).map(printWord).join(" ");
  return [one(cmd), ...(cmd.then ?? []).map((t) => `${t.op} ${one(t.command)}`)].join(" ");
}

/** The resolver of a result observed at `where`. */
export function resolverFor(where: Where, t: Targeting): Resolve {
  return (on) => targetOf(on, where, t);
}

/**
 * A cheat sheet command (`kubectl --context <ctx> …` or `flyingfish probe <name> --context <ctx> …`, as
 * report/cheatsheet.ts writes them) with the kubeconfig file the user named for that context added
 * before `--context`.
 */
export function withKubeconfig(command: string, clusters: readonly ClusterAccess[]): string {
  for (const c of clusters) {
    if (c.kubeconfig === null || !c.context) continue;
    const flag = ` --context ${c.context} `;
    const at = command.indexOf(flag);
    const head = at < 0 ? "" : command.slice(0, at);
    if (head === "kubectl" || /^flyingfish probe [a-z]+$/.test(head)) {
      return `${head} --kubeconfig ${shellQuote(c.kubeconfig)}${command.slice(at)}`;
    }
  }
  return command;
}
