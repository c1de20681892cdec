/**
 * `flyingfish version`: FlyingFish, Deno and the git commit it was built from; with `--kubeconfig`
 * or `--context`, also the cluster's Kubernetes server version (GET /version) and its Liqo version
 * (the controller-manager image tag). Without cluster flags nothing heavy is imported, so it stays
 * as fast as `--help`.
 */
import { VERSION } from "../version.ts";
import type { KindId } from "../kube/kinds.ts";
import type { ReadScope } from "../liqo/scopes.ts";
import type { ReadPlan } from "../diagnose/views.ts";

/** Options of the version command. */
export interface VersionOptions {
  kubeconfig?: string;
  context?: string;
  /** Bound of each API request (`0` = none); absent: 30s. */
  requestTimeout?: string;
  /** `-o`: text lines (default) or one JSON document. */
  output?: "text" | "json";
}

/** The cluster part of `version -o json`. */
export interface ClusterVersion {
  server: string;
  context: string;
  /** The Kubernetes gitVersion; null with `kubernetesError` when /version did not answer. */
  kubernetes: string | null;
  kubernetesError?: string;
  /** The Liqo version (controller-manager image tag); null when not found or not readable. */
  liqo: string | null;
  /** Why `liqo` is null. */
  liqoError?: string;
  liqoNamespace: string | null;
  clusterId: string | null;
}

/** The lines of the local part: FlyingFish, Deno (with V8 and TypeScript), the git commit. */
export async function localVersionLines(): Promise<string[]> {
  const commit = await gitCommit(new URL("../", import.meta.url));
  return [
    `flyingfish ${VERSION}`,
    `deno       ${Deno.version.deno} (v8 ${Deno.version.v8}, typescript ${Deno.version.typescript})`,
    `commit     ${commit ?? "unknown"}`,
  ];
}

/**
 * The commit of the checkout the code runs from, read from `.git` (HEAD, then the branch's ref or
 * packed-refs, in the common git dir of a linked worktree) — no `git` subprocess, so no `--allow-run`. Null when the code does not run from a
 * checkout (JSR, a compiled binary) or reading `.git` is not permitted (never prompts).
 */
export async function gitCommit(root: URL): Promise<string | null> {
  if (root.protocol !== "file:") return null;
  const read = async (url: URL): Promise<string | null> => {
    try {
      if (Deno.permissions.querySync({ name: "read", path: url }).state !== "granted") return null;
      return (await Deno.readTextFile(url)).trim();
    } catch {
      return null;
    }
  };
  let gitDir = new URL(".git/", root);
  const dotGit = await read(new URL(".git", root));
  const linked = dotGit?.match(/^gitdir: (.+)$/m);
  if (linked) gitDir = new URL(linked[1].endsWith("/") ? linked[1] : `${linked[1]}/`, root);
  const head = await read(new URL("HEAD", gitDir));
  if (!head) return null;
  const ref = head.match(/^ref: (\S+)$/)?.[1];
  if (!ref) return /^[0-9a-f]{40}$/.test(head) ? head.slice(0, 12) : null;
  // A linked worktree keeps its HEAD in its own git dir and the branches in the common one.
  const common = await read(new URL("commondir", gitDir));
  const refDir = common ? new URL(common.endsWith("/") ? common : `${common}/`, gitDir) : gitDir;
  const loose = await read(new URL(ref, gitDir)) ?? await read(new URL(ref, refDir));
  const packed = loose ? null : await read(new URL("packed-refs", refDir));
  const hash = loose ?? packed?.split("\n").find((l) => l.endsWith(` ${ref}`))?.split(" ")[0];
  return hash && /^[0-9a-f]{40}$/.test(hash)
    ? `${hash.slice(0, 12)} (${ref.replace(/^refs\/heads\//, "")})`
    : null;
}

/** What names Liqo's version and the cluster ID: the controller-manager, the cluster-ID ConfigMap. */
const VERSION_READS: ReadPlan = new Map<KindId, ReadonlySet<ReadScope>>([
  ["deployments", new Set<ReadScope>(["cluster"])],
  ["configmaps", new Set<ReadScope>(["liqo"])],
]);

/** The cluster part: server version and Liqo version of the kubeconfig's context. */
export async function clusterVersion(opts: VersionOptions): Promise<ClusterVersion> {
  const [{ openLiveCluster }, { loadView }, { liqoVersionOf }, { timeoutsFrom }] = await Promise.all([
    import("../kube/live/source.ts"),
    import("../diagnose/views.ts"),
    import("../liqo/lookups.ts"),
    import("./check.ts"),
  ]);
  const { requestTimeoutMs } = timeoutsFrom({ requestTimeout: opts.requestTimeout });
  const { source, reader } = await openLiveCluster({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    requestTimeoutMs,
  });
  try {
    await source.probeReachable();
    const [version, view] = await Promise.all([
      reader.version(),
      loadView(source, VERSION_READS),
    ]);
    const liqo = liqoVersionOf(view.inv) ?? null;
    const deployments = view.inv.tryItems("deployments");
    return {
      server: source.endpoint.server,
      context: source.endpoint.context,
      kubernetes: version.ok ? serverVersion(version.text) : null,
      ...(version.ok ? {} : { kubernetesError: version.message }),
      liqo,
      ...(liqo !== null ? {} : {
        liqoError: deployments === null
          ? "cannot list deployments"
          : "not found (no liqo-controller-manager Deployment)",
      }),
      liqoNamespace: view.liqoNamespace ?? null,
      clusterId: view.clusterId ?? null,
    };
  } finally {
    await source.close();
  }
}

/** The cluster part as `version` prints it. */
export async function clusterVersionLines(opts: VersionOptions): Promise<string[]> {
  const v = await clusterVersion(opts);
  const where = `${v.server}, context ${v.context}`;
  return [
    `server     ${v.kubernetes ?? `unknown (${v.kubernetesError})`} (${where})`,
    `liqo       ${
      v.liqo ?? (v.liqoError === "cannot list deployments" ? `unknown (${v.liqoError})` : v.liqoError)
    }${
      v.liqoNamespace
        ? ` (namespace ${v.liqoNamespace}${v.clusterId ? `, cluster ID ${v.clusterId}` : ""})`
        : ""
    }`,
  ];
}

/** `gitVersion` of a /version answer (the text itself when it is not the expected JSON). */
function serverVersion(text: string): string {
  try {
    const v = JSON.parse(text) as { gitVersion?: unknown };
    if (typeof v.gitVersion === "string") return v.gitVersion;
  } catch {
    // not JSON
  }
  return text.slice(0, 80);
}

/** Prints the version lines; the cluster part only when a kubeconfig or context is named. */
export async function printVersion(opts: VersionOptions): Promise<void> {
  const withCluster = opts.kubeconfig !== undefined || opts.context !== undefined;
  if (opts.output === "json") {
    const commit = await gitCommit(new URL("../", import.meta.url));
    const doc = {
      flyingfish: VERSION,
      deno: { deno: Deno.version.deno, v8: Deno.version.v8, typescript: Deno.version.typescript },
      commit,
      ...(withCluster ? { cluster: await clusterVersion(opts) } : {}),
    };
    console.log(JSON.stringify(doc, null, 2));
    return;
  }
  const lines = await localVersionLines();
  console.log(lines.join("\n"));
  if (opts.kubeconfig !== undefined || opts.context !== undefined) {
    console.log((await clusterVersionLines(opts)).join("\n"));
  }
}
