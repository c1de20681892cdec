/**
 * `flyingfish completion bash|zsh|fish`: a shell completion script generated from the commander
 * program itself (commands, options, option choices, arguments), so it cannot drift from the CLI.
 * Check IDs (`explain`, `--only`, `--skip`, in any case), layers and demo scenarios (`demo`) are written
 * into the script when it is generated; contexts and peers are asked of kubectl with the kubeconfig
 * (and context) already on the line. `flyingfish __complete <words…>` answers the same in Cobra's
 * protocol, for kubectl's plugin completion (`bin/kubectl_complete-flyingfish`).
 */
import type { Command, Option } from "@commander-js/extra-typings";
import { ToolError } from "../errors.ts";
import { demoTestdata } from "./demo_data.ts";

/** Shells a completion script is generated for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** A shell of {@link SHELLS}. */
export type Shell = typeof SHELLS[number];

/**
 * Candidate values of a command's first argument, by command name (e.g. `explain` → check IDs);
 * under the keys {@link IDS_KEY} and {@link LAYERS_KEY}, what `--only`/`--skip` take.
 */
export type ArgumentValues = Readonly<Record<string, readonly string[]>>;

/** Key of {@link ArgumentValues} holding every check and probe ID (for `--only`/`--skip`). */
export const IDS_KEY = "@ids";
/** Key of {@link ArgumentValues} holding the layer names (for `--only`/`--skip`). */
export const LAYERS_KEY = "@layers";

/** List flags whose values are check IDs or layers (comma-separated). */
const SELECTION_FLAGS: readonly string[] = ["--only", "--skip"];
/** Flags whose values are peers: ForeignCluster names, asked of the cluster. */
const PEER_FLAGS: readonly string[] = ["--peer"];
/** The ForeignClusters kubectl lists for `--peer` (their names are the peers' cluster IDs). */
const FOREIGN_CLUSTERS = "foreignclusters.core.liqo.io";

/** One option as the scripts need it. */
interface OptionSpec {
  long: string | null;
  short: string | null;
  description: string;
  takesValue: boolean;
  choices: readonly string[];
}

/** One subcommand as the scripts need it. */
interface CommandSpec {
  name: string;
  description: string;
  options: OptionSpec[];
  /** Candidates for the first positional argument. */
  args: readonly string[];
}

const HELP: OptionSpec = {
  long: "--help",
  short: "-h",
  description: "display help",
  takesValue: false,
  choices: [],
};

function optionSpec(o: Option): OptionSpec {
  return {
    long: o.long ?? null,
    short: o.short ?? null,
    description: o.description,
    takesValue: o.required || o.optional,
    choices: o.argChoices ?? [],
  };
}

/** The program's visible commands and options, with `help` and `completion` themselves included. */
function specOf(program: Command, values: ArgumentValues): { global: OptionSpec[]; commands: CommandSpec[] } {
  const visible = (cmd: Command): Option[] => cmd.options.filter((o) => !o.hidden) as Option[];
  const commands: CommandSpec[] = program.commands.filter((c) => !c.name().startsWith("_")).map((c) => {
    const first = c.registeredArguments[0];
    return {
      name: c.name(),
      description: c.description(),
      options: [...visible(c as Command).map(optionSpec), HELP],
      args: c.name() === "help"
        ? program.commands.map((x) => x.name()).filter((n) => !n.startsWith("_"))
        : values[c.name()] ?? first?.argChoices ?? [],
    };
  });
  if (!commands.some((c) => c.name === "help")) {
    commands.push({
      name: "help",
      description: "display help for a command",
      options: [],
      args: commands.map((c) => c.name),
    });
  }
  return { global: [...visible(program).map(optionSpec), HELP], commands };
}

/** Flags whose value is a kubeconfig context: completed from `kubectl config get-contexts`. */
const CONTEXT_FLAGS: readonly string[] = ["--context", "--remote-context", "--contexts"];

const flagsOf = (o: OptionSpec): string[] => [o.short, o.long].filter((f): f is string => f !== null);

/** Single-quoted for sh/zsh/fish (`'` closed, escaped, reopened). */
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** First line of a description, without characters the completion syntaxes give meaning to. */
const oneLine = (s: string): string => s.split("\n")[0].replace(/[[\]:]/g, " ").replace(/\s+/g, " ").trim();

/** The sides a context or peer flag is about: `--remote-context` reads `--remote-kubeconfig`. */
const sideOf = (flag: string | null): "local" | "remote" =>
  flag?.startsWith("--remote-") ? "remote" : "local";

function bashScript(name: string, spec: ReturnType<typeof specOf>, values: ArgumentValues): string {
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const ids = (values[IDS_KEY] ?? []).join(" ");
  const layers = (values[LAYERS_KEY] ?? []).join(" ");
  const cases = spec.commands.map((c) => {
    const valueFlags = c.options.filter((o) => o.takesValue);
    const special = (o: OptionSpec) =>
      o.long !== null && [...CONTEXT_FLAGS, ...SELECTION_FLAGS, ...PEER_FLAGS].includes(o.long);
    const contexts = valueFlags.filter((o) => o.long !== null && CONTEXT_FLAGS.includes(o.long));
    const selections = valueFlags.filter((o) => o.long !== null && SELECTION_FLAGS.includes(o.long));
    const peers = valueFlags.filter((o) => o.long !== null && PEER_FLAGS.includes(o.long));
    const files = valueFlags.filter((o) => !o.choices.length && !special(o));
    const choiceCases = [
      ...valueFlags.filter((o) => o.choices.length).map((o) =>
        `        ${flagsOf(o).join("|")}) COMPREPLY=($(compgen -W ${
          q(o.choices.join(" "))
        } -- "$cur")); return ;;`
      ),
      ...contexts.map((o) =>
        `        ${flagsOf(o).join("|")}) COMPREPLY=($(compgen -W "$(${fn}_kube ${
          sideOf(o.long)
        } noctx config get-contexts -o name)" -- "$cur")); return ;;`
      ),
      ...(selections.length
        ? [`        ${selections.flatMap(flagsOf).join("|")}) ${fn}_list ${q(ids)} ${q(layers)}; return ;;`]
        : []),
      ...(peers.length
        ? [
          `        ${
            peers.flatMap(flagsOf).join("|")
          }) ${fn}_list "$(${fn}_kube local ctx get ${FOREIGN_CLUSTERS} -o 'jsonpath={.items[*].metadata.name}')" ''; return ;;`,
        ]
        : []),
      ...(files.length
        ? [`        ${files.flatMap(flagsOf).join("|")}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`]
        : []),
    ];
    const argCase = c.name === "explain"
      ? `        ${fn}_list ${q(c.args.join(" "))} ''`
      : `        COMPREPLY=($(compgen -W ${q(c.args.join(" "))} -- "$cur"))`;
    return [
      `    ${c.name})`,
      `      case "$prev" in`,
      ...choiceCases,
      `      esac`,
      `      if [[ "$cur" == -* ]]; then`,
      `        COMPREPLY=($(compgen -W ${q(c.options.flatMap(flagsOf).join(" "))} -- "$cur"))`,
      `      else`,
      argCase,
      `      fi`,
      `      ;;`,
    ].join("\n");
  });
  return [
    `# bash completion for ${name} (generated by \`${name} completion bash\`)`,
    `# install: ${name} completion bash > ~/.local/share/bash-completion/completions/${name}`,
    `# kubectl with the kubeconfig named on the line: $1 local|remote, $2 ctx (also its context) or noctx.`,
    `${fn}_kube() {`,
    `  local side=$1 withctx=$2 i kc="" ctx="" kflag=--kubeconfig cflag=--context`,
    `  shift 2`,
    `  if [[ $side == remote ]]; then kflag=--remote-kubeconfig; cflag=--remote-context; fi`,
    `  for ((i = 1; i < COMP_CWORD; i++)); do`,
    `    case "\${COMP_WORDS[i]}" in`,
    `      "$kflag") kc="\${COMP_WORDS[i+1]}" ;;`,
    `      "$kflag"=*) kc="\${COMP_WORDS[i]#*=}" ;;`,
    `      "$cflag") ctx="\${COMP_WORDS[i+1]}" ;;`,
    `      "$cflag"=*) ctx="\${COMP_WORDS[i]#*=}" ;;`,
    `    esac`,
    `  done`,
    `  [[ $withctx == ctx ]] || ctx=""`,
    `  kubectl \${kc:+--kubeconfig "$kc"} \${ctx:+--context "$ctx"} "$@" 2>/dev/null`,
    `}`,
    `# A comma-separated list: completes the entry after the last comma. $1: IDs (any case typed), $2: layers.`,
    `${fn}_list() {`,
    `  local pre="" last="$cur"`,
    `  if [[ "$cur" == *,* ]]; then pre="\${cur%,*},"; last="\${cur##*,}"; fi`,
    `  COMPREPLY=($(compgen -P "$pre" -W "$1" -- "\${last^^}") $(compgen -P "$pre" -W "$1 $2" -- "$last"))`,
    `  [[ -n "$2" ]] && COMPREPLY+=($(compgen -P "$pre" -W "$2" -- "\${last,,}"))`,
    `  COMPREPLY=($(printf '%s\\n' "\${COMPREPLY[@]}" | awk 'NF && !seen[$0]++'))`,
    `}`,
    `${fn}() {`,
    `  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i`,
    `  for ((i = 1; i < COMP_CWORD; i++)); do`,
    `    case "\${COMP_WORDS[i]}" in -*) ;; *) cmd="\${COMP_WORDS[i]}"; break ;; esac`,
    `  done`,
    `  case "$cmd" in`,
    `    "")`,
    `      COMPREPLY=($(compgen -W ${
      q([...spec.commands.map((c) => c.name), ...spec.global.flatMap(flagsOf)].join(" "))
    } -- "$cur"))`,
    `      ;;`,
    ...cases,
    `  esac`,
    `}`,
    `complete -F ${fn} ${name}`,
    "",
  ].join("\n");
}

/** The value completions of a flag that are not plain choices nor files, in one shell's syntax. */
interface ValueActions {
  context: (side: "local" | "remote") => string;
  selection: string;
  peer: string;
}

/** What `o` completes with, or null for choices/files (the caller's default). */
function specialAction(o: OptionSpec, actions: ValueActions): string | null {
  if (o.long === null || o.choices.length) return null;
  if (CONTEXT_FLAGS.includes(o.long)) return actions.context(sideOf(o.long));
  if (SELECTION_FLAGS.includes(o.long)) return actions.selection;
  if (PEER_FLAGS.includes(o.long)) return actions.peer;
  return null;
}

function zshActions(fn: string, values: ArgumentValues): ValueActions {
  const list = [...(values[IDS_KEY] ?? []), ...(values[LAYERS_KEY] ?? [])].join(" ");
  return {
    context: (side) => `{compadd -- $(${fn}_kube ${side} noctx config get-contexts -o name)}`,
    selection: `{${fn}_list ${list}}`,
    peer:
      `{${fn}_list $(${fn}_kube local ctx get ${FOREIGN_CLUSTERS} -o 'jsonpath={.items[*].metadata.name}')}`,
  };
}

function zshOption(o: OptionSpec, actions: ValueActions): string {
  const desc = oneLine(o.description);
  const action = o.choices.length ? `(${o.choices.join(" ")})` : specialAction(o, actions) ?? "_files";
  const value = o.takesValue ? `:${o.long?.slice(2) ?? "value"}:${action}` : "";
  const flags = flagsOf(o);
  if (flags.length === 1) return q(`${flags[0]}[${desc}]${value}`);
  // '(-o --output)'{-o,--output}'[output format]:output:(text json)': the braces expand unquoted.
  return `${q(`(${flags.join(" ")})`)}{${flags.join(",")}}${q(`[${desc}]${value}`)}`;
}

function zshScript(name: string, spec: ReturnType<typeof specOf>, values: ArgumentValues): string {
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const actions = zshActions(fn, values);
  const cases = spec.commands.map((c) => {
    const arg = !c.args.length
      ? []
      : c.name === "explain"
      ? [q(`1:argument:{${fn}_list ${c.args.join(" ")}}`)]
      : [`'1:argument:(${c.args.join(" ")})'`];
    return [
      `    ${c.name})`,
      `      _arguments -s \\`,
      ...[...c.options.map((o) => zshOption(o, actions)), ...arg].map((l) => `        ${l} \\`),
      `        '*:file:_files'`,
      `      ;;`,
    ].join("\n");
  });
  return [
    `#compdef ${name}`,
    `# zsh completion for ${name} (generated by \`${name} completion zsh\`)`,
    `# install: ${name} completion zsh > "\${fpath[1]}/_${name}"  (or: source <(${name} completion zsh))`,
    `# kubectl with the kubeconfig named on the line: $1 local|remote, $2 ctx (also its context) or noctx.`,
    `${fn}_kube() {`,
    `  local side=$1 withctx=$2 kflag=--kubeconfig cflag=--context i`,
    `  local -a a`,
    `  shift 2`,
    `  if [[ $side == remote ]]; then kflag=--remote-kubeconfig; cflag=--remote-context; fi`,
    `  for ((i = 1; i < CURRENT; i++)); do`,
    `    case "\${words[i]}" in`,
    `      ($kflag) a+=(--kubeconfig "\${words[i+1]}") ;;`,
    `      ($kflag=*) a+=(--kubeconfig "\${words[i]#*=}") ;;`,
    `      ($cflag) [[ $withctx == ctx ]] && a+=(--context "\${words[i+1]}") ;;`,
    `      ($cflag=*) [[ $withctx == ctx ]] && a+=(--context "\${words[i]#*=}") ;;`,
    `    esac`,
    `  done`,
    `  kubectl "\${a[@]}" "$@" 2>/dev/null`,
    `}`,
    `# A comma-separated list of IDs (any case typed) and layers: completes the entry after the last comma.`,
    `${fn}_list() {`,
    `  compset -P '*,'`,
    `  compadd -M 'm:{a-z}={A-Z}' -- "$@"`,
    `}`,
    `${fn}() {`,
    `  local -a commands`,
    `  commands=(`,
    ...spec.commands.map((c) => `    ${q(`${c.name}:${oneLine(c.description)}`)}`),
    `  )`,
    `  if (( CURRENT == 2 )); then`,
    `    _describe -t commands 'command' commands`,
    `    _arguments ${spec.global.map((o) => zshOption(o, actions)).join(" ")}`,
    `    return`,
    `  fi`,
    `  shift words; (( CURRENT-- ))`,
    `  case "\${words[1]}" in`,
    ...cases,
    `  esac`,
    `}`,
    `if [ "$funcstack[1]" = "${fn}" ]; then ${fn} "$@"; else compdef ${fn} ${name}; fi`,
    "",
  ].join("\n");
}

function fishScript(name: string, spec: ReturnType<typeof specOf>, values: ArgumentValues): string {
  const names = spec.commands.map((c) => c.name).join(" ");
  const fn = `__${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const list = [...(values[IDS_KEY] ?? []), ...(values[LAYERS_KEY] ?? [])].join(" ");
  const actions: ValueActions = {
    context: (side) => `(${fn}_kube ${side} noctx config get-contexts -o name)`,
    selection: `(${fn}_list ${list})`,
    peer:
      `(${fn}_list (${fn}_kube local ctx get ${FOREIGN_CLUSTERS} -o 'jsonpath={.items[*].metadata.name}' | string split ' '))`,
  };
  const lines = [
    `# fish completion for ${name} (generated by \`${name} completion fish\`)`,
    `# install: ${name} completion fish > ~/.config/fish/completions/${name}.fish`,
    `# kubectl with the kubeconfig named on the line: $argv[1] local|remote, $argv[2] ctx (also its context) or noctx.`,
    `function ${fn}_kube`,
    `    set -l kflag --kubeconfig; set -l cflag --context; set -l withctx $argv[2]`,
    `    if test "$argv[1]" = remote; set kflag --remote-kubeconfig; set cflag --remote-context; end`,
    `    set -e argv[1..2]`,
    `    set -l words (commandline -opc); set -l a`,
    `    for i in (seq (count $words))`,
    `        set -l next (math $i + 1)`,
    `        switch $words[$i]`,
    `            case $kflag; set -a a --kubeconfig $words[$next]`,
    `            case "$kflag=*"; set -a a --kubeconfig (string replace -r '^[^=]*=' '' -- $words[$i])`,
    `            case $cflag; test $withctx = ctx; and set -a a --context $words[$next]`,
    `            case "$cflag=*"; test $withctx = ctx; and set -a a --context (string replace -r '^[^=]*=' '' -- $words[$i])`,
    `        end`,
    `    end`,
    `    kubectl $a $argv 2>/dev/null`,
    `end`,
    `# A comma-separated list: each value after what is typed up to the last comma.`,
    `function ${fn}_list`,
    `    set -l pre (string match -r '^.*,' -- (commandline -ct))`,
    `    for v in $argv; echo "$pre$v"; end`,
    `end`,
    `complete -c ${name} -f`,
    ...spec.commands.map((c) =>
      `complete -c ${name} -n ${q(`not __fish_seen_subcommand_from ${names}`)} -a ${c.name} -d ${
        q(oneLine(c.description))
      }`
    ),
  ];
  const fishOption = (cond: string, o: OptionSpec): string => {
    const parts = [`complete -c ${name} -n ${q(cond)}`];
    if (o.short) parts.push(`-s ${o.short.slice(1)}`);
    if (o.long) parts.push(`-l ${o.long.slice(2)}`);
    if (o.takesValue) {
      parts.push(
        o.choices.length
          ? `-x -a ${q(o.choices.join(" "))}`
          : specialAction(o, actions) !== null
          ? `-x -a ${q(specialAction(o, actions)!)}`
          : "-r -F",
      );
    }
    parts.push(`-d ${q(oneLine(o.description))}`);
    return parts.join(" ");
  };
  for (const o of spec.global) lines.push(fishOption(`not __fish_seen_subcommand_from ${names}`, o));
  for (const c of spec.commands) {
    const cond = `__fish_seen_subcommand_from ${c.name}`;
    if (c.args.length) lines.push(`complete -c ${name} -n ${q(cond)} -a ${q(c.args.join(" "))}`);
    for (const o of c.options) lines.push(fishOption(cond, o));
  }
  return lines.join("\n") + "\n";
}

/** The completion script of `program` for `shell` (a tool error for an unknown shell). */
export function completionScript(program: Command, shell: string, values: ArgumentValues = {}): string {
  const spec = specOf(program, { completion: SHELLS, ...values });
  const name = program.name();
  switch (shell) {
    case "bash":
      return bashScript(name, spec, values);
    case "zsh":
      return zshScript(name, spec, values);
    case "fish":
      return fishScript(name, spec, values);
    default:
      throw new ToolError(`no completion for shell "${shell}" (choose one of: ${SHELLS.join(", ")})`);
  }
}

/**
 * The values written into the script: check and probe IDs for `explain`, scenario names for `demo`,
 * probe names for `probe`.
 */
export async function argumentValues(): Promise<ArgumentValues> {
  const [{ ALL_CHECKS, PROBE_NAMES }, { listScenarios, useTestdata }] = await Promise.all([
    import("../active/mod.ts"),
    import("@flyingfish/fakekube"),
  ]);
  useTestdata(demoTestdata());
  const scenarios = await listScenarios().catch(() => [] as string[]);
  const { LAYERS } = await import("../checks/types.ts");
  return {
    // check's catalog and preflight's (PF-*): explain knows both, --only/--skip take either's.
    explain: ALL_CHECKS.map((c) => c.id),
    demo: scenarios,
    probe: [...PROBE_NAMES, "all"],
    [IDS_KEY]: ALL_CHECKS.map((c) => c.id),
    [LAYERS_KEY]: [...LAYERS],
  };
}

/** Prints the completion script of `program` for `shell`. */
export async function printCompletion(program: Command, shell: string): Promise<void> {
  const script = completionScript(program, shell, await argumentValues());
  await Deno.stdout.write(new TextEncoder().encode(script));
}

/** Cobra's ShellCompDirective values kubectl's plugin completion understands. */
const DIRECTIVE = { default: 0, noFileComp: 4 } as const;

/** Runs kubectl with `args` and returns its stdout words (none when it fails or may not run). */
export type KubectlWords = (args: string[]) => Promise<string[]>;

/** kubectl through Deno (needs `--allow-run=kubectl`; without it, or on any failure, no words). */
const runKubectl: KubectlWords = async (args) => {
  try {
    const out = await new Deno.Command("kubectl", { args, stdout: "piped", stderr: "null", stdin: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout).split(/\s+/).filter(Boolean) : [];
  } catch {
    return [];
  }
};

/** The kubeconfig (and context) flags of `side` typed in `words`, as kubectl flags. */
function kubeFlags(words: readonly string[], side: "local" | "remote", withContext: boolean): string[] {
  const kflag = side === "remote" ? "--remote-kubeconfig" : "--kubeconfig";
  const cflag = side === "remote" ? "--remote-context" : "--context";
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const value = w === kflag || w === cflag
      ? words[i + 1]
      : w.startsWith(`${kflag}=`) || w.startsWith(`${cflag}=`)
      ? w.slice(w.indexOf("=") + 1)
      : undefined;
    if (value === undefined) continue;
    if (w.startsWith(kflag)) out.push("--kubeconfig", value);
    else if (withContext) out.push("--context", value);
  }
  return out;
}

/** The entries of a comma-separated list value matching its last entry (case ignored), after the rest. */
function listCandidates(cur: string, values: readonly string[]): string[] {
  const cut = cur.lastIndexOf(",");
  const pre = cur.slice(0, cut + 1);
  const last = cur.slice(cut + 1).toLowerCase();
  return values.filter((v) => v.toLowerCase().startsWith(last)).map((v) => pre + v);
}

/**
 * `flyingfish __complete <words…>` (the last word is the one being completed, maybe empty): the
 * candidates in Cobra's protocol — one per line, then `:<directive>` — which kubectl (≥1.26) reads
 * from `kubectl_complete-flyingfish` for `kubectl flyingfish <TAB>`.
 */
export async function completeWords(
  program: Command,
  words: readonly string[],
  values: ArgumentValues,
  kubectl: KubectlWords = runKubectl,
): Promise<{ items: string[]; directive: number }> {
  const spec = specOf(program, { completion: SHELLS, ...values });
  const cur = words.at(-1) ?? "";
  const typed = words.slice(0, -1);
  const done = (items: readonly string[], directive: number = DIRECTIVE.noFileComp) => ({
    items: [...new Set(items)],
    directive,
  });
  const starts = (xs: readonly string[], p: string) => xs.filter((x) => x.startsWith(p));
  const cmd = spec.commands.find((c) => c.name === typed.find((w) => !w.startsWith("-")));
  if (!cmd) {
    return done(
      starts(cur.startsWith("-") ? spec.global.flatMap(flagsOf) : spec.commands.map((c) => c.name), cur),
    );
  }
  // `--flag=value` is completed like `--flag value`, the candidates keeping the `--flag=`.
  const eq = cur.startsWith("--") ? cur.indexOf("=") : -1;
  const flag = eq > 0 ? cur.slice(0, eq) : typed.at(-1) ?? "";
  const value = eq > 0 ? cur.slice(eq + 1) : cur;
  const lead = eq > 0 ? cur.slice(0, eq + 1) : "";
  const opt = cmd.options.find((o) => o.takesValue && flagsOf(o).includes(flag));
  if (opt && (eq > 0 || !cur.startsWith("-") || cur === "")) {
    const long = opt.long ?? "";
    let items: string[] | null = null;
    if (opt.choices.length) items = starts([...opt.choices], value);
    else if (CONTEXT_FLAGS.includes(long)) {
      items = starts(
        await kubectl([...kubeFlags(typed, sideOf(long), false), "config", "get-contexts", "-o", "name"]),
        value,
      );
    } else if (SELECTION_FLAGS.includes(long)) {
      items = listCandidates(value, [...(values[IDS_KEY] ?? []), ...(values[LAYERS_KEY] ?? [])]);
    } else if (PEER_FLAGS.includes(long)) {
      const peers = await kubectl([
        ...kubeFlags(typed, "local", true),
        "get",
        FOREIGN_CLUSTERS,
        "-o",
        "jsonpath={.items[*].metadata.name}",
      ]);
      items = listCandidates(value, peers);
    }
    // Any other value (a kubeconfig, a bundle, a file to write): the shell's file completion.
    return items === null ? done([], DIRECTIVE.default) : done(items.map((i) => lead + i));
  }
  if (cur.startsWith("-")) return done(starts(cmd.options.flatMap(flagsOf), cur));
  return done(
    cmd.name === "explain"
      ? listCandidates(cur, cmd.args).filter((v) => !v.includes(","))
      : starts([...cmd.args], cur),
  );
}

/** Prints {@link completeWords} for `words` in Cobra's protocol. */
export async function printCompletions(program: Command, words: readonly string[]): Promise<void> {
  const { items, directive } = await completeWords(program, words, await argumentValues());
  await Deno.stdout.write(new TextEncoder().encode([...items, `:${directive}`].join("\n") + "\n"));
}
