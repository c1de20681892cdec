/**
 * What one side of a diff holds besides its report: per cluster, the objects the run read (redacted
 * like `collect`) and the last `wg show` sample of each gateway pod. Built from a bundle's files
 * ({@link captureFromBundle}) or recorded while a run reads a live cluster ({@link recordingSource}),
 * so a bundle and a live read are compared alike, and `watch`/`serve` can keep the last healthy
 * round's.
 */
import type { ClusterSource, ExecOutcome, K8sObject, ListOutcome } from "../kube/source.ts";
import { KIND_IDS, type KindId, KINDS, type KindSpec } from "../kube/kinds.ts";
import {
  BUNDLE_ROOT,
  ExecRecordSchema,
  layout,
  ListFileSchema,
  type Manifest,
  type ManifestCluster,
  readJson,
} from "../kube/bundle.ts";
import { redactObject, redactWgDump } from "../collect/redact.ts";
import type { Report } from "../report/model.ts";

/** Bound of the objects kept per kind and cluster (a capture stays small enough to keep in memory). */
export const MAX_OBJECTS_PER_KIND = 5000;

/** The objects and WireGuard readings of one cluster of a side. */
export interface ClusterCapture {
  role: "local" | "remote";
  /** Display name (the report's cluster name). */
  name: string;
  /** Objects per kind read (redacted). */
  lists: Partial<Record<KindId, K8sObject[]>>;
  /** Kinds that could not be read, with why. */
  unreadable: Partial<Record<KindId, string>>;
  /** `namespace/pod` → the last `wg show all dump` output (private keys redacted). */
  wg: Record<string, string>;
  /** Kinds cut at {@link MAX_OBJECTS_PER_KIND}. */
  truncated: KindId[];
}

/** One side of a diff: its report and what it read. */
export interface SideCapture {
  /** What the user named (bundle path, `live:<context>`, `round <n>`). */
  label: string;
  mode: "snapshot" | "live";
  report: Report;
  clusters: ClusterCapture[];
  /** True when the side's IPv4 addresses were pseudonymised (`collect --redact-ips`): they do not compare. */
  ipsPseudonymised?: boolean;
}

function kindIdOf(spec: KindSpec): KindId | null {
  return KIND_IDS.find((k) => KINDS[k].group === spec.group && KINDS[k].plural === spec.plural) ?? null;
}

const keyOf = (o: K8sObject): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** A recorder of what a run reads through one source. */
export interface Recorder {
  /** The source to run on: lists and execs pass through, recorded. */
  readonly source: ClusterSource;
  /** What was read since the last {@link Recorder.reset} (redacted). */
  capture(role: "local" | "remote", name: string): ClusterCapture;
  /** Forgets what was read (a new round). */
  reset(): void;
}

/**
 * Wraps `source` so that every list and `wg show` exec is kept (merged per kind: scoped lists of one
 * kind add up), redacted on the way in with collect's rules; the rest of the source is untouched.
 */
export function recordingSource(source: ClusterSource): Recorder {
  let lists = new Map<KindId, Map<string, K8sObject>>();
  let unreadable = new Map<KindId, string>();
  let wg = new Map<string, string>();
  let truncated = new Set<KindId>();
  // A plain object of the interface only (never a prototype of `source`: its methods keep their receiver).
  const wrapped: ClusterSource = {
    endpoint: source.endpoint,
    now: () => source.now(),
    isSnapshot: source.isSnapshot,
    async list(...args: Parameters<ClusterSource["list"]>): Promise<ListOutcome> {
      const out = await source.list(...args);
      const id = kindIdOf(args[0]);
      if (id === null) return out;
      if (!out.ok) {
        if (!lists.has(id)) unreadable.set(id, `${out.reason}: ${out.message}`);
        return out;
      }
      unreadable.delete(id);
      let kept = lists.get(id);
      if (!kept) lists.set(id, kept = new Map());
      for (const o of out.items) {
        if (kept.size >= MAX_OBJECTS_PER_KIND) {
          truncated.add(id);
          break;
        }
        kept.set(keyOf(o), redactObject(structuredClone(o)));
      }
      return out;
    },
    async exec(...args: Parameters<ClusterSource["exec"]>): Promise<ExecOutcome> {
      const out = await source.exec(...args);
      const [namespace, pod, , command] = args;
      if (out.ok && command[0] === "wg" && command.includes("dump")) {
        wg.set(`${namespace}/${pod}`, redactWgDump(out.stdout).text);
      }
      return out;
    },
    discovery: (g: Parameters<ClusterSource["discovery"]>[0]) => source.discovery(g),
    close: () => source.close(),
  };
  if (source.logs) wrapped.logs = source.logs.bind(source);
  if (source.probeReachable) wrapped.probeReachable = source.probeReachable.bind(source);
  return {
    source: wrapped,
    capture: (role, name) => ({
      role,
      name,
      lists: Object.fromEntries([...lists].map(([k, m]) => [k, [...m.values()]])),
      unreadable: Object.fromEntries(unreadable),
      wg: Object.fromEntries(wg),
      truncated: [...truncated],
    }),
    reset() {
      lists = new Map();
      unreadable = new Map();
      wg = new Map();
      truncated = new Set();
    },
  };
}

/** The clusters captured in a bundle (already redacted by `collect`), named as `report` names them. */
export function captureFromBundle(
  files: Map<string, Uint8Array>,
  manifest: Manifest,
  report: Report,
): ClusterCapture[] {
  return manifest.clusters.filter((c) => !c.error).map((c) =>
    captureOfEntry(files, c, report.clusters.find((r) => r.role === c.role)?.name ?? c.context)
  );
}

/** One captured cluster of a bundle (a fleet bundle holds many), named `name`. */
export function captureOfEntry(
  files: Map<string, Uint8Array>,
  c: ManifestCluster,
  name: string,
): ClusterCapture {
  const lists: ClusterCapture["lists"] = {};
  const unreadable: ClusterCapture["unreadable"] = {};
  for (const id of KIND_IDS) {
    const path = layout.list(c.name, id);
    if (!files.has(path)) continue;
    try {
      const stored = readJson(files, path, ListFileSchema);
      if (stored.ok) lists[id] = (stored.items as K8sObject[]).slice(0, MAX_OBJECTS_PER_KIND);
      else unreadable[id] = `${stored.reason}: ${stored.message}`;
    } catch (err) {
      unreadable[id] = err instanceof Error ? err.message : String(err);
    }
  }
  const wg: Record<string, string> = {};
  for (const e of c.exec) {
    if (!e.what.startsWith("wg ") || !e.what.includes("dump") || !e.file) continue;
    try {
      const rec = readJson(files, `${BUNDLE_ROOT}/${e.file}`, ExecRecordSchema);
      const last = [...rec.runs].reverse().find((r) => r.ok);
      if (last && last.ok) wg[`${e.namespace}/${e.pod}`] = last.stdout;
    } catch {
      // an unreadable record: no reading for that pod
    }
  }
  return { role: c.role, name, lists, unreadable, wg, truncated: [] };
}
