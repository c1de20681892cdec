/**
 * Naming the cluster a command runs against: `kubectl`, `liqoctl` and `helm` command lines get the
 * `--kubeconfig`/`--context` (helm: `--kube-context`) the user named the cluster with, so a fix
 * pasted from a dual-mode report cannot land on the other cluster. Pure string work, no I/O.
 */

/** How one cluster of the report is reached: its kubeconfig file (null: the default one) and context. */
export interface ClusterAccess {
  /** Report name of the cluster (the cluster ID when known, else the context). */
  name: string;
  clusterId: string | null;
  /** The kubeconfig context (from a snapshot: the context recorded at capture). */
  context: string;
  /** The kubeconfig file the user named (null: the default kubeconfig, or a snapshot). */
  kubeconfig: string | null;
}

/** Where a command must run: a known cluster, or a cluster only named (`--context <milan>`). */
export type CommandTarget =
  | { kind: "cluster"; cluster: ClusterAccess }
  | { kind: "named"; name: string };

const PROGRAMS = ["kubectl", "liqoctl", "helm"] as const;
type Program = typeof PROGRAMS[number];

/** Quotes `s` for a POSIX shell when it needs it. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./~-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The cluster `ref` names: by report name, cluster ID or context. */
export function findCluster(clusters: readonly ClusterAccess[], ref: string): ClusterAccess | undefined {
  return clusters.find((c) => c.name === ref) ?? clusters.find((c) => c.clusterId === ref) ??
    clusters.find((c) => c.context === ref);
}

/** The flags that select `target` for `program`. */
export function clusterFlags(program: Program, target: CommandTarget): string[] {
  const ctxFlag = program === "helm" ? "--kube-context" : "--context";
  if (target.kind === "named") return [ctxFlag, `<${target.name}>`];
  const c = target.cluster;
  const flags = c.kubeconfig !== null ? ["--kubeconfig", shellQuote(c.kubeconfig)] : [];
  return c.context ? [...flags, ctxFlag, shellQuote(c.context)] : flags;
}

/**
 * The top-level simple commands of a shell line: [start, end) of each segment between `|`, `||`,
 * `&&` and `;` outside quotes.
 */
export function shellSegments(line: string): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"') i++;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\") i++;
    else if (ch === ";" || ch === "|" || (ch === "&" && line[i + 1] === "&")) {
      out.push([start, i]);
      if ((ch === "|" && line[i + 1] === "|") || ch === "&") i++;
      start = i + 1;
    }
  }
  out.push([start, line.length]);
  return out;
}

const VALUE = String.raw`(<[^>]*>|'[^']*'|"[^"]*"|[^\s;|&]+)`;

function flagValue(segment: string, flag: string): { value: string; match: RegExpExecArray } | null {
  const m = new RegExp(String.raw`(^|\s)${flag}(?:=|\s+)${VALUE}`).exec(segment);
  return m ? { value: m[2], match: m } : null;
}

/** Rewrites one simple command (`segment`); returns it unchanged when it is not ours to touch. */
function retargetSegment(
  segment: string,
  target: CommandTarget | null,
  clusters: readonly ClusterAccess[],
): string {
  const lead = /^\s*/.exec(segment)![0];
  const program = /^([a-z]+)(?=\s|$)/.exec(segment.slice(lead.length))?.[1] as Program | undefined;
  if (!program || !PROGRAMS.includes(program)) return segment;
  const head = lead + program;
  let rest = segment.slice(head.length);
  const ctxFlag = program === "helm" ? "--kube-context" : "--context";
  const hasKubeconfig = flagValue(rest, "--kubeconfig") !== null;
  const ctx = flagValue(rest, ctxFlag);
  let own: CommandTarget | null = target;
  if (ctx) {
    // The command already names its cluster: fill a `<placeholder>` we can resolve, and add the
    // kubeconfig the user named for that context; the flags move next to the program name.
    const placeholder = ctx.value.startsWith("<");
    const c = findCluster(clusters, placeholder ? ctx.value.slice(1, -1).trim() : ctx.value);
    if (!c || (!placeholder && (hasKubeconfig || c.kubeconfig === null))) return segment;
    rest = rest.slice(0, ctx.match.index) + rest.slice(ctx.match.index + ctx.match[0].length);
    own = { kind: "cluster", cluster: hasKubeconfig ? { ...c, kubeconfig: null } : c };
  } else if (hasKubeconfig || !own) {
    return segment;
  }
  if (program === "liqoctl" && own.kind === "cluster") {
    rest = fillRemoteKubeconfig(rest, own.cluster, clusters);
  }
  const flags = clusterFlags(program, own);
  if (!flags.length) return segment;
  return `${head} ${flags.join(" ")}${rest}`;
}

/**
 * `liqoctl … --remote-kubeconfig <placeholder>`: in dual mode the other end is known — name its
 * kubeconfig and context (only when the user named a kubeconfig file for it).
 */
function fillRemoteKubeconfig(rest: string, self: ClusterAccess, clusters: readonly ClusterAccess[]): string {
  const m = flagValue(rest, "--remote-kubeconfig");
  if (!m || !m.value.startsWith("<")) return rest;
  const others = clusters.filter((c) => c.name !== self.name && c.context !== "");
  const words = m.value.slice(1, -1).split(/\s+/);
  const other = words.map((w) => findCluster(others, w)).find((c) => c) ??
    (others.length === 1 ? others[0] : undefined);
  if (!other || other.kubeconfig === null || flagValue(rest, "--remote-context")) return rest;
  const at = m.match.index + m.match[0].length;
  return rest.slice(0, m.match.index) +
    `${m.match[1]}--remote-kubeconfig ${shellQuote(other.kubeconfig)} --remote-context ${
      shellQuote(other.context)
    }` + rest.slice(at);
}

/**
 * `command` with every `kubectl`/`liqoctl`/`helm` simple command in it (pipes, `&&`, `;`) naming
 * its cluster: the target's flags go right after the program name. A command that already names
 * a context keeps it (a `--context <name>` placeholder of a known cluster is filled in, and the
 * kubeconfig of a known context is added); one that names a kubeconfig is left alone. With a null
 * target only those explicit contexts are completed.
 */
export function retarget(
  command: string,
  target: CommandTarget | null,
  clusters: readonly ClusterAccess[],
): string {
  const segments = shellSegments(command);
  let out = "";
  let at = 0;
  for (const [start, end] of segments) {
    out += command.slice(at, start) + retargetSegment(command.slice(start, end), target, clusters);
    at = end;
  }
  return out + command.slice(at);
}
