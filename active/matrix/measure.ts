/**
 * PROBE-MATRIX: from every probe pod to every probe pod of the other cluster (and, as the control
 * group, of its own), a TCP connect (`agnhost connect`) and a UDP echo through the pod's own netexec
 * `/dial hostname` — the answer must name the pod dialled, so an address that lands on the wrong
 * pod is red, not green. Each source pod runs its whole row in one exec (commands.ts matrixRow: every
 * cell at once inside the pod), the rows at once under the per-cluster exec bound of the context; a
 * failed protocol is tried once more and is `flaky` if that passes (never ok). The judge
 * (active/matrix/judge.ts) reads the pattern by the reading rules.
 *
 * Grids: local → remote; remote → local (direct mode only: an offloaded pod cannot know the
 * consumer's remapping without the provider's Configuration); local → local and remote → remote
 * (control). Offload mode: the remote pods are the offloaded ones, exec'd through the consumer.
 */
import { type JudgedGrid, judgeMatrix, type MatrixClusterRef, NOT_REACHED } from "./judge.ts";
import { parseDialAnswer } from "../udp/judge.ts";
import { matrixRow, PROBE_PORTS, type RowCell, tcpConnect, udpDial } from "../commands.ts";
import type { CellState, MatrixCell, MatrixGrid, ProbePod, Side } from "../model.ts";
import type { ExecOutcome } from "../../kube/source.ts";
import type { ProbeRun, ProbeRunContext } from "../context.ts";
import { offloadColumns, peerVirtualNodes } from "../offload.ts";

/** TCP connect timeout per cell, seconds. */
export const MATRIX_TCP_TIMEOUT_S = 3;
/** Bound on one UDP echo through netexec `/dial`, seconds (curl --max-time). */
export const MATRIX_UDP_TIMEOUT_S = 5;

/** One protocol's try: its state and, when not ok, why. */
interface Try {
  state: "ok" | "fail" | "unknown";
  detail: string;
}

function firstLine(s: string): string {
  return s.trim().split("\n")[0]?.trim() ?? "";
}

/** Reads `agnhost connect`'s exit: 0 connected; 1 with TIMEOUT/REFUSED/DNS/OTHER on stderr. */
export function readTcp(out: ExecOutcome, target: string): Try {
  if (!out.ok) return { state: "unknown", detail: `TCP not measured (exec: ${out.message})` };
  if (out.exitCode === 0) return { state: "ok", detail: "" };
  const err = firstLine(out.stderr) || firstLine(out.stdout);
  if (out.exitCode === 1) {
    const kind = /^(TIMEOUT|REFUSED|DNS|OTHER|UNKNOWN)\b/.exec(err)?.[1];
    return {
      state: "fail",
      detail: `TCP ${kind ?? "failed"} to ${target}${kind ? "" : `: ${err || "exit 1"}`}`,
    };
  }
  return {
    state: "unknown",
    detail: `TCP not measured (agnhost connect exit ${out.exitCode}: ${err || "no output"})`,
  };
}

/** Reads a netexec `/dial hostname` over UDP: the answer must name `expected`. */
export function readUdp(out: ExecOutcome, target: string, expected: string): Try {
  if (!out.ok) return { state: "unknown", detail: `UDP not measured (exec: ${out.message})` };
  if (out.exitCode === 28) {
    return { state: "fail", detail: `UDP no answer from ${target} within ${MATRIX_UDP_TIMEOUT_S} s` };
  }
  if (out.exitCode !== 0) {
    return {
      state: "unknown",
      detail: `UDP not measured (curl to the pod's own netexec: exit ${out.exitCode}: ${
        firstLine(out.stderr) || "no output"
      })`,
    };
  }
  const answer = parseDialAnswer(out.stdout);
  if (!answer) {
    return {
      state: "unknown",
      detail: `UDP not measured (netexec answer not JSON: ${firstLine(out.stdout)})`,
    };
  }
  const names = answer.responses.map((r) => r.trim()).filter((r) => r !== "");
  if (names.includes(expected)) return { state: "ok", detail: "" };
  if (names.length > 0) {
    return { state: "fail", detail: `UDP to ${target} answered by ${names[0]}, expected ${expected}` };
  }
  return {
    state: "fail",
    detail: `UDP no answer from ${target}${answer.errors[0] ? `: ${answer.errors[0]}` : ""}`,
  };
}

/** One protocol tried once, and once more if it failed: a pass on the retry is flaky. */
async function tryTwice(once: () => Promise<Try>): Promise<{ state: CellState; detail: string }> {
  const first = await once();
  if (first.state !== "fail") return first;
  const second = await once();
  if (second.state === "ok") return { state: "flaky", detail: `${first.detail} (passed on the retry)` };
  // A retry that could not run leaves the first failure standing.
  return { state: "fail", detail: second.state === "fail" ? second.detail : first.detail };
}

/** Measures one cell: TCP and UDP from `from` to `to` at the address `from` must dial. */
export async function measureCell(ctx: ProbeRunContext, from: ProbePod, to: ProbePod): Promise<MatrixCell> {
  const addr = ctx.addressing.dial(from, to);
  if (addr.ip === null) {
    return { tcp: "unknown", udp: "unknown", detail: `no address for ${to.name}: ${addr.reason}` };
  }
  const ip = addr.ip;
  const [tcp, udp] = await Promise.all([
    tryTwice(async () =>
      readTcp(await ctx.exec(from, tcpConnect(ip, MATRIX_TCP_TIMEOUT_S)), `${ip}:${PROBE_PORTS.http}`)
    ),
    tryTwice(async () =>
      readUdp(
        await ctx.exec(from, udpDial(ip, "hostname", MATRIX_UDP_TIMEOUT_S)),
        `${ip}:${PROBE_PORTS.udp}`,
        to.name,
      )
    ),
  ]);
  return {
    tcp: tcp.state,
    udp: udp.state,
    detail: [tcp.detail, udp.detail].filter((d) => d !== "").join("; "),
  };
}

/** A grid to measure: its pods and labels. */
interface GridSpec {
  title: string;
  control: boolean;
  from: MatrixClusterRef;
  to: MatrixClusterRef;
  rows: ProbePod[];
  cols: ProbePod[];
  rowLabels: string[];
  colLabels: string[];
  colsArePods: boolean;
  /** Why columns are pods (offload mode), for the evidence. */
  note: string | null;
}

/** How commands (by side: the report names the cluster) and text (by name) refer to each side's cluster. */
function clusterRefs(ctx: ProbeRunContext): Record<Side, MatrixClusterRef> {
  return {
    local: {
      side: "local",
      name: ctx.local.view.name,
      liqoNamespace: ctx.local.view.liqoNamespace ?? "liqo",
    },
    remote: {
      side: "remote",
      name: ctx.remote?.view.name ?? ctx.peer,
      liqoNamespace: ctx.remote?.view.liqoNamespace ?? "liqo",
    },
  };
}

/** Labels of a side's pods: node names, or pod names for offloaded pods whose node is unknown. */
function labelsOf(
  ctx: ProbeRunContext,
  pods: readonly ProbePod[],
): { labels: string[]; byPod: boolean; note: string | null } {
  const offloaded = pods.some((p) => p.side !== p.execSide);
  if (!offloaded) {
    const labels = pods.map((p) => p.node);
    // Two pods on one node would make two columns of one name: fall back to pod names.
    if (new Set(labels).size === labels.length) return { labels, byPod: false, note: null };
    return { labels: pods.map((p) => p.name), byPod: true, note: null };
  }
  let virtual: string[] = [];
  try {
    virtual = peerVirtualNodes(ctx.local.view, ctx.peer).map((v) => v.name);
  } catch {
    virtual = [];
  }
  const cols = offloadColumns(pods, virtual);
  const unique = new Set(cols.labels).size === cols.labels.length;
  if (unique) return { labels: cols.labels, byPod: cols.note !== null, note: cols.note };
  return {
    labels: pods.map((p) => p.name),
    byPod: true,
    note: cols.note ?? "columns are offloaded pods: several ran on one node",
  };
}

/** The grids of a run, in report order: cross grids first, then the control grids. */
export function gridSpecs(ctx: ProbeRunContext): GridSpec[] {
  const refs = clusterRefs(ctx);
  const local = ctx.fleet.local;
  const remote = ctx.fleet.remote;
  const l = labelsOf(ctx, local);
  const r = labelsOf(ctx, remote);
  const specs: GridSpec[] = [];
  const offloaded = remote.some((p) => p.side !== p.execSide) ? " (offloaded pods)" : "";
  if (local.length && remote.length) {
    specs.push({
      title: `${refs.local.name} → ${refs.remote.name}${offloaded}`,
      control: false,
      from: refs.local,
      to: refs.remote,
      rows: local,
      cols: remote,
      rowLabels: l.labels,
      colLabels: r.labels,
      colsArePods: r.byPod,
      note: r.note,
    });
    if (ctx.mode === "direct") {
      specs.push({
        title: `${refs.remote.name} → ${refs.local.name}`,
        control: false,
        from: refs.remote,
        to: refs.local,
        rows: remote,
        cols: local,
        rowLabels: r.labels,
        colLabels: l.labels,
        colsArePods: l.byPod,
        note: l.note,
      });
    }
  }
  if (local.length) {
    specs.push({
      title: `${refs.local.name} → ${refs.local.name} (control)`,
      control: true,
      from: refs.local,
      to: refs.local,
      rows: local,
      cols: local,
      rowLabels: l.labels,
      colLabels: l.labels,
      colsArePods: l.byPod,
      note: null,
    });
  }
  if (remote.length) {
    specs.push({
      title: `${refs.remote.name} → ${refs.remote.name} (control${offloaded ? ", offloaded pods" : ""})`,
      control: true,
      from: refs.remote,
      to: refs.remote,
      rows: remote,
      cols: remote,
      rowLabels: r.labels,
      colLabels: r.labels,
      colsArePods: r.byPod,
      note: r.note,
    });
  }
  return specs;
}

/** One try's result as the row script printed it: the exit status and the (one-line) output. */
export interface RowTry {
  exit: number;
  text: string;
}

/** Parses the row script's output (commands.ts matrixRow): `<tcp|udp> <k> <exit> <text>` lines. */
export function parseRow(stdout: string): Map<string, RowTry> {
  const out = new Map<string, RowTry>();
  for (const line of stdout.split("\n")) {
    const m = /^(tcp|udp) (\d+) (\d+) ?(.*)$/.exec(line);
    if (m) out.set(`${m[1]}:${m[2]}`, { exit: Number(m[3]), text: m[4] });
  }
  return out;
}

/** A row try as the ExecOutcome {@link readTcp}/{@link readUdp} read (what the pod's command printed). */
function asOutcome(t: RowTry): ExecOutcome {
  return { ok: true, exitCode: t.exit, stdout: t.text, stderr: t.text, via: "api" };
}

/** One cell to measure from a source pod: where it lands in the grids, whom it dials. */
interface RowJob {
  grid: number;
  r: number;
  c: number;
  to: ProbePod;
  ip: string;
}

/** A cell's two protocols as measured so far. */
interface CellTries {
  tcp: Try;
  udp: Try;
}

/**
 * Runs one row exec from `from` for `jobs` (the protocols in `want`), and reads each try; a try the
 * exec did not report (exec failed, cut short) is unknown with the reason.
 */
async function runRow(
  ctx: ProbeRunContext,
  from: ProbePod,
  jobs: readonly RowJob[],
  want: (j: RowJob) => { tcp: boolean; udp: boolean },
): Promise<Partial<CellTries>[]> {
  const cells: RowCell[] = jobs.map((j) => ({ ip: j.ip, ...want(j) }));
  const out = await ctx.exec(from, matrixRow(cells, MATRIX_TCP_TIMEOUT_S, MATRIX_UDP_TIMEOUT_S));
  const tries = out.ok ? parseRow(out.stdout) : new Map<string, RowTry>();
  const missing = (proto: string): Try => ({
    state: "unknown",
    detail: ctx.signal.aborted
      ? NOT_REACHED
      : out.ok
      ? `${proto} not measured (the row script printed no result: exit ${out.exitCode}${
        firstLine(out.stderr) ? `: ${firstLine(out.stderr)}` : ""
      })`
      : `${proto} not measured (exec: ${out.message})`,
  });
  return jobs.map((j, k) => {
    const w = cells[k];
    const res: Partial<CellTries> = {};
    if (w.tcp) {
      const t = tries.get(`tcp:${k}`);
      res.tcp = t ? readTcp(asOutcome(t), `${j.ip}:${PROBE_PORTS.http}`) : missing("TCP");
    }
    if (w.udp) {
      const t = tries.get(`udp:${k}`);
      res.udp = t ? readUdp(asOutcome(t), `${j.ip}:${PROBE_PORTS.udp}`, j.to.name) : missing("UDP");
    }
    return res;
  });
}

/** First try and retry of one protocol, combined like {@link tryTwice}. */
function combine(first: Try, second: Try | undefined): { state: CellState; detail: string } {
  if (first.state !== "fail" || !second) return first;
  if (second.state === "ok") return { state: "flaky", detail: `${first.detail} (passed on the retry)` };
  return { state: "fail", detail: second.state === "fail" ? second.detail : first.detail };
}

/**
 * Measures every cell of every grid: one row exec per source pod runs all its cells (every grid
 * it is a row of) at once, and one more for the protocols that failed (the retry). The rows run in
 * parallel under the context's per-cluster exec bound, so a fully red matrix costs about two
 * exec waves of the UDP bound per ⌈source pods / bound⌉ — linear in the nodes, not in the cells.
 * Cells not reached when the probe's time ran out stay unknown, saying so.
 */
export async function measureGrids(ctx: ProbeRunContext, specs: readonly GridSpec[]): Promise<JudgedGrid[]> {
  const total = specs.reduce((n, s) => n + s.rows.length * s.cols.length, 0);
  const cells: MatrixCell[][][] = specs.map((s) =>
    s.rows.map(() =>
      s.cols.map(() => ({
        tcp: "unknown" as CellState,
        udp: "unknown" as CellState,
        detail: NOT_REACHED,
      }))
    )
  );
  const rows = new Map<string, { from: ProbePod; jobs: RowJob[] }>();
  specs.forEach((s, g) =>
    s.rows.forEach((from, r) =>
      s.cols.forEach((to, c) => {
        const addr = ctx.addressing.dial(from, to);
        if (addr.ip === null) {
          cells[g][r][c] = {
            tcp: "unknown",
            udp: "unknown",
            detail: `no address for ${to.name}: ${addr.reason}`,
          };
          return;
        }
        const key = `${from.execSide}/${from.namespace}/${from.name}`;
        const row = rows.get(key) ?? { from, jobs: [] };
        row.jobs.push({ grid: g, r, c, to, ip: addr.ip });
        rows.set(key, row);
      })
    )
  );
  ctx.progress(
    `matrix: measuring ${total} cells (TCP + UDP) in ${specs.length} grids, one exec per source pod (${rows.size})`,
  );
  const step = Math.max(1, Math.ceil(rows.size / 4));
  let done = 0;
  await Promise.all([...rows.values()].map(async ({ from, jobs }) => {
    if (ctx.signal.aborted) return;
    const first = await runRow(ctx, from, jobs, () => ({ tcp: true, udp: true }));
    const failed = jobs.map((_, k) => k).filter((k) =>
      first[k].tcp?.state === "fail" || first[k].udp?.state === "fail"
    );
    const again = failed.length > 0 && !ctx.signal.aborted
      ? await runRow(ctx, from, failed.map((k) => jobs[k]), (j) => {
        const k = jobs.indexOf(j);
        return { tcp: first[k].tcp?.state === "fail", udp: first[k].udp?.state === "fail" };
      })
      : [];
    jobs.forEach((j, k) => {
      const i = failed.indexOf(k);
      const retry = i >= 0 ? again[i] : undefined;
      const tcp = combine(first[k].tcp!, retry?.tcp);
      const udp = combine(first[k].udp!, retry?.udp);
      cells[j.grid][j.r][j.c] = {
        tcp: tcp.state,
        udp: udp.state,
        // One reason once (both protocols not reached, or not measured for the same reason).
        detail: [...new Set([tcp.detail, udp.detail])].filter((d) => d !== "").join("; "),
      };
    });
    done++;
    if (done % step === 0 && done < rows.size) ctx.progress(`matrix: ${done}/${rows.size} source pods done`);
  }));
  return specs.map((s, g) => {
    const grid: MatrixGrid = {
      title: s.title,
      control: s.control,
      fromCluster: s.from.name,
      toCluster: s.to.name,
      rows: s.rowLabels,
      cols: s.colLabels,
      cells: cells[g],
    };
    return { grid, from: s.from, to: s.to, colsArePods: s.colsArePods, note: s.note };
  });
}

/** PROBE-MATRIX: measures every grid and judges the pattern. */
export async function runMatrix(ctx: ProbeRunContext): Promise<ProbeRun> {
  const specs = gridSpecs(ctx);
  if (!specs.some((s) => !s.control)) {
    const missing = ctx.fleet.local.length === 0 ? ctx.local.view.name : ctx.remote?.view.name ?? ctx.peer;
    return { status: "unknown", summary: `no probe pod in ${missing}: no cross-cluster cell to measure` };
  }
  const grids = await measureGrids(ctx, specs);
  const { outcome, matrix } = judgeMatrix(grids);
  return { ...outcome, matrix };
}
