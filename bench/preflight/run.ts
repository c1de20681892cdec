/**
 * `deno task bench:preflight`: the wall time of `flyingfish preflight` (passive) and of
 * `flyingfish preflight --probe` against the fake API server — the real CLI over HTTPS on
 * testdata/preflight-probe/healthy (rome ↔ milan, Liqo installed, not peered, a healthy network
 * between them) — with the time of each phase: for the passive run, the process's start and the
 * engine's checks (their durations from the JSON report); for `--probe`, the progress lines'
 * times (pre-flight, namespaces, pods Ready, echo, cleanup) and the session's own stages.
 *
 *   deno task bench:preflight [--runs N]
 */
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";

const REPO = new URL("../../", import.meta.url);
const ROOT = new URL("testdata/preflight-probe/", REPO);
const PERMISSIONS = ["--allow-env", "--allow-read", "--allow-net=127.0.0.1"];

/** One CLI run: wall time, stderr lines with their time since start, the JSON report. */
async function cli(args: string[], cwd: string) {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--frozen",
      "--config",
      decodeURIComponent(new URL("deno.json", REPO).pathname),
      ...PERMISSIONS,
      decodeURIComponent(new URL("cli/main.ts", REPO).pathname),
      ...args,
    ],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const lines: { ms: number; line: string }[] = [];
  let buf = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    const parts = buf.split("\n");
    buf = parts.pop() ?? "";
    for (const l of parts) lines.push({ ms: performance.now() - t0, line: l });
  }
  const { code } = await child.status;
  const wall = performance.now() - t0;
  // deno-lint-ignore no-explicit-any
  let report: any = null;
  try {
    report = JSON.parse(await stdout);
  } catch {
    report = null;
  }
  return { code, wall, lines, report };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function once(run: number): Promise<void> {
  const scenario = await loadScenario("healthy", ROOT);
  const served = await serveScenario(scenario, { tls: true });
  const tmp = await Deno.makeTempDir({ prefix: "ff-bench-preflight-" });
  try {
    await Deno.writeTextFile(`${tmp}/rome.kubeconfig`, served.kubeconfigYaml("rome"));
    await Deno.writeTextFile(`${tmp}/milan.kubeconfig`, served.kubeconfigYaml("milan"));
    const base = [
      "preflight",
      "--kubeconfig",
      "rome.kubeconfig",
      "--remote-kubeconfig",
      "milan.kubeconfig",
      "-o",
      "json",
      "--no-network-probes",
    ];
    for (const probe of [false, true]) {
      const r = await cli(probe ? [...base, "--probe", "--probe-timeout", "10s"] : base, tmp);
      const results: { id: string; status: string; durationMs: number }[] = r.report?.results ?? [];
      console.log(
        `run ${run}: preflight${probe ? " --probe" : ""}: ${s(r.wall)} wall, exit ${r.code}, verdict ${
          r.report?.preflight?.verdict ?? "?"
        }`,
      );
      const first = r.lines[0]?.ms ?? r.wall;
      console.log(`  ${s(first).padStart(8)}  process start → first line (${r.lines[0]?.line ?? "none"})`);
      for (const l of r.lines.filter((x) => /^flyingfish: /.test(x.line))) {
        console.log(`  ${s(l.ms).padStart(8)}  ${l.line.replace(/^flyingfish: /, "")}`);
      }
      const passive = results.filter((x) => !/^PF-(API|EXP|UDP|DIR|MTU)$/.test(x.id));
      const active = results.filter((x) => /^PF-(API|EXP|UDP|DIR|MTU)$/.test(x.id));
      console.log(
        `  passive checks: ${passive.length}, slowest ${
          passive.sort((a, b) => b.durationMs - a.durationMs).slice(0, 3).map((x) =>
            `${x.id} ${s(x.durationMs)}`
          )
            .join(", ")
        }`,
      );
      if (active.length) console.log(`  active: ${active.map((x) => `${x.id} ${x.status}`).join(", ")}`);
      const left = Object.values(served.clusters).flatMap((c) =>
        (c?.objects() ?? []).filter((o) => o.metadata.name.startsWith("flyingfish-preflight-"))
      );
      console.log(`  ${left.length} objects of the run left`);
    }
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--runs");
  const runs = i >= 0 ? Math.max(1, Number(Deno.args[i + 1]) || 1) : 1;
  for (let r = 1; r <= runs; r++) await once(r);
}
