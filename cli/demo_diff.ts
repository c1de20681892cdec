/**
 * `flyingfish demo <before> --diff <after>`: `flyingfish diff` on two demo scenarios, each served by
 * the fake API server on 127.0.0.1 in turn, read the way watch reads a round (redacted, recorded)
 * and diagnosed passively; one `now` for both, so only what the scenarios change differs.
 */
import { loadScenario, serveScenario } from "@flyingfish/fakekube";
import { ToolError } from "../errors.ts";
import type { SideCapture } from "../diff/capture.ts";
import type { Format } from "../render/render.ts";
import { stdoutIsTty, terminalColumns, useColor, writeOut } from "./output.ts";

async function sideOf(name: string, now: Date): Promise<SideCapture> {
  const [{ createLiveSource }, { recordingSource }, { sideFromRecorded }] = await Promise.all([
    import("../kube/live/source.ts"),
    import("../diff/capture.ts"),
    import("../diff/open.ts"),
  ]);
  const s = await loadScenario(name);
  const served = await serveScenario(s, { tls: true, now });
  try {
    const open = async (cluster: string) =>
      recordingSource(
        await createLiveSource({ kubeconfigYaml: served.kubeconfigYaml(cluster), context: cluster }),
      );
    const local = await open(s.run.local);
    const remote = s.run.remote ? await open(s.run.remote) : null;
    try {
      return await sideFromRecorded(`demo:${name}`, local, remote, {
        networkProbes: false,
        preciseUdp: false,
        sampleIntervalMs: 200,
        latencyThresholdMs: 200,
        checkTimeoutMs: 30_000,
      });
    } finally {
      await local.source.close();
      await remote?.source.close();
    }
  } finally {
    await served.close();
  }
}

/** Runs the diff of two demo scenarios and prints it; returns the diff's exit code. */
export async function runDemoDiff(
  before: string,
  after: string,
  opts: { output: Format; color?: boolean; verbose?: boolean },
): Promise<number> {
  const [{ listScenarios }, { diffSides }, { PASSIVE_CHECKS }, { renderDiff }] = await Promise.all([
    import("@flyingfish/fakekube"),
    import("../diff/diff.ts"),
    import("../checks/catalog.ts"),
    import("../render/diff_formats.ts"),
  ]);
  const known = await listScenarios();
  for (const n of [before, after]) {
    if (!known.includes(n)) throw new ToolError(`no demo scenario "${n}" (try \`flyingfish demo --list\`)`);
  }
  const now = new Date();
  const d = diffSides(await sideOf(before, now), await sideOf(after, now), PASSIVE_CHECKS, now);
  writeOut(
    renderDiff(d, opts.output, {
      color: useColor(opts.color),
      verbose: opts.verbose,
      width: stdoutIsTty() ? terminalColumns() : undefined,
    }),
  );
  return d.exitCode;
}
